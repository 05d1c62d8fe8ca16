/* org.jetsond.Jetson1.JetsonClocks: whether every clock is pinned at its
 * maximum, read from sysfs so it also follows jetson_clocks runs outside
 * jetsond; exported only on boards with the jetson_clocks tool
 * (introspection/org.jetsond.Jetson1.JetsonClocks.xml). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "atomic_file.h"
#include "jetson_clocks_control.h"
#include "jetsond-dbus.h"
#include "log.h"
#include "service.h"
#include "systemd_unit.h"
#include "write.h"

/* OnBoot and the boot it was last applied in, kept across restarts. */
#define STATE_FILE JD_STATE_DIR "/jetson-clocks.state"

typedef struct {
        jd_iface base;
        bool active, on_boot;         /* last published */
        guint boot_timer;
} jetson_clocks_iface;

/* What switching jetson_clocks on or off touches: the clocks and the fan. */
#define CLOCKS_DOMAINS (JD_DOMAIN_JETSON_CLOCKS | JD_DOMAIN_FAN)

static const char *const set_jetson_clocks[] = { JD_ACTION_SET_JETSON_CLOCKS, NULL };

static GKeyFile *load_state(const jd_sysroot *sr)
{
        GKeyFile *kf = g_key_file_new();
        g_autofree char *text = NULL;
        if (jd_read_text(sr, STATE_FILE, 4096, &text) == 0)
                g_key_file_load_from_data(kf, text, (gsize) -1, G_KEY_FILE_NONE, NULL);
        return kf;
}

static int save_state(const jd_sysroot *sr, GKeyFile *kf)
{
        gsize len;
        g_autofree char *text = g_key_file_to_data(kf, &len, NULL);
        return jd_atomic_write(sr, STATE_FILE, text, len, 0644);
}

static char *current_boot_id(const jd_sysroot *sr)
{
        char id[64] = "";
        jd_read_str(sr, id, sizeof(id), "/proc/sys/kernel/random/boot_id");
        return g_strdup(id);
}

static bool is_active(const jd_service *svc)
{
        return svc->sample->jetson_clocks_active.present && svc->sample->jetson_clocks_active.value;
}

static int get_active(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) error;
        const jetson_clocks_iface *self = userdata;
        int v = strcmp(property, "Active") == 0 ? is_active(self->base.svc) : self->on_boot;
        return sd_bus_message_append_basic(reply, 'b', &v);
}

static void on_clocks_set(const jd_result *result, void *userdata)
{
        jd_write_finish(userdata, result);
}

bool jd_jetson_clocks_switch(jd_service *svc, bool on, jd_result_fn done, void *userdata, jd_result *already)
{
        /* Already in the requested state: nothing to store or restore. */
        if (is_active(svc) == on) {
                jd_result_set(already, JD_OK, "jetson_clocks is already %s", on ? "on" : "off");
                return false;
        }
        g_auto(jd_fan_pwms) pwms = { 0 };
        jd_service_fan_pwms(svc, &pwms);
        jd_jetson_clocks_set(svc->sr, &svc->config, on, &pwms, done, userdata);
        return true;
}

static void apply_set_active(jd_write *w)
{
        jd_result already;
        if (!jd_jetson_clocks_switch(w->svc, w->b, on_clocks_set, w, &already))
                jd_write_finish(w, &already);
}

typedef struct {
        jetson_clocks_iface *self;
        bool on;
        jd_result_fn done;
        void *userdata;
} on_boot_op;

