#include "sysroot.h"

#include "probe_log.h"

#include <dirent.h>
#include <glib.h>
#include <pthread.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SYMLINKS 40

/* Files already complained about, and who hears it. Readers on three
 * threads share one sysroot: under a lock. */
typedef struct {
        pthread_mutex_t mu;
        GHashTable *told;         /* in-root paths */
        jd_sysroot_complaint_fn fn;
        void *data;
        jd_sysroot_record_fn record;
        void *record_data;
} complaints;

struct jd_sysroot {
        char *dir;    /* canonical host directory, no trailing slash except "/" */
        size_t dir_len;
        bool host;
        complaints *complaints;
        jd_probe_log *probes;        /* what the readers met (probe_log.h) */
};

jd_sysroot *jd_sysroot_new(const char *dir, const char **error)
{
        char *real = realpath(dir, NULL);
        struct stat st;

        if (!real || stat(real, &st) < 0) {
                *error = "sysroot does not exist";
                free(real);
                return NULL;
        }
        if (!S_ISDIR(st.st_mode)) {
                *error = "sysroot is not a directory";
                free(real);
                return NULL;
        }
        if (access(real, R_OK | X_OK) < 0) {
                *error = "sysroot is not readable";
                free(real);
                return NULL;
        }
        jd_sysroot *sr = calloc(1, sizeof(*sr));
        if (!sr) {
                free(real);
                *error = "out of memory";
                return NULL;
        }
        sr->complaints = calloc(1, sizeof(*sr->complaints));
        if (!sr->complaints) {
                free(real);
                free(sr);
                *error = "out of memory";
                return NULL;
        }
        pthread_mutex_init(&sr->complaints->mu, NULL);
        sr->complaints->told = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        sr->probes = jd_probe_log_new();
        sr->dir = real;
        sr->host = strcmp(real, "/") == 0;
        sr->dir_len = sr->host ? 0 : strlen(real);
        return sr;
}

void jd_sysroot_free(jd_sysroot *sr)
{
        if (!sr)
                return;
        g_hash_table_unref(sr->complaints->told);
        jd_probe_log_free(sr->probes);
        pthread_mutex_destroy(&sr->complaints->mu);
        free(sr->complaints);
        free(sr->dir);
        free(sr);
}

void jd_sysroot_set_complaints(jd_sysroot *sr, jd_sysroot_complaint_fn fn, void *data)
{
        pthread_mutex_lock(&sr->complaints->mu);
        sr->complaints->fn = fn;
        sr->complaints->data = data;
        pthread_mutex_unlock(&sr->complaints->mu);
}

void jd_sysroot_set_recorder(jd_sysroot *sr, jd_sysroot_record_fn fn, void *data)
{
        pthread_mutex_lock(&sr->complaints->mu);
        sr->complaints->record_data = data;
        __atomic_store_n(&sr->complaints->record, fn, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&sr->complaints->mu);
}

/* The recorder is called under the lock: it only adds to a set. Without
 * one (the daemon, always) a path costs one atomic load, no lock. */
static void record(const jd_sysroot *sr, const char *path, bool listed)
{
        complaints *c = sr->complaints;
        if (!__atomic_load_n(&c->record, __ATOMIC_ACQUIRE))
                return;
        pthread_mutex_lock(&c->mu);
        if (c->record)
                c->record(path, listed, c->record_data);
        pthread_mutex_unlock(&c->mu);
}

__attribute__((format(printf, 3, 4)))
static void complain(const jd_sysroot *sr, const char *path, const char *fmt, ...)
{
        complaints *c = sr->complaints;
        pthread_mutex_lock(&c->mu);
        bool first = c->fn && !g_hash_table_contains(c->told, path);
        if (first)
                g_hash_table_add(c->told, g_strdup(path));
        jd_sysroot_complaint_fn fn = c->fn;
        void *data = c->data;
        pthread_mutex_unlock(&c->mu);
        if (!first)
                return;
        va_list ap;
        va_start(ap, fmt);
        char *why = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        fn(path, why, data);
        g_free(why);
}

bool jd_sysroot_sandbox_errno(int err)
{
        return err == EROFS || ((err == EACCES || err == EPERM) && geteuid() == 0);
}

const char *jd_sysroot_strerror(int err)
{
        static __thread char text[160];
        if (!jd_sysroot_sandbox_errno(err))
                return g_strerror(err);
        g_snprintf(text, sizeof(text), "not accessible under this service's sandbox (%s); see jetsond.service",
                   g_strerror(err));
        return text;
}

