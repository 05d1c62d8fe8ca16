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
                opt(b, "mem_util", p->mem_util, 1, 1);
                opt(b, "enc", p->enc, 1, 1);
                opt(b, "dec", p->dec, 1, 1);
                opt(b, "gpu_instance", p->gpu_instance, 1, 1);
                json_builder_end_object(b);
        }
        json_builder_end_array(b);
}

/* NVLink's counters as the fake answers them: one object per link. One
 * read gives no rate, so a replay's counters stand still (rates 0); where
 * the driver had no all-links scope, neither has the replay. */
static void add_nvlink(JsonBuilder *b, const jd_nvlink_counters *c)
{
        if (!c->links)
                return;
        json_builder_set_member_name(b, "nvlink");
        json_builder_begin_array(b);
        for (unsigned l = 0; l < c->links && l < JD_MAX_NVLINKS; l++) {
                json_builder_begin_object(b);
                opt(b, "rx_kib", c->link_rx_kib[l], 1, 1);
                opt(b, "tx_kib", c->link_tx_kib[l], 1, 1);
                json_builder_end_object(b);
        }
        json_builder_end_array(b);
        if (!c->rx_kib.present && !c->tx_kib.present) {
                json_builder_set_member_name(b, "nvlink_all_links");
                json_builder_add_boolean_value(b, FALSE);
        }
}

/* The MIG devices of a GPU with MIG on, in the fake's "mig" object; the
 * slots it asks for run to the highest one read. */
static void add_mig(JsonBuilder *b, const jd_nvml_gpu *g, bool redact)
{
        if (!g->mig)
                return;
        unsigned slots = 0;
        for (unsigned i = 0; i < g->n_migs; i++)
                slots = MAX(slots, g->migs[i].slot + 1);
        json_builder_set_member_name(b, "mig");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "mode");
        json_builder_add_int_value(b, 1);
        json_builder_set_member_name(b, "max_devices");
        json_builder_add_int_value(b, slots);
        json_builder_set_member_name(b, "devices");
        json_builder_begin_array(b);
        for (unsigned i = 0; i < g->n_migs; i++) {
                const jd_nvml_mig *m = &g->migs[i];
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "slot");
                json_builder_add_int_value(b, m->slot);
                if (m->uuid[0]) {
                        char uuid[96];
                        snprintf(uuid, sizeof(uuid), "MIG-00000000-0000-0000-0000-%06u%06u", g->index, m->slot);
                        json_builder_set_member_name(b, "uuid");
                        json_builder_add_string_value(b, redact ? uuid : m->uuid);
                }
                opt(b, "gpu_instance", m->gpu_instance, 1, 1);
                opt(b, "compute_instance", m->compute_instance, 1, 1);
                if (m->mem_total_kib.present && m->mem_used_kib.present) {
                        json_builder_set_member_name(b, "memory");
                        json_builder_begin_object(b);
                        opt(b, "total", m->mem_total_kib, 1, 1024);
                        opt(b, "used", m->mem_used_kib, 1, 1024);
                        json_builder_set_member_name(b, "free");
                        json_builder_add_int_value(b, (gint64) ((m->mem_total_kib.value - m->mem_used_kib.value) * 1024));
                        json_builder_end_object(b);
                }
                /* NVML answers both utilizations or neither; jetsond keeps
                 * no MIG device's memory utilization, so the replay's is 0 */
                if (m->load.present) {
                        json_builder_set_member_name(b, "utilization");
                        json_builder_begin_object(b);
                        opt(b, "gpu", m->load, 1, 1);
                        json_builder_set_member_name(b, "memory");
                        json_builder_add_int_value(b, 0);
                        json_builder_end_object(b);
                }
                json_builder_end_object(b);
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
}

/* The health and GPM values, in the fake's fields. XIDs seen before are
 * history, not the GPU: an empty "xids" says only that its events can be
 * registered. GPM's activities where the reading has them (they need two
 * reads: a first one has none). */
static void add_health(JsonBuilder *b, const jd_nvml_gpu *g)
{
        opt(b, "memory_temperature", g->mem_temp_c, 1, 1);
        opt(b, "pcie_replays", g->pcie_replays, 1, 1);
        if (g->xid.present) {
                json_builder_set_member_name(b, "xids");
                json_builder_begin_array(b);
                json_builder_end_array(b);
        }
        const char *names[] = { "tensor", "graphics", "dram" };
        const jd_opt_dbl *vals[] = { &g->tensor_active, &g->graphics_active, &g->dram_active };
        if (!vals[0]->present && !vals[1]->present && !vals[2]->present)
                return;
        json_builder_set_member_name(b, "gpm");
        json_builder_begin_object(b);
        for (int i = 0; i < 3; i++)
                if (vals[i]->present) {
                        json_builder_set_member_name(b, names[i]);
                        json_builder_add_double_value(b, vals[i]->value);
                }
        json_builder_end_object(b);
}

