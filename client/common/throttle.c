#include "common/throttle.h"

#include "common/trips.h"

#include <inttypes.h>
#include <string.h>

const char *jc_throttle_reason_label(const char *name)
{
        static const struct { const char *name, *label; } labels[] = {
                { "over_current", "over-current" },
                { "thermal_cpu", "CPU thermal cap" },
                { "thermal_gpu", "GPU thermal cap" },
                { "thermal_soc", "SoC thermal cap" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(labels); i++)
                if (strcmp(labels[i].name, name) == 0)
                        return labels[i].label;
        return name;
}

/* "a,b" -> "A, B" with the labels above. */
static void append_reasons(GString *out, const char *list)
{
        g_auto(GStrv) names = g_strsplit(list, ",", -1);
        for (char **n = names; *n; n++)
                g_string_append_printf(out, "%s%s", n == names ? "" : ", ", jc_throttle_reason_label(*n));
}

/* The dGPUs whose clocks are held down for a reason other than idling,
 * and (with COUNTERS) the SoC's counters that could not be trusted, in
 * key order. */
static void append_others(GString *out, const jc_sample *s, bool *active, bool counters)
{
        GVariantIter it;
        const char *key;
        GVariant *v;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &v)) {
                const char *text = g_variant_is_of_type(v, G_VARIANT_TYPE_STRING) ? g_variant_get_string(v, NULL) : NULL;
                unsigned n = 0;
                char tail[32] = "";
                if (text && sscanf(key, "dgpu.%u.%31s", &n, tail) == 2 && strcmp(tail, "throttle_reasons") == 0 &&
                    strcmp(text, "none") != 0 && strcmp(text, "idle") != 0) {
                        g_string_append_printf(out, "%sdGPU %u: ", out->len ? "; " : "", n);
                        g_auto(GStrv) names = g_strsplit(text, ",", -1);
                        for (char **x = names; *x; x++)
                                g_string_append_printf(out, "%s%s", x == names ? "" : ", ", *x);
                        if (active)
                                *active = true;
                } else if (counters && text && sscanf(key, "throttle.oc%u.%31s", &n, tail) == 2 &&
                           strcmp(tail, "counter") == 0 &&
                           strcmp(text, "ok") != 0) {
                        g_string_append_printf(out, "%soc%u counter %s", out->len ? "; " : "", n, text);
                }
                g_variant_unref(v);
        }
}

char *jc_throttle_line(const jc_sample *s, bool *active)
{
        g_autoptr(GString) out = g_string_new(NULL);
        const char *reasons = jc_sample_string(s, "throttle.reasons");
        if (active)
                *active = false;
        if (reasons) {
                append_reasons(out, reasons);
                g_string_append(out, " now");
                if (active)
                        *active = strcmp(reasons, "none") != 0;
        }
        uint64_t events;
        if (jc_sample_uint(s, "throttle.oc_events", &events))
                g_string_append_printf(out, "; %" PRIu64 " over-current event%s since boot", events,
                                       events == 1 ? "" : "s");
        append_others(out, s, active, true);
        /* How far the hottest zone, relative to its trips, is from being
         * throttled: the answer before the clocks drop. */
        g_autofree char *trip = jc_trip_nearest(s);
        if (trip)
                g_string_append_printf(out, "%s%s", out->len ? "; " : "", trip);
        if (!out->len)
                return NULL;
        return g_string_free(g_steal_pointer(&out), FALSE);
}

char *jc_throttle_now(const jc_sample *s)
{
        g_autoptr(GString) out = g_string_new(NULL);
        const char *reasons = jc_sample_string(s, "throttle.reasons");
        if (reasons && strcmp(reasons, "none") != 0)
                append_reasons(out, reasons);
        append_others(out, s, NULL, false);
        if (!out->len)
                return NULL;
        return g_string_free(g_steal_pointer(&out), FALSE);
}
