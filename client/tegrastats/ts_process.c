#include "ts_process.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

void ts_process_set_name(void)
{
        prctl(PR_SET_NAME, TS_PROCESS_NAME, 0, 0, 0);
}

bool ts_process_background(int *errno_out)
{
        *errno_out = 0;
        pid_t pid = fork();
        if (pid < 0) {
                *errno_out = errno;
                return false;
        }
        if (pid > 0)
                return false;
        setsid();
        int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null >= 0) {
                dup2(null, STDIN_FILENO);
                dup2(null, STDOUT_FILENO);
                dup2(null, STDERR_FILENO);
                if (null > STDERR_FILENO)
                        close(null);
        }
        return true;
}

static bool read_comm(pid_t pid, char *out, size_t size)
{
        char path[64];
        snprintf(path, sizeof(path), "/proc/%ld/comm", (long) pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return false;
        bool ok = fgets(out, (int) size, f) != NULL;
        fclose(f);
        if (ok)
                out[strcspn(out, "\n")] = '\0';
        return ok;
}

/* Only our own writers: the same program, so NVIDIA's tegrastats (or any
 * other process named so) is never signalled. */
static bool same_program(pid_t pid, const char *self_exe)
{
        char path[64], exe[PATH_MAX];
        snprintf(path, sizeof(path), "/proc/%ld/exe", (long) pid);
        ssize_t n = readlink(path, exe, sizeof(exe) - 1);
        if (n <= 0)
                return false;
        exe[n] = '\0';
        return strcmp(exe, self_exe) == 0;
}

unsigned ts_process_stop_all(void)
{
        char self_exe[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
        if (n <= 0)
                return 0;
        self_exe[n] = '\0';
        DIR *proc = opendir("/proc");
        if (!proc)
                return 0;
        unsigned stopped = 0;
        pid_t self = getpid();
        for (struct dirent *d; (d = readdir(proc));) {
                if (!isdigit((unsigned char) d->d_name[0]))
                        continue;
                pid_t pid = (pid_t) strtol(d->d_name, NULL, 10);
                char comm[32];
                if (pid <= 0 || pid == self || !read_comm(pid, comm, sizeof(comm)) || strcmp(comm, TS_PROCESS_NAME) != 0 ||
                    !same_program(pid, self_exe))
                        continue;
                if (kill(pid, SIGTERM) == 0)
                        stopped++;
        }
        closedir(proc);
        return stopped;
}