/* systemd has enabled or disabled jetsond.service: now the setting. */
static void on_unit_file_set(const jd_result *unit, void *data)
{
        on_boot_op *op = data;
        jd_service *svc = op->self->base.svc;
        jd_result result;
        if (unit->outcome == JD_NOT_SUPPORTED) {
                /* No systemd (a test root, an unusual init): jetsond can
                 * only apply OnBoot when something starts it at boot. */
                jd_log_warning("systemd is not on the bus: %s is not %s; OnBoot applies when jetsond is started at "
                               "boot",
                               JD_UNIT_NAME, op->on ? "enabled" : "disabled");
        } else if (unit->outcome != JD_OK) {
                op->done(unit, op->userdata);     /* nothing saved: all or nothing */
                g_free(op);
                return;
        }
        g_autoptr(GKeyFile) kf = load_state(svc->sr);
        g_key_file_set_boolean(kf, "JetsonClocks", "OnBoot", op->on);
        int r = save_state(svc->sr, kf);
        if (r < 0)
                jd_result_set(&result, JD_FAILED, "Cannot save %s: %s", STATE_FILE, jd_sysroot_strerror(-r));
        else
                jd_result_set(&result, JD_OK, "jetson_clocks on boot: %s (%s %s)", op->on ? "yes" : "no", JD_UNIT_NAME,
                              unit->outcome == JD_OK ? (op->on ? "enabled" : "disabled") : "left as it is");
        if (r >= 0 && op->self->on_boot != op->on) {
                op->self->on_boot = op->on;
                jd_emit_changed(svc, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, (const char *[]) { "OnBoot", NULL });
        }
        op->done(&result, op->userdata);
        g_free(op);
}

/* "At boot" means jetsond starts at boot: its unit is enabled (or
 * disabled) through systemd, as "systemctl enable jetsond" would, and
 * the setting is saved once systemd agreed. */
void jd_jetson_clocks_set_on_boot(jd_iface *iface, bool on, jd_result_fn done, void *userdata)
{
        on_boot_op *op = g_new0(on_boot_op, 1);
        op->self = (jetson_clocks_iface *) iface;
        op->on = on;
        op->done = done;
        op->userdata = userdata;
        jd_unit_file_set_enabled(iface->svc->bus, JD_UNIT_NAME, on, on_unit_file_set, op);
}

static void on_set_on_boot(const jd_result *result, void *userdata)
{
        jd_write_finish(userdata, result);
}

static void apply_set_on_boot(jd_write *w)
{
        jd_jetson_clocks_set_on_boot(w->target, w->b, on_set_on_boot, w);
}

/* SetActive and SetOnBoot: the same argument and action. SetActive
 * excludes power mode changes (SetMode takes the jetson_clocks domain)
 * and fan changes (it saves and restores the fan PWM). SetOnBoot changes
 * only jetsond's unit and state file, so it needs no lock and, as its
 * contract says, never answers Busy. */
static int method_set(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        int on;
        int r = sd_bus_message_read(m, "b", &on);
        if (r < 0)
                return r;
        bool on_boot = strcmp(sd_bus_message_get_member(m), "SetOnBoot") == 0;
        jd_write *w = jd_write_new(((jetson_clocks_iface *) userdata)->base.svc, m, on_boot ? 0 : CLOCKS_DOMAINS,
                                   "jetson_clocks change", error);
        if (!w)
                return -EBUSY;
        w->b = on;
        w->target = userdata;
        return jd_write_authorize(w, set_jetson_clocks, on_boot ? apply_set_on_boot : apply_set_active, error);
}

static const sd_bus_vtable jetson_clocks_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Active", "b", get_active, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("OnBoot", "b", get_active, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("SetActive", SD_BUS_ARGS("b", active), SD_BUS_NO_RESULT, method_set,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetOnBoot", SD_BUS_ARGS("b", on_boot), SD_BUS_NO_RESULT, method_set,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static void jetson_clocks_update(jd_iface *base)
{
        jetson_clocks_iface *self = (jetson_clocks_iface *) base;
        bool active = is_active(base->svc);
        if (active == self->active)
                return;
        self->active = active;
        jd_emit_changed(base->svc, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, (const char *[]) { "Active", NULL });
}

static void jetson_clocks_destroy(jd_iface *base)
{
        jetson_clocks_iface *self = (jetson_clocks_iface *) base;
        if (self->boot_timer)
                g_source_remove(self->boot_timer);
        g_free(base);
}

