#include "caches_control.h"

#include <gio/gio.h>
#include <unistd.h>

#include "sysfs_write.h"

typedef struct {
        const jd_sysroot *sr;
        jd_result result;
        jd_result_fn done;
        void *userdata;
} drop_op;

static void sync_and_drop(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        (void) source, (void) cancellable;
        drop_op *op = data;
        /* Dirty pages cannot be dropped: write them out first. */
        sync();
        int r = jd_write_attribute(op->sr, "/proc/sys/vm/drop_caches", "3\n");
        if (r < 0)
                jd_result_set(&op->result, JD_FAILED, "Cannot write /proc/sys/vm/drop_caches: %s", jd_sysroot_strerror(-r));
        else
                jd_result_set(&op->result, JD_OK, "Page cache, dentries and inodes dropped");
        g_task_return_boolean(task, TRUE);
}

static void on_dropped(GObject *source, GAsyncResult *res, gpointer data)
{
        (void) source, (void) res;
        drop_op *op = data;
        op->done(&op->result, op->userdata);
}

void jd_drop_caches(const jd_sysroot *sr, jd_result_fn done, void *userdata)
{
        drop_op *op = g_new0(drop_op, 1);
        op->sr = sr;
        op->done = done;
        op->userdata = userdata;
        g_autoptr(GTask) task = g_task_new(NULL, NULL, on_dropped, op);
        g_task_set_task_data(task, op, g_free);
        g_task_run_in_thread(task, sync_and_drop);
}
