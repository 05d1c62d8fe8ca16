/* org.jetsond.Jetson1.Gpu: the integrated GPU's 3D scaling and rail
 * gating (introspection/org.jetsond.Jetson1.Gpu.xml), changed through the
 * controls of src/control/gpu_control.c.
 *
 * The properties are the sample's gpu.3d_scaling and gpu.railgate: the
 * sampler's GPU reader reads the very files the controls write
 * (enable_3d_scaling or the governor, railgate_enable or the PCI device's
 * power/control). They are compared after every slow reading and after
 * each change, as every other property is, so a change made outside
 * jetsond shows too, and one made by jetsond before its reply. */
#include <errno.h>
#include <string.h>

#include "atomic_file.h"
#include "jetsond-dbus.h"
#include "log.h"
#include "service.h"
#include "write.h"

/* The governors to give back, kept across restarts. */
#define STATE_FILE JD_STATE_DIR "/gpu.state"

/* jetson_clocks writes railgate_enable on some releases and nvpmodel
 * re-applies jetson_clocks (SetMode takes the jetson_clocks domain): a
 * GPU change excludes both. */
#define GPU_DOMAINS (JD_DOMAIN_GPU | JD_DOMAIN_JETSON_CLOCKS)

typedef struct {
        jd_iface base;
        jd_gpu_controls controls;
        jd_gpu_state state;           /* the controls' own latest reading: the governors offered */
        jd_gpu_memory memory;
        bool scaling, railgate;       /* last published */
        char uuid[96], driver[80];    /* last published: NVML's, where it lists this GPU */
        GCancellable *cancellable;    /* cancelled when the interface goes */
} gpu_iface;

static const char *const set_gpu[] = { JD_ACTION_SET_GPU, NULL };

static bool on(jd_opt_bool v)
{
        return v.present && v.value;
}

static const jd_gpu_sample *sampled(const gpu_iface *self)
{
        const jd_gpu_sample *g = self->base.svc->sample->gpu;
        return g && g->present ? g : NULL;
}

/* False when the sample lacks it (stale, or the GPU gone), as documented. */
static bool value(const gpu_iface *self, jd_gpu_setting setting)
{
        const jd_gpu_sample *g = sampled(self);
        return g && on(setting == JD_GPU_SET_SCALING_3D ? g->scaling_3d : g->railgate);
}

static int get_name(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const gpu_iface *self = userdata;
        return sd_bus_message_append_basic(reply, 's', self->controls.name);
}

static int get_nvml_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) error;
        const gpu_iface *self = userdata;
        return sd_bus_message_append_basic(reply, 's', strcmp(property, "UUID") == 0 ? self->uuid : self->driver);
}

/* NVML's UUID of the SoC's GPU and the driver's version, where NVML lists
 * that GPU (Thor); the last ones known while it is lost. True if either
 * changed. */
static bool refresh_nvml_identity(gpu_iface *self)
{
        const jd_snapshot *s = &self->base.svc->snapshot;
        for (size_t i = 0; i < s->n_gpu; i++) {
                const jd_nvml_gpu *g = &s->gpu[i]->gpu;
                if (!g->integrated || g->lost || !g->uuid[0])
                        continue;
                jd_nvml_status st = { 0 };
                if (!jd_engine_nvml_status(self->base.svc->engine, &st))
                        st.driver[0] = '\0';
                st.driver[sizeof(st.driver) - 1] = '\0';
                bool changed = strcmp(g->uuid, self->uuid) != 0 || strcmp(st.driver, self->driver) != 0;
                g_strlcpy(self->uuid, g->uuid, sizeof(self->uuid));
                g_strlcpy(self->driver, st.driver, sizeof(self->driver));
                return changed;
        }
        return false;
}

static int get_bool(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) error;
        int v = value(userdata, strcmp(property, "Scaling3D") == 0 ? JD_GPU_SET_SCALING_3D : JD_GPU_SET_RAILGATE);
        return sd_bus_message_append_basic(reply, 'b', &v);
}

static void gpu_update(jd_iface *base)
{
        gpu_iface *self = (gpu_iface *) base;
        /* The graphics node's governor, to give back after an "off" made
         * outside jetsond (the sample has that node's only). */
        const jd_gpu_sample *g = sampled(self);
        if (g && self->controls.scaling == JD_GPU_SCALING_GOVERNOR && g->governor[0] &&
            strcmp(g->governor, "performance") != 0)
                g_strlcpy(self->memory.governor[0], g->governor, sizeof(self->memory.governor[0]));
        bool scaling = value(self, JD_GPU_SET_SCALING_3D), railgate = value(self, JD_GPU_SET_RAILGATE);
        const char *changed[5];
        size_t n = 0;
        if (refresh_nvml_identity(self)) {
                changed[n++] = "UUID";
                changed[n++] = "DriverVersion";
        }
        if (scaling != self->scaling)
                changed[n++] = "Scaling3D";
        if (railgate != self->railgate)
                changed[n++] = "Railgate";
        changed[n] = NULL;
        self->scaling = scaling;
        self->railgate = railgate;
        jd_emit_changed(base->svc, JD_OBJECT_PATH, JD_IFACE_GPU, changed);
}

/* ---- changes ------------------------------------------------------------ */

typedef struct {
        gpu_iface *self;
        jd_result_fn done;
        void *userdata;
} switch_op;

