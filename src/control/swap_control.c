#include "swap_control.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "atomic_file.h"
#include "config_edit.h"
#include "swap.h"
#include "tool.h"

#define FSTAB "/etc/fstab"

typedef struct swap_op {
        const jd_sysroot *sr;
        unsigned tool_timeout_ms, off_timeout_ms;
        char path[256];               /* in-root */
        char host[PATH_MAX];
        uint64_t size;
        bool on_boot, active;
        jd_result result;
        void (*after_fstab)(struct swap_op *op, bool ok);
        jd_result_fn done;
        void *userdata;
} swap_op;

/* ---- bounds --------------------------------------------------------- */

/* f_bavail leaves the root reserve alone even though jetsond is root:
 * that reserve is what lets a full system still log in and clean up.
 * The file does not exist yet, so its nearest existing ancestor is asked. */
static bool free_bytes(const char *host_path, uint64_t *out)
{
        g_autofree char *dir = g_path_get_dirname(host_path);
        struct statvfs st;
        while (statvfs(dir, &st) < 0) {
                if (errno != ENOENT || strcmp(dir, "/") == 0)
                        return false;
                char *up = g_path_get_dirname(dir);
                g_free(dir);
                dir = up;
        }
        *out = (uint64_t) st.f_bavail * st.f_frsize;
        return true;
}

const char *jd_swap_size_problem(const jd_sysroot *sr, const char *path, uint64_t size, char *buf, size_t len)
{
        uint64_t page = (uint64_t) sysconf(_SC_PAGESIZE);
        char host[PATH_MAX];
        uint64_t avail = 0;
        if (jd_sysroot_host_path_to_create(sr, path, host, sizeof(host)) < 0 || !free_bytes(host, &avail)) {
                g_snprintf(buf, len, "Cannot find out the free space for %s", path);
                return buf;
        }
        uint64_t max = avail > JD_SWAP_DISK_RESERVE_BYTES ? avail - JD_SWAP_DISK_RESERVE_BYTES : 0;
        max -= max % page;
        if (size < JD_SWAP_MIN_BYTES || size > max)
                g_snprintf(buf, len,
                           "Swap size %" G_GUINT64_FORMAT " bytes is outside %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
                           " bytes (64 MiB to the free space of %s less 1 GiB)",
                           size, JD_SWAP_MIN_BYTES, max, path);
        else if (size % page != 0)
                g_snprintf(buf, len, "Swap size %" G_GUINT64_FORMAT " bytes is not a multiple of the page size (%"
                           G_GUINT64_FORMAT " bytes)", size, page);
        else
                return NULL;
        return buf;
}

/* ---- shared steps --------------------------------------------------- */

static swap_op *op_new(const jd_sysroot *sr, const jd_config *cfg, jd_result_fn done, void *userdata)
{
        swap_op *op = g_new0(swap_op, 1);
        op->sr = sr;
        op->tool_timeout_ms = cfg->tool_timeout_ms;
        op->off_timeout_ms = cfg->swapoff_timeout_ms;
        g_strlcpy(op->path, cfg->swap_path, sizeof(op->path));
        if (jd_sysroot_host_path_to_create(sr, op->path, op->host, sizeof(op->host)) < 0)
                op->host[0] = '\0';
        op->done = done;
        op->userdata = userdata;
        return op;
}

static void finish(swap_op *op)
{
        op->done(&op->result, op->userdata);
        g_free(op);
}

static gboolean finish_later(gpointer data)
{
        finish(data);
        return G_SOURCE_REMOVE;
}

static void on_fstab_written(int r, void *data)
{
        swap_op *op = data;
        if (r < 0)
                jd_result_set(&op->result, JD_FAILED, "Cannot rewrite %s: %s", FSTAB, jd_sysroot_strerror(-r));
        op->after_fstab(op, r >= 0);
}

