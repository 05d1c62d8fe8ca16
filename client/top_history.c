#include "top_history.h"
#include "variant_number.h"

#include <math.h>
#include <string.h>

typedef struct {
        float *values;                /* JC_TOP_HISTORY_LEN, indexed by sample number mod the length */
        uint64_t first, last;         /* sample numbers of the first and latest values */
} series;

struct jc_top_history {
        GHashTable *series;           /* key -> series */
        uint64_t count;               /* samples taken */
};

static void series_free(gpointer p)
{
        series *s = p;
        g_free(s->values);
        g_free(s);
}

jc_top_history *jc_top_history_new(void)
{
        jc_top_history *h = g_new0(jc_top_history, 1);
        h->series = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, series_free);
        return h;
}

void jc_top_history_free(jc_top_history *h)
{
        if (!h)
                return;
        g_hash_table_unref(h->series);
        g_free(h);
}

static gboolean stale(gpointer key, gpointer value, gpointer data)
{
        (void) key;
        const series *s = value;
        return s->last + JC_TOP_HISTORY_LEN <= *(const uint64_t *) data;
}

void jc_top_history_add(jc_top_history *h, const jc_sample *s)
{
        uint64_t now = h->count++;
        GVariantIter it;
        const char *key;
        GVariant *value;
        double x;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                if (jc_variant_number(value, &x)) {
                        series *ser = g_hash_table_lookup(h->series, key);
                        if (!ser) {
                                ser = g_new0(series, 1);
                                ser->values = g_new(float, JC_TOP_HISTORY_LEN);
                                ser->first = ser->last = now;
                                g_hash_table_insert(h->series, g_strdup(key), ser);
                        }
                        /* The samples between that lacked the key are gaps. */
                        for (uint64_t i = ser->last + 1; i < now && i < ser->last + 1 + JC_TOP_HISTORY_LEN; i++)
                                ser->values[i % JC_TOP_HISTORY_LEN] = NAN;
                        ser->values[now % JC_TOP_HISTORY_LEN] = (float) x;
                        ser->last = now;
                }
                g_variant_unref(value);
        }
        /* Processes come and go: a series silent for a whole ring is
         * dropped, so the table does not grow with every PID ever seen. */
        if (now % 64 == 0)
                g_hash_table_foreach_remove(h->series, stale, &now);
}

uint64_t jc_top_history_count(const jc_top_history *h)
{
        return h->count;
}

bool jc_top_history_get(const jc_top_history *h, const char *key, guint n, double *out)
{
        const series *s = g_hash_table_lookup(h->series, key);
        if (!s || h->count == 0)
                return false;
        uint64_t now = h->count - 1;
        for (guint k = 0; k < n; k++) {
                /* out[n - 1] is sample NOW, out[0] is NOW - (n - 1). */
                uint64_t back = n - 1 - k;
                if (back > now) {
                        out[k] = NAN;
                        continue;
                }
                uint64_t i = now - back;
                if (i < s->first || i > s->last || s->last - i >= JC_TOP_HISTORY_LEN || now - i >= JC_TOP_HISTORY_LEN)
                        out[k] = NAN;
                else
                        out[k] = s->values[i % JC_TOP_HISTORY_LEN];
        }
        return true;
}

void jc_top_history_squash(const double *in, guint n, guint per, double *out)
{
        if (per == 0)
                return;
        guint runs = n / per, skip = n - runs * per;
        for (guint r = 0; r < runs; r++) {
                double sum = 0;
                guint got = 0;
                for (guint k = 0; k < per; k++) {
                        double v = in[skip + r * per + k];
                        if (!isnan(v)) {
                                sum += v;
                                got++;
                        }
                }
                out[r] = got ? sum / got : NAN;
        }
}
