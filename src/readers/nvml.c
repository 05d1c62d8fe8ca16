#include "nvml.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "nvml_private.h"

/* The first of the NULL-terminated symbol NAMEs the library has: the
 * newest versioned entry point first, older drivers' after it. */
static void *symbol(void *lib, const char *name, ...)
{
        va_list ap;
        va_start(ap, name);
        void *f = NULL;
        for (const char *n = name; n && !f; n = va_arg(ap, const char *))
                f = dlsym(lib, n);
        va_end(ap);
        return f;
}

static void resolve(jd_nvml *n)
{
        void *l = n->lib;
        n->shutdown = symbol(l, "nvmlShutdown", NULL);
        n->error_string = symbol(l, "nvmlErrorString", NULL);
        n->count = symbol(l, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", NULL);
        n->handle = symbol(l, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", NULL);
        n->name = symbol(l, "nvmlDeviceGetName", NULL);
        n->uuid = symbol(l, "nvmlDeviceGetUUID", NULL);
        n->minor = symbol(l, "nvmlDeviceGetMinorNumber", NULL);
        n->pci = symbol(l, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", NULL);
        n->utilization = symbol(l, "nvmlDeviceGetUtilizationRates", NULL);
        n->memory = symbol(l, "nvmlDeviceGetMemoryInfo", NULL);
        n->memory_v2 = symbol(l, "nvmlDeviceGetMemoryInfo_v2", NULL);
        n->temperature = symbol(l, "nvmlDeviceGetTemperature", NULL);
        n->power = symbol(l, "nvmlDeviceGetPowerUsage", NULL);
        n->power_limit = symbol(l, "nvmlDeviceGetEnforcedPowerLimit", NULL);
        n->fan = symbol(l, "nvmlDeviceGetFanSpeed", NULL);
        n->energy = symbol(l, "nvmlDeviceGetTotalEnergyConsumption", NULL);
        n->throttle = symbol(l, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons",
                             NULL);
        n->pstate = symbol(l, "nvmlDeviceGetPerformanceState", NULL);
        n->clock = symbol(l, "nvmlDeviceGetClockInfo", NULL);
        n->max_clock = symbol(l, "nvmlDeviceGetMaxClockInfo", NULL);
        n->encoder = symbol(l, "nvmlDeviceGetEncoderUtilization", NULL);
        n->decoder = symbol(l, "nvmlDeviceGetDecoderUtilization", NULL);
        n->pcie = symbol(l, "nvmlDeviceGetPcieThroughput", NULL);
        n->compute = symbol(l, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2",
                            NULL);
        n->graphics = symbol(l, "nvmlDeviceGetGraphicsRunningProcesses_v3",
                             "nvmlDeviceGetGraphicsRunningProcesses_v2", NULL);
        n->process_util = symbol(l, "nvmlDeviceGetProcessUtilization", NULL);
        n->field_values = symbol(l, "nvmlDeviceGetFieldValues", NULL);
        n->mig_mode = symbol(l, "nvmlDeviceGetMigMode", NULL);
        n->max_migs = symbol(l, "nvmlDeviceGetMaxMigDeviceCount", NULL);
        n->mig_handle = symbol(l, "nvmlDeviceGetMigDeviceHandleByIndex", NULL);
        n->gpu_instance = symbol(l, "nvmlDeviceGetGpuInstanceId", NULL);
        n->compute_instance = symbol(l, "nvmlDeviceGetComputeInstanceId", NULL);
        n->pcie_replays = symbol(l, "nvmlDeviceGetPcieReplayCounter", NULL);
        n->event_set_create = symbol(l, "nvmlEventSetCreate", NULL);
        n->event_set_free = symbol(l, "nvmlEventSetFree", NULL);
        n->register_events = symbol(l, "nvmlDeviceRegisterEvents", NULL);
        n->event_set_wait = symbol(l, "nvmlEventSetWait_v2", NULL);
        n->gpm_support = symbol(l, "nvmlGpmQueryDeviceSupport", NULL);
        n->gpm_sample_alloc = symbol(l, "nvmlGpmSampleAlloc", NULL);
        n->gpm_sample_free = symbol(l, "nvmlGpmSampleFree", NULL);
        n->gpm_sample_get = symbol(l, "nvmlGpmSampleGet", NULL);
        n->gpm_metrics_get = symbol(l, "nvmlGpmMetricsGet", NULL);
        jd_nvml_resolve_facts(n);
}

jd_nvml *jd_nvml_open(const char *library, char *why, size_t why_len)
{
        jd_nvml_failure failure;
        return jd_nvml_open_why(library, why, why_len, &failure);
}

jd_nvml *jd_nvml_open_why(const char *library, char *why, size_t why_len, jd_nvml_failure *failure)
{
        const char *path = library ? library : "libnvidia-ml.so.1";
        void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        *failure = JD_NVML_NO_LIBRARY;
        if (!lib) {
                snprintf(why, why_len, "no NVIDIA driver library (%s)", dlerror());
                return NULL;
        }
        *failure = JD_NVML_NOT_NVML;
        nvml_init_fn *init = symbol(lib, "nvmlInit_v2", "nvmlInit", NULL);
        jd_nvml *n = calloc(1, sizeof(*n));
        if (!n || !init) {
                snprintf(why, why_len, "%s has no nvmlInit", path);
                free(n);
                dlclose(lib);
                return NULL;
        }
        n->lib = lib;
        resolve(n);
        if (!n->shutdown || !n->count || !n->handle) {
                snprintf(why, why_len, "%s lacks NVML's device calls", path);
                free(n);
                dlclose(lib);
                return NULL;
        }
        nvmlReturn_t r = init();
        *failure = r == NVML_SUCCESS                ? JD_NVML_LOADED
                   : r == NVML_ERROR_NO_PERMISSION  ? JD_NVML_NO_PERMISSION
                   : r == NVML_ERROR_DRIVER_NOT_LOADED ? JD_NVML_NO_DRIVER
                                                    : JD_NVML_INIT_FAILED;
        if (r != NVML_SUCCESS) {
                snprintf(why, why_len, "nvmlInit failed: %s (the NVIDIA driver is not loaded?)",
                         n->error_string ? n->error_string(r) : "unknown error");
                free(n);
                dlclose(lib);
                return NULL;
        }
        for (unsigned i = 0; i < MAX_GPUS; i++) {
                pthread_mutex_init(&n->slow[i].mu, NULL);
                n->slow[i].gpm_last = -1;
        }
        nvml_get_string_fn *version = symbol(lib, "nvmlSystemGetDriverVersion", NULL);
        if (!version || version(n->driver, sizeof(n->driver)) != NVML_SUCCESS)
                n->driver[0] = '\0';
        return n;
}

void jd_nvml_close(jd_nvml *n)
{
        if (!n)
                return;
        jd_nvml_slow_free(n);
        n->shutdown();
        dlclose(n->lib);
        free(n);
}

const char *jd_nvml_driver_version(const jd_nvml *n)
{
        return n->driver;
}

unsigned jd_nvml_count(jd_nvml *n)
{
        unsigned count = 0;
        return n->count(&count) == NVML_SUCCESS ? count : 0;
}

bool jd_nvml_is_integrated(const char *name)
{
        size_t len = strlen(name);
        static const char nvgpu[] = "(nvgpu)";
        size_t tail = sizeof(nvgpu) - 1;
        return strcmp(name, "NVIDIA Thor") == 0 || (len > tail && strcmp(name + len - tail, nvgpu) == 0);
}

static unsigned long long monotonic_us(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (unsigned long long) ts.tv_sec * 1000000ull + (unsigned long long) ts.tv_nsec / 1000u;
}

/* Memory as nvidia-smi shows it: v2's used leaves the driver's
 * reservation out (615 MiB on an idle H200, where v1 says 615 used and
 * nvidia-smi 0). v1 where the driver has no v2 (before R510) or v2 fails;
 * then there is no reserved value. False once the GPU is lost. */
static bool read_memory_of(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned *unsupported, jd_opt_u64 *used,
                           jd_opt_u64 *total, jd_opt_u64 *reserved)
{
        nvmlMemory_v2_t v2 = { .version = nvmlMemory_v2 };
        nvmlReturn_t r = ASK(unsupported, ASK_MEMORY_V2, n->memory_v2, dev, &v2);
        if (r == NVML_SUCCESS)
                return jd_nvml_set_u64(g, r, used, v2.used / 1024) && jd_nvml_set_u64(g, r, total, v2.total / 1024) &&
                       (!reserved || jd_nvml_set_u64(g, r, reserved, v2.reserved / 1024));
        if (r == NVML_ERROR_GPU_IS_LOST) {
                g->lost = true;
                return false;
        }
        nvmlMemory_t v1 = { 0 };
        r = CALL(n->memory, dev, &v1);
        return jd_nvml_set_u64(g, r, used, v1.used / 1024) && jd_nvml_set_u64(g, r, total, v1.total / 1024);
}

/* MIG mode changes only with a GPU reset, and asking it costs 120-160
 * us of CPU on an H200 (its slot count as much), so both are asked again
 * only every JD_NVML_RECHECK_US; false once the GPU is lost. */
static bool mig_mode(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index, unsigned *slots)
{
        if (index < MAX_GPUS && n->remembered[index].mig_known) {
                *slots = n->remembered[index].mig_slots;
                return n->remembered[index].mig_on;
        }
        unsigned current = 0, pending = 0;
        *slots = 0;
        nvmlReturn_t r = CALL(n->mig_mode, dev, &current, &pending);
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        bool on = r == NVML_SUCCESS && current == NVML_DEVICE_MIG_ENABLE;
        if (on && (r = CALL(n->max_migs, dev, slots)) != NVML_SUCCESS) {
                if (r == NVML_ERROR_GPU_IS_LOST)
                        g->lost = true;
                *slots = 0;
        }
        if (index < MAX_GPUS && !g->lost) {
                n->remembered[index].mig_known = true;
                n->remembered[index].mig_on = on;
                n->remembered[index].mig_slots = *slots;
        }
        return on;
}

/* With MIG on, each MIG device: its instances, UUID, memory and (where
 * NVML has it) utilization; false once the GPU is lost. MIG off (or a
 * driver without MIG): nothing, g->mig false. */
static bool read_migs(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index)
{
        unsigned slots = 0;
        if (!mig_mode(n, g, dev, index, &slots))
                return !g->lost;
        g->mig = true;
        for (unsigned slot = 0; slot < slots && g->n_migs < JD_MAX_MIGS; slot++) {
                nvmlDevice_t mig;
                nvmlReturn_t h = CALL(n->mig_handle, dev, slot, &mig);
                if (h == NVML_ERROR_GPU_IS_LOST)
                        g->lost = true;
                if (h != NVML_SUCCESS)
                        continue; /* NOT_FOUND: an empty slot */
                jd_nvml_mig *m = &g->migs[g->n_migs++];
                *m = (jd_nvml_mig) { .slot = slot };
                if (CALL(n->uuid, mig, m->uuid, sizeof(m->uuid)) != NVML_SUCCESS)
                        m->uuid[0] = '\0';
                /* One call at a time: each value is read after its call returns. */
                unsigned gi = 0, ci = 0;
                nvmlReturn_t rg = CALL(n->gpu_instance, mig, &gi);
                if (!jd_nvml_set_u64(g, rg, &m->gpu_instance, gi))
                        return false;
                nvmlReturn_t rc = CALL(n->compute_instance, mig, &ci);
                if (!jd_nvml_set_u64(g, rc, &m->compute_instance, ci) ||
                    !read_memory_of(n, g, mig, NULL, &m->mem_used_kib, &m->mem_total_kib, NULL))
                        return false;
                nvmlUtilization_t util = { 0 };
                nvmlReturn_t ru = CALL(n->utilization, mig, &util);
                if (!jd_nvml_set_u64(g, ru, &m->load, util.gpu))
                        return false;
        }
        return !g->lost;
}

/* The graphics, SM and memory clocks through FN (the current clocks, or
 * the maximum ones), in kHz; false once the GPU is lost. */
static bool read_clocks(nvml_clock_fn *fn, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned *unsupported,
                        jd_opt_u64 *graphics, jd_opt_u64 *sm, jd_opt_u64 *mem)
{
        const int types[] = { NVML_CLOCK_GRAPHICS, NVML_CLOCK_SM, NVML_CLOCK_MEM };
        jd_opt_u64 *out[] = { graphics, sm, mem };
        for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
                unsigned mhz = 0;
                nvmlReturn_t r = ASK(unsupported, ASK_CLOCK << i, fn, dev, types[i], &mhz);
                if (!jd_nvml_set_u64(g, r, out[i], (unsigned long long) mhz * 1000))
                        return false;
        }
        return true;
}

/* The values that never change while the driver runs. */
static void read_constants(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev)
{
        nvmlReturn_t r = CALL(n->name, dev, g->name, sizeof(g->name));
        if (r == NVML_ERROR_GPU_IS_LOST) {
                g->lost = true;
                return;
        }
        if (r != NVML_SUCCESS)
                g->name[0] = '\0';
        g->integrated = jd_nvml_is_integrated(g->name);
        if (CALL(n->uuid, dev, g->uuid, sizeof(g->uuid)) != NVML_SUCCESS)
                g->uuid[0] = '\0';
        nvmlPciInfo_t pci = { 0 };
        if (CALL(n->pci, dev, &pci) == NVML_SUCCESS)
                snprintf(g->pci_bus_id, sizeof(g->pci_bus_id), "%s", pci.busId);
        unsigned minor;
        if (CALL(n->minor, dev, &minor) == NVML_SUCCESS)
                g->minor = (jd_opt_u64){ .present = true, .value = minor };
        read_clocks(n->max_clock, g, dev, NULL, &g->max_freq_khz, &g->max_sm_freq_khz, &g->max_mem_freq_khz);
        if (!g->lost)
                jd_nvml_read_constant_facts(n, g, dev);
}

/* The values of every sample, 1-8 us each on a real driver; stops at the
 * first sign that the GPU is lost. */
static void read_cheap(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index)
{
        unsigned scratch = 0, *no = index < MAX_GPUS ? &n->remembered[index].unsupported : &scratch;
        if (index < MAX_GPUS) {
                unsigned long long now = monotonic_us();
                if (now - n->remembered[index].since_us >= JD_NVML_RECHECK_US) {
                        /* Ask them all again. */
                        memset(&n->remembered[index], 0, sizeof(n->remembered[index]));
                        n->remembered[index].since_us = now;
                }
        }
        nvmlUtilization_t util = { 0 };
        nvmlReturn_t r = ASK(no, ASK_UTILIZATION, n->utilization, dev, &util);
        if (!jd_nvml_set_u64(g, r, &g->load, util.gpu) || !jd_nvml_set_u64(g, r, &g->mem_load, util.memory))
                return;
        if (!read_memory_of(n, g, dev, no, &g->mem_used_kib, &g->mem_total_kib, &g->mem_reserved_kib))
                return;
        if (!read_clocks(n->clock, g, dev, no, &g->freq_khz, &g->sm_freq_khz, &g->mem_freq_khz))
                return;
        /* One call at a time: each value is read after its call returns. */
        unsigned v = 0, period = 0;
        unsigned long long ull = 0;
        int pstate = 0;
        r = ASK(no, ASK_TEMPERATURE, n->temperature, dev, NVML_TEMPERATURE_GPU, &v);
        if (!jd_nvml_set_u64(g, r, &g->temp_c, v))
                return;
        r = ASK(no, ASK_POWER, n->power, dev, &v);
        if (!jd_nvml_set_u64(g, r, &g->power_mw, v))
                return;
        r = ASK(no, ASK_POWER_LIMIT, n->power_limit, dev, &v);
        if (!jd_nvml_set_u64(g, r, &g->power_limit_mw, v))
                return;
        r = ASK(no, ASK_FAN, n->fan, dev, &v);
        if (!jd_nvml_set_u64(g, r, &g->fan, v))
                return;
        r = ASK(no, ASK_ENCODER, n->encoder, dev, &v, &period);
        if (!jd_nvml_set_u64(g, r, &g->encoder_load, v))
                return;
        r = ASK(no, ASK_DECODER, n->decoder, dev, &v, &period);
        if (!jd_nvml_set_u64(g, r, &g->decoder_load, v))
                return;
        r = ASK(no, ASK_THROTTLE, n->throttle, dev, &ull);
        if (!jd_nvml_set_u64(g, r, &g->throttle, ull))
                return;
        /* NVML_PSTATE_UNKNOWN is no state: absent. */
        r = ASK(no, ASK_PSTATE, n->pstate, dev, &pstate);
        if (r == NVML_SUCCESS && (pstate < 0 || pstate >= NVML_PSTATE_UNKNOWN))
                r = NVML_ERROR_NOT_SUPPORTED;
        if (!jd_nvml_set_u64(g, r, &g->pstate, (unsigned long long) pstate))
                return;
        if (!jd_nvml_read_cheap_facts(n, g, dev, no))
                return;
        if (!read_migs(n, g, dev, index))
                return;
        jd_nvml_read_processes(g, n->compute, dev, true);
        jd_nvml_read_processes(g, n->graphics, dev, false);
        /* v1 stands in for v2's memory: nothing is missing for it. */
        g->unsupported = *no & ~(unsigned) ASK_MEMORY_V2;
}

size_t jd_nvml_unsupported_keys(unsigned unsupported, const char **out, size_t max)
{
        static const struct {
                unsigned bit;
                const char *key;
        } keys[] = {
                { ASK_UTILIZATION, "load" },       { ASK_UTILIZATION, "mem_load" },
                { ASK_CLOCK, "freq" },             { ASK_CLOCK << 1, "sm_freq" },
                { ASK_CLOCK << 2, "mem_freq" },    { ASK_TEMPERATURE, "temp" },
                { ASK_POWER, "power" },            { ASK_POWER_LIMIT, "power_limit" },
                { ASK_FAN, "fan" },                { ASK_ENCODER, "encoder_load" },
                { ASK_DECODER, "decoder_load" },   { ASK_THROTTLE, "throttle" },
                { ASK_PSTATE, "pstate" },          { ASK_BAR1, "bar1_used" },
                { ASK_VIDEO_CLOCK, "video_freq" },
        };
        size_t n = 0;
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]) && n < max; i++)
                if (unsupported & keys[i].bit)
                        out[n++] = keys[i].key;
        return n;
}