static void on_boot_applied(const jd_result *result, void *userdata)
{
        jetson_clocks_iface *self = userdata;
        jd_service *svc = self->base.svc;
        jd_domains_unlock(svc, CLOCKS_DOMAINS);
        if (result->outcome != JD_OK) {
                jd_log_error("Applying jetson_clocks at boot failed: %s", result->message);
                return;
        }
        jd_log_info("jetson_clocks applied at boot");
        g_autoptr(GKeyFile) kf = load_state(svc->sr);
        g_autofree char *boot = current_boot_id(svc->sr);
        g_key_file_set_string(kf, "JetsonClocks", "AppliedBoot", boot);
        save_state(svc->sr, kf);
        jd_service_resample(svc, NULL, NULL);
}

static gboolean on_boot_delay(gpointer data)
{
        jetson_clocks_iface *self = data;
        jd_service *svc = self->base.svc;
        self->boot_timer = 0;
        /* A change a client started wins; OnBoot is not retried. */
        if (is_active(svc) || !self->on_boot || !jd_domains_lock(svc, CLOCKS_DOMAINS, "jetson_clocks change at boot"))
                return G_SOURCE_REMOVE;
        g_auto(jd_fan_pwms) pwms = { 0 };
        jd_service_fan_pwms(svc, &pwms);
        jd_jetson_clocks_set(svc->sr, &svc->config, true, &pwms, on_boot_applied, self);
        return G_SOURCE_REMOVE;
}

/* OnBoot applies once per boot, once the system has been up for the
 * configured delay (so it does not fight nvpmodel's own boot work); a
 * restart of jetsond in the same boot does not apply it again. */
static void schedule_boot_apply(jetson_clocks_iface *self)
{
        jd_service *svc = self->base.svc;
        g_autoptr(GKeyFile) kf = load_state(svc->sr);
        self->on_boot = g_key_file_get_boolean(kf, "JetsonClocks", "OnBoot", NULL);
        /* A per-user jetsond shows the setting (where the user may read
         * it) and changes nothing, at boot neither. */
        if (!self->on_boot || svc->user)
                return;
        g_autofree char *applied = g_key_file_get_string(kf, "JetsonClocks", "AppliedBoot", NULL);
        g_autofree char *boot = current_boot_id(svc->sr);
        if (applied && strcmp(applied, boot) == 0)
                return;
        uint64_t uptime = svc->sample->system && svc->sample->system->uptime_s.present
                                  ? svc->sample->system->uptime_s.value
                                  : 0;
        /* Started long after boot (D-Bus activation by a client hours
         * later): not "at boot", so the clocks are left alone. */
        uint64_t latest = (uint64_t) svc->config.boot_delay_s + svc->config.boot_grace_s;
        if (uptime > latest) {
                jd_log_info("jetson_clocks at boot not applied: jetsond started %" PRIu64 " s after boot, later than "
                            "[JetsonClocks] BootDelaySec + BootGraceSec (%" PRIu64 " s)",
                            uptime, latest);
                return;
        }
        unsigned delay = uptime >= svc->config.boot_delay_s ? 0 : svc->config.boot_delay_s - (unsigned) uptime;
        self->boot_timer = g_timeout_add_seconds(delay, on_boot_delay, self);
}

jd_iface *jd_jetson_clocks_iface_new(jd_service *svc, GError **error)
{
        char tool[PATH_MAX];
        if (jd_sysroot_find_tool(svc->sr, "jetson_clocks", tool, sizeof(tool)) < 0)
                return NULL;
        jetson_clocks_iface *self = g_new0(jetson_clocks_iface, 1);
        self->base.svc = svc;
        self->base.update = jetson_clocks_update;
        self->base.destroy = jetson_clocks_destroy;
        self->active = is_active(svc);
        schedule_boot_apply(self);
        int r = sd_bus_add_object_vtable(svc->bus, &self->base.slot, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS,
                                         jetson_clocks_vtable, self);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_JETSON_CLOCKS);
                g_free(self);
                return NULL;
        }
        return &self->base;
}
