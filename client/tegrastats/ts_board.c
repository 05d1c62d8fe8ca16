/* What the line's form depends on, read once from jetsond: the L4T
 * release and SoC (Board) and the sensors in the hardware's order
 * (Metrics.Sensors). */
#include "ts_board.h"

#include <string.h>

#include "common/bus.h"
#include "common/props.h"
#include "jetsond-dbus.h"

/* A jetsond without the Sensors property: its zones and rails from the
 * sample's keys, in the sample's (sorted) order, zones by their key. */
static void sensors_from_keys(GPtrArray *sensors, const char *const *keys)
{
        for (const char *const *k = keys; k && *k; k++) {
                const char *key = *k;
                ts_sensor *s = NULL;
                if (g_str_has_prefix(key, "temp.")) {
                        s = g_new0(ts_sensor, 1);
                        s->key = g_strdup(key);
                        s->kind = g_strdup("thermal_zone");
                        s->label = g_strdup(key + 5);
                } else if (g_str_has_prefix(key, "power.") && g_str_has_suffix(key, ".power")) {
                        s = g_new0(ts_sensor, 1);
                        s->key = g_strndup(key, strlen(key) - strlen(".power"));
                        s->kind = g_strdup("rail");
                        s->label = g_strdup(s->key + 6);
                }
                if (s)
                        g_ptr_array_add(sensors, s);
        }
}

static int fetch_sensors(jc_ctx *c, GPtrArray *sensors, const char *const *keys)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;
        g_autoptr(GVariant) reply = jc_call(c, JD_OBJECT_PATH, "org.freedesktop.DBus.Properties", "Get", false,
                                            &error, &r, "ss", JD_IFACE_METRICS, "Sensors");
        if (!reply) {
                bool old = jc_error_has_either(&error, SD_BUS_ERROR_UNKNOWN_PROPERTY, SD_BUS_ERROR_INVALID_ARGS);
                int ret = old ? JC_EXIT_OK : jc_report_error("reading the sensors", &error, r, NULL, NULL);
                sd_bus_error_free(&error);
                if (old)
                        sensors_from_keys(sensors, keys);
                return ret;
        }
        g_autoptr(GVariant) list = NULL;
        g_variant_get(reply, "(v)", &list);
        if (!g_variant_is_of_type(list, G_VARIANT_TYPE("a(sss)")))
                return JC_EXIT_OK;
        GVariantIter it;
        const char *key, *kind, *label;
        g_variant_iter_init(&it, list);
        while (g_variant_iter_next(&it, "(&s&s&s)", &key, &kind, &label)) {
                ts_sensor *s = g_new0(ts_sensor, 1);
                s->key = g_strdup(key);
                s->kind = g_strdup(kind);
                s->label = g_strdup(label);
                g_ptr_array_add(sensors, s);
        }
        return JC_EXIT_OK;
}

int ts_board_fetch(jc_ctx *c, ts_board *b, const char *const *keys)
{
        g_autoptr(GVariant) props = NULL;
        int ret = jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_BOARD, false, "reading the board", NULL, &props);
        if (ret != JC_EXIT_OK)
                return ret;
        const char *soc = jc_prop_str(props, "SoC");
        b->gen = ts_gen_for_l4t(jc_prop_str(props, "L4T"));
        b->thor = strcmp(soc, "tegra264") == 0;
        b->two_nvjpg = strcmp(soc, "tegra234") == 0;
        b->sensors = g_ptr_array_new_with_free_func(ts_sensor_free);
        return fetch_sensors(c, b->sensors, keys);
}

void ts_board_clear(ts_board *b)
{
        if (b->sensors)
                g_ptr_array_unref(b->sensors);
        b->sensors = NULL;
}
