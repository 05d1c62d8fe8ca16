#include "top_history.h"
#include "common/variant_number.h"

#include <math.h>
#include <string.h>

typedef struct {
        float *values;                /* LEN of them, indexed by sample number mod LEN */
        guint len;
        uint64_t first, last;         /* sample numbers of the first and latest values */
} series;

struct jc_top_history {
        GHashTable *series;           /* key -> series */
        uint64_t count;               /* samples taken */
        size_t numeric_keys;          /* of the latest sample, for jc_top_history_bytes */
};

/* The ring a key starts with; 0: not kept. A process's keys other than
 * those its screen graphs (ppid, start_time, a GPU's mem) are not. */
static guint ring_for(const char *key)
{
        if (!g_str_has_prefix(key, "process."))
                return JC_TOP_HISTORY_LEN;
        const char *field = strchr(key + 8, '.');
        if (!field)
                return 0;
        field++;
        if (!strcmp(field, "cpu") || !strcmp(field, "rss") || !strcmp(field, "gpu_mem") ||
            (g_str_has_prefix(field, "dgpu.") && g_str_has_suffix(field, ".sm")))
                return JC_TOP_PROCESS_HISTORY_LEN;
        return 0;
}

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
        return s->last + s->len <= *(const uint64_t *) data;
}

void jc_top_history_add(jc_top_history *h, const jc_sample *s)
{
        uint64_t now = h->count++;
        size_t numeric = 0;
        GVariantIter it;
        const char *key;
        GVariant *value;
        double x;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                guint len;
                if (jc_variant_number(value, &x)) {
                        series *ser = g_hash_table_lookup(h->series, key);
                        numeric++;
                        if (!ser && (len = ring_for(key)) > 0) {
                                ser = g_new0(series, 1);
                                ser->len = len;
                                ser->values = g_new(float, len);
                                ser->first = ser->last = now;
                                g_hash_table_insert(h->series, g_strdup(key), ser);
                        }
                        if (ser) {
                                /* The samples between that lacked the key are gaps. */
                                for (uint64_t i = ser->last + 1; i < now && i < ser->last + 1 + ser->len; i++)
                                        ser->values[i % ser->len] = NAN;
                                ser->values[now % ser->len] = (float) x;
                                ser->last = now;
                        }
                }
                g_variant_unref(value);
        }
        h->numeric_keys = numeric;
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
                if (i < s->first || i > s->last || s->last - i >= s->len || now - i >= s->len)
                        out[k] = NAN;
                else
                        out[k] = s->values[i % s->len];
        }
        return true;
}

void jc_top_history_reserve(jc_top_history *h, const char *key, guint n)
{
        series *s = g_hash_table_lookup(h->series, key);
        n = MIN(n, JC_TOP_HISTORY_LEN);
        if (!s || n <= s->len)
                return;
        /* The values kept move to their places in the longer ring; what
         * the short one had already dropped stays unknown (NAN). */
        float *values = g_new(float, n);
        uint64_t oldest = s->last + 1 >= s->len ? s->last + 1 - s->len : 0;
        s->first = MAX(s->first, oldest);
        for (uint64_t i = s->first; i <= s->last; i++)
                values[i % n] = s->values[i % s->len];
        g_free(s->values);
        s->values = values;
        s->len = n;
}

size_t jc_top_history_bytes(const jc_top_history *h, size_t *all_full)
{
        size_t bytes = 0;
        GHashTableIter it;
        gpointer value;
        g_hash_table_iter_init(&it, h->series);
        while (g_hash_table_iter_next(&it, NULL, &value))
                bytes += ((const series *) value)->len * sizeof(float);
        if (all_full)
                *all_full = h->numeric_keys * JC_TOP_HISTORY_LEN * sizeof(float);
        return bytes;
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
