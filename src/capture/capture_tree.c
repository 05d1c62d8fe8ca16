#include "capture_tree.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define MAX_SYMLINKS 40
/* A read that takes longer is a stuck driver or file system (a debugfs
 * node, a FUSE file): given up, not waited for. */
#define READ_DEADLINE_S 2

static volatile sig_atomic_t deadline_passed;

static void on_deadline(int sig)
{
        (void) sig;
        deadline_passed = 1;
}

/* SIGALRM without SA_RESTART, so that the read the timer interrupts
 * returns EINTR (a FUSE file system is asked to interrupt it). The
 * capture runs on one thread, the only one the signal can reach. */
static void arm_deadline(unsigned seconds)
{
        static bool installed;
        if (!installed) {
                struct sigaction sa = { .sa_handler = on_deadline };
                sigemptyset(&sa.sa_mask);
                sigaction(SIGALRM, &sa, NULL);
                installed = true;
        }
        deadline_passed = 0;
        struct itimerval t = { .it_value = { .tv_sec = seconds } };
        setitimer(ITIMER_REAL, &t, NULL);
}

static void free_entry(gpointer p)
{
        jc_entry *e = p;
        g_free(e->target);
        if (e->data)
                g_byte_array_unref(e->data);
        g_free(e);
}

void jc_tree_init(jc_tree *t, const char *root_dir)
{
        t->root = g_strdup(strcmp(root_dir, "/") == 0 ? "" : root_dir);
        t->entries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, free_entry);
        t->notes = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        t->max_file = 32u << 20;
}

void jc_tree_clear(jc_tree *t)
{
        g_hash_table_unref(t->entries);
        g_hash_table_unref(t->notes);
        g_free(t->root);
}

__attribute__((format(printf, 3, 4)))
static void note(jc_tree *t, const char *path, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        g_hash_table_replace(t->notes, g_strdup(path), g_strdup_vprintf(fmt, ap));
        va_end(ap);
}

/* Entries are keyed without the leading slash, as the archive names them. */
static jc_entry *put(jc_tree *t, const char *canon, jc_kind kind)
{
        jc_entry *e = g_hash_table_lookup(t->entries, canon + 1);
        if (e && e->kind == kind)
                return e;
        e = g_new0(jc_entry, 1);
        e->kind = kind;
        g_hash_table_replace(t->entries, g_strdup(canon + 1), e);
        return e;
}

GByteArray *jc_read_regular(const char *host, size_t max, char **why)
{
        *why = NULL;
        int fd = open(host, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
        if (fd < 0) {
                *why = g_strdup_printf("unreadable (%s): left out", g_strerror(errno));
                return NULL;
        }
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                *why = g_strdup("not a regular file: left out");
                close(fd);
                return NULL;
        }
        GByteArray *data = g_byte_array_new();
        char buf[65536];
        arm_deadline(READ_DEADLINE_S);
        while (data->len < max) {
                ssize_t n = deadline_passed ? -1 : read(fd, buf, MIN(sizeof(buf), max - data->len));
                if (deadline_passed) {
                        *why = g_strdup_printf("no answer within %d s (a stuck driver?): left out", READ_DEADLINE_S);
                        g_byte_array_unref(data);
                        data = NULL;
                        break;
                }
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        /* An attribute the driver refuses to read now
                         * (EAGAIN, EIO): jetsond saw no value either. */
                        *why = g_strdup_printf("read failed (%s): kept as far as read", g_strerror(errno));
                        break;
                }
                if (n == 0)
                        break;
                g_byte_array_append(data, (const guint8 *) buf, (guint) n);
        }
        arm_deadline(0);
        if (!*why && data->len >= max)
                *why = g_strdup_printf("longer than %zu bytes (endless?): cut there", max);
        close(fd);
        return data;
}

static void take_contents(jc_tree *t, const char *canon, const char *host)
{
        jc_entry *e = put(t, canon, JC_FILE);
        if (e->data)
                return;
        char *why;
        e->data = jc_read_regular(host, t->max_file, &why);
        if (why)
                g_hash_table_replace(t->notes, g_strdup(canon), why);
        if (!e->data)
                g_hash_table_remove(t->entries, canon + 1);
}

/* Walks PATH as jetsond's sysroot does (src/readers/sysroot.c), recording
 * each directory and link on the way. Writes the canonical path to CANON
 * and returns 0, or -errno (-EXDEV: out of the root, -ELOOP: a loop). */
