#include "service.h"

#include <errno.h>
#include <gio/gio.h>
#include <string.h>

#include "bus_source.h"
#include "jetsond-dbus.h"
#include "log.h"
#include "systemd_unit.h"

/* g_ptr_array_steal_index() is GLib 2.58; the floor is 2.56. The slot is
 * emptied first, so the array's free function gets NULL. */
static void *ptr_array_steal(GPtrArray *a, guint i)
{
        void *p = g_ptr_array_index(a, i);
        a->pdata[i] = NULL;
        g_ptr_array_remove_index(a, i);
        return p;
}

void jd_set_bus_error(GError **error, int r, const char *what)
{
        g_set_error(error, G_IO_ERROR, g_io_error_from_errno(-r), "%s: %s", what, g_strerror(-r));
}

void jd_emit_changed(jd_service *svc, const char *path, const char *iface, const char **names)
{
        if (!names[0])
                return;
        int r = sd_bus_emit_properties_changed_strv(svc->bus, path, iface, (char **) names);
        if (r < 0)
                jd_log_warning("Cannot emit PropertiesChanged for %s: %s", iface, strerror(-r));
}

static void add_iface(jd_service *svc, jd_iface *iface)
{
        if (iface)
                g_ptr_array_add(svc->ifaces, iface);
}

static void destroy_iface(gpointer p)
{
        jd_iface *iface = p;
        sd_bus_slot_unref(iface->slot);
        iface->destroy(iface);
}

static void add_dgpu_ifaces(jd_service *svc, bool announce);
static void add_slow_ifaces(jd_service *svc, bool announce, GError **e);
static void look_for_gpu(jd_service *svc, uint64_t wait_us, bool announce, GError **e);

typedef struct {
        uint64_t generation;
        uint64_t deadline_us;
        void (*done)(void *data);
        void *data;
} resample;

static uint64_t now_us(void)
{
        return (uint64_t) g_get_monotonic_time();
}

/* A GPU read through NVML is left out once its reading is too old, as a
 * tier is: said once each way, so a value missing from samples is
 * explained in the log. */
_Static_assert(JD_MAX_DGPUS <= 64, "gpus_stalled has a bit per GPU");

static void log_gpu_stalls(jd_service *svc)
{
        uint64_t stalled = 0;
        const jd_snapshot *s = &svc->snapshot;
        for (size_t i = 0; i < s->n_gpu; i++)
                if (s->gpu_stale[i])
                        stalled |= UINT64_C(1) << s->gpu[i]->gpu.index;
        if (stalled == svc->gpus_stalled)
                return;
        for (size_t i = 0; i < s->n_gpu; i++) {
                unsigned index = s->gpu[i]->gpu.index;
                uint64_t bit = UINT64_C(1) << index;
                if ((stalled & bit) && !(svc->gpus_stalled & bit))
                        jd_log_warning("GPU %u (NVML) has not finished a reading for %.1f s; its keys are left out "
                                       "of samples until it does",
                                       index, (double) (now_us() - s->gpu[i]->finished_us) / 1e6);
                else if (!(stalled & bit) && (svc->gpus_stalled & bit))
                        jd_log_info("GPU %u (NVML) readings are on time again", index);
        }
        svc->gpus_stalled = stalled;
}

/* Logged once when a tier goes stale, once when it is back; true if one did. */
static bool log_stalls(jd_service *svc)
{
        bool any = false;
        for (int i = 0; i < JD_TIER_COUNT; i++) {
                bool stale = svc->snapshot.stale[i];
                if (stale == svc->stalled[i])
                        continue;
                any = true;
                svc->stalled[i] = stale;
                const char *name = jd_engine_tier_name(svc->engine, i);
                const char *stage = jd_engine_tier_stage(svc->engine, i);
                if (stale)
                        jd_log_warning("The %s sampling tier has not finished a reading for %.1f s%s%s%s; its keys are "
                                       "left out of samples until it does",
                                       name, (double) (now_us() - svc->snapshot.tier[i]->finished_us) / 1e6,
                                       stage ? " (stuck reading " : "", stage ? stage : "", stage ? ")" : "");
                else
                        jd_log_info("The %s sampling tier answers again", name);
        }
        log_gpu_stalls(svc);
        return any;
}

