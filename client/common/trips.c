#include "common/trips.h"

#include <math.h>
#include <string.h>

bool jc_trip_throttle(const jc_sample *s, const char *zone, double *c)
{
        return jc_sample_doublef(s, c, "temp_trip.%s.throttle", zone);
}

bool jc_trip_critical(const jc_sample *s, const char *zone, double *c)
{
        return jc_sample_doublef(s, c, "temp_trip.%s.critical", zone);
}

char *jc_trip_text(const jc_sample *s, const char *zone, bool short_form)
{
        double thr, crit;
        bool has_thr = jc_trip_throttle(s, zone, &thr), has_crit = jc_trip_critical(s, zone, &crit);
        if (has_thr && has_crit)
                return short_form ? g_strdup_printf("trip %g/%g", thr, crit)
                                  : g_strdup_printf(" (trip %.1f, crit %.1f)", thr, crit);
        if (has_thr || has_crit)
                return g_strdup_printf(short_form ? "%s %g" : " (%s %.1f)", has_thr ? "trip" : "crit",
                                       has_thr ? thr : crit);
        return g_strdup("");
}

void jc_trip_bands(const jc_sample *s, const char *zone, double *warm, double *hot)
{
        double trip;
        if (jc_trip_throttle(s, zone, &trip) || jc_trip_critical(s, zone, &trip)) {
                *hot = trip;
                *warm = trip - 10;
        } else {
                *warm = 70;
                *hot = 85;
        }
}

/* Calls FN for every temp.ZONE of the sample that holds a double. */
static void each_zone(const jc_sample *s, void (*fn)(const jc_sample *, const char *, double, void *), void *data)
{
        GVariantIter it;
        const char *key;
        GVariant *v;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &v)) {
                if (g_str_has_prefix(key, "temp.") && g_variant_is_of_type(v, G_VARIANT_TYPE_DOUBLE))
                        fn(s, key + 5, g_variant_get_double(v), data);
                g_variant_unref(v);
        }
}

typedef struct {
        char *text;
        double margin;
} nearest;

static void consider(const jc_sample *s, const char *zone, double temp, void *data)
{
        nearest *n = data;
        double trip;
        const char *kind = "throttle";
        if (!jc_trip_throttle(s, zone, &trip)) {
                if (!jc_trip_critical(s, zone, &trip))
                        return;
                kind = "critical";
        }
        double margin = trip - temp;
        if (n->text && margin >= n->margin)
                return;
        g_free(n->text);
        n->margin = margin;
        n->text = g_strdup_printf("%s %.1f°C, %.1f°C %s its %s trip %.1f°C", zone, temp, fabs(margin),
                                  margin >= 0 ? "below" : "above", kind, trip);
}

char *jc_trip_nearest(const jc_sample *s)
{
        nearest n = { NULL, 0 };
        each_zone(s, consider, &n);
        return n.text;
}

static void add_zone(const jc_sample *s, const char *zone, double temp, void *data)
{
        JsonBuilder *b = data;
        double trip;
        json_builder_set_member_name(b, zone);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "temp_c");
        json_builder_add_double_value(b, temp);
        if (jc_trip_throttle(s, zone, &trip)) {
                json_builder_set_member_name(b, "throttle_trip_c");
                json_builder_add_double_value(b, trip);
        }
        if (jc_trip_critical(s, zone, &trip)) {
                json_builder_set_member_name(b, "critical_trip_c");
                json_builder_add_double_value(b, trip);
        }
        json_builder_end_object(b);
}

JsonNode *jc_trip_doc(const jc_sample *s)
{
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_object(b);
        each_zone(s, add_zone, b);
        json_builder_end_object(b);
        return json_builder_get_root(b);
}
