/* Metrics.PidsToCaller() and Metrics.PidsFromCaller(): PIDs between
 * jetsond's PID namespace and the caller's (a container's), so that a
 * client there finds its own processes among the process.PID keys and
 * names its roots to jetsond (introspection/org.jetsond.Jetson1.Metrics.xml).
 *
 * Who called is asked of the bus (GetConnectionCredentials' ProcessID,
 * the caller's PID in the bus's namespace, jetsond's), without blocking;
 * /proc is read in a worker thread, never on the main loop (a listing of
 * /proc for a caller in another namespace). */
#include "pid_methods.h"

#include <errno.h>
#include <gio/gio.h>
#include <inttypes.h>
#include <string.h>

#include "jetsond-dbus.h"
#include "log.h"
#include "pidns.h"

/* More PIDs than a kernel's pid_max in one call is not a request. */
#define MAX_PIDS (1u << 22)

typedef struct {
        const jd_sysroot *sr;
        sd_bus_message *call;
        sd_bus_slot *creds_call;
        bool to_caller;
        uint32_t caller_pid;
        uint32_t *pids;
        size_t n;
        uint32_t *out;
        char *error;                  /* UnknownProcess's message, or NULL */
} pid_request;

static void pid_request_free(pid_request *q)
{
        sd_bus_slot_unref(q->creds_call);
        sd_bus_message_unref(q->call);
        g_free(q->pids);
        g_free(q->out);
        g_free(q->error);
        g_free(q);
}

static void reply(pid_request *q)
{
        sd_bus_message *m = NULL;
        int r;
        if (q->error) {
                r = sd_bus_reply_method_errorf(q->call, JD_ERROR_UNKNOWN_PROCESS, "%s", q->error);
        } else {
                r = sd_bus_message_new_method_return(q->call, &m);
                if (r >= 0)
                        r = sd_bus_message_append_array(m, 'u', q->out, q->n * sizeof(uint32_t));
                if (r >= 0)
                        r = sd_bus_send(NULL, m, NULL);
        }
        /* The caller may have left meanwhile: nothing to tell. */
        if (r < 0)
                jd_log_debug("Cannot answer %s: %s", sd_bus_message_get_member(q->call), strerror(-r));
        sd_bus_message_unref(m);
}

static void translate(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        (void) source, (void) cancellable;
        pid_request *q = data;
        jd_pidns_process caller;
        int r = jd_pidns_read(q->sr, q->caller_pid, &caller);
        if (r < 0) {
                /* Under a --sysroot whose /proc is not the bus's, or a
                 * caller that ended: jetsond cannot tell its namespace,
                 * and guesses none. */
                q->error = g_strdup_printf("jetsond cannot see the calling process (PID %" PRIu32 " in its "
                                           "namespace) in its /proc: %s; so it cannot tell the caller's PID namespace",
                                           q->caller_pid, r == -ENOENT ? "no such process" : g_strerror(-r));
                g_task_return_boolean(task, TRUE);
                return;
        }
        q->out = g_new0(uint32_t, q->n ? q->n : 1);
        if (q->to_caller) {
                for (size_t i = 0; i < q->n; i++) {
                        jd_pidns_process x;
                        if (q->pids[i] && jd_pidns_read(q->sr, q->pids[i], &x) == 0)
                                q->out[i] = jd_pidns_to_caller(q->sr, &caller, &x);
                }
        } else if (q->n) {
                r = jd_pidns_from_caller(q->sr, &caller, q->pids, q->n, q->out);
                if (r < 0)
                        q->error = g_strdup_printf("Cannot list jetsond's /proc: %s", g_strerror(-r));
        }
        g_task_return_boolean(task, TRUE);
}

static void on_translated(GObject *source, GAsyncResult *result, gpointer data)
{
        (void) source, (void) result;
        pid_request *q = data;
        reply(q);
        pid_request_free(q);
}

static int on_credentials(sd_bus_message *answer, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        pid_request *q = userdata;
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
                reply(q);
                pid_request_free(q);
                return 0;
        }
        GTask *task = g_task_new(NULL, NULL, on_translated, q);
        g_task_set_task_data(task, q, NULL);
        g_task_run_in_thread(task, translate);
        g_object_unref(task);
        return 0;
}

static int start(sd_bus_message *m, const jd_sysroot *sr, bool to_caller, sd_bus_error *error)
{
        const void *data = NULL;
        size_t size = 0;
        int r = sd_bus_message_read_array(m, 'u', &data, &size);
        if (r < 0)
                return r;
        size_t n = size / sizeof(uint32_t);
        if (n > MAX_PIDS)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "More than %u PIDs", MAX_PIDS);
        pid_request *q = g_new0(pid_request, 1);
        q->sr = sr;
        q->call = sd_bus_message_ref(m);
        q->to_caller = to_caller;
        q->n = n;
        q->pids = g_malloc(size ? size : 1);
        if (size)
                memcpy(q->pids, data, size);
        r = sd_bus_call_method_async(sd_bus_message_get_bus(m), &q->creds_call, "org.freedesktop.DBus",
                                     "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionCredentials",
                                     on_credentials, q, "s", sd_bus_message_get_sender(m));
        if (r < 0) {
                pid_request_free(q);
                return sd_bus_error_set_errnof(error, -r, "Cannot ask the bus who called: %s", strerror(-r));
        }
        return 1;
}

int jd_method_pids_to_caller(sd_bus_message *m, const jd_sysroot *sr, sd_bus_error *error)
{
        return start(m, sr, true, error);
}

int jd_method_pids_from_caller(sd_bus_message *m, const jd_sysroot *sr, sd_bus_error *error)
{
        return start(m, sr, false, error);
}