static void update_ifaces(jd_service *svc)
{
        for (guint i = 0; i < svc->ifaces->len; i++) {
                jd_iface *iface = g_ptr_array_index(svc->ifaces, i);
                if (iface->update)
                        iface->update(iface);
        }
}

/* The earliest of the service's own deadlines: the Sample watchdog and
 * the resamples' time limits. The events source asks for it before each
 * poll (events_prepare), where a ready time would have to be moved on
 * every tick, and moving one wakes the main context once more. */
static uint64_t next_deadline(gpointer data)
{
        const jd_service *svc = data;
        uint64_t at = svc->watchdog_us;
        for (guint i = 0; i < svc->resamples->len; i++) {
                const resample *r = g_ptr_array_index(svc->resamples, i);
                if (r->deadline_us < at)
                        at = r->deadline_us;
        }
        return at;
}

/* The fast tier's tick makes the Sample; if it is late (stuck), a Sample
 * still goes out, a little later, without what has gone stale. */
static uint64_t watchdog_after(const jd_service *svc, uint64_t now)
{
        uint64_t grace = svc->interval_us / 2 > 50000 ? svc->interval_us / 2 : 50000;
        return now + svc->interval_us + grace;
}

static gboolean on_events(gpointer data)
{
        jd_service *svc = data;
        uint64_t now = now_us();
        unsigned events = jd_engine_take_events(svc->engine);
        /* NVML loaded or missing, a GPU lost or back: said once each. */
        char *line;
        while ((line = jd_engine_take_message(svc->engine))) {
                jd_log_info("%s", line);
                g_free(line);
        }
        if ((events & JD_ENGINE_CAPTURE_ENDED) && svc->metrics)
                jd_metrics_reap_captures(svc->metrics);
        bool sample = (events & JD_ENGINE_SAMPLE) || now >= svc->watchdog_us;
        /* Made only when a resample is done: not on every tick. */
        GPtrArray *ready = NULL;
        for (guint i = 0; i < svc->resamples->len;) {
                resample *r = g_ptr_array_index(svc->resamples, i);
                if (now >= r->deadline_us || jd_engine_answered(svc->engine, r->generation, now)) {
                        if (!ready)
                                ready = g_ptr_array_new_with_free_func(g_free);
                        g_ptr_array_add(ready, ptr_array_steal(svc->resamples, i));
                } else {
                        i++;
                }
        }
        guint n_ready = ready ? ready->len : 0;
        if (sample || n_ready || (events & JD_ENGINE_CHANGED)) {
                jd_engine_snapshot(svc->engine, &svc->snapshot, now);
                svc->snapshot_serial++;
                bool stalls = log_stalls(svc);
                GError *e = NULL;
                add_slow_ifaces(svc, true, &e);
                add_dgpu_ifaces(svc, true);
                if (!e)
                        look_for_gpu(svc, 0, true, &e);
                if (e) {
                        jd_log_warning("%s", e->message);
                        g_error_free(e);
                }
                if ((sample || n_ready) && svc->metrics) {
                        jd_metrics_emit_sample(svc->metrics, n_ready == 0);
                        svc->watchdog_us = watchdog_after(svc, now);
                }
                /* Properties come from slow readings (and the fast tier's
                 * limits, read at the slow period): compared only after
                 * one, not on every Sample. */
                if ((events & JD_ENGINE_CHANGED) || n_ready || stalls)
                        update_ifaces(svc);
        }
        for (guint i = 0; i < n_ready; i++) {
                resample *r = g_ptr_array_index(ready, i);
                if (r->done)
                        r->done(r->data);
        }
        if (ready)
                g_ptr_array_unref(ready);
        return G_SOURCE_CONTINUE;
}

void jd_service_resample(jd_service *svc, void (*done)(void *data), void *data)
{
        resample *r = g_new0(resample, 1);
        r->generation = jd_engine_request(svc->engine);
        r->deadline_us = now_us() + JD_RESAMPLE_TIMEOUT_US;
        r->done = done;
        r->data = data;
        g_ptr_array_add(svc->resamples, r);
}