static void read_energy(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev)
{
        unsigned long long mj = 0;
        nvmlReturn_t r = CALL(n->energy, dev, &mj);
        jd_nvml_set_u64(g, r, &g->energy_mj, mj);
}

static void read_pcie(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev)
{
        /* KB/s in NVML's words; 1024 bytes, as nvidia-smi and nvitop count. */
        unsigned v = 0;
        nvmlReturn_t r = CALL(n->pcie, dev, NVML_PCIE_UTIL_RX_BYTES, &v);
        if (!jd_nvml_set_u64(g, r, &g->pcie_rx, (unsigned long long) v * 1024))
                return;
        r = CALL(n->pcie, dev, NVML_PCIE_UTIL_TX_BYTES, &v);
        jd_nvml_set_u64(g, r, &g->pcie_tx, (unsigned long long) v * 1024);
}

/* PARTS of G; stops at the first sign that the GPU is lost. */
static void read_values(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index, unsigned parts)
{
        if (parts & JD_NVML_CONSTANTS)
                read_constants(n, g, dev);
        if (!g->lost && (parts & JD_NVML_CHEAP))
                read_cheap(n, g, dev, index);
        if (!g->lost && (parts & JD_NVML_ENERGY))
                read_energy(n, g, dev);
        if (!g->lost && (parts & JD_NVML_PCIE))
                read_pcie(n, g, dev);
        if (!g->lost && (parts & JD_NVML_NVLINK))
                jd_nvml_read_nvlink(n, g, dev);
        if (!g->lost && (parts & JD_NVML_HEALTH))
                jd_nvml_read_health(n, g, dev, index);
        if (!g->lost && (parts & JD_NVML_GPM))
                jd_nvml_read_gpm(n, g, dev, index);
        if (!g->lost && (parts & JD_NVML_MODES))
                jd_nvml_read_modes(n, g, dev);
        /* With the lists: only while NVML lists a process. */
        bool listed_only = parts & JD_NVML_CHEAP;
        if (!g->lost && (parts & JD_NVML_PROCESS_SM) && (!listed_only || g->n_processes))
                jd_nvml_read_process_sm(n, g, dev, index, listed_only);
}

