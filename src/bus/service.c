#include "service.h"

#include <errno.h>
#include <gio/gio.h>
#include <string.h>

#include "jetsond-dbus.h"
#include "log.h"
#include "systemd_unit.h"

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

static void publish(jd_service *svc, unsigned tiers)
{
        svc->sample = jd_sampler_sample(svc->sampler, tiers);
        jd_values_from_sample(&svc->values, svc->sample);
        for (guint i = 0; i < svc->ifaces->len; i++) {
                jd_iface *iface = g_ptr_array_index(svc->ifaces, i);
                if (iface->update)
                        iface->update(iface);
        }
}

void jd_service_resample(jd_service *svc)
{
        publish(svc, JD_TIER_ALL);
}

/* nvfancontrol.service: systemd's word on whether it runs decides the
 * fans' Profile ("manual" when stopped), so a change is published at once. */
static void on_fan_service_changed(void *data)
{
        jd_service *svc = data;
        jd_sampler_set_fan_service_active(svc->sampler, jd_unit_active(svc->fan_service));
        jd_service_resample(svc);
}

static void switch_fan_service(bool start, jd_result_fn done, void *done_data, void *switch_data)
{
        jd_unit_run(((jd_service *) switch_data)->fan_service, start, done, done_data);
}

jd_fan_switch jd_service_fan_switch(jd_service *svc)
{
        return (jd_fan_switch) { .run = switch_fan_service, .data = svc };
}

void jd_service_fan_pwm_paths(const jd_service *svc, const char *paths[JD_MAX_FANS + 1])
{
        size_t n = 0;
        for (size_t i = 0; svc->sample->fans && i < svc->sample->fans->n; i++)
                if (svc->sample->fans->fans[i].pwm_path[0])
                        paths[n++] = svc->sample->fans->fans[i].pwm_path;
        paths[n] = NULL;
}

static bool has_nvfancontrol(const jd_fan_sample *fans)
{
        for (size_t i = 0; fans && i < fans->n; i++)
                if (fans->fans[i].controller == JD_FAN_CONTROL_NVFANCONTROL)
                        return true;
        return false;
}

static gboolean on_tick(gpointer data)
{
        jd_service *svc = data;
        uint64_t now = (uint64_t) g_get_monotonic_time();
        publish(svc, jd_schedule_take(&svc->schedule, now));
        g_source_set_ready_time(svc->ticker, (gint64) jd_schedule_next(&svc->schedule));
        return G_SOURCE_CONTINUE;
}

/* A timer that fires at absolute CLOCK_MONOTONIC deadlines (the ready
 * time), which g_timeout_add's relative intervals cannot express. */
static gboolean ticker_dispatch(GSource *source, GSourceFunc callback, gpointer data)
{
        (void) source;
        return callback(data);
}

static GSourceFuncs ticker_funcs = { .dispatch = ticker_dispatch };

jd_service *jd_service_new(sd_bus *bus, const jd_sysroot *sr, uint64_t default_interval_us, GError **error)
{
        jd_service *svc = g_new0(jd_service, 1);
        svc->bus = sd_bus_ref(bus);
        svc->sr = sr;
        svc->default_interval_us = default_interval_us;
        svc->interval_us = default_interval_us;
        svc->ifaces = g_ptr_array_new_with_free_func(destroy_iface);
        jd_values_init(&svc->values);
        jd_config_load(&svc->config, sr);
        jd_board_read(&svc->board, sr);
        svc->sampler = jd_sampler_new(sr);
        if (!svc->sampler) {
                g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_FAILED, "Out of memory");
                jd_service_free(svc);
                return NULL;
        }
        svc->sample = jd_sampler_current(svc->sampler);
        jd_values_from_sample(&svc->values, svc->sample);
        jd_schedule_init(&svc->schedule, svc->interval_us, (uint64_t) g_get_monotonic_time());

        int r = sd_bus_add_object_manager(bus, &svc->object_manager, JD_OBJECT_PATH);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot add the object manager");
                jd_service_free(svc);
                return NULL;
        }
        GError *e = NULL;
        add_iface(svc, jd_board_iface_new(svc, &e));
        if (!e)
                add_iface(svc, jd_metrics_iface_new(svc, &e));
        if (!e)
                add_iface(svc, jd_nvpmodel_iface_new(svc, &e));
        if (!e)
                add_iface(svc, svc->jetson_clocks = jd_jetson_clocks_iface_new(svc, &e));
        if (!e)
                add_iface(svc, jd_memory_iface_new(svc, &e));
        if (!e)
                add_iface(svc, jd_manager_iface_new(svc, &e));
        for (size_t i = 0; !e && svc->sample->fans && i < svc->sample->fans->n; i++)
                add_iface(svc, jd_fan_iface_new(svc, i, &e));
        if (!e && has_nvfancontrol(svc->sample->fans))
                svc->fan_service = jd_unit_new(bus, JD_NVFANCONTROL_UNIT, svc->config.unit_timeout_ms,
                                               on_fan_service_changed, svc);
        if (e) {
                g_propagate_error(error, e);
                jd_service_free(svc);
                return NULL;
        }
        return svc;
}

void jd_service_start(jd_service *svc)
{
        svc->ticker = g_source_new(&ticker_funcs, sizeof(GSource));
        g_source_set_name(svc->ticker, "jetsond sampler");
        g_source_set_callback(svc->ticker, on_tick, svc, NULL);
        g_source_set_ready_time(svc->ticker, (gint64) jd_schedule_next(&svc->schedule));
        g_source_attach(svc->ticker, NULL);
}

void jd_service_set_interval(jd_service *svc, uint64_t interval_us)
{
        if (interval_us == svc->interval_us)
                return;
        svc->interval_us = interval_us;
        jd_schedule_set_period(&svc->schedule, interval_us, (uint64_t) g_get_monotonic_time());
        if (svc->ticker)
                g_source_set_ready_time(svc->ticker, (gint64) jd_schedule_next(&svc->schedule));
        jd_emit_changed(svc, JD_OBJECT_PATH, JD_IFACE_METRICS, (const char *[]) { "Interval", NULL });
}

void jd_service_free(jd_service *svc)
{
        if (!svc)
                return;
        if (svc->ticker) {
                g_source_destroy(svc->ticker);
                g_source_unref(svc->ticker);
        }
        jd_unit_free(svc->fan_service);
        g_ptr_array_unref(svc->ifaces);
        sd_bus_slot_unref(svc->object_manager);
        jd_sampler_free(svc->sampler);
        jd_values_clear(&svc->values);
        sd_bus_unref(svc->bus);
        g_free(svc);
}
