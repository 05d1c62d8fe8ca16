#include "capture_nvml.h"

#include <json-glib/json-glib.h>
#include <stdio.h>

#include "json_text.h"

static void opt(JsonBuilder *b, const char *name, jd_opt_u64 v, unsigned long long scale_div, unsigned long long scale_mul)
{
        if (!v.present)
                return;
        json_builder_set_member_name(b, name);
        json_builder_add_int_value(b, (gint64) (v.value / scale_div * scale_mul));
}

/* An object of the members that are present, left out if none is. */
static void pair(JsonBuilder *b, const char *name, const char *const keys[3], const jd_opt_u64 *vals[3],
                 unsigned long long div, unsigned long long mul)
{
        if (!vals[0]->present && !vals[1]->present && !(keys[2] && vals[2]->present))
                return;
        json_builder_set_member_name(b, name);
        json_builder_begin_object(b);
        for (int i = 0; i < 3 && keys[i]; i++)
                opt(b, keys[i], *vals[i], div, mul);
        json_builder_end_object(b);
}

static void add_processes(JsonBuilder *b, const jd_nvml_gpu *g)
{
        json_builder_set_member_name(b, "processes");
        json_builder_begin_array(b);
        for (size_t i = 0; i < g->n_processes; i++) {
                const jd_nvml_process *p = &g->processes[i];
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "pid");
                json_builder_add_int_value(b, p->pid);
                json_builder_set_member_name(b, "type");
                json_builder_add_string_value(b, p->compute && p->graphics ? "both" : p->graphics ? "graphics" : "compute");
                opt(b, "used_memory", p->mem_kib, 1, 1024);
                opt(b, "sm", p->sm, 1, 1);
                json_builder_end_object(b);
        }
        json_builder_end_array(b);
}

static void add_gpu(JsonBuilder *b, const jd_nvml_gpu *g, bool redact)
{
        char uuid[96];
        if (redact)
                snprintf(uuid, sizeof(uuid), "GPU-00000000-0000-0000-0000-%012u", g->index);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "name");
        json_builder_add_string_value(b, g->name);
        json_builder_set_member_name(b, "uuid");
        json_builder_add_string_value(b, redact ? uuid : g->uuid);
        json_builder_set_member_name(b, "pci_bus_id");
        json_builder_add_string_value(b, g->pci_bus_id);
        if (g->lost) {
                json_builder_set_member_name(b, "lost");
                json_builder_add_boolean_value(b, TRUE);
                json_builder_end_object(b);
                return;
        }
        pair(b, "utilization", (const char *const[3]) { "gpu", "memory", NULL },
             (const jd_opt_u64 *[3]) { &g->load, &g->mem_load, NULL }, 1, 1);
        if (g->mem_total_kib.present && g->mem_used_kib.present) {
                unsigned long long reserved = g->mem_reserved_kib.present ? g->mem_reserved_kib.value : 0;
                json_builder_set_member_name(b, "memory");
                json_builder_begin_object(b);
                opt(b, "total", g->mem_total_kib, 1, 1024);
                opt(b, "used", g->mem_used_kib, 1, 1024);
                json_builder_set_member_name(b, "free");
                json_builder_add_int_value(b, (gint64) ((g->mem_total_kib.value - g->mem_used_kib.value - reserved) * 1024));
                opt(b, "reserved", g->mem_reserved_kib, 1, 1024);
                json_builder_end_object(b);
        }
        opt(b, "temperature", g->temp_c, 1, 1);
        opt(b, "power_mw", g->power_mw, 1, 1);
        opt(b, "energy_mj", g->energy_mj, 1, 1);
        opt(b, "power_limit_mw", g->power_limit_mw, 1, 1);
        static const char *const clocks[3] = { "graphics", "sm", "mem" };
        pair(b, "clocks_mhz", clocks, (const jd_opt_u64 *[3]) { &g->freq_khz, &g->sm_freq_khz, &g->mem_freq_khz }, 1000, 1);
        pair(b, "max_clocks_mhz", clocks,
             (const jd_opt_u64 *[3]) { &g->max_freq_khz, &g->max_sm_freq_khz, &g->max_mem_freq_khz }, 1000, 1);
        opt(b, "fan", g->fan, 1, 1);
        opt(b, "encoder", g->encoder_load, 1, 1);
        opt(b, "decoder", g->decoder_load, 1, 1);
        opt(b, "pstate", g->pstate, 1, 1);
        opt(b, "throttle", g->throttle, 1, 1);
        pair(b, "pcie_kbps", (const char *const[3]) { "tx", "rx", NULL },
             (const jd_opt_u64 *[3]) { &g->pcie_tx, &g->pcie_rx, NULL }, 1024, 1);
        add_processes(b, g);
        json_builder_end_object(b);
}

char *jc_nvml_json(const jd_nvml_gpu *gpus, unsigned n, bool redact)
{
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "devices");
        json_builder_begin_array(b);
        for (unsigned i = 0; i < n; i++)
                add_gpu(b, &gpus[i], redact);
        json_builder_end_array(b);
        json_builder_end_object(b);
        g_autoptr(JsonNode) root = json_builder_get_root(b);
        return jt_to_text(root, TRUE);
}
