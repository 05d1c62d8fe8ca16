#include "top_data.h"

#include <stdlib.h>
#include <string.h>

#include "common/parse.h"

/* A counter timed by its changes: jetsond reads a discrete GPU's energy
 * counter every 10 s (it costs the driver milliseconds) and every sample
 * until then carries the same value, so the samples' own times would
 * divide up to 10 s of energy by a shorter span (twice the power, or 0, in
 * the first minute on an H200). The first change starts the span, each
 * later one ends it: within a sample period of the counter's own reads. A
 * rail's counter changes every sample. One that has not changed for
 * UNCHANGED_USEC (three of the slowest counter's periods) draws nothing. */
#define UNCHANGED_USEC 30000000u
typedef struct {
        uint64_t seen_mj, seen_usec;  /* the first value, until it changes */
        uint64_t latest_usec;         /* the latest sample with the counter */
        bool changed;
        uint64_t first_mj, first_usec, last_mj, last_usec;
} counter;

struct jc_top_energy {
        GHashTable *counters;         /* key -> counter */
};

jc_top_energy *jc_top_energy_new(void)
{
        jc_top_energy *e = g_new0(jc_top_energy, 1);
        e->counters = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        return e;
}

void jc_top_energy_free(jc_top_energy *e)
{
        if (!e)
                return;
        g_hash_table_unref(e->counters);
        g_free(e);
}

void jc_top_energy_add(jc_top_energy *e, const jc_sample *s)
{
        GVariantIter it;
        const char *key;
        GVariant *value;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                /* The rails' counters and NVML's, a discrete GPU's energy since its driver loaded. */
                bool counter_key = g_str_has_prefix(key, "energy.") ||
                                   (g_str_has_prefix(key, "dgpu.") && g_str_has_suffix(key, ".energy"));
                if (counter_key && g_variant_is_of_type(value, G_VARIANT_TYPE_UINT64)) {
                        uint64_t mj = g_variant_get_uint64(value);
                        counter *c = g_hash_table_lookup(e->counters, key);
                        if (!c || mj < c->seen_mj || (c->changed && mj < c->last_mj) ||
                            (c->changed && s->timestamp_usec < c->last_usec)) {
                                c = g_new0(counter, 1);
                                c->seen_mj = mj;
                                c->seen_usec = s->timestamp_usec;
                                g_hash_table_replace(e->counters, g_strdup(key), c);
                        } else if (!c->changed && mj != c->seen_mj) {
                                c->changed = true;
                                c->first_mj = c->last_mj = mj;
                                c->first_usec = c->last_usec = s->timestamp_usec;
                        } else if (c->changed && mj != c->last_mj) {
                                c->last_mj = mj;
                                c->last_usec = s->timestamp_usec;
                        }
                        c->latest_usec = s->timestamp_usec;
                }
                g_variant_unref(value);
        }
}

bool jc_top_energy_average(const jc_top_energy *e, const char *key, double *mw)
{
        const counter *c = g_hash_table_lookup(e->counters, key);
        if (c && !c->changed && c->latest_usec >= c->seen_usec + UNCHANGED_USEC) {
                *mw = 0;
                return true;
        }
        if (!c || !c->changed || c->last_usec < c->first_usec + 500000)
                return false;
        /* mJ per µs is kW: times 1e6 for mW. */
        *mw = (double) (c->last_mj - c->first_mj) * 1e6 / (double) (c->last_usec - c->first_usec);
        return true;
}