static int walk(jc_tree *t, const char *path, char *canon, size_t canon_size, struct stat *st)
{
        g_autofree char *todo = g_strdup(path);
        size_t cur_len = 0;
        int links = 0;
        canon[0] = '\0';

        const char *p = todo;
        while (*p) {
                while (*p == '/')
                        p++;
                if (!*p)
                        break;
                const char *end = strchrnul(p, '/');
                size_t clen = (size_t) (end - p);
                if (clen == 1 && p[0] == '.') {
                        p = end;
                        continue;
                }
                if (clen == 2 && p[0] == '.' && p[1] == '.') {
                        if (cur_len == 0) {
                                note(t, path, "leads outside the root: not followed");
                                return -EXDEV;
                        }
                        while (cur_len > 0 && canon[cur_len - 1] != '/')
                                cur_len--;
                        canon[--cur_len] = '\0';
                        p = end;
                        continue;
                }
                if (cur_len + 1 + clen >= canon_size)
                        return -ENAMETOOLONG;
                size_t parent_len = cur_len;
                canon[cur_len] = '/';
                memcpy(canon + cur_len + 1, p, clen);
                cur_len += 1 + clen;
                canon[cur_len] = '\0';
                p = end;

                g_autofree char *host = g_strconcat(t->root, canon, NULL);
                if (lstat(host, st) < 0) {
                        int err = errno;
                        if (err != ENOENT && err != ENOTDIR)
                                note(t, canon, "unreadable (%s): left out", g_strerror(err));
                        return -err;
                }
                if (S_ISLNK(st->st_mode)) {
                        char target[PATH_MAX];
                        ssize_t n = readlink(host, target, sizeof(target) - 1);
                        if (n < 0)
                                return -errno;
                        target[n] = '\0';
                        jc_entry *e = put(t, canon, JC_LINK);
                        g_free(e->target);
                        e->target = g_strdup(target);
                        if (++links > MAX_SYMLINKS) {
                                note(t, path, "a loop of symbolic links: not followed");
                                return -ELOOP;
                        }
                        char *rest = g_strconcat(target, p, NULL);
                        g_free(todo);
                        todo = rest;
                        p = todo;
                        cur_len = target[0] == '/' ? 0 : parent_len;
                        canon[cur_len] = '\0';
                } else if (S_ISDIR(st->st_mode)) {
                        put(t, canon, JC_DIR);
                } else if (*p) {
                        return -ENOTDIR;
                }
        }
        if (cur_len == 0) {
                g_strlcpy(canon, "/", canon_size);
                g_autofree char *host = g_strconcat(t->root, "/", NULL);
                return lstat(host, st) < 0 ? -errno : 0;
        }
        return 0;
}

void jc_tree_add_path(jc_tree *t, const char *path)
{
        char canon[PATH_MAX];
        struct stat st;
        if (path[0] != '/' || walk(t, path, canon, sizeof(canon), &st) < 0 || strcmp(canon, "/") == 0)
                return;
        g_autofree char *host = g_strconcat(t->root, canon, NULL);
        if (S_ISREG(st.st_mode))
                take_contents(t, canon, host);
        else if (!S_ISDIR(st.st_mode))
                note(t, canon, "not a regular file (a FIFO, a device or a socket): left out");
}

void jc_tree_add_listing(jc_tree *t, const char *dir)
{
        char canon[PATH_MAX];
        struct stat st;
        if (dir[0] != '/' || walk(t, dir, canon, sizeof(canon), &st) < 0 || !S_ISDIR(st.st_mode))
                return;
        g_autofree char *host = g_strconcat(t->root, canon, NULL);
        DIR *d = opendir(host);
        if (!d) {
                note(t, canon, "cannot be listed (%s): left out", g_strerror(errno));
                return;
        }
        const char *sep = strcmp(canon, "/") == 0 ? "" : "/";
        for (struct dirent *de; (de = readdir(d));) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                g_autofree char *child = g_strconcat(canon, sep, de->d_name, NULL);
                g_autofree char *child_host = g_strconcat(t->root, child, NULL);
                struct stat cs;
                if (lstat(child_host, &cs) < 0)
                        continue;
                if (S_ISDIR(cs.st_mode)) {
                        put(t, child, JC_DIR);
                } else if (S_ISLNK(cs.st_mode)) {
                        char target[PATH_MAX];
                        ssize_t n = readlink(child_host, target, sizeof(target) - 1);
                        if (n < 0)
                                continue;
                        target[n] = '\0';
                        jc_entry *e = put(t, child, JC_LINK);
                        g_free(e->target);
                        e->target = g_strdup(target);
                } else if (S_ISREG(cs.st_mode)) {
                        put(t, child, JC_FILE);   /* its name; contents if read */
                } else {
                        note(t, child, "not a regular file (a FIFO, a device or a socket): left out");
                }
        }
        closedir(d);
}

static gint by_path(gconstpointer a, gconstpointer b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

void jc_sort_paths(const char **paths, guint n)
{
        qsort(paths, n, sizeof(*paths), (int (*)(const void *, const void *)) by_path);
}

const char **jc_tree_paths(const jc_tree *t, guint *n)
{
        const char **keys = (const char **) g_hash_table_get_keys_as_array(t->entries, n);
        jc_sort_paths(keys, *n);
        return keys;
}
