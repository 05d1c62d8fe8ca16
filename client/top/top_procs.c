#include "top_procs.h"

#include <string.h>

#include "common/parse.h"

const char *jc_top_col_name(jc_top_col col)
{
        static const char *const names[JC_COL_N] = { "GPU", "PID", "USER", "GPU-MEM", "%SM", "%CPU", "%MEM",
                                                     "TIME", "COMMAND" };
        return col < JC_COL_N ? names[col] : "";
}

const char *jc_top_type_filter_name(jc_top_type_filter f)
{
        static const char *const names[JC_TYPE_N] = { "", "compute", "only compute", "graphics", "only graphics" };
        return f < JC_TYPE_N ? names[f] : "";
}

const char *jc_top_type_name(unsigned type)
{
        static const char *const names[4] = { "", "C", "G", "C+G" };
        return names[type & 3];
}

static bool type_keeps(jc_top_type_filter f, unsigned type)
{
        switch (f) {
        case JC_TYPE_COMPUTE:
                return type & JC_GPU_COMPUTE;
        case JC_TYPE_ONLY_COMPUTE:
                return type == JC_GPU_COMPUTE;
        case JC_TYPE_GRAPHICS:
                return type & JC_GPU_GRAPHICS;
        case JC_TYPE_ONLY_GRAPHICS:
                return type == JC_GPU_GRAPHICS;
        default:
                return true;
        }
}

char *jc_top_format_elapsed(double seconds)
{
        uint64_t s = seconds > 0 ? (uint64_t) seconds : 0;
        if (s >= 4 * 86400)
                return g_strdup_printf("%.1f days", (double) s / 86400.0);
        if (s >= 3600)
                return g_strdup_printf("%" G_GUINT64_FORMAT ":%02u:%02u", s / 3600, (unsigned) (s % 3600 / 60),
                                       (unsigned) (s % 60));
        return g_strdup_printf("%u:%02u", (unsigned) (s / 60), (unsigned) (s % 60));
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
                return g_ascii_strcasecmp(jc_gpu_process_command(x), jc_gpu_process_command(y));
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
        case JC_COL_TIME:
                /* Longest running first: the earliest start. */
                *has_a = x->has_start, *has_b = y->has_start, vx = -x->start_time, vy = -y->start_time;
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
        /* The name too: a filter typed as the name jetsond shows ("python3")
         * still matches a command line that starts with a path. */
        return contains(r->user, filter) || contains(r->name, filter) || contains(r->command, filter);
}

GArray *jc_top_proc_rows(const jc_sample *s, jc_top_col col, bool reverse, const char *filter,
                         jc_top_type_filter type)
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
                if (!keep(r, filter) || !type_keeps(type, r->type))
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

typedef struct {
        uint32_t pid, ppid;
        char name[64];
        bool listed, climbed;
        guint first;                  /* the first row that brought it in */
        GArray *children;             /* guint indices into the nodes */
} node;

static guint node_for(GArray *nodes, GHashTable *index, uint32_t pid, guint first, bool *added)
{
        gpointer at;
        *added = false;
        if (g_hash_table_lookup_extended(index, GUINT_TO_POINTER(pid), NULL, &at))
                return GPOINTER_TO_UINT(at);
        node n = { .pid = pid, .first = first, .children = g_array_new(FALSE, FALSE, sizeof(guint)) };
        g_array_append_val(nodes, n);
        g_hash_table_insert(index, GUINT_TO_POINTER(pid), GUINT_TO_POINTER(nodes->len - 1));
        *added = true;
        return nodes->len - 1;
}

static gint by_first(gconstpointer a, gconstpointer b, gpointer data)
{
        const node *x = &g_array_index((GArray *) data, node, *(const guint *) a);
        const node *y = &g_array_index((GArray *) data, node, *(const guint *) b);
        return x->first < y->first ? -1 : x->first > y->first;
}