/* Not root (jetsond --user, or --once run by a user): file modes keep
 * some files from this user (RAPL's energy counters are 0400 root,
 * debugfs is 0700). What they hold is left out, never read as 0, and the
 * log says so once: for the directory the user cannot enter (all of
 * debugfs in one line), else for the file. */
static void note_unreadable(const jd_sysroot *sr, const char *path, int err)
{
        complaints *c = sr->complaints;
        pthread_mutex_lock(&c->mu);
        bool told = g_hash_table_contains(c->told, path);
        pthread_mutex_unlock(&c->mu);
        if (told || strlen(path) >= PATH_MAX)
                return;
        /* The shortest prefix that cannot be resolved: its parent is the
         * directory that may not be searched. */
        char head[PATH_MAX], canon[PATH_MAX];
        for (const char *slash = strchr(path + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
                const char *next = strchr(slash + 1, '/');
                size_t len = next ? (size_t) (next - path) : strlen(path);
                memcpy(head, path, len);
                head[len] = '\0';
                int r = jd_sysroot_resolve(sr, head, canon, sizeof(canon));
                if (r != -EACCES && r != -EPERM)
                        continue;
                head[slash - path] = '\0';
                complain(sr, head, ": this user may not enter it (%s); what jetsond reads under it is left out",
                         g_strerror(err));
                pthread_mutex_lock(&c->mu);
                g_hash_table_add(c->told, g_strdup(path));
                pthread_mutex_unlock(&c->mu);
                return;
        }
        complain(sr, path, ": not readable by this user (%s); left out", g_strerror(err));
}

void jd_sysroot_note_refusal(const jd_sysroot *sr, const char *path, int err)
{
        /* The complaint is "PATH" + why; this one reads "PATH: not ...". */
        if (jd_sysroot_sandbox_errno(err))
                complain(sr, path, ": %s", jd_sysroot_strerror(err));
        else if (err == EACCES || err == EPERM)
                note_unreadable(sr, path, err);
}

jd_probe_log *jd_sysroot_probe_log(const jd_sysroot *sr) { return sr->probes; }

const char *jd_sysroot_dir(const jd_sysroot *sr) { return sr->dir; }
bool jd_sysroot_is_host(const jd_sysroot *sr) { return sr->host; }

/* Host path of a canonical in-root path: prefix + path. */
static int join_host(const jd_sysroot *sr, const char *canon, char *out, size_t out_size)
{
        int n = snprintf(out, out_size, "%.*s%s", (int) sr->dir_len, sr->dir, canon);
        return n < 0 || (size_t) n >= out_size ? -ENAMETOOLONG : 0;
}

/* Walks PATH one component at a time. CUR holds the canonical, symlink-free
 * prefix resolved so far (empty = the sysroot itself), so ".." can simply
 * drop its last component; dropping past the top is an escape. */
static int resolve_under(const jd_sysroot *sr, const char *path, char *cur, size_t cur_size)
{
        char todo[PATH_MAX * 2];
        char host[PATH_MAX];
        size_t cur_len = 0;
        int links = 0;

        if (path[0] != '/')
                return -EINVAL;
        if (strlen(path) >= sizeof(todo))
                return -ENAMETOOLONG;
        strcpy(todo, path);
        cur[0] = '\0';

        char *p = todo;
        while (*p) {
                while (*p == '/')
                        p++;
                if (!*p)
                        break;
                char *end = strchrnul(p, '/');
                size_t clen = (size_t) (end - p);

                if (clen == 1 && p[0] == '.') {
                        p = end;
                        continue;
                }
                if (clen == 2 && p[0] == '.' && p[1] == '.') {
                        if (cur_len == 0)
                                return -EXDEV;
                        while (cur_len > 0 && cur[cur_len - 1] != '/')
                                cur_len--;
                        cur_len--; /* the slash */
                        cur[cur_len] = '\0';
                        p = end;
                        continue;
                }
                if (cur_len + 1 + clen >= cur_size)
                        return -ENAMETOOLONG;
                cur[cur_len] = '/';
                memcpy(cur + cur_len + 1, p, clen);
                size_t parent_len = cur_len;
                cur_len += 1 + clen;
                cur[cur_len] = '\0';
                p = end;

                int r = join_host(sr, cur, host, sizeof(host));
                if (r < 0)
                        return r;
                struct stat st;
                if (lstat(host, &st) < 0)
                        return -errno;
                if (S_ISLNK(st.st_mode)) {
                        char target[PATH_MAX];
                        if (++links > MAX_SYMLINKS)
                                return -ELOOP;
                        ssize_t n = readlink(host, target, sizeof(target) - 1);
                        if (n < 0)
                                return -errno;
                        target[n] = '\0';
                        /* Continue with target + remainder, relative to the
                         * link's directory (or the sysroot if absolute). */
                        char rest[PATH_MAX * 2];
                        int m = snprintf(rest, sizeof(rest), "%s%s", target, p);
                        if (m < 0 || (size_t) m >= sizeof(rest))
                                return -ENAMETOOLONG;
                        strcpy(todo, rest);
                        p = todo;
                        cur_len = target[0] == '/' ? 0 : parent_len;
                        cur[cur_len] = '\0';
                } else if (*p && !S_ISDIR(st.st_mode)) {
                        return -ENOTDIR;
                }
        }
        if (cur_len == 0) {
                if (cur_size < 2)
                        return -ENAMETOOLONG;
                strcpy(cur, "/");
        }
        return 0;
}

int jd_sysroot_resolve(const jd_sysroot *sr, const char *path, char *out, size_t out_size)
{
        if (sr->host) {
                /* On the real machine the kernel's own resolution is the truth. */
                char real[PATH_MAX];
                if (!realpath(path, real))
                        return -errno;
                if (strlen(real) >= out_size)
                        return -ENAMETOOLONG;
                strcpy(out, real);
                return 0;
        }
        return resolve_under(sr, path, out, out_size);
}

/* jd_sysroot_host_path() of a path to open (LISTED false) or list. */
static int host_path_for(const jd_sysroot *sr, const char *path, bool listed, char *out, size_t out_size)
{
        char canon[PATH_MAX];
        record(sr, path, false);
        int r = jd_sysroot_resolve(sr, path, canon, sizeof(canon));
        if (r < 0) {
                /* A directory on the way the sandbox made inaccessible. */
                jd_sysroot_note_refusal(sr, path, -r);
                jd_probe_log_note(sr->probes, path, -r, listed);
                return r;
        }
        return join_host(sr, canon, out, out_size);
}

int jd_sysroot_host_path(const jd_sysroot *sr, const char *path, char *out, size_t out_size)
{
        return host_path_for(sr, path, false, out, out_size);
}

int jd_sysroot_host_path_to_create(const jd_sysroot *sr, const char *path, char *out, size_t out_size)
{
        char head[PATH_MAX];
        int n = snprintf(head, sizeof(head), "%s", path);
        if (n < 0 || (size_t) n >= sizeof(head))
                return -ENAMETOOLONG;
        for (;;) {
                int r = jd_sysroot_host_path(sr, head, out, out_size);
                if (r == 0)
                        break;
                char *slash = strrchr(head, '/');
                if (r != -ENOENT || !slash || strcmp(head, "/") == 0)
                        return r;
                slash[slash == head ? 1 : 0] = '\0';   /* "/var" -> "/" */
        }
        /* The missing components, as given ("/swap/swapfile"). */
        const char *rest = path + (strcmp(head, "/") == 0 ? 0 : strlen(head));
        size_t olen = strlen(out);
        if (olen > 0 && out[olen - 1] == '/' && rest[0] == '/')
                rest++;
        if (olen + strlen(rest) >= out_size)
                return -ENAMETOOLONG;
        memcpy(out + olen, rest, strlen(rest) + 1);
        /* Each of them must really be missing: one that exists although
         * resolving said ENOENT is a dangling symlink, which creating the
         * path would follow, possibly out of the sysroot. */
        for (char *p = out + olen; *p; p++) {
                if (p[1] != '/' && p[1] != '\0')
                        continue;
                char saved = p[1];
                p[1] = '\0';
                struct stat st;
                bool exists = lstat(out, &st) == 0;
                p[1] = saved;
                if (exists)
                        return -ENOENT;
        }
        return 0;
}

/* Opened with O_NONBLOCK so that a FIFO or a device put where a sysfs,
 * procfs or config file should be can never block open(2) (a FIFO with no
 * writer does), then refused unless it is a regular file: every file
 * jetsond reads or writes is one (sysfs, procfs and debugfs attributes
 * are too). O_NONBLOCK is cleared again, so reads and writes behave as
 * usual. */
static int open_regular(const char *path, int flags)
{
        /* A sensor file is read up to a thousand times a second: no
         * access time updates (only the owner or root may ask). */
        if ((flags & O_ACCMODE) == O_RDONLY)
                flags |= O_NOATIME;
        int fd = open(path, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        if (fd < 0 && errno == EPERM && (flags & O_NOATIME)) {
                flags &= ~O_NOATIME;
                fd = open(path, flags | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        }
        if (fd < 0)
                return -errno;
        struct stat st;
        int r = 0;
        if (fstat(fd, &st) < 0)
                r = -errno;
        else if (S_ISDIR(st.st_mode))
                r = -EISDIR;
        else if (!S_ISREG(st.st_mode))
                r = -EINVAL;
        else if (!(flags & O_NONBLOCK) && fcntl(fd, F_SETFL, flags) < 0)
                r = -errno;
        if (r < 0) {
                close(fd);
                return r;
        }
        return fd;
}

int jd_sysroot_open(const jd_sysroot *sr, const char *path, int flags)
{
        char host[PATH_MAX];
        if (sr->host)
                record(sr, path, false);
        int r = sr->host ? 0 : jd_sysroot_host_path(sr, path, host, sizeof(host));
        if (r < 0)
                return r;
        r = open_regular(sr->host ? path : host, flags);
        jd_sysroot_note_refusal(sr, path, -r);
        jd_probe_log_note(sr->probes, path, r < 0 ? -r : 0, false);
        if (r == -EINVAL)
                complain(sr, path, "is not a regular file (a FIFO, a device or a socket): not read");
        return r;
}

bool jd_sysroot_exists(const jd_sysroot *sr, const char *path)
{
        char host[PATH_MAX];
        return jd_sysroot_host_path(sr, path, host, sizeof(host)) == 0;
}

static char *read_file(const jd_sysroot *sr, const char *path, size_t max, size_t *len, bool whole);

char *jd_sysroot_read_file(const jd_sysroot *sr, const char *path, size_t max, size_t *len)
{
        return read_file(sr, path, max, len, false);
}

char *jd_sysroot_read_whole(const jd_sysroot *sr, const char *path, size_t max, size_t *len)
{
        return read_file(sr, path, max, len, true);
}

static char *read_file(const jd_sysroot *sr, const char *path, size_t max, size_t *len, bool whole)
{
        int fd = jd_sysroot_open(sr, path, O_RDONLY);
        if (fd < 0)
                return NULL;
        /* The buffer grows with what is read, up to MAX: a cap of 64 MiB
         * (dpkg's status) costs 64 MiB only for a file that big. */
        size_t cap = max < 4096 ? max : 4096;
        char *buf = malloc(cap + 1);
        size_t got = 0;
        while (buf && got < max) {
                if (got == cap) {
                        size_t bigger = cap * 2 < max ? cap * 2 : max;
                        char *grown = realloc(buf, bigger + 1);
                        if (!grown) {
                                free(buf);
                                buf = NULL;
                                break;
                        }
                        buf = grown;
                        cap = bigger;
                }
                ssize_t n = read(fd, buf + got, cap - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        free(buf);
                        buf = NULL;
                        break;
                }
                if (n == 0)
                        break;
                got += (size_t) n;
        }
        /* A text cut at MAX would be read as another text. */
        char more;
        if (buf && whole && got == max && read(fd, &more, 1) > 0) {
                complain(sr, path, "is larger than %zu bytes, the most jetsond reads of it: taken as malformed", max);
                free(buf);
                buf = NULL;
        }
        close(fd);
        if (!buf)
                return NULL;
        buf[got] = '\0';
        if (len)
                *len = got;
        return buf;
}

static int not_dots(const struct dirent *d)
{
        return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
}

size_t jd_sysroot_list(const jd_sysroot *sr, const char *dir, char ***names)
{
        char host[PATH_MAX];
        struct dirent **ents = NULL;

        *names = NULL;
        record(sr, dir, true);
        if (host_path_for(sr, dir, true, host, sizeof(host)) < 0)
                return 0;
        int n = scandir(host, &ents, not_dots, versionsort);
        if (n < 0) {
                int err = errno;
                jd_sysroot_note_refusal(sr, dir, err);
                jd_probe_log_note(sr->probes, dir, err, true);
        }
        if (n <= 0) {
                free(ents);
                return 0;
        }
        char **out = calloc((size_t) n, sizeof(char *));
        for (int i = 0; i < n; i++) {
                if (out)
                        out[i] = strdup(ents[i]->d_name);
                free(ents[i]);
        }
        free(ents);
        if (!out)
                return 0;
        *names = out;
        return (size_t) n;
}

void jd_names_free(char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

int jd_sysroot_find_tool(const jd_sysroot *sr, const char *name, char *out, size_t out_size)
{
        static const char *const dirs[] = { "/usr/sbin", "/usr/bin", "/sbin", "/bin" };
        char path[PATH_MAX];

        if (strchr(name, '/'))
                return -EINVAL;
        for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
                snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
                if (jd_sysroot_host_path(sr, path, out, out_size) == 0 && access(out, X_OK) == 0) {
                        struct stat st;
                        if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
                                return 0;
                }
        }
        return -ENOENT;
}
