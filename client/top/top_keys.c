/* jetsonctl top's keys and mouse: pages, graphs, the process list
 * (selection, sort, filter, signals with a confirmation), the help
 * screen and the choosers. Every key bound here is in jc_top_keys[]
 * (top_proc_view.c), which the help screen shows and test-top checks. */
#include <curses.h>
#include <signal.h>
#include <string.h>

#include "top.h"
#include "top_mouse.h"
#include "top_signal.h"

/* Moves the selection by DELTA rows of the process list as T sorts and
 * filters it (to the first row when nothing is selected). */
static void select_row(jc_top *t, int delta)
{
        g_autoptr(GArray) list = jc_top_procs(t);
        if (list->len == 0) {
                t->selected_pid = 0;
                return;
        }
        /* The rows that can be selected: not the tree's parents from
         * outside jetsond's list. */
        g_autoptr(GArray) rows = g_array_new(FALSE, FALSE, sizeof(guint));
        int at = -1;
        for (guint i = 0; i < list->len; i++) {
                const jc_top_proc *p = &g_array_index(list, jc_top_proc, i);
                if (p->ancestor)
                        continue;
                if (p->row.pid == t->selected_pid && p->row.gpu == t->selected_gpu)
                        at = (int) rows->len;
                g_array_append_val(rows, i);
        }
        if (rows->len == 0) {
                t->selected_pid = 0;
                return;
        }
        at = at < 0 ? 0 : CLAMP(at + delta, 0, (int) rows->len - 1);
        const jc_top_proc *p = &g_array_index(list, jc_top_proc, g_array_index(rows, guint, (guint) at));
        t->selected_pid = p->row.pid;
        t->selected_gpu = p->row.gpu;
}

/* The selected row, or NULL (then the footer says so). */
static bool selected(jc_top *t, jc_top_proc *out)
{
        g_autoptr(GArray) list = jc_top_procs(t);
        for (guint i = 0; i < list->len; i++) {
                const jc_top_proc *p = &g_array_index(list, jc_top_proc, i);
                if (!p->ancestor && p->row.pid == t->selected_pid && p->row.gpu == t->selected_gpu) {
                        *out = *p;
                        return true;
                }
        }
        return false;
}

static void sort_by(jc_top *t, jc_top_col col)
{
        /* The same column again turns the sort round, as nvitop's. */
        if (col == t->sort_col)
                t->sort_reverse = !t->sort_reverse;
        else
                t->sort_col = col, t->sort_reverse = false;
}

static void mouse(jc_top *t, int key)
{
        jc_top_click ev;
        if (!jc_top_mouse_read(key, &ev))
                return;
        if (ev.y == LINES - 1) {
                /* The footer's page names, where it lists them. */
                int x = 9;
                for (int p = 0; p < JC_PAGE_N; p++) {
                        int w = (int) strlen(jc_top_page_name(p)) + 3;
                        if (COLS >= 140 && ev.x >= x && ev.x < x + w)
                                t->page = (jc_top_page) p;
                        x += w;
                }
                return;
        }
        int header = t->layout->proc_header_y;
        if (header < 0)
                return;
        if (ev.y == header) {
                sort_by(t, (jc_top_col) jc_top_col_at(ev.x));
        } else if (ev.y > header && ev.y <= header + t->layout->proc_rows) {
                g_autoptr(GArray) list = jc_top_procs(t);
                guint i = (guint) (ev.y - header - 1);
                if (i < list->len && !g_array_index(list, jc_top_proc, i).ancestor) {
                        t->selected_pid = g_array_index(list, jc_top_proc, i).row.pid;
                        t->selected_gpu = g_array_index(list, jc_top_proc, i).row.gpu;
                }
        }
}

static void ask_signal(jc_top *t, int sig)
{
        jc_top_proc p;
        if (!selected(t, &p)) {
                jc_top_message(t, true, "Select a process first (Up, Down or a click)");
                return;
        }
        t->pending_signal = sig;
        g_strlcpy(t->pending_name, p.row.name, sizeof(t->pending_name));
        t->mode = JC_TOP_CONFIRM;
}

static void send_signal(jc_top *t)
{
        jc_top_proc p;
        char text[256];
        if (!selected(t, &p)) {
                jc_top_message(t, true, "The process is gone from the list");
                return;
        }
        bool sent = jc_top_send_signal("/proc", p.row.pid, p.row.name, p.row.user, t->pending_signal, text,
                                       sizeof(text));
        jc_top_message(t, !sent, text);
}

/* Keys while the filter is typed: Enter applies it, Esc leaves it as it
 * was, Backspace takes a character off. */
static void filter_key(jc_top *t, int key)
{
        size_t len = strlen(t->filter_edit);
        if (key == '\n' || key == '\r' || key == KEY_ENTER) {
                g_strlcpy(t->filter, t->filter_edit, sizeof(t->filter));
                t->mode = JC_TOP_SCREEN;
                t->selected_pid = 0;
        } else if (key == 27) {
                t->mode = JC_TOP_SCREEN;
        } else if ((key == KEY_BACKSPACE || key == 127 || key == 8) && len > 0) {
                t->filter_edit[len - 1] = '\0';
        } else if (key >= 32 && key < 127 && len + 1 < sizeof(t->filter_edit)) {
                t->filter_edit[len] = (char) key;
                t->filter_edit[len + 1] = '\0';
        }
}