/* Adds or removes our line in /etc/fstab, then AFTER(op, ok); op->result
 * says why when not ok. A missing fstab is empty. The rewrite (with its
 * fsyncs) runs in a thread. */
static void edit_fstab(swap_op *op, bool add, void (*after)(swap_op *op, bool ok))
{
        op->after_fstab = after;
        g_autofree char *text = NULL;
        int r = jd_read_text(op->sr, FSTAB, JD_FSTAB_MAX, &text);
        if (r == -ENOENT) {
                text = g_strdup("");
        } else if (r < 0 && jd_fstab_unreadable_reason(r)) {
                jd_result_set(&op->result, JD_FAILED, "Cannot edit %s: %s", FSTAB, jd_fstab_unreadable_reason(r));
                after(op, false);
                return;
        } else if (r < 0) {
                jd_result_set(&op->result, JD_FAILED, "Cannot read %s: %s", FSTAB, jd_sysroot_strerror(-r));
                after(op, false);
                return;
        }
        if (jd_fstab_has_swap(text, op->path) == add) {
                after(op, true);      /* already as wanted */
                return;
        }
        const char *why = NULL;
        g_autofree char *edited = add ? jd_fstab_add_swap(text, op->path, &why)
                                      : jd_fstab_remove_swap(text, op->path, &why);
        if (!edited) {
                jd_result_set(&op->result, JD_FAILED, "Cannot edit %s: %s", FSTAB, why);
                after(op, false);
                return;
        }
        jd_atomic_write_async(op->sr, FSTAB, edited, strlen(edited), 0644, on_fstab_written, op);
}

/* ---- create --------------------------------------------------------- */

/* Undo after a failed step: the swap is off again (or never was on) and
 * the file goes; op->result keeps the first failure. */
static void discard(swap_op *op)
{
        unlink(op->host);
        finish(op);
}

static void on_undo_swapoff(const jd_tool_result *r, void *data)
{
        (void) r;
        discard(data);
}

static void after_listed(swap_op *op, bool ok)
{
        if (!ok) {
                const char *args[] = { op->path, NULL };
                jd_tool_run(op->sr, "swapoff", args, op->off_timeout_ms, on_undo_swapoff, op);
                return;
        }
        jd_result_set(&op->result, JD_OK, "Swap file %s of %" G_GUINT64_FORMAT " bytes is on%s", op->path, op->size,
                      op->on_boot ? " and listed in /etc/fstab" : "");
        finish(op);
}

static void on_swapon(const jd_tool_result *r, void *data)
{
        swap_op *op = data;
        g_autofree char *what = g_strdup_printf("swapon %s", op->path);
        if (jd_tool_failed(r, what, op->tool_timeout_ms, &op->result)) {
                discard(op);
                return;
        }
        if (op->on_boot)
                edit_fstab(op, true, after_listed);
        else
                after_listed(op, true);
}

static void on_mkswap(const jd_tool_result *r, void *data)
{
        swap_op *op = data;
        g_autofree char *what = g_strdup_printf("mkswap %s", op->path);
        if (jd_tool_failed(r, what, op->tool_timeout_ms, &op->result)) {
                discard(op);
                return;
        }
        const char *args[] = { op->path, NULL };
        jd_tool_run(op->sr, "swapon", args, op->tool_timeout_ms, on_swapon, op);
}

/* In a thread: posix_fallocate falls back to writing zeros on file
 * systems without fallocate, which takes long for gigabytes. swapon
 * refuses files with holes, so the blocks must really be allocated. */
