/* dcgm-exporter's series from jetsond's sample. A discrete GPU's fields come
 * from NVML's readings of the same meaning (dgpu.N.*); the SoC GPU of a
 * Jetson has no DCGM, so each of its fields comes from the nearest true
 * source, and where that source is not the GPU's alone (a rail shared with
 * the CPU, the SoC's memory controller) the series says which key it is in
 * a jetsond_source label. A field with no true source is left out: a
 * dashboard shows "no data" rather than a made-up zero. */
#include "dcgm.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text_out.h"

typedef enum {
        F_SM_CLOCK,
        F_MEM_CLOCK,
        F_MEMORY_TEMP,
        F_GPU_TEMP,
        F_POWER_USAGE,
        F_TOTAL_ENERGY,
        F_PCIE_REPLAY,
        F_GPU_UTIL,
        F_MEM_COPY_UTIL,
        F_ENC_UTIL,
        F_DEC_UTIL,
        F_XID_ERRORS,
        F_FB_FREE,
        F_FB_USED,
        F_FB_RESERVED,
        F_FB_TOTAL,
        F_NVLINK_BANDWIDTH,
        F_GR_ENGINE_ACTIVE,
        F_TENSOR_ACTIVE,
        F_DRAM_ACTIVE,
        F_PCIE_TX_BYTES,
        F_PCIE_RX_BYTES,
        F_VIDEO_CLOCK,
        F_BAR1_USED,
        F_BAR1_TOTAL,
        F_PERSISTENCE_MODE,
        F_ECC_SBE_VOL_TOTAL,
        F_ECC_DBE_VOL_TOTAL,
        F_ECC_SBE_AGG_TOTAL,
        F_ECC_DBE_AGG_TOTAL,
        N_FIELDS
} field_id;

/* How a jetsond value becomes the field's unit. */
typedef enum {
        AS_IS,        /* same unit */
        KHZ_TO_MHZ,   /* kHz -> MHz, whole */
        MW_TO_W,      /* mW -> W, exact decimal */
        KIB_TO_MIB,   /* KiB -> MiB, whole */
        PCT_TO_RATIO, /* % -> 0-1 */
} conversion;

typedef struct {
        const char *name, *type, *help;
        /* The discrete GPU's source: dgpu.N.<dgpu_key>; NULL for none. */
        const char *dgpu_key;
        conversion conv;
        /* What --list-metrics says of the Jetson GPU's source. */
        const char *jetson_source;
} field;

/* dcgm-exporter's names, types and help (etc/default-counters.csv), and
 * DCGM_FI_DEV_FB_TOTAL, which it serves when asked. */
