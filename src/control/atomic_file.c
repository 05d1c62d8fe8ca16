#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Host path of the file that PATH names: the canonical target if it exists,
 * otherwise the canonical parent directory plus the last component. */
static int target_host_path(const jd_sysroot *sr, const char *path, char *out, size_t size, bool *exists)
{
        *exists = false;
        int r = jd_sysroot_host_path(sr, path, out, size);
        if (r == 0) {
                *exists = true;
                return 0;
        }
        if (r != -ENOENT)
                return r;

        const char *slash = strrchr(path, '/');
        const char *name = slash + 1;
        char parent[PATH_MAX], dir[PATH_MAX];
        size_t plen = slash == path ? 1 : (size_t) (slash - path);
        if (plen >= sizeof(parent))
                return -ENAMETOOLONG;
        memcpy(parent, path, plen);
        parent[plen] = '\0';
        r = jd_sysroot_host_path(sr, parent, dir, sizeof(dir));
        if (r < 0)
                return r;
        size_t dlen = strlen(dir);
        int n = snprintf(out, size, "%s%s%s", dir, dlen > 0 && dir[dlen - 1] == '/' ? "" : "/", name);
        if (n < 0 || (size_t) n >= size)
                return -ENAMETOOLONG;

        /* The last component is absent or a dangling symlink. Replacing
         * such a link with a regular file would undo whoever pointed it
         * somewhere on purpose (e.g. nvpmodel.conf for another module). */
        struct stat st;
        if (lstat(out, &st) == 0) /* else it appeared since we resolved PATH */
                return S_ISLNK(st.st_mode) ? -ENOENT : -EAGAIN;
        return errno == ENOENT ? 0 : -errno;
}

static int write_all(int fd, const char *content, size_t len)
{
        while (len > 0) {
                ssize_t n = write(fd, content, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                content += n;
                len -= (size_t) n;
        }
        return 0;
}

/* Makes the rename itself durable: without it the directory entry may
 * still name the old inode after a power cut. */
static int sync_dir(const char *dir)
{
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = fsync(fd) < 0 ? -errno : 0;
        close(fd);
        return r;
}

static int atomic_write(const jd_sysroot *sr, const char *path, const char *content, size_t len,
                        mode_t mode_if_new)
{
        const char *name = strrchr(path, '/');
        if (path[0] != '/' || !name[1] || strcmp(name, "/.") == 0 || strcmp(name, "/..") == 0)
                return -EINVAL;

        char target[PATH_MAX];
        bool exists;
        int r = target_host_path(sr, path, target, sizeof(target), &exists);
        if (r < 0)
                return r;
        struct stat st;
        mode_t mode = mode_if_new & 07777;
        if (exists) {
                if (stat(target, &st) < 0)
                        return -errno;
                if (S_ISDIR(st.st_mode))
                        return -EISDIR;
                if (!S_ISREG(st.st_mode))
                        return -EINVAL;
                mode = st.st_mode & 07777;
        }

        /* The temporary file: hidden (".name.XXXXXX", a mkostemp template
         * whose X's it replaces) and in the target's directory, so that
         * rename(2) is atomic. */
        const char *slash = strrchr(target, '/');
        int dlen = (int) (slash - target);
        char tmp[PATH_MAX], dir[PATH_MAX];
        int n = snprintf(tmp, sizeof(tmp), "%.*s/.%s.XXXXXX", dlen, target, slash + 1);
        if (n < 0 || (size_t) n >= sizeof(tmp))
                return -ENAMETOOLONG;
        if (dlen > 0)
                snprintf(dir, sizeof(dir), "%.*s", dlen, target);
        else
                strcpy(dir, "/");

        /* mkostemp opens with O_CREAT|O_EXCL: never someone else's file. */
        int fd = mkostemp(tmp, O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = write_all(fd, content, len);
        /* Owner before mode: fchown clears set-id bits. Only root may give
         * a file away; anyone else keeps their own ownership. */
        if (r == 0 && exists && fchown(fd, st.st_uid, st.st_gid) < 0 && errno != EPERM)
                r = -errno;
        if (r == 0 && fchmod(fd, mode) < 0)
                r = -errno;
        if (r == 0 && fsync(fd) < 0)
                r = -errno;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, target) < 0)
                r = -errno;
        if (r < 0) {
                unlink(tmp);
                return r;
        }
        return sync_dir(dir);
}

