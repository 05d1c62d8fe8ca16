#include "sysfs_write.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "deadline_task.h"

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

/* Shared by the worker thread and the loop until both are done with it
 * (deadline_task.h). */
typedef struct {
        const jd_sysroot *sr;
        jd_attribute_write *writes;
        size_t n;
        _Atomic size_t at;       /* the write in progress */
        int r;
        jd_attributes_done done;
        void *data;
} attribute_op;

static void op_free(void *p)
{
        attribute_op *op = p;
        g_free(op->writes);
        g_free(op);
}

static void write_all(void *data)
{
        attribute_op *op = data;
        for (size_t i = 0; i < op->n; i++) {
                atomic_store(&op->at, i);
                op->r = jd_write_attribute(op->sr, op->writes[i].path, op->writes[i].value);
                if (op->r < 0)
                        break;
        }
}

static void on_written(bool timed_out, void *data)
{
        attribute_op *op = data;
        op->done(timed_out ? -ETIMEDOUT : op->r, atomic_load(&op->at), op->data);
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
        jd_run_with_deadline(write_all, on_written, op, op_free, timeout_ms);
}
