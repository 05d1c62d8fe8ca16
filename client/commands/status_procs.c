#include "status_procs.h"

#include "common/output.h"
#include "common/proc_strings.h"
#include "gpu_procs.h"

void jc_status_process_rows(GString *out, const jc_sample *s, bool color)
{
        g_autoptr(GArray) rows = jc_gpu_process_rows(s, JC_TOP_SORT_GPU_MEM);
        if (!rows->len)
                return;
        jc_append_colored(out, color, JC_COLOR_BOLD, "GPU processes");
        g_string_append_printf(out, "\n  %-4s %7s %-12s %9s %5s %6s  %s\n", "GPU", "PID", "USER", "GPU MEM", "SM%",
                               "CPU%", "COMMAND");
        for (guint i = 0; i < rows->len; i++) {
                const jc_gpu_process_row *r = &g_array_index(rows, jc_gpu_process_row, i);
                g_autofree char *gpu = r->gpu == JC_GPU_SOC ? g_strdup("SoC") : g_strdup_printf("%d", r->gpu);
                g_autofree char *mem = r->has_mem ? jc_format_kib(r->mem_kib) : g_strdup("-");
                g_autofree char *sm = r->has_sm ? g_strdup_printf("%.0f", r->sm) : g_strdup("-");
                g_autofree char *cpu = r->has_cpu ? g_strdup_printf("%.1f", r->cpu) : g_strdup("-");
                const char *command = jc_gpu_process_command(r);
                g_string_append_printf(out, "  %-4s %7u %-12.12s %9s %5s %6s  %s\n", gpu, r->pid,
                                       *r->user ? r->user : "-", mem, sm, cpu, *command ? command : "-");
        }
}

static gint by_pid(gconstpointer a, gconstpointer b)
{
        guint x = GPOINTER_TO_UINT(a), y = GPOINTER_TO_UINT(b);
        return x < y ? -1 : x > y;
}

JsonNode *jc_status_commands_doc(const jc_sample *s)
{
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_object(b);
        g_autoptr(GList) pids = s->commands ? g_hash_table_get_keys(s->commands) : NULL;
        pids = g_list_sort(pids, by_pid);
        for (GList *l = pids; l; l = l->next) {
                g_autofree char *name = g_strdup_printf("%u", GPOINTER_TO_UINT(l->data));
                json_builder_set_member_name(b, name);
                json_builder_add_string_value(b, jc_sample_command(s, GPOINTER_TO_UINT(l->data)));
        }
        json_builder_end_object(b);
        return json_builder_get_root(b);
}
