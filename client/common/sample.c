#include "sample.h"

#include <stdarg.h>
#include <stdio.h>

#include "bus.h"
#include "caller_pids.h"
#include "jetsond-dbus.h"
#include "output.h"

void jc_sample_clear(jc_sample *s)
{
        g_clear_pointer(&s->values, g_variant_unref);
        g_clear_pointer(&s->commands, g_hash_table_unref);
        s->timestamp_usec = 0;
}

bool jc_sample_from_variant(jc_sample *s, GVariant *tuple)
{
        bool at = g_variant_is_of_type(tuple, G_VARIANT_TYPE("(sta{sv})"));
        if (!at && !g_variant_is_of_type(tuple, G_VARIANT_TYPE("(ta{sv})")))
                return false;
        jc_sample_clear(s);
        if (at)
                g_variant_get(tuple, "(&st@a{sv})", NULL, &s->timestamp_usec, &s->values);
        else
                g_variant_get(tuple, "(t@a{sv})", &s->timestamp_usec, &s->values);
        return true;
}

int jc_sample_fetch(jc_ctx *c, jc_sample *s)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = 0;
        g_autoptr(GVariant) reply = jc_call(c, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetSnapshot", false, &error, &r, NULL);
        if (!reply) {
                int ret = jc_report_error("reading the latest sample", &error, r, NULL, NULL);
                sd_bus_error_free(&error);
                return ret;
        }
        if (!jc_sample_from_variant(s, reply)) {
                fprintf(stderr, "jetsonctl: reading the latest sample: unexpected reply type %s\n",
                        g_variant_get_type_string(reply));
                return JC_EXIT_FAILURE;
        }
        jc_sample_to_caller(c, s);
        return JC_EXIT_OK;
}

void jc_sample_to_caller(jc_ctx *c, jc_sample *s)
{
        if (!c->caller_names)
                c->caller_names = jc_caller_names_new();
        jc_sample_values_to_caller(c, c->caller_names, &s->values);
}

GVariant *jc_sample_lookup(const jc_sample *s, const char *key)
{
        return s->values ? g_variant_lookup_value(s->values, key, NULL) : NULL;
}

bool jc_sample_double(const jc_sample *s, const char *key, double *v)
{
        g_autoptr(GVariant) x = jc_sample_lookup(s, key);
        if (!x || !g_variant_is_of_type(x, G_VARIANT_TYPE_DOUBLE))
                return false;
        *v = g_variant_get_double(x);
        return true;
}

bool jc_sample_uint(const jc_sample *s, const char *key, uint64_t *v)
{
        g_autoptr(GVariant) x = jc_sample_lookup(s, key);
        if (x && g_variant_is_of_type(x, G_VARIANT_TYPE_UINT32))
                *v = g_variant_get_uint32(x);
        else if (x && g_variant_is_of_type(x, G_VARIANT_TYPE_UINT64))
                *v = g_variant_get_uint64(x);
        else
                return false;
        return true;
}

bool jc_sample_bool(const jc_sample *s, const char *key, bool *v)
{
        g_autoptr(GVariant) x = jc_sample_lookup(s, key);
        if (!x || !g_variant_is_of_type(x, G_VARIANT_TYPE_BOOLEAN))
                return false;
        *v = g_variant_get_boolean(x);
        return true;
}

const char *jc_sample_string(const jc_sample *s, const char *key)
{
        const char *v = NULL;
        /* &s borrows from s->values, which outlives the result. */
        if (!s->values || !g_variant_lookup(s->values, key, "&s", &v))
                return NULL;
        return v;
}

#define KEYF(fmt)                                   \
        va_list ap;                                 \
        va_start(ap, fmt);                          \
        g_autofree char *key = g_strdup_vprintf(fmt, ap); \
        va_end(ap)

bool jc_sample_uintf(const jc_sample *s, uint64_t *v, const char *fmt, ...)
{
        KEYF(fmt);
        return jc_sample_uint(s, key, v);
}

bool jc_sample_doublef(const jc_sample *s, double *v, const char *fmt, ...)
{
        KEYF(fmt);
        return jc_sample_double(s, key, v);
}

bool jc_sample_boolf(const jc_sample *s, bool *v, const char *fmt, ...)
{
        KEYF(fmt);
        return jc_sample_bool(s, key, v);
}

char *jc_value_to_text(GVariant *value)
{
        if (g_variant_is_of_type(value, G_VARIANT_TYPE_VARIANT)) {
                g_autoptr(GVariant) inner = g_variant_get_variant(value);
                return jc_value_to_text(inner);
        }
        switch (g_variant_classify(value)) {
        case G_VARIANT_CLASS_BOOLEAN: return g_strdup(g_variant_get_boolean(value) ? "true" : "false");
        case G_VARIANT_CLASS_DOUBLE: return jc_format_double(g_variant_get_double(value));
        case G_VARIANT_CLASS_UINT32: return g_strdup_printf("%" G_GUINT32_FORMAT, g_variant_get_uint32(value));
        case G_VARIANT_CLASS_UINT64: return g_strdup_printf("%" G_GUINT64_FORMAT, g_variant_get_uint64(value));
        case G_VARIANT_CLASS_INT32: return g_strdup_printf("%" G_GINT32_FORMAT, g_variant_get_int32(value));
        case G_VARIANT_CLASS_INT64: return g_strdup_printf("%" G_GINT64_FORMAT, g_variant_get_int64(value));
        case G_VARIANT_CLASS_STRING: return g_variant_dup_string(value, NULL);
        default: return g_variant_print(value, FALSE);
        }
}