/* The facts and modes (nvml_facts.c), as the fake answers them. */
static void add_facts(JsonBuilder *b, const jd_nvml_gpu *g)
{
        pair(b, "compute_capability", (const char *const[3]) { "major", "minor", NULL },
             (const jd_opt_u64 *[3]) { &g->cc_major, &g->cc_minor, NULL }, 1, 1);
        if (g->bar1_total_kib.present && g->bar1_used_kib.present)
                pair(b, "bar1", (const char *const[3]) { "total", "used", NULL },
                     (const jd_opt_u64 *[3]) { &g->bar1_total_kib, &g->bar1_used_kib, NULL }, 1, 1024);
        if (g->ecc.present && g->ecc_pending.present)
                pair(b, "ecc_mode", (const char *const[3]) { "current", "pending", NULL },
                     (const jd_opt_u64 *[3]) { &g->ecc, &g->ecc_pending, NULL }, 1, 1);
        opt(b, "persistence_mode", g->persistence, 1, 1);
        opt(b, "compute_mode", g->compute_mode, 1, 1);
        opt(b, "display_mode", g->display_mode, 1, 1);
        opt(b, "display_active", g->display_active, 1, 1);
        const jd_opt_u64 *ecc[] = { &g->ecc_volatile_corrected, &g->ecc_volatile_uncorrected,
                                    &g->ecc_aggregate_corrected, &g->ecc_aggregate_uncorrected };
        static const char *const names[] = { "volatile_corrected", "volatile_uncorrected", "aggregate_corrected",
                                             "aggregate_uncorrected" };
        if (!ecc[0]->present)
                return;
        json_builder_set_member_name(b, "ecc_errors");
        json_builder_begin_object(b);
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
                opt(b, names[i], *ecc[i], 1, 1);
        json_builder_end_object(b);
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
        /* The three clocks and the video one (the fake's clocks_mhz.video). */
        const jd_opt_u64 *now[] = { &g->freq_khz, &g->sm_freq_khz, &g->mem_freq_khz, &g->video_freq_khz };
        static const char *const now_names[] = { "graphics", "sm", "mem", "video" };
        bool any = false;
        for (size_t i = 0; i < G_N_ELEMENTS(now); i++)
                any = any || now[i]->present;
        if (any) {
                json_builder_set_member_name(b, "clocks_mhz");
                json_builder_begin_object(b);
                for (size_t i = 0; i < G_N_ELEMENTS(now); i++)
                        opt(b, now_names[i], *now[i], 1000, 1);
                json_builder_end_object(b);
        }
        pair(b, "max_clocks_mhz", clocks,
             (const jd_opt_u64 *[3]) { &g->max_freq_khz, &g->max_sm_freq_khz, &g->max_mem_freq_khz }, 1000, 1);
        opt(b, "fan", g->fan, 1, 1);
        opt(b, "encoder", g->encoder_load, 1, 1);
        opt(b, "decoder", g->decoder_load, 1, 1);
        opt(b, "pstate", g->pstate, 1, 1);
        opt(b, "throttle", g->throttle, 1, 1);
        pair(b, "pcie_kbps", (const char *const[3]) { "tx", "rx", NULL },
             (const jd_opt_u64 *[3]) { &g->pcie_tx, &g->pcie_rx, NULL }, 1024, 1);
        add_health(b, g);
        add_facts(b, g);
        add_nvlink(b, &g->nvlink);
        add_mig(b, g, redact);
        add_processes(b, g);
        json_builder_end_object(b);
}

char *jc_nvml_json(const jd_nvml_gpu *gpus, unsigned n, const char *cuda, bool redact)
{
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_object(b);
        /* NVML's number back from "12.8": 12080. */
        unsigned major, minor;
        if (cuda && sscanf(cuda, "%u.%u", &major, &minor) == 2) {
                json_builder_set_member_name(b, "cuda_driver_version");
                json_builder_add_int_value(b, (gint64) major * 1000 + minor * 10);
        }
        json_builder_set_member_name(b, "devices");
        json_builder_begin_array(b);
        for (unsigned i = 0; i < n; i++)
                add_gpu(b, &gpus[i], redact);
        json_builder_end_array(b);
        json_builder_end_object(b);
        g_autoptr(JsonNode) root = json_builder_get_root(b);
        return jt_to_text(root, TRUE);
}