static const field fields[N_FIELDS] = {
        [F_SM_CLOCK] = { "DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", "sm_freq", KHZ_TO_MHZ,
                         "gpu.freq" },
        [F_MEM_CLOCK] = { "DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", "mem_freq",
                          KHZ_TO_MHZ, "emc.freq (the SoC's memory controller)" },
        [F_MEMORY_TEMP] = { "DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", "mem_temp", AS_IS,
                            NULL },
        [F_GPU_TEMP] = { "DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", "temp", AS_IS,
                         "gpu.temp (NVML, Thor), else temp.gpu (the GPU zone), else temp.tj (junction: GPU zone "
                         "offline)" },
        [F_POWER_USAGE] = { "DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", "power", MW_TO_W,
                            "power.RAIL.power of the GPU's rail, or the rail that includes it" },
        [F_TOTAL_ENERGY] = { "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
                             "Total energy consumption since boot (in mJ).", "energy", AS_IS,
                             "energy.RAIL of the same rail (since jetsond started)" },
        [F_PCIE_REPLAY] = { "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.",
                            "pcie_replay", AS_IS, NULL },
        [F_GPU_UTIL] = { "DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", "load", AS_IS, "gpu.load" },
        [F_MEM_COPY_UTIL] = { "DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", "mem_load", AS_IS,
                              "emc.load (the SoC's memory controller, shared with the CPU)" },
        [F_ENC_UTIL] = { "DCGM_FI_DEV_ENC_UTIL", "gauge", "Encoder utilization (in %).", "encoder_load", AS_IS,
                         "gpu.encoder_load (NVML, Thor)" },
        [F_DEC_UTIL] = { "DCGM_FI_DEV_DEC_UTIL", "gauge", "Decoder utilization (in %).", "decoder_load", AS_IS,
                         "gpu.decoder_load (NVML, Thor)" },
        [F_XID_ERRORS] = { "DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", "xid",
                           AS_IS, NULL },
        [F_FB_FREE] = { "DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", NULL, KIB_TO_MIB,
                        "ram.available (shared system memory)" },
        [F_FB_USED] = { "DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", "mem_used", KIB_TO_MIB,
                        "ram.shared (NvMap), else the sum of process.PID.gpu_mem (Thor)" },
        [F_FB_RESERVED] = { "DCGM_FI_DEV_FB_RESERVED", "gauge", "Framebuffer memory reserved (in MiB).",
                            "mem_reserved", KIB_TO_MIB, NULL },
        [F_FB_TOTAL] = { "DCGM_FI_DEV_FB_TOTAL", "gauge", "Framebuffer memory total (in MiB).", "mem_total",
                         KIB_TO_MIB, "ram.total (shared system memory)" },
        [F_NVLINK_BANDWIDTH] = { "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "counter",
                                 "Total number of NVLink bandwidth counters for all lanes.", NULL, AS_IS, NULL },
        [F_GR_ENGINE_ACTIVE] = { "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "gauge",
                                 "Ratio of time the graphics engine is active.", "gr_active", PCT_TO_RATIO, NULL },
        [F_TENSOR_ACTIVE] = { "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "gauge",
                              "Ratio of cycles the tensor (HMMA) pipe is active.", "tensor_active", PCT_TO_RATIO,
                              NULL },
        [F_DRAM_ACTIVE] = { "DCGM_FI_PROF_DRAM_ACTIVE", "gauge",
                            "Ratio of cycles the device memory interface is active sending or receiving data.",
                            "dram_active", PCT_TO_RATIO, NULL },
        [F_PCIE_TX_BYTES] = { "DCGM_FI_PROF_PCIE_TX_BYTES", "gauge",
                              "The rate of data transmitted over the PCIe bus - including both protocol headers "
                              "and data payloads - in bytes per second.",
                              "pcie_tx", AS_IS, NULL },
        [F_PCIE_RX_BYTES] = { "DCGM_FI_PROF_PCIE_RX_BYTES", "gauge",
                              "The rate of data received over the PCIe bus - including both protocol headers and "
                              "data payloads - in bytes per second.",
                              "pcie_rx", AS_IS, NULL },
        [F_VIDEO_CLOCK] = { "DCGM_FI_DEV_VIDEO_CLOCK", "gauge", "Video encoder/decoder clock frequency (in MHz).",
                            "video_freq", KHZ_TO_MHZ, NULL },
        [F_BAR1_USED] = { "DCGM_FI_DEV_BAR1_USED", "gauge", "Used BAR1 (in MiB).", "bar1_used", KIB_TO_MIB, NULL },
        /* From the GPU's DiscreteGpu properties (read_dgpu_props). */
        [F_BAR1_TOTAL] = { "DCGM_FI_DEV_BAR1_TOTAL", "gauge", "Total BAR1 (in MiB).", NULL, AS_IS, NULL },
        [F_PERSISTENCE_MODE] = { "DCGM_FI_DEV_PERSISTENCE_MODE", "gauge", "Persistence mode (1 or 0).", NULL, AS_IS,
                                 NULL },
        [F_ECC_SBE_VOL_TOTAL] = { "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter",
                                  "Total number of single-bit volatile ECC errors.", "ecc_volatile_corrected", AS_IS,
                                  NULL },
        [F_ECC_DBE_VOL_TOTAL] = { "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter",
                                  "Total number of double-bit volatile ECC errors.", "ecc_volatile_uncorrected",
                                  AS_IS, NULL },
        [F_ECC_SBE_AGG_TOTAL] = { "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "counter",
                                  "Total number of single-bit persistent ECC errors.", "ecc_aggregate_corrected",
                                  AS_IS, NULL },
        [F_ECC_DBE_AGG_TOTAL] = { "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "counter",
                                  "Total number of double-bit persistent ECC errors.", "ecc_aggregate_uncorrected",
                                  AS_IS, NULL },
};

