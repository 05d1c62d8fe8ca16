#include "gpu_procs.h"
#include "common/variant_number.h"

#include <string.h>

#include "common/parse.h"
#include "common/proc_strings.h"

/* What the process.PID.* keys say of one process. */
typedef struct {
        uint32_t pid;
        char name[64], user[32];
        bool has_cpu, has_gpu_mem, has_rss, has_start;
        double cpu, start_time;
        uint32_t ppid;
        uint64_t gpu_mem_kib, rss_kib;
        GArray *dgpu;                 /* jc_gpu_process_row, one per discrete GPU */
} process;

const char *jc_top_sort_name(jc_top_sort sort)
{
        static const char *const names[JC_TOP_SORT_N] = { "GPU MEM", "CPU%", "RSS", "PID" };
        return sort < JC_TOP_SORT_N ? names[sort] : "";
}

static process *find_or_add(GArray *list, uint32_t pid)
{
        for (guint i = 0; i < list->len; i++)
                if (g_array_index(list, process, i).pid == pid)
                        return &g_array_index(list, process, i);
        process p = { .pid = pid, .dgpu = g_array_new(FALSE, TRUE, sizeof(jc_gpu_process_row)) };
        g_array_append_val(list, p);
        return &g_array_index(list, process, list->len - 1);
}

static jc_gpu_process_row *dgpu_row(process *p, int gpu)
{
        for (guint i = 0; i < p->dgpu->len; i++)
                if (g_array_index(p->dgpu, jc_gpu_process_row, i).gpu == gpu)
                        return &g_array_index(p->dgpu, jc_gpu_process_row, i);
        jc_gpu_process_row r = { .pid = p->pid, .gpu = gpu };
        g_array_append_val(p->dgpu, r);
        return &g_array_index(p->dgpu, jc_gpu_process_row, p->dgpu->len - 1);
}

/* FIELD ("name", "gpu_mem", "dgpu.1.sm", ...) of process P is V. */
static void set_field(process *p, const char *field, GVariant *v)
{
        double x;
        if (g_str_has_prefix(field, "dgpu.")) {
                const char *dot = strchr(field + 5, '.');
                uint64_t gpu;
                g_autofree char *digits = dot ? g_strndup(field + 5, (gsize) (dot - field - 5)) : NULL;
                if (!digits || !jc_parse_uint(digits, 1023, &gpu))
                        return;
                if (strcmp(dot + 1, "type") == 0 && g_variant_is_of_type(v, G_VARIANT_TYPE_STRING)) {
                        const char *type = g_variant_get_string(v, NULL);
                        dgpu_row(p, (int) gpu)->type = (strstr(type, "compute") ? JC_GPU_COMPUTE : 0) |
                                                       (strstr(type, "graphics") ? JC_GPU_GRAPHICS : 0);
                        return;
                }
                if (!jc_variant_number(v, &x))
                        return;
                jc_gpu_process_row *r = dgpu_row(p, (int) gpu);
                if (strcmp(dot + 1, "mem") == 0) {
                        r->has_mem = true;
                        r->mem_kib = (uint64_t) x;
                } else if (strcmp(dot + 1, "sm") == 0) {
                        r->has_sm = true;
                        r->sm = x;
                }
        } else if (strcmp(field, "name") == 0 && g_variant_is_of_type(v, G_VARIANT_TYPE_STRING)) {
                g_strlcpy(p->name, g_variant_get_string(v, NULL), sizeof(p->name));
        } else if (strcmp(field, "user") == 0 && g_variant_is_of_type(v, G_VARIANT_TYPE_STRING)) {
                g_strlcpy(p->user, g_variant_get_string(v, NULL), sizeof(p->user));
        } else if (strcmp(field, "cpu") == 0 && jc_variant_number(v, &x)) {
                p->has_cpu = true;
                p->cpu = x;
        } else if (strcmp(field, "gpu_mem") == 0 && jc_variant_number(v, &x)) {
                p->has_gpu_mem = true;
                p->gpu_mem_kib = (uint64_t) x;
        } else if (strcmp(field, "rss") == 0 && jc_variant_number(v, &x)) {
                p->has_rss = true;
                p->rss_kib = (uint64_t) x;
        } else if (strcmp(field, "ppid") == 0 && jc_variant_number(v, &x) && x >= 0 && x <= UINT32_MAX) {
                p->ppid = (uint32_t) x;
        } else if (strcmp(field, "start_time") == 0 && jc_variant_number(v, &x)) {
                p->has_start = true;
                p->start_time = x;
        }
}

