#include "pidns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"

/* /proc/PID/status is about 1.5 KiB, but its Groups line, before NSpid,
 * holds up to 65536 groups. */
#define STATUS_MAX (1u << 20)

/* The numbers after NAME (e.g. "NSpid:") on the line that starts with
 * it, into OUT; how many, -1 when there is no such line, -2 when it
 * holds no number, more than MAX or anything but numbers. */
static int line_numbers(const char *text, const char *name, uint32_t *out, unsigned max)
{
        size_t len = strlen(name);
        for (const char *line = text; *line;) {
                const char *end = jd_line_end(line);
                if (strncmp(line, name, len) == 0) {
                        jd_span fields[JD_PIDNS_MAX_DEPTH + 2];
                        size_t n = jd_line_fields(line, fields, max + 2);
                        if (n < 2 || n > max + 1)
                                return -2;
                        for (size_t i = 1; i < n; i++) {
                                uint64_t v;
                                if (!jd_span_u64(fields[i], &v) || v == 0 || v > UINT32_MAX)
                                        return -2;
                                out[i - 1] = (uint32_t) v;
                        }
                        return (int) n - 1;
                }
                if (!*end)
                        break;
                line = end + 1;
        }
        return -1;
}

bool jd_parse_nspid(const char *status, jd_pidns_process *out)
{
        int n = line_numbers(status, "NSpid:", out->nspid, JD_PIDNS_MAX_DEPTH);
        if (n == -1)
                n = line_numbers(status, "Pid:", out->nspid, 1);
        if (n < 1)
                return false;
        out->pid = out->nspid[0];
        out->depth = (unsigned) n - 1;
        return true;
}

bool jd_parse_ns_link(const char *link, uint64_t *inode)
{
        static const char prefix[] = "pid:[";
        if (strncmp(link, prefix, sizeof(prefix) - 1) != 0)
                return false;
        uint64_t v;
        const char *after = jd_parse_digits(link + sizeof(prefix) - 1, &v);
        if (!after || after == link + sizeof(prefix) - 1 || strcmp(after, "]") != 0 || v == 0)
                return false;
        *inode = v;
        return true;
}

/* The host path of /proc/PID/ns/pid under SR, the link itself (its
 * directory resolved, never the link: its target names no file). */
static int ns_link_path(const jd_sysroot *sr, uint32_t pid, char *out, size_t size)
{
        char dir[64];
        snprintf(dir, sizeof(dir), "/proc/%u/ns", pid);
        int r = jd_sysroot_host_path(sr, dir, out, size);
        if (r < 0)
                return r;
        size_t len = strlen(out);
        if (len + sizeof("/pid") > size)
                return -ENAMETOOLONG;
        memcpy(out + len, "/pid", sizeof("/pid"));
        return 0;
}

int jd_pidns_read(const jd_sysroot *sr, uint32_t pid, jd_pidns_process *out)
{
        char path[64];
        memset(out, 0, sizeof(*out));
        snprintf(path, sizeof(path), "/proc/%u/status", pid);
        char host[PATH_MAX];
        int r = jd_sysroot_host_path(sr, path, host, sizeof(host));
        if (r < 0)
                return r;
        size_t len = 0;
        char *text = jd_sysroot_read_file(sr, path, STATUS_MAX, &len);
        if (!text)
                return access(host, R_OK) == 0 ? -EIO : -errno;
        bool ok = jd_parse_nspid(text, out) && out->pid == pid;
        free(text);
        if (!ok)
                return -EIO;
        /* The namespace's name needs ptrace access to PID (root has it;
         * a jetsond --user only for the user's own processes): without
         * it the process is of a namespace not known, never matched. */
        char link[PATH_MAX], target[64];
        if (ns_link_path(sr, pid, link, sizeof(link)) == 0) {
                ssize_t n = readlink(link, target, sizeof(target) - 1);
                if (n > 0) {
                        target[n] = 0;
                        jd_parse_ns_link(target, &out->ns_inode);
                }
        }
        return 0;
}

/* The inode of X's namespace UP levels above its own, through the
 * kernel's NS_GET_PARENT; 0 where it cannot be asked (not procfs, no
 * access, a kernel before 4.9). */
static uint64_t ancestor_ns(const jd_sysroot *sr, uint32_t pid, unsigned up)
{
        char link[PATH_MAX], target[64];
        if (ns_link_path(sr, pid, link, sizeof(link)) < 0)
                return 0;
        /* Only a namespace's link is opened (its target "pid:[N]", which
         * on procfs leads to the namespace and nowhere else), never read;
         * O_NONBLOCK: a FIFO by that name in a fake tree does not block. */
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        uint64_t own;
        if (n <= 0)
                return 0;
        target[n] = 0;
        if (!jd_parse_ns_link(target, &own))
                return 0;
        int fd = open(link, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        for (unsigned i = 0; fd >= 0 && i < up; i++) {
                int parent = ioctl(fd, NS_GET_PARENT);
                close(fd);
                fd = parent;
        }
        if (fd < 0)
                return 0;
        struct stat st;
        uint64_t inode = fstat(fd, &st) == 0 ? (uint64_t) st.st_ino : 0;
        close(fd);
        return inode;
}

uint32_t jd_pidns_to_caller(const jd_sysroot *sr, const jd_pidns_process *caller, const jd_pidns_process *x)
{
        unsigned d = caller->depth;
        if (d == 0)
                return x->nspid[0];
        if (x->depth < d || !caller->ns_inode)
                return 0;
        uint64_t ns = x->depth == d ? x->ns_inode : ancestor_ns(sr, x->pid, x->depth - d);
        return ns == caller->ns_inode ? x->nspid[d] : 0;
}

static bool all_numeric(const char *s)
{
        if (!*s)
                return false;
        for (; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

int jd_pidns_from_caller(const jd_sysroot *sr, const jd_pidns_process *caller, const uint32_t *in, size_t n,
                         uint32_t *out)
{
        memset(out, 0, n * sizeof(*out));
        if (caller->depth == 0) {
                for (size_t i = 0; i < n; i++) {
                        jd_pidns_process x;
                        if (in[i] && jd_pidns_read(sr, in[i], &x) == 0)
                                out[i] = in[i];
                }
                return 0;
        }
        char **names = NULL;
        size_t count = jd_sysroot_list(sr, "/proc", &names);
        if (count == 0)
                return -ENOENT;
        size_t left = 0;
        for (size_t i = 0; i < n; i++)
                left += in[i] != 0;
        for (size_t k = 0; k < count && left > 0; k++) {
                uint64_t pid;
                if (!all_numeric(names[k]) || !jd_parse_u64(names[k], &pid) || pid > UINT32_MAX)
                        continue;
                jd_pidns_process x;
                if (jd_pidns_read(sr, (uint32_t) pid, &x) < 0 || x.depth < caller->depth)
                        continue;
                uint32_t mine = x.nspid[caller->depth];
                for (size_t i = 0; i < n; i++)
                        if (in[i] == mine && !out[i] && jd_pidns_to_caller(sr, caller, &x) == mine) {
                                out[i] = x.pid;
                                left--;
                        }
        }
        jd_names_free(names, count);
        return 0;
}
