/* org.jetsond.Jetson1.NVPModel: power modes, read from nvpmodel's own
 * files so they follow changes made outside jetsond; exported only on
 * boards with an /etc/nvpmodel.conf
 * (introspection/org.jetsond.Jetson1.NVPModel.xml). */
#include <errno.h>
#include <string.h>

#include "atomic_file.h"
#include "grow.h"
#include "jetsond-dbus.h"
#include "nvpmodel_control.h"
#include "service.h"
#include "write.h"

/* What was last published, to emit PropertiesChanged only for changes. */
typedef struct {
        jd_iface base;
        jd_nvpmodel_mode *modes;      /* a copy: the sample's goes with its reading */
        size_t n_modes;
        uint32_t mode, default_mode;
        char mode_name[48];
} nvpmodel_iface;

static const jd_nvpmodel_sample *nv(const nvpmodel_iface *self)
{
        return self->base.svc->sample->nvpmodel;
}

/* An unreadable status or default is UINT32_MAX, never a made-up mode. */
static uint32_t id_or_unknown(jd_opt_u64 id)
{
        return id.present && id.value < UINT32_MAX ? (uint32_t) id.value : UINT32_MAX;
}

static int get_modes(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_nvpmodel_sample *s = nv(userdata);
        int r = sd_bus_message_open_container(reply, 'a', "(us)");
        for (size_t i = 0; r >= 0 && i < s->n_modes; i++)
                r = sd_bus_message_append(reply, "(us)", s->modes[i].id, s->modes[i].name);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

static int get_mode(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) error;
        const jd_nvpmodel_sample *s = nv(userdata);
        if (strcmp(property, "ModeName") == 0)
                return sd_bus_message_append_basic(reply, 's', s->current_name);
        uint32_t id = id_or_unknown(strcmp(property, "Mode") == 0 ? s->current_id : s->default_id);
        return sd_bus_message_append_basic(reply, 'u', &id);
}

static const char *const set_nvpmodel[] = { JD_ACTION_SET_NVPMODEL, NULL };

/* Validated before polkit is asked: an unknown ID never costs a prompt. */
static int read_known_id(sd_bus_message *m, const nvpmodel_iface *self, uint32_t *id, sd_bus_error *error)
{
        int r = sd_bus_message_read(m, "u", id);
        if (r < 0)
                return r;
        if (!jd_nvpmodel_mode_name(nv(self), *id))
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Power mode %" PRIu32 " is not defined in /etc/nvpmodel.conf", *id);
        return 0;
}

static void on_mode_set(const jd_result *result, void *userdata)
{
        jd_write_finish(userdata, result);
}

/* Switching to the mode already in effect succeeds without running
 * nvpmodel. The status file is read now rather than taken from the last
 * sample, which may predate a change made by hand. */
static bool mode_is_current(const jd_sysroot *sr, unsigned id)
{
        g_autofree char *text = NULL;
        jd_nvpmodel_sample now = { 0 };
        return jd_read_text(sr, JD_NVPMODEL_STATUS, 4096, &text) == 0 &&
               jd_parse_nvpmodel_status(text, &now) && now.current_id.present && now.current_id.value == id;
}

static void apply_set_mode(jd_write *w)
{
        const jd_sample *s = w->svc->sample;
        if (mode_is_current(w->svc->sr, (unsigned) w->u)) {
                jd_result ok;
                jd_result_set(&ok, JD_OK, "The power mode is already %u", (unsigned) w->u);
                jd_write_finish(w, &ok);
                return;
        }
        bool clocks = s->jetson_clocks_active.present && s->jetson_clocks_active.value;
        g_auto(jd_fan_pwms) pwms = { 0 };
        jd_service_fan_pwms(w->svc, &pwms);
        jd_nvpmodel_set_mode(w->svc->sr, &w->svc->config, (unsigned) w->u,
                             jd_nvpmodel_mode_name(s->nvpmodel, (unsigned) w->u), clocks, &pwms, on_mode_set, w);
}

static void apply_set_default(jd_write *w)
{
        jd_nvpmodel_set_default(w->svc->sr, (unsigned) w->u, on_mode_set, w);
}

