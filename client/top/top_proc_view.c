/* jetsonctl top's process list as nvitop draws it (GPU, PID and its
 * contexts C/G/C+G, USER, GPU-MEM, %SM, %CPU, %MEM, TIME, COMMAND), with
 * the selection, the sorted column underlined and the filters in its
 * title; the help screen; the filter and signal prompts in the footer. */
#include <string.h>
#include <unistd.h>

#include "common/output.h"
#include "top.h"
#include "top_draw.h"
#include "top_signal.h"

/* Where each column's title starts and how wide it is, as the format
 * below lays them out (the mouse sorts by the column clicked). */
static const int col_x[JC_COL_N] = { 0, 4, 16, 26, 36, 41, 47, 53, 65 };
static const int col_w[JC_COL_N] = { 3, 7, 9, 9, 4, 5, 5, 10, 7 };
/* The columns before COMMAND: the format's widths and spaces. */
#define ROW_FORMAT "%-3s %7s %-3s %-9.9s %9s %4s %5s %5s %10s  "
#define COMMAND_X 65

int jc_top_col_at(int x)
{
        for (int c = JC_COL_N - 1; c >= 0; c--)
                if (x >= col_x[c])
                        return c;
        return 0;
}

GArray *jc_top_procs(const jc_top *t)
{
        GArray *rows = jc_top_proc_rows(&t->sample, t->sort_col, t->sort_reverse, t->filter, t->type_filter);
        if (!t->tree)
                return rows;
        GArray *tree = jc_top_proc_tree(rows, jc_top_sample_parent, (void *) &t->sample);
        g_array_unref(rows);
        return tree;
}

/* The GPU column: "SoC", the NVML index, or with MIG on "N:M", the MIG
 * device (slot M) whose GPU instance the process runs in, as nvitop
 * names MIG devices. */
static char *gpu_cell(const jc_sample *s, const jc_gpu_process_row *r)
{
        if (r->gpu == JC_GPU_SOC)
                return g_strdup("SoC");
        uint64_t gi, mig_gi;
        if (jc_sample_uintf(s, &gi, "process.%u.dgpu.%d.gpu_instance", r->pid, r->gpu))
                for (unsigned m = 0; m < 64; m++)
                        if (jc_sample_uintf(s, &mig_gi, "dgpu.%d.mig.%u.gpu_instance", r->gpu, m) && mig_gi == gi)
                                return g_strdup_printf("%d:%u", r->gpu, m);
        return g_strdup_printf("%d", r->gpu);
}

int jc_top_draw_processes(const jc_top *t, GArray *list, int y, int last)
{
        t->layout->proc_header_y = -1;
        t->layout->proc_rows = 0;
        bool filtered = t->filter[0] || t->type_filter != JC_TYPE_ANY;
        if (list->len == 0 && !filtered)
                return y;
        if (y > last)
                return y;
        int command_w = MAX(COLS - COMMAND_X, 0);
        jc_top_putf(y, 0, A_REVERSE, ROW_FORMAT "%-*s", "GPU", "PID", "", "USER", "GPU-MEM", "%SM", "%CPU", "%MEM",
                    "TIME", command_w, "COMMAND");
        if (filtered || t->tree) {
                /* At the right end, over TIME's and COMMAND's titles
                 * when the terminal is narrow. */
                g_autofree char *title = g_strdup_printf(" %s%s%s%s%.16s", t->tree ? "tree  " : "",
                                                         jc_top_type_filter_name(t->type_filter),
                                                         t->type_filter != JC_TYPE_ANY ? "  " : "",
                                                         t->filter[0] ? "filter: " : "", t->filter);
                jc_top_put(y, MAX(COLS - (int) strlen(title) - 1, col_x[JC_COL_TIME]), A_REVERSE | A_BOLD, title);
        }
        /* The sorted column's title is underlined (bold without a way to
         * underline). */
        mvchgat(y, col_x[t->sort_col], col_w[t->sort_col], A_REVERSE | A_UNDERLINE | A_BOLD, 0, NULL);
        t->layout->proc_header_y = y;
        /* Running times from jetsond's clock: the sample's time. */
        double now = (double) t->sample.timestamp_usec / 1e6;
        guint i;
        for (i = 0; i < list->len && y + 1 + (int) i <= last; i++) {
                const jc_top_proc *p = &g_array_index(list, jc_top_proc, i);
                const jc_gpu_process_row *r = &p->row;
                g_autofree char *pid = g_strdup_printf("%u", r->pid);
                /* The tree's indent before the command; a parent outside
                 * jetsond's list has nothing but its PID (and a command
                 * when jetsond names it). */
                /* A child's "└" under its parent's command. The whole
                 * command line where this user may read it, as nvitop's
                 * COMMAND; jetsond's name (comm) otherwise. */
                g_autofree char *indent = g_strnfill((gsize) CLAMP(p->depth - 1, 0, 20) * 2, ' ');
                g_autofree char *command = g_strdup_printf("%s%s%s", indent, p->depth ? "└ " : "",
                                                           jc_gpu_process_command(r));
                if (p->ancestor) {
                        jc_top_putf(y + 1 + (int) i, 0, A_DIM, ROW_FORMAT "%-*s", "", pid, "", "", "", "", "", "", "",
                                    command_w, command);
                        continue;
                }
                g_autofree char *gpu = gpu_cell(&t->sample, r);
                g_autofree char *mem = r->has_mem ? jc_format_kib(r->mem_kib) : g_strdup("-");
                g_autofree char *sm = r->has_sm ? g_strdup_printf("%.0f", r->sm) : g_strdup("-");
                g_autofree char *cpu = r->has_cpu ? g_strdup_printf("%.1f", r->cpu) : g_strdup("-");
                g_autofree char *pct = p->has_mem_pct ? g_strdup_printf("%.1f", p->mem_pct) : g_strdup("-");
                g_autofree char *time = r->has_start && now > 0 ? jc_top_format_elapsed(now - r->start_time)
                                                                : g_strdup("-");
                bool selected = r->pid == t->selected_pid && r->gpu == t->selected_gpu;
                /* Other users' processes dimmed unless root, as nvitop:
                 * they cannot be signalled from here. */
                bool ours = geteuid() == 0 || g_strcmp0(r->user, g_get_user_name()) == 0;
                attr_t attr = selected ? A_REVERSE | A_BOLD : ours ? A_NORMAL : A_DIM;
                jc_top_putf(y + 1 + (int) i, 0, attr, ROW_FORMAT "%-*s", gpu, pid, jc_top_type_name(r->type), r->user,
                            mem, sm, cpu, pct, time, command_w, command);
        }
        t->layout->proc_rows = (int) i;
        if (list->len == 0)
                jc_top_put(y + 1, 0, A_DIM, "no process matches the filter (Esc clears it)");
        return y + 1 + MAX((int) i, 1);
}