bool jc_top_key(jc_top *t, int key)
{
        if (key == JC_KEY_SGR_MOUSE && t->mode != JC_TOP_SCREEN) {
                /* The report's rest is read, never taken as keys (its
                 * digits would choose a mode). */
                jc_top_click ignored;
                jc_top_mouse_read(key, &ignored);
                return true;
        }
        switch (t->mode) {
        case JC_TOP_CHOOSE_MODE:
        case JC_TOP_CHOOSE_FAN:
                if (key >= '1' && key <= '9')
                        jc_top_choose(t, (guint) (key - '1'));
                else if (key == 27 || key == 'q')
                        t->mode = JC_TOP_SCREEN;
                return true;
        case JC_TOP_HELP:
                if (key != KEY_MOUSE && key != KEY_RESIZE)
                        t->mode = JC_TOP_SCREEN;
                return true;
        case JC_TOP_FILTER:
                filter_key(t, key);
                return true;
        case JC_TOP_CONFIRM:
                t->mode = JC_TOP_SCREEN;
                if (key == 'y' || key == 'Y')
                        send_signal(t);
                else
                        jc_top_message(t, false, "Not sent");
                return true;
        default:
                break;
        }
        t->message[0] = '\0';
        if (key == 'q' || key == 'Q')
                return false;
        if (t->env_screen) {
                if (key == 27 || key == 'e' || key == '\n' || key == '\r' || key == KEY_ENTER) {
                        t->env_screen = false;
                        return true;
                }
                /* Up and Down (the process list's keys) scroll it. */
                if (key == KEY_DOWN || key == 'j' || key == KEY_UP || key == 'k') {
                        t->env_scroll = MAX(0, t->env_scroll + (key == KEY_UP || key == 'k' ? -1 : 1));
                        return true;
                }
                if (key >= '1' && key < '1' + JC_PAGE_N)
                        t->env_screen = false;
        }
        if (t->process_screen && (key == 27 || key == '\n' || key == '\r' || key == KEY_ENTER)) {
                t->process_screen = false;
                return true;
        }
        if (key >= '1' && key < '1' + JC_PAGE_N)
                t->page = (jc_top_page) (key - '1'), t->process_screen = false;
        else if (key == '\t' || key == KEY_RIGHT)
                t->page = (t->page + 1) % JC_PAGE_N;
        else if (key == KEY_BTAB || key == KEY_LEFT)
                t->page = (t->page + JC_PAGE_N - 1) % JC_PAGE_N;
        else if (key == 'w')
                t->zoom = (t->zoom + 1) % JC_TOP_ZOOM_N;
        else if (key == 'W')
                t->zoom = (t->zoom + JC_TOP_ZOOM_N - 1) % JC_TOP_ZOOM_N;
        else if (key == 'g') {
                /* Braille and blocks need UTF-8: an ASCII terminal keeps
                 * ASCII. */
                if (t->graph_style != JC_GRAPH_ASCII)
                        t->graph_style = t->graph_style == JC_GRAPH_BRAILLE ? JC_GRAPH_BLOCK : JC_GRAPH_BRAILLE;
        } else if (key == 's' || key == '>')
                t->sort_col = (t->sort_col + 1) % JC_COL_N, t->sort_reverse = false;
        else if (key == '<')
                t->sort_col = (t->sort_col + JC_COL_N - 1) % JC_COL_N, t->sort_reverse = false;
        else if (key == 'r')
                t->sort_reverse = !t->sort_reverse;
        else if (key == 't')
                t->tree = !t->tree;
        else if (key == KEY_DOWN || key == 'j')
                select_row(t, 1);
        else if (key == KEY_UP || key == 'k')
                select_row(t, -1);
        else if (key == KEY_HOME)
                select_row(t, -1000000);
        else if (key == KEY_END)
                select_row(t, 1000000);
        else if (key == '/') {
                g_strlcpy(t->filter_edit, t->filter, sizeof(t->filter_edit));
                t->mode = JC_TOP_FILTER;
        } else if (key == 27) {
                t->filter[0] = '\0';
                t->type_filter = JC_TYPE_ANY;
        } else if (key == 'x') {
                t->type_filter = (t->type_filter + 1) % JC_TYPE_N;
                t->selected_pid = 0;
        }
        else if (key == 'I')
                ask_signal(t, SIGINT);
        else if (key == 'T')
                ask_signal(t, SIGTERM);
        else if (key == 'K')
                ask_signal(t, SIGKILL);
        else if (key == 'e') {
                jc_top_proc p;
                if (selected(t, &p))
                        t->env_screen = true, t->env_scroll = 0;
                else
                        jc_top_message(t, true, "Select a process first (Up, Down or a click)");
        } else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
                jc_top_proc p;
                if (selected(t, &p))
                        t->process_screen = true;
                else
                        jc_top_message(t, true, "Select a process first (Up, Down or a click)");
        } else if ((key == 'c' || key == 'S' || key == 'G') && t->page == JC_PAGE_CONTROL)
                /* Only on the control page: a stray key elsewhere changes
                 * nothing. */
                jc_top_toggle(t, key);
        else if (key == 'h' || key == '?')
                t->mode = JC_TOP_HELP;
        else if (key == 'm')
                jc_top_open_mode_chooser(t);
        else if (key == 'f')
                jc_top_open_fan_chooser(t);
        else if (key == KEY_MOUSE || key == JC_KEY_SGR_MOUSE)
                mouse(t, key);
        return true;
}
