/* Metrics.PidsToCaller() and Metrics.PidsFromCaller(): PIDs between
 * jetsond's PID namespace and the caller's (a container's), so that a
 * client there finds its own processes among the process.PID keys and
 * names its roots to jetsond (introspection/org.jetsond.Jetson1.Metrics.xml),
 * answered once caller_ns.c has placed the caller. */
#include "pid_methods.h"

#include <errno.h>
#include <glib.h>
#include <string.h>

#include "caller_ns.h"
#include "jetsond-dbus.h"
#include "log.h"

/* More PIDs than a kernel's pid_max in one call is not a request. */
#define MAX_PIDS (1u << 22)

typedef struct {
        bool to_caller;
        uint32_t *pids;
        size_t n;
        uint32_t *out;
        char *error;                  /* a listing of /proc failed */
} pid_request;

static void translate(const jd_sysroot *sr, const jd_pidns_process *caller, void *data)
{
        pid_request *q = data;
        q->out = g_new0(uint32_t, q->n ? q->n : 1);
        if (q->to_caller) {
                for (size_t i = 0; i < q->n; i++) {
                        jd_pidns_process x;
                        if (q->pids[i] && jd_pidns_read(sr, q->pids[i], &x) == 0)
                                q->out[i] = jd_pidns_to_caller(sr, caller, &x);
                }
        } else if (q->n) {
                int r = jd_pidns_from_caller(sr, caller, q->pids, q->n, q->out);
                if (r < 0)
                        q->error = g_strdup_printf("Cannot list jetsond's /proc: %s", g_strerror(-r));
        }
}

static void answer(sd_bus_message *call, const char *error, void *data)
{
        pid_request *q = data;
        sd_bus_message *m = NULL;
        int r;
        if (error || q->error) {
                r = sd_bus_reply_method_errorf(call, error ? JD_ERROR_UNKNOWN_PROCESS : JD_ERROR_FAILED, "%s",
                                               error ? error : q->error);
        } else {
                r = sd_bus_message_new_method_return(call, &m);
                if (r >= 0)
                        r = sd_bus_message_append_array(m, 'u', q->out, q->n * sizeof(uint32_t));
                if (r >= 0)
                        r = sd_bus_send(NULL, m, NULL);
        }
        /* The caller may have left meanwhile: nothing to tell. */
        if (r < 0)
                jd_log_debug("Cannot answer %s: %s", sd_bus_message_get_member(call), strerror(-r));
        sd_bus_message_unref(m);
        g_free(q->pids);
        g_free(q->out);
        g_free(q->error);
        g_free(q);
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
        q->to_caller = to_caller;
        q->n = n;
        q->pids = g_malloc(size ? size : 1);
        if (size)
                memcpy(q->pids, data, size);
        r = jd_caller_ns_query(m, sr, translate, answer, q, error);
        if (r < 0) {
                g_free(q->pids);
                g_free(q);
        }
        return r;
}

int jd_method_pids_to_caller(sd_bus_message *m, const jd_sysroot *sr, sd_bus_error *error)
{
        return start(m, sr, true, error);
}

int jd_method_pids_from_caller(sd_bus_message *m, const jd_sysroot *sr, sd_bus_error *error)
{
        return start(m, sr, false, error);
}