/* nvfancontrol.service: systemd's word on whether it runs decides the
 * fans' Profile ("manual" when stopped), so a change is published at once. */
static void on_fan_service_changed(void *data)
{
        jd_service *svc = data;
        jd_engine_set_fan_service_active(svc->engine, jd_unit_active(svc->fan_service));
        jd_service_resample(svc, NULL, NULL);
}

static void switch_fan_service(bool start, jd_result_fn done, void *done_data, void *switch_data)
{
        jd_unit_run(((jd_service *) switch_data)->fan_service, start, done, done_data);
}

jd_fan_switch jd_service_fan_switch(jd_service *svc)
{
        return (jd_fan_switch) { .run = switch_fan_service, .data = svc };
}

void jd_service_fan_pwms(const jd_service *svc, jd_fan_pwms *out)
{
        out->n = 0;
        out->fan = svc->sample->fans && svc->sample->fans->n ? g_new0(jd_fan_pwm, svc->sample->fans->n) : NULL;
        for (size_t i = 0; svc->sample->fans && i < svc->sample->fans->n; i++) {
                const jd_fan *f = &svc->sample->fans->fans[i];
                if (!f->pwm_path[0])
                        continue;
                g_strlcpy(out->fan[out->n].path, f->pwm_path, sizeof(out->fan[out->n].path));
                out->fan[out->n++].value = f->pwm;
        }
}

static bool has_nvfancontrol(const jd_fan_sample *fans)
{
        for (size_t i = 0; fans && i < fans->n; i++)
                if (fans->fans[i].controller == JD_FAN_CONTROL_NVFANCONTROL)
                        return true;
        return false;
}

/* The engine's event fd, plus a deadline of the caller's own or a ready
 * time (the start-up's). */
typedef struct {
        GSource source;
        uint64_t (*deadline)(gpointer data);
        gpointer data;
} events_source;

static bool deadline_due(GSource *source, gint *timeout_ms)
{
        const events_source *es = (const events_source *) source;
        *timeout_ms = -1;
        if (!es->deadline)
                return false;
        uint64_t at = es->deadline(es->data), now = now_us();
        *timeout_ms = jd_ms_until(at, now);
        return at <= now;
}

static gboolean events_prepare(GSource *source, gint *timeout_ms)
{
        return deadline_due(source, timeout_ms);
}

static gboolean events_check(GSource *source)
{
        gint ignored;
        return deadline_due(source, &ignored);
}

static gboolean events_dispatch(GSource *source, GSourceFunc callback, gpointer data)
{
        (void) source;
        return callback(data);
}

static GSourceFuncs events_funcs = { .prepare = events_prepare, .check = events_check, .dispatch = events_dispatch };

GSource *jd_engine_source_new(jd_sampling_engine *engine, const char *name, GSourceFunc callback,
                              uint64_t (*deadline)(gpointer data), gpointer data)
{
        GSource *source = g_source_new(&events_funcs, sizeof(events_source));
        events_source *es = (events_source *) source;
        es->deadline = deadline;
        es->data = data;
        g_source_set_name(source, name);
        g_source_set_callback(source, callback, data, NULL);
        g_source_add_unix_fd(source, jd_engine_event_fd(engine), G_IO_IN);
        /* GLib blocks a source that cannot recurse while it dispatches, by
         * taking its fd out of the poll set and putting it back: two
         * wake-ups of the context and one more poll() on every tick. No
         * callback here runs the main loop, so nothing can recurse. */
        g_source_set_can_recurse(source, TRUE);
        return source;
}

/* NVPModel and the fan objects exist where the slow tier's reading has
 * them. At start-up a stuck slow tier has none: they are exported when
 * it first answers, with InterfacesAdded for ObjectManager clients. */