static void on_switched(const jd_gpu_change *change, void *userdata)
{
        switch_op *op = userdata;
        gpu_iface *self = op->self;
        self->memory = change->memory;
        /* A timed-out change read nothing. The properties follow from
         * the sample the write's finish (or restore's next step) takes. */
        if (change->result.outcome != JD_TIMEOUT)
                self->state = change->after;
        op->done(&change->result, op->userdata);
        g_free(op);
}

void jd_gpu_switch(jd_iface *iface, jd_gpu_setting setting, bool enable, jd_result_fn done, void *userdata)
{
        gpu_iface *self = (gpu_iface *) iface;
        switch_op *op = g_new0(switch_op, 1);
        op->self = self;
        op->done = done;
        op->userdata = userdata;
        jd_gpu_set_async(iface->svc->sr, &self->controls, &self->memory, STATE_FILE, setting, enable,
                         JD_ATTRIBUTE_TIMEOUT_MS, self->cancellable, on_switched, op);
}

const char *jd_gpu_name(const jd_iface *iface)
{
        return ((const gpu_iface *) iface)->controls.name;
}

bool jd_gpu_has(const jd_iface *iface, jd_gpu_setting setting)
{
        const jd_gpu_controls *c = &((const gpu_iface *) iface)->controls;
        return setting == JD_GPU_SET_SCALING_3D ? c->scaling != JD_GPU_SCALING_NONE : c->railgate != JD_GPU_RAILGATE_NONE;
}

static void on_set(const jd_result *result, void *userdata)
{
        jd_write *w = userdata;
        const gpu_iface *self = w->target;
        jd_result r = *result;
        if (r.outcome == JD_OK)
                jd_result_set(&r, JD_OK, "GPU %s: %s", self->controls.name, result->message);
        jd_write_finish(w, &r);
}

static void apply_set(jd_write *w)
{
        jd_gpu_switch(w->target, (jd_gpu_setting) w->u, w->b, on_set, w);
}

static int method_set(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        gpu_iface *self = userdata;
        int enable;
        int r = sd_bus_message_read(m, "b", &enable);
        if (r < 0)
                return r;
        jd_gpu_setting setting =
                strcmp(sd_bus_message_get_member(m), "SetScaling3D") == 0 ? JD_GPU_SET_SCALING_3D : JD_GPU_SET_RAILGATE;
        /* A setting the GPU lacks is refused before polkit is asked, from
         * the latest reading (the governors a node offers do not change). */
        jd_attribute_write writes[JD_GPU_MAX_NODES], undo[JD_GPU_MAX_NODES];
        size_t n;
        jd_result plan;
        if (jd_gpu_plan(&self->controls, &self->state, &self->memory, setting, enable, writes, undo, &n, &plan) ==
            JD_NOT_SUPPORTED)
                return sd_bus_error_set(error, JD_ERROR_NOT_SUPPORTED, plan.message);
        jd_write *w = jd_write_new(self->base.svc, m, GPU_DOMAINS, "GPU change", error);
        if (!w)
                return -EBUSY;
        w->target = self;
        w->u = setting;
        w->b = enable;
        return jd_write_authorize(w, set_gpu, apply_set, error);
}

static const sd_bus_vtable gpu_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Name", "s", get_name, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("UUID", "s", get_nvml_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DriverVersion", "s", get_nvml_string, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Scaling3D", "b", get_bool, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("Railgate", "b", get_bool, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_METHOD_WITH_ARGS("SetScaling3D", SD_BUS_ARGS("b", enabled), SD_BUS_NO_RESULT, method_set,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SetRailgate", SD_BUS_ARGS("b", enabled), SD_BUS_NO_RESULT, method_set,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static void gpu_destroy(jd_iface *base)
{
        gpu_iface *self = (gpu_iface *) base;
        /* Reads and changes still in flight find their caller gone. */
        g_cancellable_cancel(self->cancellable);
        g_object_unref(self->cancellable);
        g_free(self);
}

jd_iface *jd_gpu_iface_new(jd_service *svc, const jd_gpu_controls *c, const jd_gpu_state *st, GError **error)
{
        gpu_iface *self = g_new0(gpu_iface, 1);
        self->base.svc = svc;
        self->base.update = gpu_update;
        self->base.destroy = gpu_destroy;
        self->controls = *c;
        self->state = *st;
        self->scaling = value(self, JD_GPU_SET_SCALING_3D);
        self->railgate = value(self, JD_GPU_SET_RAILGATE);
        self->cancellable = g_cancellable_new();
        g_autofree char *text = NULL;
        if (jd_read_text(svc->sr, STATE_FILE, 4096, &text) == 0)
                jd_gpu_memory_from_text(&self->memory, c, text);
        jd_gpu_memory_note(&self->memory, c, st);
        int r = sd_bus_add_object_vtable(svc->bus, &self->base.slot, JD_OBJECT_PATH, JD_IFACE_GPU, gpu_vtable, self);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_GPU);
                gpu_destroy(&self->base);
                return NULL;
        }
        jd_log_info("Integrated GPU %s: 3D scaling %s, rail gating %s", c->name,
                    c->scaling == JD_GPU_SCALING_FILE       ? "through enable_3d_scaling"
                    : c->scaling == JD_GPU_SCALING_GOVERNOR ? "through the devfreq governor"
                                                            : "not controllable",
                    c->railgate == JD_GPU_RAILGATE_FILE         ? "through railgate_enable"
                    : c->railgate == JD_GPU_RAILGATE_RUNTIME_PM ? "through runtime PM power/control"
                                                                : "not controllable");
        return &self->base;
}
