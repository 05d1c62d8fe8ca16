#include "props.h"

#include <stdlib.h>
#include <string.h>

#include "bus.h"
#include "jetsond-dbus.h"

int jc_props_fetch(jc_ctx *c, const char *path, const char *iface, bool optional, const char *doing,
                   const char *absent, GVariant **props)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = 0;
        *props = jc_get_all(c, path, iface, &error, &r);
        if (*props) {
                return JC_EXIT_OK;
        }
        int ret = JC_EXIT_OK;
        if (!(optional && jc_error_has_either(&error, SD_BUS_ERROR_UNKNOWN_INTERFACE, SD_BUS_ERROR_UNKNOWN_OBJECT)))
                ret = jc_report_error(doing, &error, r, NULL, absent);
        sd_bus_error_free(&error);
        return ret;
}

const char *jc_prop_str(GVariant *props, const char *name)
{
        const char *v = NULL;
        if (!props || !g_variant_lookup(props, name, "&s", &v))
                return "";
        return v;
}

static GVariant *lookup(GVariant *props, const char *name, const GVariantType *type)
{
        return props ? g_variant_lookup_value(props, name, type) : NULL;
}

bool jc_prop_u32(GVariant *props, const char *name, uint32_t *v)
{
        g_autoptr(GVariant) x = lookup(props, name, G_VARIANT_TYPE_UINT32);
        if (x)
                *v = g_variant_get_uint32(x);
        return x != NULL;
}

bool jc_prop_u64(GVariant *props, const char *name, uint64_t *v)
{
        g_autoptr(GVariant) x = lookup(props, name, G_VARIANT_TYPE_UINT64);
        if (x)
                *v = g_variant_get_uint64(x);
        return x != NULL;
}

bool jc_prop_bool(GVariant *props, const char *name, bool *v)
{
        g_autoptr(GVariant) x = lookup(props, name, G_VARIANT_TYPE_BOOLEAN);
        if (x)
                *v = g_variant_get_boolean(x);
        return x != NULL;
}

bool jc_prop_double(GVariant *props, const char *name, double *v)
{
        g_autoptr(GVariant) x = lookup(props, name, G_VARIANT_TYPE_DOUBLE);
        if (x)
                *v = g_variant_get_double(x);
        return x != NULL;
}

static void object_free(gpointer p)
{
        jc_object *f = p;
        g_free(f->path);
        if (f->props)
                g_variant_unref(f->props);
        g_free(f);
}

static gint object_cmp(gconstpointer a, gconstpointer b)
{
        const jc_object *x = *(jc_object *const *) a, *y = *(jc_object *const *) b;
        return x->index < y->index ? -1 : x->index > y->index;
}

int jc_objects_fetch(jc_ctx *c, const char *doing, const char *iface, const char *path_prefix, GPtrArray **out)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = 0;
        g_autoptr(GVariant) reply = jc_call(c, JD_OBJECT_PATH, "org.freedesktop.DBus.ObjectManager",
                                            "GetManagedObjects", false, &error, &r, NULL);
        if (!reply) {
                int ret = jc_report_error(doing, &error, r, NULL, NULL);
                sd_bus_error_free(&error);
                return ret;
        }
        *out = g_ptr_array_new_with_free_func(object_free);
        if (!g_variant_is_of_type(reply, G_VARIANT_TYPE("(a{oa{sa{sv}}})")))
                return JC_EXIT_OK;
        g_autoptr(GVariant) objects = g_variant_get_child_value(reply, 0);
        GVariantIter it;
        const char *path;
        GVariant *ifaces;
        g_variant_iter_init(&it, objects);
        while (g_variant_iter_next(&it, "{&o@a{sa{sv}}}", &path, &ifaces)) {
                GVariant *props = g_variant_lookup_value(ifaces, iface, G_VARIANT_TYPE("a{sv}"));
                const char *n = g_str_has_prefix(path, path_prefix) ? path + strlen(path_prefix) : NULL;
                char *end = NULL;
                unsigned long index = n && g_ascii_isdigit(*n) ? strtoul(n, &end, 10) : 0;
                if (props && end && !*end) {
                        jc_object *f = g_new0(jc_object, 1);
                        f->index = (unsigned) index;
                        f->path = g_strdup(path);
                        f->props = props;
                        g_ptr_array_add(*out, f);
                } else if (props) {
                        g_variant_unref(props);
                }
                g_variant_unref(ifaces);
        }
        g_ptr_array_sort(*out, object_cmp);
        return JC_EXIT_OK;
}

int jc_fans_fetch(jc_ctx *c, const char *doing, GPtrArray **fans)
{
        return jc_objects_fetch(c, doing, JD_IFACE_FAN, JD_FAN_PATH_PREFIX, fans);
}

const char *jc_mode_name(GVariant *nvp_props, uint32_t id)
{
        g_autoptr(GVariant) modes = lookup(nvp_props, "Modes", G_VARIANT_TYPE("a(us)"));
        if (!modes)
                return NULL;
        GVariantIter it;
        uint32_t mid;
        const char *name;
        g_variant_iter_init(&it, modes);
        while (g_variant_iter_next(&it, "(u&s)", &mid, &name))
                if (mid == id)
                        return name; /* borrowed from nvp_props, which holds the array */
        return NULL;
}
