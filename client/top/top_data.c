#include "top_data.h"

#include <stdlib.h>
#include <string.h>

#include "common/parse.h"

typedef struct {
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
                        if (!c || mj < c->last_mj || s->timestamp_usec < c->last_usec) {
                                c = g_new0(counter, 1);
                                c->first_mj = mj;
                                c->first_usec = s->timestamp_usec;
                                g_hash_table_replace(e->counters, g_strdup(key), c);
                        }
                        c->last_mj = mj;
                        c->last_usec = s->timestamp_usec;
                }
                g_variant_unref(value);
        }
}

bool jc_top_energy_average(const jc_top_energy *e, const char *key, double *mw)
{
        const counter *c = g_hash_table_lookup(e->counters, key);
        if (!c || c->last_usec < c->first_usec + 500000)
                return false;
        /* mJ per µs is kW: times 1e6 for mW. */
        *mw = (double) (c->last_mj - c->first_mj) * 1e6 / (double) (c->last_usec - c->first_usec);
        return true;
}