/* One value of one GPU: its number, and the key it came from where that
 * is only the nearest source (NULL when it is the field's own). */
typedef struct {
        bool present;
        double value;
        char *nearest;
} reading;

typedef struct {
        GString *labels; /* {gpu="0",...} without the closing brace */
        reading r[N_FIELDS];
} gpu_series;

static const exp_value *lookup(GHashTable *keys, const char *key)
{
        return g_hash_table_lookup(keys, key);
}

static bool number_of(const exp_value *v, double *out)
{
        if (!v)
                return false;
        switch (v->type) {
        case EXP_UINT:
                *out = (double)v->v.u;
                return true;
        case EXP_DOUBLE:
                *out = v->v.d;
                return !isnan(v->v.d);
        case EXP_BOOL:
        case EXP_STRING:
                return false;
        }
        return false;
}

static bool number_at(GHashTable *keys, const char *key, double *out)
{
        return number_of(lookup(keys, key), out);
}

static void set(reading *r, double value, const char *nearest)
{
        r->present = true;
        r->value = value;
        g_free(r->nearest);
        r->nearest = g_strdup(nearest);
}

static double convert(conversion c, double v)
{
        switch (c) {
        case KHZ_TO_MHZ:
                return round(v / 1000.0);
        case MW_TO_W:
                return v / 1000.0;
        case KIB_TO_MIB:
                return floor(v / 1024.0);
        case PCT_TO_RATIO:
                return v / 100.0;
        case AS_IS:
                break;
        }
        return v;
}

static void add_label(GString *labels, const char *name, const char *value)
{
        if (!value || !*value)
                return; /* a label jetsond does not know is left out, never "" */
        bool first = labels->len == 0;
        tout_label(labels, &first, name, value, strlen(value));
}

/* ---- discrete GPUs (NVML) ---- */

static void read_dgpu(GHashTable *keys, unsigned n, gpu_series *g)
{
        for (int f = 0; f < N_FIELDS; f++) {
                if (!fields[f].dgpu_key)
                        continue;
                g_autofree char *key = g_strdup_printf("dgpu.%u.%s", n, fields[f].dgpu_key);
                double v;
                if (number_at(keys, key, &v))
                        set(&g->r[f], convert(fields[f].conv, v), NULL);
        }
        /* Free is what is neither used nor reserved (nvidia-smi's Free). */
        g_autofree char *total_key = g_strdup_printf("dgpu.%u.mem_total", n);
        g_autofree char *used_key = g_strdup_printf("dgpu.%u.mem_used", n);
        g_autofree char *reserved_key = g_strdup_printf("dgpu.%u.mem_reserved", n);
        double total, used, reserved = 0;
        if (number_at(keys, total_key, &total) && number_at(keys, used_key, &used)) {
                number_at(keys, reserved_key, &reserved);
                double free_kib = total - used - reserved;
                set(&g->r[F_FB_FREE], convert(KIB_TO_MIB, free_kib > 0 ? free_kib : 0), NULL);
        }
        g_autofree char *rx_key = g_strdup_printf("dgpu.%u.nvlink_rx_total", n);
        g_autofree char *tx_key = g_strdup_printf("dgpu.%u.nvlink_tx_total", n);
        double rx, tx;
        if (number_at(keys, rx_key, &rx) && number_at(keys, tx_key, &tx))
                set(&g->r[F_NVLINK_BANDWIDTH], rx + tx, NULL);
}

