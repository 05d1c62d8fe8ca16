#include "deadline_task.h"

#include <gio/gio.h>

/* Freed with the task, which outlives a timeout (the thread still holds
 * it), so the timer never sees it freed: on_returned removes the timer
 * first. */
typedef struct {
        jd_deadline_work work;
        jd_deadline_done done;
        void *data;
        GDestroyNotify free_data;
        guint timer;
        bool answered;           /* DONE has run */
} deadline_task;

static void task_free(gpointer p)
{
        deadline_task *t = p;
        if (t->free_data)
                t->free_data(t->data);
        g_free(t);
}

static void in_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        (void) source, (void) cancellable;
        deadline_task *t = data;
        t->work(t->data);
        g_task_return_boolean(task, TRUE);
}

static void on_returned(GObject *source, GAsyncResult *res, gpointer data)
{
        (void) source, (void) data;
        deadline_task *t = g_task_get_task_data(G_TASK(res));
        if (t->answered)
                return;
        t->answered = true;
        g_source_remove(t->timer);
        t->done(false, t->data);
}

static gboolean on_deadline(gpointer data)
{
        deadline_task *t = data;
        t->timer = 0;
        t->answered = true;
        t->done(true, t->data);
        return G_SOURCE_REMOVE;
}

void jd_run_with_deadline(jd_deadline_work work, jd_deadline_done done, void *data, GDestroyNotify free_data,
                          unsigned timeout_ms)
{
        deadline_task *t = g_new0(deadline_task, 1);
        t->work = work;
        t->done = done;
        t->data = data;
        t->free_data = free_data;
        g_autoptr(GTask) task = g_task_new(NULL, NULL, on_returned, NULL);
        g_task_set_task_data(task, t, task_free);
        t->timer = g_timeout_add(timeout_ms, on_deadline, t);
        g_task_run_in_thread(task, in_thread);
}
