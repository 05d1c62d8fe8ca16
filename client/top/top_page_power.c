/* jetsonctl top's power page: the board's power graph, each rail (and
 * each discrete GPU) now and on average since top started (from jetsond's
 * energy counters, NVML's for a GPU;
 * "measuring..." until two samples half a second apart exist) with its
 * own graph, then the temperatures with theirs, then why the clocks are
 * held down (the throttle line of jetsonctl status, and each cap above 0). */
#include <inttypes.h>
#include <string.h>

#include "common/throttle.h"
#include "common/trips.h"
#include "top.h"
#include "top_draw.h"

/* The NAMEs of the sample's "PREFIX.NAME.SUFFIX" (or "PREFIX.NAME" with
 * SUFFIX NULL) keys, in the sample's order. */
static GPtrArray *names(const jc_sample *s, const char *prefix, const char *suffix)
{
        GPtrArray *list = g_ptr_array_new_with_free_func(g_free);
        GVariantIter it;
        const char *key;
        GVariant *value;
        size_t plen = strlen(prefix), slen = suffix ? strlen(suffix) : 0;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                size_t len = strlen(key);
                if (g_str_has_prefix(key, prefix) && (!suffix || (g_str_has_suffix(key, suffix) && len > plen + slen)) &&
                    (suffix || !strchr(key + plen, '.')) && !g_variant_is_of_type(value, G_VARIANT_TYPE_STRING))
                        g_ptr_array_add(list, g_strndup(key + plen, len - plen - slen));
                g_variant_unref(value);
        }
        return list;
}

/* "Throttle  <line>" and "Caps  gpu-throttle-alert 1/2, ..." (those above 0). */
static void throttle_rows(const jc_sample *s, const char *line, int y, int last)
{
        bool active = false;
        g_free(jc_throttle_line(s, &active));
        jc_top_put(y, 0, jc_top_pair(JC_PAIR_TITLE), "Throttle");
        jc_top_put(y, 10, active ? jc_top_pair(JC_PAIR_HOT) | A_BOLD : A_NORMAL, line);
        if (++y > last)
                return;
        g_autoptr(GString) caps = g_string_new(NULL);
        GVariantIter it;
        const char *key;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, NULL)) {
                uint64_t state, max;
                if (!g_str_has_prefix(key, "throttle.cap.") || !g_str_has_suffix(key, ".state") ||
                    !jc_sample_uint(s, key, &state) || state == 0)
                        continue;
                g_autofree char *type = g_strndup(key + 13, strlen(key) - 13 - strlen(".state"));
                g_string_append_printf(caps, "%s%s %" PRIu64, caps->len ? ", " : "", type, state);
                if (jc_sample_uintf(s, &max, "throttle.cap.%s.max_state", type))
                        g_string_append_printf(caps, "/%" PRIu64, max);
        }
        jc_top_put(y, 0, jc_top_pair(JC_PAIR_TITLE), "Caps");
        jc_top_put(y, 10, A_NORMAL, caps->len ? caps->str : "none");
}

