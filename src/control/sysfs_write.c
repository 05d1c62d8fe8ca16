#include "sysfs_write.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

int jd_write_attribute(const jd_sysroot *sr, const char *path, const char *value)
{
        int fd = jd_sysroot_open(sr, path, O_WRONLY | O_TRUNC);
        if (fd < 0)
                return fd;
        size_t len = strlen(value);
        ssize_t n = write(fd, value, len);
        int r = n < 0 ? -errno : (size_t) n != len ? -EIO : 0;
        /* sysfs reports some errors only at close. */
        if (close(fd) < 0 && r == 0)
                r = -errno;
        return r;
}

/* Shared by the worker thread and the loop: freed with the task, which
 * outlives a timeout (the thread still holds it). */
typedef struct {
        const jd_sysroot *sr;
        jd_attribute_write *writes;
        size_t n;
        _Atomic size_t at;       /* the write in progress */
        int r;
        guint timer;
        bool answered;           /* DONE has run (result or timeout) */
        jd_attributes_done done;
        void *data;
} attribute_op;

static void op_free(gpointer p)
{
        attribute_op *op = p;
        g_free(op->writes);
        g_free(op);
}

static void write_all(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        (void) source, (void) cancellable;
        attribute_op *op = data;
        for (size_t i = 0; i < op->n; i++) {
                atomic_store(&op->at, i);
                op->r = jd_write_attribute(op->sr, op->writes[i].path, op->writes[i].value);
                if (op->r < 0)
                        break;
        }
        g_task_return_boolean(task, TRUE);
}

static void on_written(GObject *source, GAsyncResult *res, gpointer data)
{
        (void) source, (void) data;
        attribute_op *op = g_task_get_task_data(G_TASK(res));
        if (op->answered)
                return;
        op->answered = true;
        g_source_remove(op->timer);
        op->done(op->r, atomic_load(&op->at), op->data);
}

static gboolean on_timeout(gpointer data)
{
        attribute_op *op = data;
        op->timer = 0;
        op->answered = true;
        op->done(-ETIMEDOUT, atomic_load(&op->at), op->data);
        return G_SOURCE_REMOVE;
}

void jd_write_attributes_async(const jd_sysroot *sr, const jd_attribute_write *writes, size_t n,
                               unsigned timeout_ms, jd_attributes_done done, void *data)
{
        attribute_op *op = g_new0(attribute_op, 1);
        op->sr = sr;
        op->writes = g_new(jd_attribute_write, n ? n : 1);
        memcpy(op->writes, writes, n * sizeof(*writes));
        op->n = n;
        atomic_init(&op->at, 0);
        op->done = done;
        op->data = data;
        g_autoptr(GTask) task = g_task_new(NULL, NULL, on_written, NULL);
        g_task_set_task_data(task, op, op_free);
        /* The timer cannot outlive the op: the task (and so the op) is
         * freed only after on_written, which removes it. */
        op->timer = g_timeout_add(timeout_ms, on_timeout, op);
        g_task_run_in_thread(task, write_all);
}
