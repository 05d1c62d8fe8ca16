/* org.jetsond.Jetson1.DiscreteGpu: one object per discrete NVIDIA GPU
 * (/org/jetsond/Jetson1/dgpu/N, N being NVML's index), with what does not
 * change from sample to sample: its identity, memory, power limit,
 * maximum clocks, the NVIDIA driver's and CUDA's versions, compute
 * capability, BAR1's size and the modes nvidia-smi sets (ECC,
 * persistence, compute, display), re-read every 10 s with the costly
 * values and announced with PropertiesChanged. Its readings are the
 * Sample's dgpu.N.* keys. The object keeps the last values NVML gave
 * while the GPU is lost or hung. */
#include <stdint.h>
#include <string.h>

#include "errors.h"
#include "jetsond-dbus.h"
#include "service.h"

typedef struct {
        jd_iface base;
        unsigned index;
        char path[64];
        jd_nvml_gpu known;            /* the latest reading that had values */
} dgpu_iface;

/* The properties that follow the modes, with the values they are read from. */
static const char *const mode_properties[] = { "EccMode",     "EccModePending", "PersistenceMode",
                                               "ComputeMode", "DisplayMode",    "DisplayActive" };

static const jd_opt_u64 *mode_value(const jd_nvml_gpu *g, const char *property)
{
        const jd_opt_u64 *values[] = { &g->ecc,          &g->ecc_pending,  &g->persistence,
                                       &g->compute_mode, &g->display_mode, &g->display_active };
        for (size_t i = 0; i < G_N_ELEMENTS(mode_properties); i++)
                if (strcmp(property, mode_properties[i]) == 0)
                        return values[i];
        return NULL;
}

static bool same(jd_opt_u64 a, jd_opt_u64 b)
{
        return a.present == b.present && (!a.present || a.value == b.value);
}

/* Into CHANGED (room for every mode and the power limit, and a NULL): the
 * properties that differ from KNOWN in G. */
static void changes(const jd_nvml_gpu *known, const jd_nvml_gpu *g, const char **changed)
{
        size_t n = 0;
        if (!same(known->power_limit_mw, g->power_limit_mw))
                changed[n++] = "PowerLimit";
        for (size_t i = 0; g->modes_read && i < G_N_ELEMENTS(mode_properties); i++)
                if (!same(*mode_value(known, mode_properties[i]), *mode_value(g, mode_properties[i])))
                        changed[n++] = mode_properties[i];
        changed[n] = NULL;
}

/* Refreshes KNOWN from the snapshot's latest reading of the GPU; the
 * properties that changed into CHANGED (as changes()). */
static void refresh(dgpu_iface *self, const char **changed)
{
        changed[0] = NULL;
        const jd_snapshot *s = &self->base.svc->snapshot;
        for (size_t i = 0; i < s->n_gpu; i++) {
                const jd_nvml_gpu *g = &s->gpu[i]->gpu;
                if (g->index != self->index || g->lost)
                        continue;
                changes(&self->known, g, changed);
                /* A reading without the modes (its costly thread is
                 * stuck) keeps the last ones NVML gave. */
                jd_nvml_gpu *modes = g->modes_read ? NULL : g_new(jd_nvml_gpu, 1);
                if (modes)
                        *modes = self->known;
                /* Values only: the processes go with the reading. */
                self->known = *g;
                self->known.processes = NULL;
                self->known.n_processes = self->known.cap_processes = 0;
                if (modes)
                        jd_nvml_gpu_merge(&self->known, modes, JD_NVML_MODES);
                g_free(modes);
                return;
        }
}

static int get_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) error;
        const jd_nvml_gpu *g = &((dgpu_iface *) userdata)->known;
        const char *v = strcmp(property, "Name") == 0 ? g->name : strcmp(property, "UUID") == 0 ? g->uuid
                                                                                                 : g->pci_bus_id;
        return sd_bus_message_append_basic(reply, 's', v);
}

/* The same for every GPU: NVML has one driver. "" while NVML says none. */
static int get_driver_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                              sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        jd_nvml_status st = { 0 };
        if (!jd_engine_nvml_status(((dgpu_iface *) userdata)->base.svc->engine, &st))
                st.driver[0] = '\0';
        st.driver[sizeof(st.driver) - 1] = '\0';
        return sd_bus_message_append_basic(reply, 's', st.driver);
}

/* Unknown numbers are 0, as the contract documents. */
static int get_memory_total(sd_bus *bus, const char *path, const char *interface, const char *property,
                            sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_nvml_gpu *g = &((dgpu_iface *) userdata)->known;
        uint64_t bytes = g->mem_total_kib.present ? g->mem_total_kib.value * 1024 : 0;
        return sd_bus_message_append_basic(reply, 't', &bytes);
}

static int get_power_limit(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_nvml_gpu *g = &((dgpu_iface *) userdata)->known;
        uint32_t mw = g->power_limit_mw.present ? (uint32_t) g->power_limit_mw.value : 0;
        return sd_bus_message_append_basic(reply, 'u', &mw);
}

