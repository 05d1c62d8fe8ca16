/* The discrete GPUs' DiscreteGpu properties in top: their names for the
 * device panels, and the facts and modes nvitop -1 and nvidia-smi show
 * (CUDA version, compute capability, persistence and compute modes,
 * display, ECC, BAR1, the video clock) in a row under each panel. The
 * properties are read at start and again when jetsond announces that a
 * mode changed (PropertiesChanged), never at every sample. */
#include <string.h>

#include "common/bus.h"
#include "common/output.h"
#include "common/props.h"
#include "common/sample.h"
#include "jetsond-dbus.h"
#include "top.h"
#include "top_draw.h"

void jc_top_props_free(gpointer props)
{
        if (props)
                g_variant_unref(props);
}

void jc_top_read_dgpus(jc_top *t)
{
        g_ptr_array_set_size(t->dgpu_names, 0);
        g_ptr_array_set_size(t->dgpu_props, 0);
        for (unsigned n = 0; n < JC_TOP_MAX_DGPUS; n++) {
                g_autofree char *path = g_strdup_printf(JD_DGPU_PATH_PREFIX "%u", n);
                sd_bus_error error = SD_BUS_ERROR_NULL;
                int r = 0;
                GVariant *props = jc_get_all(t->c, path, JD_IFACE_DISCRETE_GPU, &error, &r);
                sd_bus_error_free(&error);
                const char *name = "";
                if (props)
                        g_variant_lookup(props, "Name", "&s", &name);
                g_ptr_array_add(t->dgpu_names, g_strdup(name));
                g_ptr_array_add(t->dgpu_props, props);
        }
        t->dgpu_stale = false;
}

/* A mode in nvidia-smi's words, NULL while NVML does not say. */
static const char *on_off(GVariant *props, const char *property)
{
        const char *v = jc_prop_str(props, property);
        return strcmp(v, "enabled") == 0 ? "On" : strcmp(v, "disabled") == 0 ? "Off" : NULL;
}

int jc_top_draw_dgpu_facts(const jc_top *t, unsigned n, int y)
{
        GVariant *props = n < t->dgpu_props->len ? g_ptr_array_index(t->dgpu_props, n) : NULL;
        const jc_sample *s = &t->sample;
        g_autoptr(GString) line = g_string_new(NULL);
        const char *v;
        if (props && *(v = jc_prop_str(props, "CudaDriverVersion")))
                g_string_append_printf(line, "CUDA %s  ", v);
        if (props && *(v = jc_prop_str(props, "ComputeCapability")))
                g_string_append_printf(line, "cc %s  ", v);
        if (props && (v = on_off(props, "PersistenceMode")))
                g_string_append_printf(line, "Pers %s  ", v);
        if (props && (v = on_off(props, "DisplayActive")))
                g_string_append_printf(line, "Disp.A %s  ", v);
        if (props && *(v = jc_prop_str(props, "ComputeMode")))
                g_string_append_printf(line, "Compute %s  ", v);
        uint64_t u, total = 0;
        if (props && (v = on_off(props, "EccMode"))) {
                g_string_append_printf(line, "ECC %s", v);
                if (jc_sample_uintf(s, &u, "dgpu.%u.ecc_volatile_uncorrected", n))
                        g_string_append_printf(line, " (uncorr. %" G_GUINT64_FORMAT ")", u);
                g_string_append(line, "  ");
        }
        if (jc_sample_uintf(s, &u, "dgpu.%u.bar1_used", n)) {
                g_autofree char *used = jc_format_kib(u);
                g_string_append_printf(line, "BAR1 %s", used);
                if (props && jc_prop_u64(props, "Bar1Total", &total) && total) {
                        g_autofree char *all = jc_format_kib(total / 1024);
                        g_string_append_printf(line, " / %s", all);
                }
                g_string_append(line, "  ");
        }
        if (jc_sample_uintf(s, &u, "dgpu.%u.video_freq", n)) {
                g_autofree char *c = jc_format_khz(u);
                g_string_append_printf(line, "video %s", c);
        }
        if (!line->len)
                return y;
        jc_top_put(y, 2, A_NORMAL, line->str);
        return y + 1;
}
