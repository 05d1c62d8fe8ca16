#include "caller_ns.h"

#include <errno.h>
#include <gio/gio.h>
#include <inttypes.h>
#include <string.h>

/* Queries started and not finished: each holds the sysroot (its worker
 * reads /proc under it), which must outlive them. Main loop only. */
static unsigned pending;

typedef struct {
        const jd_sysroot *sr;
        sd_bus_message *call;
        sd_bus_slot *creds_call;
        uint32_t caller_pid;
        jd_caller_work_fn work;
        jd_caller_done_fn done;
        void *data;
        char *error;
} query;

static void query_finish(query *q)
{
        pending--;
        q->done(q->call, q->error, q->data);
        sd_bus_slot_unref(q->creds_call);
        sd_bus_message_unref(q->call);
        g_free(q->error);
        g_free(q);
}

static void in_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        (void) source, (void) cancellable;
        query *q = data;
        jd_pidns_process caller;
        int r = jd_pidns_read(q->sr, q->caller_pid, &caller);
        if (r < 0)
                /* Under a --sysroot whose /proc is not the bus's, or a
                 * caller that ended: its namespace is not known, and
                 * none is guessed. */
                q->error = g_strdup_printf("jetsond cannot see the calling process (PID %" PRIu32 " in its "
                                           "namespace) in its /proc: %s; so it cannot tell the caller's PID namespace",
                                           q->caller_pid, r == -ENOENT ? "no such process" : g_strerror(-r));
        else
                q->work(q->sr, &caller, q->data);
        g_task_return_boolean(task, TRUE);
}

static void on_done(GObject *source, GAsyncResult *result, gpointer data)
{
        (void) source, (void) result;
        query_finish(data);
}

static int on_credentials(sd_bus_message *answer, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        query *q = userdata;
        q->creds_call = sd_bus_slot_unref(q->creds_call);
        const char *key;
        int r = sd_bus_message_is_method_error(answer, NULL) ? -EIO : sd_bus_message_enter_container(answer, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(answer, 'e', "sv")) > 0) {
                r = sd_bus_message_read(answer, "s", &key);
                if (r >= 0 && strcmp(key, "ProcessID") == 0)
                        r = sd_bus_message_read(answer, "v", "u", &q->caller_pid);
                else if (r >= 0)
                        r = sd_bus_message_skip(answer, "v");
                if (r >= 0)
                        r = sd_bus_message_exit_container(answer);
        }
        if (r < 0 || !q->caller_pid) {
                q->error = g_strdup("The bus did not say which process called (no ProcessID in its credentials)");
                query_finish(q);
                return 0;
        }
        GTask *task = g_task_new(NULL, NULL, on_done, q);
        g_task_set_task_data(task, q, NULL);
        g_task_run_in_thread(task, in_thread);
        g_object_unref(task);
        return 0;
}

int jd_caller_ns_query(sd_bus_message *m, const jd_sysroot *sr, jd_caller_work_fn work, jd_caller_done_fn done,
                       void *data, sd_bus_error *error)
{
        query *q = g_new0(query, 1);
        q->sr = sr;
        q->call = sd_bus_message_ref(m);
        q->work = work;
        q->done = done;
        q->data = data;
        pending++;
        int r = sd_bus_call_method_async(sd_bus_message_get_bus(m), &q->creds_call, "org.freedesktop.DBus",
                                         "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionCredentials",
                                         on_credentials, q, "s", sd_bus_message_get_sender(m));
        if (r < 0) {
                pending--;
                sd_bus_message_unref(q->call);
                g_free(q);
                return sd_bus_error_set_errnof(error, -r, "Cannot ask the bus who called: %s", strerror(-r));
        }
        return 1;
}

void jd_caller_ns_shutdown(void)
{
        /* The bus answers the credentials (or fails them when it is
         * gone) and the workers end: only their answers are left. */
        while (pending > 0)
                g_main_context_iteration(NULL, TRUE);
}