/* A mode switch restores and re-applies jetson_clocks (which also drives
 * the fan), so it excludes jetson_clocks and fan changes too, as its
 * Busy error says; a new boot default only touches the configuration. */
#define SET_MODE_DOMAINS (JD_DOMAIN_NVPMODEL | JD_DOMAIN_JETSON_CLOCKS | JD_DOMAIN_FAN)

/* SetMode and SetDefaultMode: the same argument and action. */
static int method_set(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        uint32_t id;
        int r = read_known_id(m, userdata, &id, error);
        if (r < 0)
                return r;
        bool boot_default = strcmp(sd_bus_message_get_member(m), "SetDefaultMode") == 0;
        jd_write *w = jd_write_new(((nvpmodel_iface *) userdata)->base.svc, m,
                                   boot_default ? JD_DOMAIN_NVPMODEL : SET_MODE_DOMAINS, "power mode change", error);
        if (!w)
                return -EBUSY;
        w->u = id;
        return jd_write_authorize(w, set_nvpmodel, boot_default ? apply_set_default : apply_set_mode, error);
}

static const sd_bus_vtable nvpmodel_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Modes", "a(us)", get_modes, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Mode", "u", get_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ModeName", "s", get_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DefaultMode", "u", get_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("SetMode", SD_BUS_ARGS("u", id), SD_BUS_NO_RESULT, method_set,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetDefaultMode", SD_BUS_ARGS("u", id), SD_BUS_NO_RESULT, method_set,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static bool modes_equal(const nvpmodel_iface *self, const jd_nvpmodel_sample *s)
{
        if (self->n_modes != s->n_modes)
                return false;
        for (size_t i = 0; i < s->n_modes; i++)
                if (self->modes[i].id != s->modes[i].id || strcmp(self->modes[i].name, s->modes[i].name) != 0)
                        return false;
        return true;
}

/* Copies the sample into SELF and lists what differed in CHANGED. */
static void nvpmodel_remember(nvpmodel_iface *self, const char **changed)
{
        const jd_nvpmodel_sample *s = nv(self);
        size_t n = 0;
        if (!modes_equal(self, s)) {
                /* Out of memory, the next update tries again. */
                bool ok = true;
                jd_nvpmodel_mode *copy = jd_memdup(s->modes, s->n_modes, sizeof(*copy), &ok);
                if (ok) {
                        free(self->modes);
                        self->modes = copy;
                        self->n_modes = s->n_modes;
                        changed[n++] = "Modes";
                }
        }
        uint32_t mode = id_or_unknown(s->current_id), def = id_or_unknown(s->default_id);
        if (mode != self->mode) {
                self->mode = mode;
                changed[n++] = "Mode";
        }
        if (strcmp(self->mode_name, s->current_name) != 0) {
                g_strlcpy(self->mode_name, s->current_name, sizeof(self->mode_name));
                changed[n++] = "ModeName";
        }
        if (def != self->default_mode) {
                self->default_mode = def;
                changed[n++] = "DefaultMode";
        }
        changed[n] = NULL;
}

static void nvpmodel_update(jd_iface *base)
{
        const char *changed[5];
        nvpmodel_remember((nvpmodel_iface *) base, changed);
        jd_emit_changed(base->svc, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, changed);
}

static void nvpmodel_destroy(jd_iface *base)
{
        free(((nvpmodel_iface *) base)->modes);
        g_free(base);
}

jd_iface *jd_nvpmodel_iface_new(jd_service *svc, GError **error)
{
        if (!svc->sample->nvpmodel || !svc->sample->nvpmodel->present)
                return NULL;
        nvpmodel_iface *self = g_new0(nvpmodel_iface, 1);
        self->base.svc = svc;
        self->base.update = nvpmodel_update;
        self->base.destroy = nvpmodel_destroy;
        const char *ignored[5];
        nvpmodel_remember(self, ignored);
        int r = sd_bus_add_object_vtable(svc->bus, &self->base.slot, JD_OBJECT_PATH, JD_IFACE_NVPMODEL,
                                         nvpmodel_vtable, self);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_NVPMODEL);
                nvpmodel_destroy(&self->base);
                return NULL;
        }
        return &self->base;
}