int jd_atomic_write(const jd_sysroot *sr, const char *path, const char *content, size_t len,
                    mode_t mode_if_new)
{
        int r = atomic_write(sr, path, content, len, mode_if_new);
        /* /etc or /var/lib read-only under the unit: said once, by path. */
        if (r < 0)
                jd_sysroot_note_refusal(sr, path, -r);
        return r;
}

int jd_read_text(const jd_sysroot *sr, const char *path, size_t max, char **out)
{
        *out = NULL;
        if (max > SIZE_MAX / 4)
                max = SIZE_MAX / 4; /* room for max + 2 below; no text file is that big */
        /* A FIFO or device put in place of a conf is refused by the open. */
        int fd = jd_sysroot_open(sr, path, O_RDONLY);
        if (fd < 0)
                return fd;
        struct stat st;
        int r = 0;
        if (fstat(fd, &st) < 0)
                r = -errno;
        else if ((uintmax_t) st.st_size > max)
                r = -EFBIG;
        if (r < 0) {
                close(fd);
                return r;
        }

        /* The size is only a hint: the file may grow while we read, so read
         * to the end, but never more than MAX + 1 bytes. */
        size_t cap = (size_t) st.st_size + 1, got = 0;
        char *buf = g_malloc(cap + 1);
        for (;;) {
                if (got == cap) {
                        if (cap > max)
                                break;
                        cap = cap > max / 2 ? max + 1 : cap * 2;
                        buf = g_realloc(buf, cap + 1);
                }
                ssize_t n = read(fd, buf + got, cap - got);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        r = -errno;
                        break;
                }
                if (n == 0)
                        break;
                got += (size_t) n;
        }
        close(fd);
        if (r == 0 && got > max)
                r = -EFBIG;
        /* Text: a NUL would silently cut the file short for every parser. */
        if (r == 0 && memchr(buf, '\0', got))
                r = -EINVAL;
        if (r < 0) {
                g_free(buf);
                return r;
        }
        buf[got] = '\0';
        *out = buf;
        return 0;
}

typedef struct {
        const jd_sysroot *sr;
        char *path;
        char *content;
        size_t len;
        mode_t mode_if_new;
        int r;
        jd_atomic_done done;
        void *userdata;
} async_write;

static void write_in_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        (void) source, (void) cancellable;
        async_write *a = data;
        a->r = jd_atomic_write(a->sr, a->path, a->content, a->len, a->mode_if_new);
        g_task_return_boolean(task, TRUE);
}

static void on_written(GObject *source, GAsyncResult *res, gpointer data)
{
        (void) source, (void) res;
        async_write *a = data;
        a->done(a->r, a->userdata);
}

static void async_write_free(gpointer data)
{
        async_write *a = data;
        g_free(a->path);
        g_free(a->content);
        g_free(a);
}

void jd_atomic_write_async(const jd_sysroot *sr, const char *path, const char *content, size_t len,
                           mode_t mode_if_new, jd_atomic_done done, void *userdata)
{
        async_write *a = g_new0(async_write, 1);
        a->sr = sr;
        a->path = g_strdup(path);
        a->content = g_malloc(len + 1);
        memcpy(a->content, content, len);
        a->len = len;
        a->mode_if_new = mode_if_new;
        a->done = done;
        a->userdata = userdata;
        g_autoptr(GTask) task = g_task_new(NULL, NULL, on_written, a);
        g_task_set_task_data(task, a, async_write_free);
        g_task_run_in_thread(task, write_in_thread);
}