static void allocate(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        (void) source, (void) cancellable;
        swap_op *op = data;
        int fd = open(op->host, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        int err = fd < 0 ? errno : 0;
        if (fd >= 0) {
                /* 0600 whatever the umask: swap holds other processes' memory. */
                if (fchmod(fd, 0600) < 0)
                        err = errno;
                else
                        err = posix_fallocate(fd, 0, (off_t) op->size);
                if (close(fd) < 0 && !err)
                        err = errno;
                if (err)
                        unlink(op->host);
        }
        jd_sysroot_note_refusal(op->sr, op->path, err);
        if (err)
                jd_result_set(&op->result, JD_FAILED, "Cannot allocate %" G_GUINT64_FORMAT " bytes for %s: %s",
                              op->size, op->path, jd_sysroot_strerror(err));
        g_task_return_boolean(task, err == 0);
}

static void on_allocated(GObject *source, GAsyncResult *res, gpointer data)
{
        (void) source;
        swap_op *op = data;
        if (!g_task_propagate_boolean(G_TASK(res), NULL)) {
                finish(op);
                return;
        }
        const char *args[] = { op->path, NULL };
        jd_tool_run(op->sr, "mkswap", args, op->tool_timeout_ms, on_mkswap, op);
}

void jd_swap_create(const jd_sysroot *sr, const jd_config *cfg, uint64_t size, bool on_boot, jd_result_fn done,
                    void *userdata)
{
        swap_op *op = op_new(sr, cfg, done, userdata);
        op->size = size;
        op->on_boot = on_boot;
        struct stat st;
        if (!op->host[0]) {
                jd_result_set(&op->result, JD_FAILED, "Cannot resolve %s", op->path);
        } else if (lstat(op->host, &st) == 0) {
                jd_result_set(&op->result, JD_BUSY, "A swap file already exists at %s; remove it first", op->path);
        } else {
                g_autofree char *dir = g_path_get_dirname(op->host);
                if (g_mkdir_with_parents(dir, 0700) < 0) {
                        jd_sysroot_note_refusal(sr, op->path, errno);
                        jd_result_set(&op->result, JD_FAILED, "Cannot create the directory of %s: %s", op->path,
                                      jd_sysroot_strerror(errno));
                } else {
                        g_autoptr(GTask) task = g_task_new(NULL, NULL, on_allocated, op);
                        g_task_set_task_data(task, op, NULL);
                        g_task_run_in_thread(task, allocate);
                        return;
                }
        }
        g_idle_add(finish_later, op);
}

/* ---- remove --------------------------------------------------------- */

static void after_unlisted(swap_op *op, bool ok)
{
        if (ok && unlink(op->host) < 0) {
                int err = errno;
                jd_sysroot_note_refusal(op->sr, op->path, err);
                jd_result_set(&op->result, JD_FAILED, "Cannot delete %s: %s", op->path, jd_sysroot_strerror(err));
        } else if (ok)
                jd_result_set(&op->result, JD_OK, "Swap file %s removed", op->path);
        finish(op);
}

static void unlist_and_delete(swap_op *op)
{
        edit_fstab(op, false, after_unlisted);
}

static void on_swapoff(const jd_tool_result *r, void *data)
{
        swap_op *op = data;
        g_autofree char *what = g_strdup_printf("swapoff %s", op->path);
        if (jd_tool_failed(r, what, op->off_timeout_ms, &op->result))
                finish(op);
        else
                unlist_and_delete(op);
}

static gboolean unlist_later(gpointer data)
{
        unlist_and_delete(data);
        return G_SOURCE_REMOVE;
}

void jd_swap_remove(const jd_sysroot *sr, const jd_config *cfg, bool active, jd_result_fn done, void *userdata)
{
        swap_op *op = op_new(sr, cfg, done, userdata);
        struct stat st;
        if (!op->host[0] || lstat(op->host, &st) < 0) {
                jd_result_set(&op->result, JD_NOT_FOUND, "There is no swap file at %s", op->path);
                g_idle_add(finish_later, op);
        } else if (active) {
                const char *args[] = { op->path, NULL };
                jd_tool_run(sr, "swapoff", args, op->off_timeout_ms, on_swapoff, op);
        } else {
                g_idle_add(unlist_later, op);
        }
}