void jc_top_draw_power_page(const jc_top *t, int y, int last)
{
        const jc_sample *s = &t->sample;
        g_autoptr(GPtrArray) rails = names(s, "power.", ".power");
        /* The discrete GPUs after the rails, their power keys in POWER_KEYS
         * and NVML's energy counters in ENERGY_KEYS, as the rails'. */
        g_autoptr(GPtrArray) power_keys = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) energy_keys = g_ptr_array_new_with_free_func(g_free);
        for (guint i = 0; i < rails->len; i++) {
                const char *rail = g_ptr_array_index(rails, i);
                g_ptr_array_add(power_keys, g_strdup_printf("power.%s.power", rail));
                g_ptr_array_add(energy_keys, g_strdup_printf("energy.%s", rail));
        }
        for (unsigned n = 0; n < 16; n++) {
                uint64_t mw, limit;
                if (!jc_sample_uintf(s, &mw, "dgpu.%u.power", n))
                        continue;
                g_ptr_array_add(rails, jc_sample_uintf(s, &limit, "dgpu.%u.power_limit", n)
                                               ? g_strdup_printf("GPU%u of %.0f W", n, (double) limit / 1000)
                                               : g_strdup_printf("GPU%u", n));
                g_ptr_array_add(power_keys, g_strdup_printf("dgpu.%u.power", n));
                g_ptr_array_add(energy_keys, g_strdup_printf("dgpu.%u.energy", n));
        }
        g_autoptr(GPtrArray) zones = names(s, "temp.", NULL);
        int rows = last + 1 - y;
        /* The board graph, a row per rail and per zone (two to a row when
         * wide), the rest to the board graph. */
        int per_row = COLS >= 120 ? 2 : 1, w = COLS / per_row;
        int list_rows = (int) ((rails->len + (guint) per_row - 1) / (guint) per_row) + 1 +
                        (int) ((zones->len + (guint) per_row - 1) / (guint) per_row) + 1;
        g_autofree char *throttle = jc_throttle_line(s, NULL);
        if (throttle)
                list_rows += 3;
        int board_h = MAX(2, MIN(12, rows - list_rows));
        uint64_t total;
        if (jc_sample_uint(s, "power.total", &total)) {
                double avg;
                bool sum = false;
                jc_sample_bool(s, "power.total_is_sum", &sum);
                g_autofree char *title = jc_top_energy_average(t->energy, "energy.total", &avg)
                                                 ? g_strdup_printf("Board%s (avg %.0f mW)", sum ? " ~" : "", avg)
                                                 : g_strdup_printf("Board%s (avg measuring...)", sum ? " ~" : "");
                y = jc_top_graph(t, y, 0, COLS, board_h, title, "power.total", 0, G_MAXDOUBLE, G_MAXDOUBLE,
                                 " mW", 1);
        }
        if (rails->len && y <= last) {
                jc_top_putf(y, 0, A_REVERSE, "%-*s", COLS, "");
                for (int c = 0; c < per_row; c++)
                        jc_top_putf(y, c * w, A_REVERSE | A_BOLD, "%-18s %9s %11s  history", "RAIL", "NOW",
                                    "AVERAGE");
                y++;
        }
        for (guint i = 0; i < rails->len; i++) {
                int row = y + (int) i / per_row, x = (int) i % per_row * w;
                if (row > last)
                        break;
                const char *rail = g_ptr_array_index(rails, i);
                const char *key = g_ptr_array_index(power_keys, i), *energy = g_ptr_array_index(energy_keys, i);
                uint64_t mw = 0;
                double avg;
                jc_sample_uint(s, key, &mw);
                g_autofree char *avg_text = jc_top_energy_average(t->energy, energy, &avg)
                                                    ? g_strdup_printf("%8.0f mW", avg)
                                                    : g_strdup("measuring...");
                jc_top_putf(row, x, A_NORMAL, "%-18.18s %6" G_GUINT64_FORMAT " mW %11s", rail, mw, avg_text);
                /* The rail's graph after its numbers, an empty title. */
                jc_top_graph(t, row, x + 42, w - 43, 1, "", key, 0, G_MAXDOUBLE, G_MAXDOUBLE, NULL, 1);
        }
        y += (int) (rails->len + (guint) per_row - 1) / per_row;
        if (zones->len && y + 1 <= last) {
                y++;
                for (guint i = 0; i < zones->len; i++) {
                        int row = y + (int) i / per_row, x = (int) i % per_row * w;
                        if (row > last)
                                break;
                        const char *zone = g_ptr_array_index(zones, i);
                        g_autofree char *key = g_strdup_printf("temp.%s", zone);
                        double c = 0, warm, hot;
                        jc_sample_double(s, key, &c);
                        jc_trip_bands(s, zone, &warm, &hot);
                        /* Name, value and trips ("trip 99/104.5") before the graph at 42. */
                        jc_top_putf(row, x, jc_top_pair(JC_PAIR_TITLE), "%-16.16s", zone);
                        jc_top_putf(row, x + 17, jc_top_level(c, warm, hot), "%7.1f°C", c);
                        g_autofree char *trips = jc_trip_text(s, zone, true);
                        jc_top_putf(row, x + 27, A_DIM, "%-14.14s", trips);
                        jc_top_graph(t, row, x + 42, w - 43, 1, "", key, 110, warm, hot, NULL, 1);
                }
        }
        int below = y + (int) ((zones->len + (guint) per_row - 1) / (guint) per_row) + 1;
        if (throttle && below <= last)
                throttle_rows(s, throttle, below, last);
}