static void emit(GArray *out, GArray *rows, GArray *nodes, guint i, int depth)
{
        node *n = &g_array_index(nodes, node, i);
        /* A parent known by its PID alone tells something only when it
         * groups processes: over one child it is left out. */
        if (!n->listed && !n->name[0] && n->children->len == 1) {
                emit(out, rows, nodes, g_array_index(n->children, guint, 0), depth);
                return;
        }
        if (n->listed) {
                for (guint r = 0; r < rows->len; r++) {
                        jc_top_proc p = g_array_index(rows, jc_top_proc, r);
                        if (p.row.pid == n->pid) {
                                p.depth = depth;
                                g_array_append_val(out, p);
                        }
                }
        } else {
                jc_top_proc p = { .row = { .pid = n->pid, .gpu = JC_GPU_SOC }, .depth = depth, .ancestor = true };
                g_strlcpy(p.row.name, n->name, sizeof(p.row.name));
                g_array_append_val(out, p);
        }
        g_array_sort_with_data(n->children, by_first, nodes);
        for (guint c = 0; c < n->children->len && depth < 64; c++)
                emit(out, rows, nodes, g_array_index(n->children, guint, c), depth + 1);
}

GArray *jc_top_proc_tree(GArray *rows, jc_top_parent_fn parent, void *data)
{
        g_autoptr(GArray) nodes = g_array_new(FALSE, TRUE, sizeof(node));
        g_autoptr(GHashTable) index = g_hash_table_new(g_direct_hash, g_direct_equal);
        bool added;
        for (guint r = 0; r < rows->len; r++) {
                const jc_top_proc *p = &g_array_index(rows, jc_top_proc, r);
                guint i = node_for(nodes, index, p->row.pid, r, &added);
                node *n = &g_array_index(nodes, node, i);
                n->listed = true;
                g_strlcpy(n->name, p->row.name, sizeof(n->name));
                /* Up the parents until one already climbed, PID 1 or one
                 * this machine does not know. */
                for (int hops = 0; hops < 64; hops++) {
                        n = &g_array_index(nodes, node, i);
                        if (n->climbed)
                                break;
                        n->climbed = true;
                        uint32_t ppid;
                        char comm[64];
                        if (!parent(n->pid, n->listed ? n->name : NULL, &ppid, comm, sizeof(comm), data))
                                break;
                        /* A parent's command is what its own stat says. */
                        if (!n->listed)
                                g_strlcpy(n->name, comm, sizeof(n->name));
                        if (ppid <= 1)
                                break;
                        n->ppid = ppid;
                        i = node_for(nodes, index, ppid, r, &added);
                }
        }
        /* Children under their parents; the rest are roots. */
        GArray *roots = g_array_new(FALSE, FALSE, sizeof(guint));
        for (guint i = 0; i < nodes->len; i++) {
                node *n = &g_array_index(nodes, node, i);
                gpointer at;
                if (n->ppid && g_hash_table_lookup_extended(index, GUINT_TO_POINTER(n->ppid), NULL, &at))
                        g_array_append_val(g_array_index(nodes, node, GPOINTER_TO_UINT(at)).children, i);
                else
                        g_array_append_val(roots, i);
        }
        g_array_sort_with_data(roots, by_first, nodes);
        GArray *out = g_array_new(FALSE, TRUE, sizeof(jc_top_proc));
        for (guint k = 0; k < roots->len; k++)
                emit(out, rows, nodes, g_array_index(roots, guint, k), 0);
        g_array_unref(roots);
        for (guint i = 0; i < nodes->len; i++)
                g_array_unref(g_array_index(nodes, node, i).children);
        return out;
}

bool jc_top_sample_parent(uint32_t pid, const char *name, uint32_t *ppid, char *comm, size_t size, void *data)
{
        (void) name;
        const jc_sample *s = data;
        g_autofree char *ppid_key = g_strdup_printf("process.%u.ppid", pid);
        g_autofree char *name_key = g_strdup_printf("process.%u.name", pid);
        g_autoptr(GVariant) parent = g_variant_lookup_value(s->values, ppid_key, G_VARIANT_TYPE_UINT32);
        g_autoptr(GVariant) own = g_variant_lookup_value(s->values, name_key, G_VARIANT_TYPE_STRING);
        if (!parent && !own)
                return false;
        /* A parent jetsond does not know is 0: the tree's top. */
        *ppid = parent ? g_variant_get_uint32(parent) : 0;
        g_strlcpy(comm, own ? g_variant_get_string(own, NULL) : "", size);
        return true;
}
