#include "top_procs.h"

#include <string.h>

#include "parse.h"

const char *jc_top_col_name(jc_top_col col)
{
        static const char *const names[JC_COL_N] = { "GPU", "PID", "USER", "GPU-MEM", "%SM", "%CPU", "%MEM",
                                                     "COMMAND" };
        return col < JC_COL_N ? names[col] : "";
}

typedef struct {
        jc_top_col col;
        bool reverse;
} order;

/* Compares A and B by COL: <0 when A comes first in the column's natural
 * order. *HAS_A and *HAS_B say whether each has the value. */
static int by_column(const jc_top_proc *a, const jc_top_proc *b, jc_top_col col, bool *has_a, bool *has_b)
{
        const jc_gpu_process_row *x = &a->row, *y = &b->row;
        double vx = 0, vy = 0;
        *has_a = *has_b = true;
        switch (col) {
        case JC_COL_GPU:
                /* The SoC's GPU (-1) first, then discrete GPUs by index. */
                return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
        case JC_COL_PID:
                return x->pid < y->pid ? -1 : x->pid > y->pid;
        case JC_COL_USER:
                return g_ascii_strcasecmp(x->user, y->user);
        case JC_COL_COMMAND:
                return g_ascii_strcasecmp(x->name, y->name);
        case JC_COL_GPU_MEM:
                *has_a = x->has_mem, *has_b = y->has_mem, vx = (double) x->mem_kib, vy = (double) y->mem_kib;
                break;
        case JC_COL_SM:
                *has_a = x->has_sm, *has_b = y->has_sm, vx = x->sm, vy = y->sm;
                break;
        case JC_COL_CPU:
                *has_a = x->has_cpu, *has_b = y->has_cpu, vx = x->cpu, vy = y->cpu;
                break;
        case JC_COL_MEM:
                *has_a = a->has_mem_pct, *has_b = b->has_mem_pct, vx = a->mem_pct, vy = b->mem_pct;
                break;
        default:
                break;
        }
        /* Numbers: the largest first. */
        return vx > vy ? -1 : vx < vy;
}

static gint compare(gconstpointer pa, gconstpointer pb, gpointer data)
{
        const jc_top_proc *a = pa, *b = pb;
        const order *o = data;
        bool ha, hb;
        int c = by_column(a, b, o->col, &ha, &hb);
        if (ha != hb)
                return ha ? -1 : 1; /* missing values last, either way */
        if (c)
                return o->reverse ? -c : c;
        if (a->row.pid != b->row.pid)
                return a->row.pid < b->row.pid ? -1 : 1;
        return a->row.gpu < b->row.gpu ? -1 : a->row.gpu > b->row.gpu;
}

static bool contains(const char *hay, const char *needle)
{
        g_autofree char *h = g_ascii_strdown(hay, -1), *n = g_ascii_strdown(needle, -1);
        return strstr(h, n) != NULL;
}

static bool keep(const jc_gpu_process_row *r, const char *filter)
{
        uint64_t pid;
        if (!filter || !*filter)
                return true;
        if (jc_parse_uint(filter, UINT32_MAX, &pid))
                return r->pid == pid;
        return contains(r->user, filter) || contains(r->name, filter);
}

GArray *jc_top_proc_rows(const jc_sample *s, jc_top_col col, bool reverse, const char *filter)
{
        g_autoptr(GArray) rows = jc_gpu_process_rows(s, JC_TOP_SORT_PID);
        GArray *out = g_array_new(FALSE, TRUE, sizeof(jc_top_proc));
        /* ram.total straight from the dictionary: this file links
         * without sample.c (the unit test's library). */
        uint64_t total = 0;
        g_autoptr(GVariant) v = g_variant_lookup_value(s->values, "ram.total", NULL);
        if (v && g_variant_is_of_type(v, G_VARIANT_TYPE_UINT64))
                total = g_variant_get_uint64(v);
        else if (v && g_variant_is_of_type(v, G_VARIANT_TYPE_UINT32))
                total = g_variant_get_uint32(v);
        bool has_total = total > 0;
        for (guint i = 0; i < rows->len; i++) {
                const jc_gpu_process_row *r = &g_array_index(rows, jc_gpu_process_row, i);
                if (!keep(r, filter))
                        continue;
                jc_top_proc p = { .row = *r };
                if (has_total && r->has_rss) {
                        p.has_mem_pct = true;
                        p.mem_pct = (double) r->rss_kib * 100.0 / (double) total;
                }
                g_array_append_val(out, p);
        }
        order o = { col, reverse };
        g_array_sort_with_data(out, compare, &o);
        return out;
}
