/* jetsonctl top's process list as nvitop draws it (GPU, PID, USER,
 * GPU-MEM, %SM, %CPU, %MEM, COMMAND), with the selection, the sorted
 * column underlined and the filter in its title; the help screen; the
 * filter and signal prompts in the footer. */
#include <string.h>
#include <unistd.h>

#include "output.h"
#include "top.h"
#include "top_draw.h"
#include "top_signal.h"

/* Where each column's title starts and how wide it is, as the format
 * below lays them out (the mouse sorts by the column clicked). */
static const int col_x[JC_COL_N] = { 0, 4, 12, 22, 32, 37, 43, 50 };
static const int col_w[JC_COL_N] = { 3, 7, 9, 9, 4, 5, 5, 7 };

int jc_top_col_at(int x)
{
        for (int c = JC_COL_N - 1; c >= 0; c--)
                if (x >= col_x[c])
                        return c;
        return 0;
}

GArray *jc_top_procs(const jc_top *t)
{
        GArray *rows = jc_top_proc_rows(&t->sample, t->sort_col, t->sort_reverse, t->filter);
        if (!t->tree)
                return rows;
        GArray *tree = jc_top_proc_tree(rows, jc_top_host_parent, (void *) "/proc");
        g_array_unref(rows);
        return tree;
}

int jc_top_draw_processes(const jc_top *t, GArray *list, int y, int last)
{
        t->layout->proc_header_y = -1;
        t->layout->proc_rows = 0;
        if (list->len == 0 && !t->filter[0])
                return y;
        if (y > last)
                return y;
        jc_top_putf(y, 0, A_REVERSE, "%-3s %7s %-9s %9s %4s %5s %5s  %-*s", "GPU", "PID", "USER", "GPU-MEM", "%SM",
                    "%CPU", "%MEM", MAX(COLS - 50, 0), "COMMAND");
        if (t->filter[0] || t->tree)
                jc_top_putf(y, MAX(60, COLS - 30), A_REVERSE | A_BOLD, "%s%s%.20s", t->tree ? "tree  " : "",
                            t->filter[0] ? "filter: " : "", t->filter);
        /* The sorted column's title is underlined (bold without a way to
         * underline). */
        mvchgat(y, col_x[t->sort_col], col_w[t->sort_col], A_REVERSE | A_UNDERLINE | A_BOLD, 0, NULL);
        t->layout->proc_header_y = y;
        guint i;
        for (i = 0; i < list->len && y + 1 + (int) i <= last; i++) {
                const jc_top_proc *p = &g_array_index(list, jc_top_proc, i);
                const jc_gpu_process_row *r = &p->row;
                g_autofree char *gpu = r->gpu == JC_GPU_SOC ? g_strdup("SoC") : g_strdup_printf("%d", r->gpu);
                g_autofree char *mem = r->has_mem ? jc_format_kib(r->mem_kib) : g_strdup("-");
                g_autofree char *sm = r->has_sm ? g_strdup_printf("%.0f", r->sm) : g_strdup("-");
                g_autofree char *cpu = r->has_cpu ? g_strdup_printf("%.1f", r->cpu) : g_strdup("-");
                g_autofree char *pct = p->has_mem_pct ? g_strdup_printf("%.1f", p->mem_pct) : g_strdup("-");
                bool selected = !p->ancestor && r->pid == t->selected_pid && r->gpu == t->selected_gpu;
                /* The tree's indent before the command; a parent outside
                 * jetsond's list has nothing but its PID and command. */
                g_autofree char *indent = g_strnfill((gsize) MIN(p->depth, 20) * 2, ' ');
                g_autofree char *command = g_strdup_printf("%s%s%s", indent, p->depth ? "└ " : "", r->name);
                if (p->ancestor) {
                        jc_top_putf(y + 1 + (int) i, 0, A_DIM, "%-3s %7u %-9s %9s %4s %5s %5s  %-*s", "", r->pid, "",
                                    "", "", "", "", MAX(COLS - 50, 0), command);
                        continue;
                }
                /* Other users' processes dimmed unless root, as nvitop:
                 * they cannot be signalled from here. */
                bool ours = geteuid() == 0 || g_strcmp0(r->user, g_get_user_name()) == 0;
                attr_t attr = selected ? A_REVERSE | A_BOLD : ours ? A_NORMAL : A_DIM;
                jc_top_putf(y + 1 + (int) i, 0, attr, "%-3s %7u %-9.9s %9s %4s %5s %5s  %-*s", gpu, r->pid, r->user,
                            mem, sm, cpu, pct, MAX(COLS - 50, 0), command);
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
        { "I, T, K", "send SIGINT, SIGTERM, SIGKILL to the selected process (y confirms)" },
        { "Enter", "the selected process's metrics (Esc or Enter: back)" },
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