/* The fields from the GPU's DiscreteGpu properties, where known. */
static void read_dgpu_props(unsigned n, const exp_board *board, gpu_series *g)
{
        const exp_gpu_identity *id = exp_board_dgpu(board, n);
        if (!id)
                return;
        if (id->bar1_total)
                set(&g->r[F_BAR1_TOTAL], floor((double)id->bar1_total / 1048576.0), NULL);
        if (strcmp(id->persistence_mode, "enabled") == 0 || strcmp(id->persistence_mode, "disabled") == 0)
                set(&g->r[F_PERSISTENCE_MODE], strcmp(id->persistence_mode, "enabled") == 0, NULL);
}

static void dgpu_labels(GString *labels, unsigned n, const exp_board *board)
{
        g_autofree char *gpu = g_strdup_printf("%u", n);
        add_label(labels, "gpu", gpu);
        const exp_gpu_identity *id = exp_board_dgpu(board, n);
        add_label(labels, "UUID", id ? id->uuid : NULL);
        add_label(labels, "pci_bus_id", id ? id->pci_bus_id : NULL);
        g_autofree char *device = id && id->minor >= 0 ? g_strdup_printf("nvidia%d", id->minor) : NULL;
        add_label(labels, "device", device);
        add_label(labels, "modelName", id ? id->name : NULL);
        add_label(labels, "Hostname", board ? board->hostname : NULL);
        add_label(labels, "DCGM_FI_DRIVER_VERSION", id ? id->driver_version : NULL);
}

/* ---- the SoC GPU of a Jetson ---- */

/* The rail whose power is the GPU's, best first: the GPU's own rail on
 * the boards that have one, then the rail that includes it. */
static const char *const gpu_rails[] = {
        "VDD_GPU",        /* Thor, TX2 */
        "POM_5V_GPU",     /* Nano */
        "GPU",            /* AGX Xavier */
        "VDD_SYS_GPU",    /* TX2 NX */
        "VDD_GPU_SOC",    /* AGX Orin: GPU and SoC */
        "VDD_CPU_GPU_CV", /* Orin NX and Nano, Xavier NX: CPU, GPU and CV */
};

static void read_igpu_power(GHashTable *keys, gpu_series *g)
{
        for (size_t i = 0; i < G_N_ELEMENTS(gpu_rails); i++) {
                g_autofree char *power_key = g_strdup_printf("power.%s.power", gpu_rails[i]);
                double mw;
                if (!number_at(keys, power_key, &mw))
                        continue;
                /* The GPU's own rail is the field's exact source; a shared
                 * one is said in the label. */
                bool own = i < 4;
                set(&g->r[F_POWER_USAGE], convert(MW_TO_W, mw), own ? NULL : power_key);
                g_autofree char *energy_key = g_strdup_printf("energy.%s", gpu_rails[i]);
                double mj;
                if (number_at(keys, energy_key, &mj))
                        set(&g->r[F_TOTAL_ENERGY], mj, own ? NULL : energy_key);
                return;
        }
}

/* Thor has no NvMap total: the GPU memory of its processes, as NVML gives
 * it (jtop's figure there). */
static bool sum_process_gpu_memory(GHashTable *keys, double *kib)
{
        GHashTableIter it;
        gpointer k, v;
        bool any = false;
        *kib = 0;
        g_hash_table_iter_init(&it, keys);
        while (g_hash_table_iter_next(&it, &k, &v)) {
                const char *key = k;
                if (!g_str_has_prefix(key, "process.") || !g_str_has_suffix(key, ".gpu_mem"))
                        continue;
                /* process.PID.gpu_mem: exactly three segments. */
                const char *pid = key + strlen("process.");
                if (strchr(pid, '.') != strrchr(key, '.'))
                        continue;
                double one;
                if (number_of(v, &one)) {
                        *kib += one;
                        any = true;
                }
        }
        return any;
}

