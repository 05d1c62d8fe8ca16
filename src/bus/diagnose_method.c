/* Manager.Diagnose() (introspection/org.jetsond.Jetson1.Manager.xml):
 * (a{sv} service, aa{sv} families). The facts that change with every
 * reading (the sample's keys, the tiers' state, NVML's GPUs) are taken
 * from the service's snapshot on the main loop, which only counts keys;
 * what needs a file (the tools, jetsond's PID namespace) and the records
 * themselves are made in a worker thread; the reply is sent from the
 * main loop, as sd-bus wants. */
#include "diagnose_method.h"

#include <errno.h>
#include <gio/gio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diagnose.h"
#include "jetsond-dbus.h"
#include "log.h"

typedef struct {
        const jd_sysroot *sr;
        sd_bus_message *call;
        jd_diag_input in;
        GPtrArray *records;
        uint64_t pid_namespace;       /* 0: unknown */
} diag_request;

/* The latest snapshot's facts: cheap, no file read. */
static void gather(jd_service *svc, jd_diag_input *in)
{
        in->board = svc->board;
        in->euid = (unsigned) geteuid();
        in->user = svc->user;
        const jd_values *lists[JD_SNAPSHOT_MAX_LISTS];
        size_t n = jd_snapshot_lists(&svc->snapshot, lists);
        for (size_t l = 0; l < n; l++)
                for (size_t i = 0; i < lists[l]->n; i++) {
                        int f = jd_diag_family_of_key(lists[l]->items[i].key);
                        if (f >= 0)
                                in->present[f]++;
                }
        for (int t = 0; t < JD_TIER_COUNT; t++) {
                const jd_reading *r = svc->snapshot.tier[t];
                in->answered[t] = r && r->seq > 0;
                in->stale[t] = svc->snapshot.stale[t];
                const char *stage = jd_engine_tier_stage(svc->engine, t);
                g_strlcpy(in->stage[t], stage ? stage : "", sizeof(in->stage[t]));
        }
        in->nvml_used = jd_engine_nvml_status(svc->engine, &in->nvml);
        for (size_t i = 0; i < svc->snapshot.n_gpu && in->n_gpus < JD_MAX_DGPUS; i++) {
                const jd_gpu_reading *r = svc->snapshot.gpu[i];
                if (!r)
                        continue;
                jd_diag_gpu *g = &in->gpus[in->n_gpus++];
                g->index = r->gpu.index;
                g_strlcpy(g->name, r->gpu.name, sizeof(g->name));
                g->integrated = r->gpu.integrated;
                g->lost = r->gpu.lost;
                g->stale = svc->snapshot.gpu_stale[i];
                g->unsupported = r->gpu.unsupported;
                g->present = (unsigned) r->values.n;
        }
}

static void work(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        (void) source, (void) cancellable;
        diag_request *q = data;
        jd_diag_find_tools(q->sr, &q->in);
        q->records = jd_diagnose(q->sr, &q->in);
        /* For a client to tell whether it shares jetsond's PID namespace. */
        struct stat st;
        if (stat("/proc/self/ns/pid", &st) == 0)
                q->pid_namespace = (uint64_t) st.st_ino;
        g_task_return_boolean(task, TRUE);
}

static int append_strv(sd_bus_message *m, const char *key, GPtrArray *items)
{
        int r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0)
                r = sd_bus_message_append(m, "s", key);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', "as");
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "s");
        for (guint i = 0; r >= 0 && i < items->len; i++)
                r = sd_bus_message_append(m, "s", (const char *) g_ptr_array_index(items, i));
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

static int append_record(sd_bus_message *m, const jd_diag_record *d)
{
        g_autoptr(GPtrArray) keys = g_ptr_array_new();
        for (const char *const *k = d->keys; *k; k++)
                g_ptr_array_add(keys, (gpointer) *k);
        int r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0)
                r = sd_bus_message_append(m, "{sv}{sv}", "family", "s", d->family, "state", "s",
                                          jd_diag_state_name(d->state));
        if (r >= 0)
                r = append_strv(m, "keys", keys);
        if (r >= 0)
                r = sd_bus_message_append(m, "{sv}", "present", "u", d->present);
        if (r >= 0)
                r = append_strv(m, "sources", d->sources);
        /* Absent, never "": no cause, detail or advice is left out. */
        if (r >= 0 && d->cause)
                r = sd_bus_message_append(m, "{sv}", "cause", "s", d->cause);
        if (r >= 0 && d->detail)
                r = sd_bus_message_append(m, "{sv}", "detail", "s", d->detail);
        if (r >= 0 && d->advice)
                r = sd_bus_message_append(m, "{sv}", "advice", "s", d->advice);
        if (r >= 0)
                r = append_strv(m, "paths", d->paths);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

static int build_reply(diag_request *q, sd_bus_message **out)
{
        sd_bus_message *m = NULL;
        int r = sd_bus_message_new_method_return(q->call, &m);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "{sv}");
        if (r >= 0)
                r = sd_bus_message_append(m, "{sv}{sv}{sv}{sv}", "version", "s", JETSOND_VERSION, "uid", "u",
                                          q->in.euid, "mode", "s", q->in.user ? "user" : "system", "sysroot", "s",
                                          jd_sysroot_dir(q->sr));
        if (r >= 0 && q->pid_namespace)
                r = sd_bus_message_append(m, "{sv}", "pid_namespace", "t", q->pid_namespace);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'a', "a{sv}");
        for (guint i = 0; r >= 0 && i < q->records->len; i++)
                r = append_record(m, g_ptr_array_index(q->records, i));
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r < 0) {
                sd_bus_message_unref(m);
                return r;
        }
        *out = m;
        return 0;
}

static void on_done(GObject *source, GAsyncResult *result, gpointer data)
{
        (void) source, (void) result;
        diag_request *q = data;
        sd_bus_message *m = NULL;
        int r = build_reply(q, &m);
        if (r >= 0)
                r = sd_bus_send(NULL, m, NULL);
        else
                r = sd_bus_reply_method_errorf(q->call, JD_ERROR_FAILED, "Cannot build the diagnosis: %s",
                                               strerror(-r));
        /* The caller may have left meanwhile: nothing to tell. */
        if (r < 0)
                jd_log_debug("Cannot answer Diagnose: %s", strerror(-r));
        sd_bus_message_unref(m);
        g_ptr_array_unref(q->records);
        sd_bus_message_unref(q->call);
        g_free(q);
}

int jd_method_diagnose(sd_bus_message *m, jd_service *svc, sd_bus_error *error)
{
        (void) error;
        diag_request *q = g_new0(diag_request, 1);
        q->sr = svc->sr;
        q->call = sd_bus_message_ref(m);
        gather(svc, &q->in);
        GTask *task = g_task_new(NULL, NULL, on_done, q);
        g_task_set_task_data(task, q, NULL);
        g_task_run_in_thread(task, work);
        g_object_unref(task);
        return 1;
}