static void add_slow_ifaces(jd_service *svc, bool announce, GError **e)
{
        const jd_reading *slow = svc->snapshot.tier[JD_TIER_INDEX_SLOW];
        if (svc->slow_ifaces_decided || slow->seq == 0 || svc->snapshot.stale[JD_TIER_INDEX_SLOW])
                return;
        svc->slow_ifaces_decided = true;
        jd_iface *nvp = jd_nvpmodel_iface_new(svc, e);
        add_iface(svc, nvp);
        if (nvp && announce)
                sd_bus_emit_interfaces_added(svc->bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, NULL);
        for (size_t i = 0; !*e && svc->sample->fans && i < svc->sample->fans->n; i++) {
                jd_iface *fan = jd_fan_iface_new(svc, i, e);
                add_iface(svc, fan);
                char path[64];
                g_snprintf(path, sizeof(path), JD_FAN_PATH_PREFIX "%zu", i);
                if (fan && announce)
                        sd_bus_emit_object_added(svc->bus, path);
        }
        if (!*e && has_nvfancontrol(svc->sample->fans) && svc->systemd_bus)
                svc->fan_service = jd_unit_new(svc->systemd_bus, JD_NVFANCONTROL_UNIT, svc->config.unit_timeout_ms,
                                               on_fan_service_changed, svc);
        if (announce)
                jd_log_info("The slow sampling tier answered: power modes and fans are exported now");
}

/* An object per discrete GPU, once its thread has read it: GPUs are
 * found after start-up too (a driver that loaded late), announced with
 * InterfacesAdded for ObjectManager clients. Objects stay: NVML keeps a
 * GPU's index until the driver reloads. */
static void add_dgpu_ifaces(jd_service *svc, bool announce)
{
        for (size_t i = 0; i < svc->snapshot.n_gpu; i++) {
                const jd_nvml_gpu *g = &svc->snapshot.gpu[i]->gpu;
                if (g->lost || g->integrated || g->index >= 32 || (svc->dgpu_exported & (1u << g->index)))
                        continue;
                GError *e = NULL;
                jd_iface *iface = jd_dgpu_iface_new(svc, g->index, &e);
                if (!iface) {
                        jd_log_warning("%s", e->message);
                        g_error_free(e);
                        continue;
                }
                add_iface(svc, iface);
                svc->dgpu_exported |= 1u << g->index;
                if (announce) {
                        char path[64];
                        g_snprintf(path, sizeof(path), JD_DGPU_PATH_PREFIX "%u", g->index);
                        sd_bus_emit_object_added(svc->bus, path);
                }
        }
}

/* The integrated GPU's controls are probed in a thread of their own (a
 * driver stuck in sysfs must not hold up the service), waited for a
 * little at start-up and otherwise looked at on every event. Its devfreq
 * node can also appear late in boot (JetPack 7.2 Orin): while there is
 * no Gpu interface, the probe runs again every 10 s. */
#define GPU_START_WAIT_US (1 * G_USEC_PER_SEC)
#define GPU_REPROBE_US (10 * G_USEC_PER_SEC)

static void look_for_gpu(jd_service *svc, uint64_t wait_us, bool announce, GError **e)
{
        if (svc->gpu)
                return;
        if (!svc->gpu_probe) {
                if (now_us() < svc->gpu_probe_at_us)
                        return;
                svc->gpu_probe = jd_gpu_probe_start(svc->sr);
        }
        jd_gpu_controls c;
        jd_gpu_state st;
        if (!jd_gpu_probe_wait(svc->gpu_probe, wait_us, &c, &st)) {
                if (wait_us)
                        jd_log_warning("The integrated GPU's sysfs files did not answer within %.1f s; "
                                       JD_IFACE_GPU " is exported once they do",
                                       (double) wait_us / 1e6);
                return;
        }
        jd_gpu_probe_free(svc->gpu_probe);
        svc->gpu_probe = NULL;
        svc->gpu_probe_at_us = now_us() + GPU_REPROBE_US;
        if (!c.present)
                return;
        add_iface(svc, svc->gpu = jd_gpu_iface_new(svc, &c, &st, e));
        if (svc->gpu && announce)
                sd_bus_emit_interfaces_added(svc->bus, JD_OBJECT_PATH, JD_IFACE_GPU, NULL);
}