void jd_nvml_gpu_merge(jd_nvml_gpu *dst, const jd_nvml_gpu *src, unsigned parts)
{
        if (parts & JD_NVML_CONSTANTS) {
                memcpy(dst->name, src->name, sizeof(dst->name));
                memcpy(dst->uuid, src->uuid, sizeof(dst->uuid));
                memcpy(dst->pci_bus_id, src->pci_bus_id, sizeof(dst->pci_bus_id));
                dst->minor = src->minor;
                dst->integrated = src->integrated;
                dst->max_freq_khz = src->max_freq_khz;
                dst->max_sm_freq_khz = src->max_sm_freq_khz;
                dst->max_mem_freq_khz = src->max_mem_freq_khz;
                dst->cc_major = src->cc_major;
                dst->cc_minor = src->cc_minor;
                dst->bar1_total_kib = src->bar1_total_kib;
        }
        if (parts & JD_NVML_ENERGY)
                dst->energy_mj = src->energy_mj;
        if (parts & JD_NVML_PCIE) {
                dst->pcie_rx = src->pcie_rx;
                dst->pcie_tx = src->pcie_tx;
        }
        if (parts & JD_NVML_NVLINK) {
                dst->nvlink = src->nvlink;
                dst->nvlink_rate = src->nvlink_rate;
        }
        if (parts & JD_NVML_HEALTH) {
                dst->mem_temp_c = src->mem_temp_c;
                dst->pcie_replays = src->pcie_replays;
                dst->xid = src->xid;
                dst->xid_count = src->xid_count;
        }
        if (parts & JD_NVML_GPM) {
                dst->tensor_active = src->tensor_active;
                dst->graphics_active = src->graphics_active;
                dst->dram_active = src->dram_active;
        }
        if (parts & JD_NVML_MODES) {
                dst->modes_read = src->modes_read;
                dst->ecc = src->ecc;
                dst->ecc_pending = src->ecc_pending;
                dst->persistence = src->persistence;
                dst->compute_mode = src->compute_mode;
                dst->display_mode = src->display_mode;
                dst->display_active = src->display_active;
                dst->ecc_volatile_corrected = src->ecc_volatile_corrected;
                dst->ecc_volatile_uncorrected = src->ecc_volatile_uncorrected;
                dst->ecc_aggregate_corrected = src->ecc_aggregate_corrected;
                dst->ecc_aggregate_uncorrected = src->ecc_aggregate_uncorrected;
        }
        for (size_t i = 0; (parts & JD_NVML_PROCESS_SM) && i < dst->n_processes; i++)
                for (size_t k = 0; k < src->n_processes; k++)
                        if (src->processes[k].pid == dst->processes[i].pid) {
                                dst->processes[i].sm = src->processes[k].sm;
                                dst->processes[i].enc = src->processes[k].enc;
                                dst->processes[i].dec = src->processes[k].dec;
                                dst->processes[i].mem_util = src->processes[k].mem_util;
                        }
}

