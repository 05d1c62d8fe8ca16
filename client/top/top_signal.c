#include "top_signal.h"

#include <errno.h>
#include <glib.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *jc_top_signal_name(int sig)
{
        return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGKILL ? "SIGKILL" : "a signal";
}

bool jc_top_send_signal(const char *proc, uint32_t pid, const char *command, const char *user, int sig, char *text,
                        size_t size)
{
        const char *signame = jc_top_signal_name(sig);
        if (pid <= 1) {
                snprintf(text, size, "Refused: not sending %s to PID %u", signame, pid);
                return false;
        }
        if (geteuid() != 0) {
                struct passwd *pw = getpwuid(geteuid());
                if (!pw || !user || strcmp(user, pw->pw_name) != 0) {
                        snprintf(text, size, "Refused: PID %u is %s's; only root signals other users' processes", pid,
                                 user && *user ? user : "another user");
                        return false;
                }
        }
        /* The kernel's comm is the first 15 bytes of the name. */
        g_autofree char *path = g_strdup_printf("%s/%u/comm", proc, pid), *comm = NULL;
        if (!g_file_get_contents(path, &comm, NULL, NULL)) {
                snprintf(text, size, "Refused: PID %u is not running on this machine", pid);
                return false;
        }
        g_strchomp(comm);
        if (strncmp(comm, command, 15) != 0) {
                snprintf(text, size, "Refused: PID %u here is %s, not %s", pid, comm, command);
                return false;
        }
        if (kill((pid_t) pid, sig) < 0) {
                snprintf(text, size, "Refused: %s to PID %u: %s", signame, pid, strerror(errno));
                return false;
        }
        snprintf(text, size, "Sent %s to PID %u (%s)", signame, pid, command);
        return true;
}