static int get_max_clocks(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_nvml_gpu *g = &((dgpu_iface *) userdata)->known;
        const struct {
                const char *name;
                jd_opt_u64 khz;
        } clocks[] = { { "graphics", g->max_freq_khz }, { "sm", g->max_sm_freq_khz }, { "mem", g->max_mem_freq_khz } };
        int r = sd_bus_message_open_container(reply, 'a', "{su}");
        for (size_t i = 0; r >= 0 && i < G_N_ELEMENTS(clocks); i++)
                if (clocks[i].khz.present && clocks[i].khz.value <= UINT32_MAX)
                        r = sd_bus_message_append(reply, "{su}", clocks[i].name, (uint32_t) clocks[i].khz.value);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

/* The CUDA version the driver supports, as nvidia-smi's header ("12.8"),
 * the same for every GPU; "" while NVML says none. */
static int get_cuda_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                            sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        jd_nvml_status st = { 0 };
        if (!jd_engine_nvml_status(((dgpu_iface *) userdata)->base.svc->engine, &st))
                st.cuda[0] = '\0';
        st.cuda[sizeof(st.cuda) - 1] = '\0';
        return sd_bus_message_append_basic(reply, 's', st.cuda);
}

static int get_capability(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_nvml_gpu *g = &((dgpu_iface *) userdata)->known;
        char text[48] = "";
        if (g->cc_major.present && g->cc_minor.present)
                g_snprintf(text, sizeof(text), "%" G_GUINT64_FORMAT ".%" G_GUINT64_FORMAT, g->cc_major.value,
                           g->cc_minor.value);
        return sd_bus_message_append_basic(reply, 's', text);
}

static int get_bar1_total(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_nvml_gpu *g = &((dgpu_iface *) userdata)->known;
        uint64_t bytes = g->bar1_total_kib.present ? g->bar1_total_kib.value * 1024 : 0;
        return sd_bus_message_append_basic(reply, 't', &bytes);
}

/* A mode in words: "enabled"/"disabled", the compute mode's name; ""
 * while NVML does not say (NOT_SUPPORTED, or not read yet). */
static int get_mode(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) error;
        const jd_opt_u64 *v = mode_value(&((dgpu_iface *) userdata)->known, property);
        const char *text = !v || !v->present                   ? ""
                           : strcmp(property, "ComputeMode") == 0 ? jd_nvml_compute_mode_name(v->value)
                           : v->value                           ? "enabled"
                                                                : "disabled";
        return sd_bus_message_append_basic(reply, 's', text);
}

static int get_minor(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_nvml_gpu *g = &((dgpu_iface *) userdata)->known;
        int32_t minor = g->minor.present && g->minor.value <= INT32_MAX ? (int32_t) g->minor.value : -1;
        return sd_bus_message_append_basic(reply, 'i', &minor);
}

static const sd_bus_vtable dgpu_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Name", "s", get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("UUID", "s", get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("PciBusId", "s", get_string, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("MemoryTotal", "t", get_memory_total, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("PowerLimit", "u", get_power_limit, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("MaxClocks", "a{su}", get_max_clocks, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("MinorNumber", "i", get_minor, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("DriverVersion", "s", get_driver_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("CudaDriverVersion", "s", get_cuda_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("ComputeCapability", "s", get_capability, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Bar1Total", "t", get_bar1_total, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("EccMode", "s", get_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("EccModePending", "s", get_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("PersistenceMode", "s", get_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("ComputeMode", "s", get_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DisplayMode", "s", get_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DisplayActive", "s", get_mode, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_VTABLE_END,
};

static void dgpu_update(jd_iface *base)
{
        dgpu_iface *self = (dgpu_iface *) base;
        const char *changed[G_N_ELEMENTS(mode_properties) + 2];
        refresh(self, changed);
        if (changed[0])
                jd_emit_changed(base->svc, self->path, JD_IFACE_DISCRETE_GPU, changed);
}

static void dgpu_destroy(jd_iface *base)
{
        g_free(base);
}

jd_iface *jd_dgpu_iface_new(jd_service *svc, unsigned index, GError **error)
{
        dgpu_iface *self = g_new0(dgpu_iface, 1);
        self->base.svc = svc;
        self->base.update = dgpu_update;
        self->base.destroy = dgpu_destroy;
        self->index = index;
        g_snprintf(self->path, sizeof(self->path), JD_DGPU_PATH_PREFIX "%u", index);
        const char *changed[G_N_ELEMENTS(mode_properties) + 2];
        refresh(self, changed);
        int r = sd_bus_add_object_vtable(svc->bus, &self->base.slot, self->path, JD_IFACE_DISCRETE_GPU, dgpu_vtable,
                                         self);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_DISCRETE_GPU);
                g_free(self);
                return NULL;
        }
        return &self->base;
}
