/* jetsonctl top's environment screen ('e'), as nvitop's: the selected
 * process's environment, read here with the caller's rights
 * (common/proc_strings.c), never asked of jetsond. */
#include <errno.h>
#include <string.h>

#include "top.h"
#include "top_draw.h"
#include "common/proc_strings.h"

void jc_top_draw_env_screen(const jc_top *t, int y, int last)
{
        uint32_t pid = t->selected_pid;
        g_autofree char *name_key = g_strdup_printf("process.%u.name", pid);
        const char *name = jc_sample_string(&t->sample, name_key);
        jc_top_putf(y, 0, A_BOLD, "Environment of process %u  %s", pid, name ? name : "");
        jc_top_put(y, MAX(0, COLS - 34), A_DIM, "Up/Down: scroll  Esc or e: back");
        y++;
        int err = 0;
        g_autoptr(GPtrArray) vars = jc_proc_read_strings("/proc", pid, "environ", &err);
        if (!vars) {
                const char *why = err == EACCES || err == EPERM ? "not permitted: the process is another user's "
                                                                  "(jetsond does not send environments)"
                                  : err == ENOENT ? "the process has gone"
                                                  : strerror(err);
                jc_top_putf(y, 2, A_DIM, "%s", why);
                return;
        }
        if (!vars->len)
                jc_top_put(y, 2, A_DIM, "(empty: a kernel thread, or a process that cleared it)");
        int first = MIN(t->env_scroll, (int) vars->len - 1);
        for (int i = MAX(first, 0); i < (int) vars->len && y <= last; i++, y++) {
                const char *var = g_ptr_array_index(vars, i);
                const char *eq = strchr(var, '=');
                int name_len = eq ? (int) (eq - var) : (int) strlen(var);
                int x = jc_top_putf(y, 0, A_BOLD, "%.*s", name_len, var);
                if (eq)
                        jc_top_putf(y, x, A_NORMAL, "%s", eq);
        }
}