void jd_nvml_gpu_clear(jd_nvml_gpu *g)
{
        free(g->processes);
        g->processes = NULL;
        g->n_processes = g->cap_processes = 0;
}

bool jd_nvml_gpu_copy(jd_nvml_gpu *dst, const jd_nvml_gpu *src)
{
        bool ok = true;
        *dst = *src;
        dst->processes = jd_memdup(src->processes, src->n_processes, sizeof(*dst->processes), &ok);
        dst->n_processes = dst->cap_processes = ok ? src->n_processes : 0;
        return ok;
}

bool jd_nvml_read_gpu(jd_nvml *n, unsigned index, jd_nvml_gpu *g)
{
        return jd_nvml_read_parts(n, index, JD_NVML_ALL, g);
}

bool jd_nvml_read_parts(jd_nvml *n, unsigned index, unsigned parts, jd_nvml_gpu *g)
{
        nvmlDevice_t dev;
        memset(g, 0, sizeof(*g));
        g->index = index;
        if (n->handle(index, &dev) != NVML_SUCCESS)
                return false;
        read_values(n, g, dev, index, parts);
        /* Lost: no value read before the loss stands either, nor what
         * the GPU answered before (it comes back reset, or another). */
        if (g->lost) {
                /* (Both are the cheap reads' own.) */
                if (index < MAX_GPUS && (parts & JD_NVML_CHEAP))
                        memset(&n->remembered[index], 0, sizeof(n->remembered[index]));
                jd_nvml_slow_reset(n, index);
                jd_nvml_gpu_clear(g);
                memset(g, 0, sizeof(*g));
                g->index = index;
                g->lost = true;
        }
        return true;
}