const jc_top_key_help jc_top_keys[] = {
        { "1-8, Tab, Shift-Tab, Left, Right", "pages: overview, CPU, GPU, memory, power, engines, control, info" },
        { "w, W", "widen, narrow the graphs' window (samples a column averages)" },
        { "g", "braille or block graphs" },
        { "Up, Down, j, k, Home, End", "select a process" },
        { "s, <, >", "sort the processes by the next, previous column" },
        { "r", "reverse the sort" },
        { "t", "the processes as a tree, with their parents" },
        { "/", "filter the processes: a PID, or part of a user or command (Esc clears)" },
        { "x", "GPU contexts shown: all, compute (C, C+G), only C, graphics (G, C+G), only G" },
        { "I, T, K", "send SIGINT, SIGTERM, SIGKILL to the selected process (y confirms)" },
        { "Enter", "the selected process's metrics (Esc or Enter: back)" },
        { "e", "the selected process's environment, read with your rights (Esc or e: back)" },
        { "c, S, G", "control page: jetson_clocks, GPU 3D scaling, GPU rail gating (polkit)" },
        { "m", "power mode (polkit)" },
        { "f", "fan profile (polkit)" },
        { "mouse", "click a page name, a column title (again: reverse) or a process" },
        { "h, ?", "this help (any key closes it)" },
        { "q, Q, Ctrl-C", "quit" },
        { NULL, NULL },
};

void jc_top_draw_help(const jc_top *t)
{
        (void) t;
        int n = 0;
        while (jc_top_keys[n].keys)
                n++;
        int h = n + 4, w = MIN(COLS, 100), y0 = MAX(0, (LINES - h) / 2), x0 = MAX(0, (COLS - w) / 2);
        for (int r = 0; r < h; r++)
                jc_top_putf(y0 + r, x0, A_REVERSE, "%-*s", w, "");
        jc_top_put(y0, x0 + 1, A_REVERSE | A_BOLD, "jetsonctl top: keys");
        for (int i = 0; i < n; i++) {
                jc_top_putf(y0 + 2 + i, x0 + 1, A_REVERSE | A_BOLD, "%-34s", jc_top_keys[i].keys);
                jc_top_put(y0 + 2 + i, x0 + 36, A_REVERSE, jc_top_keys[i].what);
        }
}

bool jc_top_draw_prompt(const jc_top *t)
{
        int y = LINES - 1;
        if (t->mode == JC_TOP_FILTER) {
                jc_top_putf(y, 0, A_BOLD, "Filter (PID, user or command; Enter applies, Esc cancels): %s_",
                            t->filter_edit);
                return true;
        }
        if (t->mode == JC_TOP_CONFIRM) {
                jc_top_putf(y, 0, jc_top_pair(JC_PAIR_WARM) | A_BOLD, "Send %s to PID %u (%s)? y/n",
                            jc_top_signal_name(t->pending_signal), t->selected_pid, t->pending_name);
                return true;
        }
        return false;
}
