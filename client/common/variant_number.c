#include "variant_number.h"

bool jc_variant_number(GVariant *v, double *out)
{
        if (g_variant_is_of_type(v, G_VARIANT_TYPE_DOUBLE))
                *out = g_variant_get_double(v);
        else if (g_variant_is_of_type(v, G_VARIANT_TYPE_UINT64))
                *out = (double) g_variant_get_uint64(v);
        else if (g_variant_is_of_type(v, G_VARIANT_TYPE_UINT32))
                *out = g_variant_get_uint32(v);
        else if (g_variant_is_of_type(v, G_VARIANT_TYPE_INT32))
                *out = g_variant_get_int32(v);
        else
                return false;
        return true;
}