static void read_igpu(GHashTable *keys, gpu_series *g)
{
        double v;
        if (number_at(keys, "gpu.freq", &v))
                set(&g->r[F_SM_CLOCK], convert(KHZ_TO_MHZ, v), NULL);
        if (number_at(keys, "emc.freq", &v))
                set(&g->r[F_MEM_CLOCK], convert(KHZ_TO_MHZ, v), "emc.freq");
        if (number_at(keys, "gpu.temp", &v))
                set(&g->r[F_GPU_TEMP], v, NULL);
        else if (number_at(keys, "temp.gpu", &v))
                set(&g->r[F_GPU_TEMP], v, NULL);
        else if (number_at(keys, "temp.tj", &v))
                set(&g->r[F_GPU_TEMP], v, "temp.tj");
        read_igpu_power(keys, g);
        if (number_at(keys, "gpu.load", &v))
                set(&g->r[F_GPU_UTIL], v, NULL);
        if (number_at(keys, "emc.load", &v))
                set(&g->r[F_MEM_COPY_UTIL], v, "emc.load");
        if (number_at(keys, "gpu.encoder_load", &v))
                set(&g->r[F_ENC_UTIL], v, NULL);
        if (number_at(keys, "gpu.decoder_load", &v))
                set(&g->r[F_DEC_UTIL], v, NULL);
        /* Shared system memory, said so: the GPU has no memory of its own. */
        if (number_at(keys, "ram.shared", &v))
                set(&g->r[F_FB_USED], convert(KIB_TO_MIB, v), "ram.shared");
        else if (sum_process_gpu_memory(keys, &v))
                set(&g->r[F_FB_USED], convert(KIB_TO_MIB, v), "process.*.gpu_mem");
        if (number_at(keys, "ram.available", &v))
                set(&g->r[F_FB_FREE], convert(KIB_TO_MIB, v), "ram.available");
        if (number_at(keys, "ram.total", &v))
                set(&g->r[F_FB_TOTAL], convert(KIB_TO_MIB, v), "ram.total");
}

/* Thor's GPU is a PCI device ("0000:01:00.0"); NVML and DCGM write the
 * domain with 8 digits. Older Jetsons' GPU is a platform device: none. */
static char *pci_bus_id_of(const char *device)
{
        unsigned domain, bus, dev, fn;
        char end;
        if (!device || sscanf(device, "%4x:%2x:%2x.%1x%c", &domain, &bus, &dev, &fn, &end) != 4)
                return NULL;
        return g_strdup_printf("%08X:%02X:%02X.%X", domain, bus, dev, fn);
}

static void igpu_labels(GString *labels, const char *gpu, const exp_board *board)
{
        add_label(labels, "gpu", gpu);
        add_label(labels, "UUID", board ? board->igpu_uuid : NULL);
        g_autofree char *pci = pci_bus_id_of(board ? board->igpu_name : NULL);
        add_label(labels, "pci_bus_id", pci);
        add_label(labels, "device", board ? board->igpu_name : NULL);
        const char *model = board && board->module && *board->module ? board->module : board ? board->model : NULL;
        add_label(labels, "modelName", model);
        add_label(labels, "Hostname", board ? board->hostname : NULL);
        add_label(labels, "DCGM_FI_DRIVER_VERSION", board ? board->igpu_driver : NULL);
}

/* ---- the page ---- */

static void append_value(GString *out, const field *f, double v)
{
        if (f->conv == MW_TO_W || f->conv == PCT_TO_RATIO || v != floor(v) || fabs(v) >= 1e15)
                tout_double(out, v);
        else
                g_string_append_printf(out, "%.0f", v);
}

static int compare_uint(gconstpointer a, gconstpointer b)
{
        unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
        return x < y ? -1 : x > y;
}

/* The N of every dgpu.N.* key, in order. */
static GArray *dgpu_indices(const exp_sample *sample)
{
        GArray *out = g_array_new(FALSE, FALSE, sizeof(unsigned));
        for (guint i = 0; i < sample->values->len; i++) {
                const char *key = g_array_index(sample->values, exp_value, i).key;
                if (!g_str_has_prefix(key, "dgpu."))
                        continue;
                char *end;
                unsigned long n = strtoul(key + 5, &end, 10);
                if (end == key + 5 || *end != '.' || n > 1023)
                        continue;
                bool seen = false;
                for (guint j = 0; j < out->len && !seen; j++)
                        seen = g_array_index(out, unsigned, j) == n;
                if (!seen) {
                        unsigned u = (unsigned)n;
                        g_array_append_val(out, u);
                }
        }
        g_array_sort(out, compare_uint);
        return out;
}

