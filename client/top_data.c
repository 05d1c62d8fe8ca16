#include "top_data.h"

#include <stdlib.h>
#include <string.h>

#include "parse.h"

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
                if (g_str_has_prefix(key, "energy.") && g_variant_is_of_type(value, G_VARIANT_TYPE_UINT64)) {
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

const char *jc_top_sort_name(jc_top_sort sort)
{
        static const char *const names[JC_TOP_SORT_N] = { "GPU MEM", "CPU%", "RSS", "PID" };
        return sort < JC_TOP_SORT_N ? names[sort] : "";
}

static jc_top_process *find_or_add(GArray *list, uint32_t pid)
{
        for (guint i = 0; i < list->len; i++)
                if (g_array_index(list, jc_top_process, i).pid == pid)
                        return &g_array_index(list, jc_top_process, i);
        jc_top_process p = { .pid = pid };
        g_array_append_val(list, p);
        return &g_array_index(list, jc_top_process, list->len - 1);
}

static void set_field(jc_top_process *p, const char *field, GVariant *v)
{
        if (strcmp(field, "name") == 0 && g_variant_is_of_type(v, G_VARIANT_TYPE_STRING))
                g_strlcpy(p->name, g_variant_get_string(v, NULL), sizeof(p->name));
        else if (strcmp(field, "user") == 0 && g_variant_is_of_type(v, G_VARIANT_TYPE_STRING))
                g_strlcpy(p->user, g_variant_get_string(v, NULL), sizeof(p->user));
        else if (strcmp(field, "cpu") == 0 && g_variant_is_of_type(v, G_VARIANT_TYPE_DOUBLE))
                p->has_cpu = true, p->cpu = g_variant_get_double(v);
        else if (strcmp(field, "rss") == 0 && g_variant_is_of_type(v, G_VARIANT_TYPE_UINT64))
                p->has_rss = true, p->rss_kib = g_variant_get_uint64(v);
        else if (strcmp(field, "gpu_mem") == 0 && g_variant_is_of_type(v, G_VARIANT_TYPE_UINT64))
                p->has_gpu_mem = true, p->gpu_mem_kib = g_variant_get_uint64(v);
}

/* -1 when A comes first. Missing values last, then by PID. */
static int compare(const jc_top_process *a, const jc_top_process *b, jc_top_sort sort)
{
        bool ha = true, hb = true;
        double va = 0, vb = 0;
        switch (sort) {
        case JC_TOP_SORT_GPU_MEM:
                ha = a->has_gpu_mem, hb = b->has_gpu_mem, va = (double) a->gpu_mem_kib, vb = (double) b->gpu_mem_kib;
                break;
        case JC_TOP_SORT_CPU:
                ha = a->has_cpu, hb = b->has_cpu, va = a->cpu, vb = b->cpu;
                break;
        case JC_TOP_SORT_RSS:
                ha = a->has_rss, hb = b->has_rss, va = (double) a->rss_kib, vb = (double) b->rss_kib;
                break;
        default:
                break;
        }
        if (ha != hb)
                return ha ? -1 : 1;
        if (va != vb)
                return va > vb ? -1 : 1;
        return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static int compare_data(gconstpointer a, gconstpointer b, gpointer sort)
{
        return compare(a, b, (jc_top_sort) GPOINTER_TO_INT(sort));
}

GArray *jc_top_processes(const jc_sample *s, jc_top_sort sort)
{
        GArray *list = g_array_new(FALSE, FALSE, sizeof(jc_top_process));
        GVariantIter it;
        const char *key;
        GVariant *value;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                const char *dot;
                uint64_t pid;
                if (g_str_has_prefix(key, "process.") && (dot = strchr(key + 8, '.'))) {
                        g_autofree char *digits = g_strndup(key + 8, (gsize) (dot - key - 8));
                        if (jc_parse_uint(digits, UINT32_MAX, &pid))
                                set_field(find_or_add(list, (uint32_t) pid), dot + 1, value);
                }
                g_variant_unref(value);
        }
        g_array_sort_with_data(list, compare_data, GINT_TO_POINTER(sort));
        return list;
}