/* -1 when A comes first: missing values last, then by PID, then GPU. */
static gint compare_rows(gconstpointer a, gconstpointer b, gpointer data)
{
        const jc_gpu_process_row *x = a, *y = b;
        bool hx = true, hy = true;
        double vx = 0, vy = 0;
        switch ((jc_top_sort) GPOINTER_TO_INT(data)) {
        case JC_TOP_SORT_GPU_MEM:
                hx = x->has_mem, hy = y->has_mem, vx = (double) x->mem_kib, vy = (double) y->mem_kib;
                break;
        case JC_TOP_SORT_CPU:
                hx = x->has_cpu, hy = y->has_cpu, vx = x->cpu, vy = y->cpu;
                break;
        case JC_TOP_SORT_RSS:
                hx = x->has_rss, hy = y->has_rss, vx = (double) x->rss_kib, vy = (double) y->rss_kib;
                break;
        default:
                break;
        }
        if (hx != hy)
                return hx ? -1 : 1;
        if (vx != vy)
                return vx > vy ? -1 : 1;
        if (x->pid != y->pid)
                return x->pid < y->pid ? -1 : 1;
        return x->gpu < y->gpu ? -1 : x->gpu > y->gpu;
}

const char *jc_gpu_process_command(const jc_gpu_process_row *r)
{
        return r->command[0] ? r->command : r->name;
}

static void add_row(GArray *rows, const jc_sample *s, const process *p, jc_gpu_process_row r)
{
        const char *command = jc_sample_command(s, p->pid);
        g_strlcpy(r.command, command ? command : "", sizeof(r.command));
        g_strlcpy(r.name, p->name, sizeof(r.name));
        g_strlcpy(r.user, p->user, sizeof(r.user));
        r.has_cpu = p->has_cpu;
        r.cpu = p->cpu;
        r.has_rss = p->has_rss;
        r.rss_kib = p->rss_kib;
        r.ppid = p->ppid;
        r.has_start = p->has_start;
        r.start_time = p->start_time;
        g_array_append_val(rows, r);
}

GArray *jc_gpu_process_rows(const jc_sample *s, jc_top_sort sort)
{
        g_autoptr(GArray) procs = g_array_new(FALSE, TRUE, sizeof(process));
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
                                set_field(find_or_add(procs, (uint32_t) pid), dot + 1, value);
                }
                g_variant_unref(value);
        }
        GArray *rows = g_array_new(FALSE, TRUE, sizeof(jc_gpu_process_row));
        for (guint i = 0; i < procs->len; i++) {
                process *p = &g_array_index(procs, process, i);
                uint64_t on_dgpus = 0;
                for (guint k = 0; k < p->dgpu->len; k++) {
                        const jc_gpu_process_row *r = &g_array_index(p->dgpu, jc_gpu_process_row, k);
                        on_dgpus += r->has_mem ? r->mem_kib : 0;
                        add_row(rows, s, p, *r);
                }
                /* The rest of gpu_mem is the SoC's GPU; a process on no
                 * discrete GPU is the SoC's, whatever it holds (but keys
                 * that said nothing we know make no row). */
                bool known = p->dgpu->len || p->has_gpu_mem || p->name[0];
                if (known && (!p->dgpu->len || (p->has_gpu_mem && p->gpu_mem_kib > on_dgpus)))
                        add_row(rows, s, p, (jc_gpu_process_row) { .pid = p->pid, .gpu = JC_GPU_SOC,
                                                                .has_mem = p->has_gpu_mem,
                                                                .mem_kib = p->gpu_mem_kib - on_dgpus });
                g_array_unref(p->dgpu);
        }
        g_array_sort_with_data(rows, compare_rows, GINT_TO_POINTER(sort));
        return rows;
}