static void series_clear(gpointer p)
{
        gpu_series *g = p;
        g_string_free(g->labels, TRUE);
        for (int f = 0; f < N_FIELDS; f++)
                g_free(g->r[f].nearest);
}

GString *dcgm_render(const exp_sample *sample, const exp_board *board)
{
        GString *out = g_string_sized_new(8192);
        if (!sample)
                return out;
        g_autoptr(GHashTable) keys = g_hash_table_new(g_str_hash, g_str_equal);
        for (guint i = 0; i < sample->values->len; i++) {
                exp_value *v = &g_array_index(sample->values, exp_value, i);
                g_hash_table_insert(keys, v->key, v);
        }
        g_autoptr(GArray) gpus = g_array_new(FALSE, TRUE, sizeof(gpu_series));
        g_array_set_clear_func(gpus, series_clear);
        g_autoptr(GArray) indices = dgpu_indices(sample);
        for (guint i = 0; i < indices->len; i++) {
                gpu_series g = { .labels = g_string_new(NULL) };
                unsigned n = g_array_index(indices, unsigned, i);
                dgpu_labels(g.labels, n, board);
                read_dgpu(keys, n, &g);
                read_dgpu_props(n, board, &g);
                g_array_append_val(gpus, g);
        }
        /* The SoC GPU is CUDA's and NVML's GPU 0 on a Jetson; should NVML
         * also list discrete GPUs there, it is told apart as "igpu". */
        if (lookup(keys, "gpu.load") || lookup(keys, "gpu.freq")) {
                gpu_series g = { .labels = g_string_new(NULL) };
                igpu_labels(g.labels, indices->len ? "igpu" : "0", board);
                read_igpu(keys, &g);
                g_array_append_val(gpus, g);
        }
        for (int f = 0; f < N_FIELDS; f++) {
                bool header = false;
                for (guint i = 0; i < gpus->len; i++) {
                        const gpu_series *g = &g_array_index(gpus, gpu_series, i);
                        const reading *r = &g->r[f];
                        if (!r->present)
                                continue;
                        if (!header) {
                                g_string_append_printf(out, "# HELP %s ", fields[f].name);
                                tout_help_text(out, fields[f].help, EXP_FORMAT_PROMETHEUS);
                                g_string_append_printf(out, "\n# TYPE %s %s\n", fields[f].name, fields[f].type);
                                header = true;
                        }
                        g_string_append(out, fields[f].name);
                        g_string_append_len(out, g->labels->str, (gssize)g->labels->len);
                        bool first = g->labels->len == 0;
                        if (r->nearest)
                                tout_label(out, &first, "jetsond_source", r->nearest, strlen(r->nearest));
                        g_string_append(out, first ? " " : "} ");
                        append_value(out, &fields[f], r->value);
                        g_string_append_c(out, '\n');
                }
        }
        return out;
}

GString *dcgm_list_fields(void)
{
        GString *out = g_string_new(NULL);
        for (int f = 0; f < N_FIELDS; f++) {
                const field *d = &fields[f];
                g_autofree char *dgpu = NULL;
                if (f == F_FB_FREE)
                        dgpu = g_strdup("dgpu.N.mem_total - mem_used - mem_reserved");
                else if (f == F_NVLINK_BANDWIDTH)
                        dgpu = g_strdup("dgpu.N.nvlink_rx_total + nvlink_tx_total (bytes)");
                else if (f == F_BAR1_TOTAL)
                        dgpu = g_strdup("DiscreteGpu.Bar1Total");
                else if (f == F_PERSISTENCE_MODE)
                        dgpu = g_strdup("DiscreteGpu.PersistenceMode");
                else if (d->dgpu_key)
                        dgpu = g_strdup_printf("dgpu.N.%s", d->dgpu_key);
                g_string_append_printf(out, "%s\t%s\t%s\t%s\t%s\n", d->name, d->type, dgpu ? dgpu : "-",
                                       d->jetson_source ? d->jetson_source : "-", d->help);
        }
        return out;
}
