#include "polkit_agent.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#define PKTTYAGENT "/usr/bin/pkttyagent"
#define AGENT_FD 3
/* pkttyagent registers in milliseconds; do not hang if it does not. */
#define REGISTER_TIMEOUT_MS 5000

/* In the child before exec (GLib has marked every descriptor above 2
 * close-on-exec): the notify pipe's write end becomes AGENT_FD, without
 * the flag. g_spawn_async_with_pipes_and_fds() would do it, but it is GLib
 * 2.68 and the floor is 2.56. */
static void pass_notify_fd(gpointer data)
{
        int fd = GPOINTER_TO_INT(data);
        if (fd == AGENT_FD)
                fcntl(fd, F_SETFD, 0);
        else
                dup2(fd, AGENT_FD);
}

GPid jc_polkit_agent_start(const jc_ctx *c)
{
        /* Only for the system bus: polkit is not on the others. */
        if (!c->ask_password || c->address || c->session || !isatty(STDIN_FILENO) || access(PKTTYAGENT, X_OK) != 0)
                return 0;
        int notify[2];
        if (pipe2(notify, O_CLOEXEC) < 0)
                return 0;
        g_autofree char *fd_arg = g_strdup_printf("--notify-fd=%d", AGENT_FD);
        const char *argv[] = { PKTTYAGENT, fd_arg, "--fallback", NULL };
        GPid pid = 0;
        g_autoptr(GError) error = NULL;
        /* stdin/stdout/stderr are inherited: the agent talks to our tty. */
        gboolean ok = g_spawn_async(NULL, (char **)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_CHILD_INHERITS_STDIN,
                                    pass_notify_fd, GINT_TO_POINTER(notify[1]), &pid, &error);
        close(notify[1]);
        if (!ok) {
                close(notify[0]);
                return 0;
        }
        /* The agent closes its end once registered (EOF here); EOF also
         * comes if it dies. */
        struct pollfd p = { .fd = notify[0], .events = POLLIN };
        (void) poll(&p, 1, REGISTER_TIMEOUT_MS);
        close(notify[0]);
        return pid;
}

void jc_polkit_agent_stop(GPid pid)
{
        if (pid <= 0)
                return;
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
        g_spawn_close_pid(pid);
}
