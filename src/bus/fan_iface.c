/* org.jetsond.Jetson1.Fan: one object per fan, /org/jetsond/Jetson1/fan/N
 * (introspection/org.jetsond.Jetson1.Fan.xml). */
#include <errno.h>
#include <string.h>

#include "fan_control.h"
#include "jetsond-dbus.h"
#include "service.h"
#include "write.h"

typedef struct {
        jd_iface base;
        size_t index;
        char path[64];
        jd_fan last;                  /* last published */
        uint64_t rpm_said_us;         /* when Rpm's change was last said */
} fan_iface;

static const jd_fan *fan(const fan_iface *self)
{
        return &self->base.svc->sample->fans->fans[self->index];
}

static int get_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) error;
        const jd_fan *f = fan(userdata);
        const char *v = strcmp(property, "Name") == 0      ? f->name
                        : strcmp(property, "Profile") == 0  ? f->profile
                        : strcmp(property, "Governor") == 0 ? f->governor
                        : strcmp(property, "DefaultProfile") == 0 ? f->default_profile
                                                            : f->control;
        return sd_bus_message_append_basic(reply, 's', v);
}

/* A fan without a readable PWM or tachometer reports 0 (documented). */
static int get_speed(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_fan *f = fan(userdata);
        double v = f->speed.present ? f->speed.value : 0.0;
        return sd_bus_message_append_basic(reply, 'd', &v);
}

static int get_rpm(sd_bus *bus, const char *path, const char *interface, const char *property,
                   sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_fan *f = fan(userdata);
        uint32_t v = f->rpm.present && f->rpm.value <= UINT32_MAX ? (uint32_t) f->rpm.value : 0;
        return sd_bus_message_append_basic(reply, 'u', &v);
}

static int get_profiles(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_fan *f = fan(userdata);
        int r = sd_bus_message_open_container(reply, 'a', "s");
        for (size_t i = 0; r >= 0 && i < f->n_profiles; i++)
                r = sd_bus_message_append_basic(reply, 's', f->profiles[i]);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

static const char *const set_fan[] = { JD_ACTION_SET_FAN, NULL };

/* jetson_clocks drives the fan and nvpmodel re-applies jetson_clocks:
 * SetActive and SetMode also take the fan domain, so one lock excludes
 * them both, while a boot default (SetDefaultMode) may change meanwhile. */
#define FAN_DOMAINS JD_DOMAIN_FAN

static void on_fan_set(const jd_result *result, void *userdata)
{
        jd_write_finish(userdata, result);
}

static void apply_speed(jd_write *w)
{
        const fan_iface *self = w->target;
        jd_fan_set_speed(w->svc->sr, fan(self), w->d, jd_service_fan_switch(w->svc), on_fan_set, w);
}

static void apply_profile(jd_write *w)
{
        const fan_iface *self = w->target;
        jd_fan_set_profile(w->svc->sr, fan(self), w->s, jd_service_fan_switch(w->svc), on_fan_set, w);
}

static int method_set_speed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        fan_iface *self = userdata;
        double pct;
        int r = sd_bus_message_read(m, "d", &pct);
        if (r < 0)
                return r;
        if (!(pct >= 0.0 && pct <= 100.0))
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Fan speed %g is not between 0 and 100", pct);
        if (!fan(self)->pwm_path[0])
                return sd_bus_error_setf(error, JD_ERROR_NOT_SUPPORTED, "Fan %s has no writable PWM", fan(self)->name);
        jd_write *w = jd_write_new(self->base.svc, m, FAN_DOMAINS, "fan change", error);
        if (!w)
                return -EBUSY;
        w->target = self;
        w->d = pct;
        return jd_write_authorize(w, set_fan, apply_speed, error);
}

static int method_set_profile(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        fan_iface *self = userdata;
        const jd_fan *f = fan(self);
        const char *profile;
        int r = sd_bus_message_read(m, "s", &profile);
        if (r < 0)
                return r;
        bool known = false;
        for (size_t i = 0; i < f->n_profiles; i++)
                known = known || strcmp(f->profiles[i], profile) == 0;
        if (!known)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "Fan %s has no profile \"%s\"", f->name,
                                         profile);
        jd_write *w = jd_write_new(self->base.svc, m, FAN_DOMAINS, "fan change", error);
        if (!w)
                return -EBUSY;
        w->target = self;
        g_strlcpy(w->s, profile, sizeof(w->s));
        return jd_write_authorize(w, set_fan, apply_profile, error);
}