static jd_service *service_new(sd_bus *bus, bool user, sd_bus *systemd_bus, const jd_sysroot *sr,
                               jd_sampling_engine *engine, const jd_board *board, uint64_t default_interval_us,
                               GError **error)
{
        jd_service *svc = g_new0(jd_service, 1);
        svc->bus = sd_bus_ref(bus);
        svc->user = user;
        svc->systemd_bus = sd_bus_ref(systemd_bus);
        svc->sr = sr;
        svc->default_interval_us = default_interval_us;
        svc->interval_us = default_interval_us;
        svc->ifaces = g_ptr_array_new_with_free_func(destroy_iface);
        svc->resamples = g_ptr_array_new_with_free_func(g_free);
        jd_config_load(&svc->config, sr);
        svc->board = *board;
        svc->engine = engine;
        jd_snapshot_init(&svc->snapshot);
        jd_engine_snapshot(engine, &svc->snapshot, now_us());
        svc->snapshot_serial = 1;
        svc->sample = &svc->snapshot.sample;
        log_stalls(svc);

        int r = sd_bus_add_object_manager(bus, &svc->object_manager, JD_OBJECT_PATH);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot add the object manager");
                jd_service_free(svc);
                return NULL;
        }
        GError *e = NULL;
        add_iface(svc, jd_board_iface_new(svc, &e));
        if (!e)
                add_iface(svc, svc->metrics = jd_metrics_iface_new(svc, &e));
        if (!e)
                add_iface(svc, svc->jetson_clocks = jd_jetson_clocks_iface_new(svc, &e));
        if (!e)
                look_for_gpu(svc, GPU_START_WAIT_US, false, &e);
        if (!e)
                add_iface(svc, jd_memory_iface_new(svc, &e));
        if (!e)
                add_iface(svc, jd_manager_iface_new(svc, &e));
        if (!e)
                add_slow_ifaces(svc, false, &e);
        if (!e)
                add_dgpu_ifaces(svc, false);
        if (e) {
                g_propagate_error(error, e);
                jd_service_free(svc);
                return NULL;
        }
        return svc;
}

jd_service *jd_service_new(sd_bus *bus, const jd_sysroot *sr, jd_sampling_engine *engine, const jd_board *board,
                           uint64_t default_interval_us, GError **error)
{
        return service_new(bus, false, bus, sr, engine, board, default_interval_us, error);
}

jd_service *jd_service_new_user(sd_bus *bus, sd_bus *systemd_bus, const jd_sysroot *sr, jd_sampling_engine *engine,
                                const jd_board *board, uint64_t default_interval_us, GError **error)
{
        return service_new(bus, true, systemd_bus, sr, engine, board, default_interval_us, error);
}

void jd_service_start(jd_service *svc)
{
        svc->events = jd_engine_source_new(svc->engine, "jetsond sampling engine", on_events, next_deadline, svc);
        svc->watchdog_us = watchdog_after(svc, now_us());
        g_source_attach(svc->events, NULL);
}

void jd_service_set_interval(jd_service *svc, uint64_t interval_us)
{
        if (interval_us == svc->interval_us)
                return;
        svc->interval_us = interval_us;
        jd_engine_set_sample_interval(svc->engine, interval_us);
        svc->watchdog_us = watchdog_after(svc, now_us());
        jd_emit_changed(svc, JD_OBJECT_PATH, JD_IFACE_METRICS, (const char *[]) { "Interval", NULL });
}

void jd_service_free(jd_service *svc)
{
        if (!svc)
                return;
        if (svc->events) {
                g_source_destroy(svc->events);
                g_source_unref(svc->events);
        }
        /* Changes still waiting for their fresh sample answer now. */
        while (svc->resamples->len) {
                resample *r = ptr_array_steal(svc->resamples, 0);
                if (r->done)
                        r->done(r->data);
                g_free(r);
        }
        jd_unit_free(svc->fan_service);
        jd_gpu_probe_free(svc->gpu_probe);
        g_ptr_array_unref(svc->ifaces);
        g_ptr_array_unref(svc->resamples);
        sd_bus_slot_unref(svc->object_manager);
        jd_snapshot_clear(&svc->snapshot);
        sd_bus_unref(svc->systemd_bus);
        sd_bus_unref(svc->bus);
        g_free(svc);
}