static const sd_bus_vtable fan_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Name", "s", get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Speed", "d", get_speed, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Rpm", "u", get_rpm, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Profile", "s", get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Profiles", "as", get_profiles, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DefaultProfile", "s", get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Governor", "s", get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Control", "s", get_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("SetSpeed", SD_BUS_ARGS("d", percent), SD_BUS_NO_RESULT, method_set_speed,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetProfile", SD_BUS_ARGS("s", profile), SD_BUS_NO_RESULT, method_set_profile,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static bool opt_dbl_equal(jd_opt_dbl a, jd_opt_dbl b)
{
        return a.present == b.present && (!a.present || a.value == b.value);
}

static bool opt_u64_equal(jd_opt_u64 a, jd_opt_u64 b)
{
        return a.present == b.present && (!a.present || a.value == b.value);
}

static bool profiles_equal(const jd_fan *a, const jd_fan *b)
{
        if (a->n_profiles != b->n_profiles)
                return false;
        for (size_t i = 0; i < a->n_profiles; i++)
                if (strcmp(a->profiles[i], b->profiles[i]) != 0)
                        return false;
        return true;
}

/* A copy of NOW: its profiles go with the sample's reading. Out of
 * memory, the profiles are left as they were (the next update differs
 * and tries again). */
static void remember(fan_iface *self, const jd_fan *now)
{
        jd_fan_profile *profiles;
        if (!jd_fan_profiles_dup(now, &profiles)) {
                jd_fan_profile *kept = self->last.profiles;
                size_t n = self->last.n_profiles;
                self->last = *now;
                self->last.profiles = kept;
                self->last.n_profiles = n;
                return;
        }
        free(self->last.profiles);
        self->last = *now;
        self->last.profiles = profiles;
        self->last.cap_profiles = now->n_profiles;
}

static void fan_update(jd_iface *base)
{
        fan_iface *self = (fan_iface *) base;
        const jd_fan *now = fan(self), *was = &self->last;
        const char *changed[9];
        size_t n = 0;
        if (!opt_dbl_equal(now->speed, was->speed))
                changed[n++] = "Speed";
        /* Rpm is a measurement and moves on nearly every reading: its
         * change is said at most once a DefaultInterval, so a client that
         * subscribed at 10 ms (slow readings ten times a second) does not
         * multiply the PropertiesChanged every other client receives. The
         * Metrics keys fan.N.rpm follow at any rate; a change held back is
         * said by the first reading after the interval. */
        uint64_t t = (uint64_t) g_get_monotonic_time();
        jd_opt_u64 said_rpm = was->rpm;
        if (!opt_u64_equal(now->rpm, was->rpm) && t - self->rpm_said_us >= base->svc->default_interval_us) {
                changed[n++] = "Rpm";
                said_rpm = now->rpm;
                self->rpm_said_us = t;
        }
        if (strcmp(now->profile, was->profile) != 0)
                changed[n++] = "Profile";
        if (!profiles_equal(now, was))
                changed[n++] = "Profiles";
        if (strcmp(now->default_profile, was->default_profile) != 0)
                changed[n++] = "DefaultProfile";
        if (strcmp(now->governor, was->governor) != 0)
                changed[n++] = "Governor";
        if (strcmp(now->control, was->control) != 0)
                changed[n++] = "Control";
        changed[n] = NULL;
        remember(self, now);
        self->last.rpm = said_rpm;
        jd_emit_changed(base->svc, self->path, JD_IFACE_FAN, changed);
}

static void fan_destroy(jd_iface *base)
{
        free(((fan_iface *) base)->last.profiles);
        g_free(base);
}

jd_iface *jd_fan_iface_new(jd_service *svc, size_t index, GError **error)
{
        fan_iface *self = g_new0(fan_iface, 1);
        self->base.svc = svc;
        self->base.update = fan_update;
        self->base.destroy = fan_destroy;
        self->index = index;
        g_snprintf(self->path, sizeof(self->path), JD_FAN_PATH_PREFIX "%zu", index);
        remember(self, fan(self));
        int r = sd_bus_add_object_vtable(svc->bus, &self->base.slot, self->path, JD_IFACE_FAN, fan_vtable, self);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_FAN);
                fan_destroy(&self->base);
                return NULL;
        }
        return &self->base;
}
