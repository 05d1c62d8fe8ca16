#include "nvml.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "nvml_api.h"

/* Per-process SM samples are asked "since" the last one seen; one slot
 * per GPU index, so that GPUs read from different threads never share. */
#define MAX_GPUS 64

struct jd_nvml {
        void *lib;
        char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
        nvml_shutdown_fn *shutdown;
        nvml_error_string_fn *error_string;
        nvml_count_fn *count;
        nvml_handle_fn *handle;
        nvml_device_string_fn *name, *uuid;
        nvml_pci_fn *pci;
        nvml_utilization_fn *utilization;
        nvml_memory_fn *memory;
        nvml_memory_v2_fn *memory_v2;
        nvml_temperature_fn *temperature;
        nvml_device_uint_fn *power, *power_limit, *fan;
        nvml_device_ull_fn *energy, *throttle;
        nvml_device_int_fn *pstate;
        nvml_clock_fn *clock, *max_clock;
        nvml_codec_fn *encoder, *decoder;
        nvml_pcie_fn *pcie;
        nvml_processes_fn *compute, *graphics;
        nvml_process_util_fn *process_util;
        nvml_field_values_fn *field_values;
        nvml_mig_mode_fn *mig_mode;
        nvml_device_uint_fn *max_migs, *gpu_instance, *compute_instance;
        nvml_mig_handle_fn *mig_handle;
        unsigned long long last_seen_us[MAX_GPUS];
        /* The cheap reads' own (one thread per GPU): the calls a GPU
         * answered NOT_SUPPORTED, and its MIG mode as last asked. */
        unsigned unsupported[MAX_GPUS];
        unsigned long long unsupported_since_us[MAX_GPUS]; /* CLOCK_MONOTONIC */
        struct {
                unsigned long long asked_us; /* CLOCK_MONOTONIC; 0: never */
                bool on;
                unsigned slots;
        } mig[MAX_GPUS];
};

/* The cheap calls, one bit each in jd_nvml.unsupported. */
enum {
        ASK_UTILIZATION = 1u << 0,
        ASK_MEMORY_V2 = 1u << 1,
        ASK_CLOCK = 1u << 2, /* graphics; SM and memory the next two bits */
        ASK_TEMPERATURE = 1u << 5,
        ASK_POWER = 1u << 6,
        ASK_POWER_LIMIT = 1u << 7,
        ASK_FAN = 1u << 8,
        ASK_ENCODER = 1u << 9,
        ASK_DECODER = 1u << 10,
        ASK_THROTTLE = 1u << 11,
        ASK_PSTATE = 1u << 12,
};

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
}

jd_nvml *jd_nvml_open(const char *library, char *why, size_t why_len)
{
        const char *path = library ? library : "libnvidia-ml.so.1";
        void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
                snprintf(why, why_len, "no NVIDIA driver library (%s)", dlerror());
                return NULL;
        }
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
        if (r != NVML_SUCCESS) {
                snprintf(why, why_len, "nvmlInit failed: %s (the NVIDIA driver is not loaded?)",
                         n->error_string ? n->error_string(r) : "unknown error");
                free(n);
                dlclose(lib);
                return NULL;
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

/* Sets OUT from a call's result; true while the GPU is still there. */
#define CALL(fn, ...) ((fn) ? (fn)(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

/* NOT_SUPPORTED is a device's lasting answer (a fan an H200 does not
 * have), and on a real driver the slowest: 130-160 us of CPU against 1-2
 * us for an answered call (H200, driver 580; docs/nvidia-gpus.md). So a
 * call a GPU answered so is not made again for JD_NVML_RECHECK_US (an
 * integrated GPU may answer little while rail-gated, as Thor's, and all
 * once awake); UNSUPPORTED NULL (a MIG device, the maximum clocks):
 * always asked. */
static nvmlReturn_t remember(unsigned *unsupported, unsigned bit, nvmlReturn_t r)
{
        if (unsupported && (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND))
                *unsupported |= bit;
        return r;
}
#define ASK(unsupported, bit, fn, ...)                                                                 \
        ((unsupported) && (*(unsupported) & (bit)) ? NVML_ERROR_NOT_SUPPORTED                           \
                                                   : remember((unsupported), (bit), CALL(fn, __VA_ARGS__)))

static unsigned long long monotonic_us(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (unsigned long long) ts.tv_sec * 1000000ull + (unsigned long long) ts.tv_nsec / 1000u;
}

static bool set_u64(jd_nvml_gpu *g, nvmlReturn_t r, jd_opt_u64 *out, unsigned long long value)
{
        if (r == NVML_SUCCESS)
                JD_SET(*out, value);
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        return !g->lost;
}

static jd_nvml_process *process_slot(jd_nvml_gpu *g, unsigned pid)
{
        for (size_t i = 0; i < g->n_processes; i++)
                if (g->processes[i].pid == pid)
                        return &g->processes[i];
        jd_nvml_process *room = jd_grow(g->processes, &g->cap_processes, g->n_processes + 1, sizeof(*room));
        if (!room)
                return NULL; /* out of memory */
        g->processes = room;
        jd_nvml_process *p = &g->processes[g->n_processes++];
        *p = (jd_nvml_process) { .pid = pid };
        return p;
}

/* NVML's count protocol: asked with ROOM entries; INSUFFICIENT_SIZE says
 * how many there are now, and the call is made again with that room (and
 * some more, as processes come and go between calls), a few times. */
#define LIST_TRIES 4
#define LIST_SLACK 16

/* INFO, from the compute or the graphics list, into P. A process in both
 * lists has one memory, counted once: the later list's (graphics is read
 * second), the newer reading of memory that grows between the calls, as
 * nvitop keeps it; the earlier one stays where the later has none. */
static void merge_process(jd_nvml_process *p, const nvmlProcessInfo_t *info, bool compute)
{
        if (compute)
                p->compute = true;
        else
                p->graphics = true;
        if (info->usedGpuMemory != NVML_VALUE_NOT_AVAILABLE)
                JD_SET(p->mem_kib, info->usedGpuMemory / 1024);
}

/* One of NVML's process lists, all of it. */
static void read_processes(jd_nvml_gpu *g, nvml_processes_fn *fn, nvmlDevice_t dev, bool compute)
{
        nvmlProcessInfo_t *infos = NULL;
        unsigned count = 0, room = 64;
        nvmlReturn_t r = NVML_ERROR_INSUFFICIENT_SIZE;
        for (int tries = 0; r == NVML_ERROR_INSUFFICIENT_SIZE && tries < LIST_TRIES; tries++) {
                nvmlProcessInfo_t *bigger = realloc(infos, room * sizeof(*infos));
                if (!bigger)
                        break;
                infos = bigger;
                count = room;
                r = CALL(fn, dev, &count, infos);
                if (r == NVML_ERROR_INSUFFICIENT_SIZE)
                        room = count + LIST_SLACK;
        }
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        for (unsigned i = 0; r == NVML_SUCCESS && i < count && i < room; i++) {
                jd_nvml_process *p = process_slot(g, infos[i].pid);
                if (!p)
                        break;
                merge_process(p, &infos[i], compute);
                /* With MIG on, NVML says in which GPU instance (else ~0). */
                if (g->mig && infos[i].gpuInstanceId != 0xFFFFFFFFu)
                        JD_SET(p->gpu_instance, infos[i].gpuInstanceId);
        }
        free(infos);
}

/* Each process's SM use over NVML's last interval. LISTED_ONLY: only
 * for G's listed processes (a sample may outlive its process); else a
 * process for each sample, for jd_nvml_gpu_merge to match later. */
static void read_process_sm(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index, bool listed_only)
{
        nvmlProcessUtilizationSample_t *samples = NULL;
        unsigned count = 0, room = (unsigned) g->n_processes + LIST_SLACK;
        /* Atomic: two threads may read one GPU's parts (gpu_poller.c). */
        unsigned long long since = index < MAX_GPUS ? __atomic_load_n(&n->last_seen_us[index], __ATOMIC_RELAXED) : 0;
        nvmlReturn_t r = NVML_ERROR_INSUFFICIENT_SIZE;
        for (int tries = 0; r == NVML_ERROR_INSUFFICIENT_SIZE && tries < LIST_TRIES; tries++) {
                nvmlProcessUtilizationSample_t *bigger = realloc(samples, room * sizeof(*samples));
                if (!bigger)
                        break;
                samples = bigger;
                count = room;
                r = CALL(n->process_util, dev, samples, &count, since);
                if (r == NVML_ERROR_INSUFFICIENT_SIZE)
                        room = count + LIST_SLACK;
        }
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        if (r != NVML_SUCCESS) {
                free(samples);
                return;
        }
        unsigned long long newest = since;
        for (unsigned i = 0; i < count && i < room; i++) {
                if (listed_only) {
                        for (size_t k = 0; k < g->n_processes; k++)
                                if (g->processes[k].pid == samples[i].pid)
                                        JD_SET(g->processes[k].sm, samples[i].smUtil);
                } else {
                        jd_nvml_process *p = process_slot(g, samples[i].pid);
                        if (p)
                                JD_SET(p->sm, samples[i].smUtil);
                }
                if (samples[i].timeStamp > newest)
                        newest = samples[i].timeStamp;
        }
        if (index < MAX_GPUS)
                __atomic_store_n(&n->last_seen_us[index], newest, __ATOMIC_RELAXED);
        free(samples);
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
                return set_u64(g, r, used, v2.used / 1024) && set_u64(g, r, total, v2.total / 1024) &&
                       (!reserved || set_u64(g, r, reserved, v2.reserved / 1024));
        if (r == NVML_ERROR_GPU_IS_LOST) {
                g->lost = true;
                return false;
        }
        nvmlMemory_t v1 = { 0 };
        r = CALL(n->memory, dev, &v1);
        return set_u64(g, r, used, v1.used / 1024) && set_u64(g, r, total, v1.total / 1024);
}

/* MIG mode changes only with a GPU reset, and asking it costs 120-160
 * us of CPU on an H200 (its slot count as much), so both are asked again
 * only every JD_NVML_RECHECK_US; false once the GPU is lost. */
static bool mig_mode(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index, unsigned *slots)
{
        unsigned long long now = monotonic_us();
        if (index < MAX_GPUS && n->mig[index].asked_us && now - n->mig[index].asked_us < JD_NVML_RECHECK_US) {
                *slots = n->mig[index].slots;
                return n->mig[index].on;
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
                n->mig[index].asked_us = now;
                n->mig[index].on = on;
                n->mig[index].slots = *slots;
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
                if (!set_u64(g, rg, &m->gpu_instance, gi))
                        return false;
                nvmlReturn_t rc = CALL(n->compute_instance, mig, &ci);
                if (!set_u64(g, rc, &m->compute_instance, ci) ||
                    !read_memory_of(n, g, mig, NULL, &m->mem_used_kib, &m->mem_total_kib, NULL))
                        return false;
                nvmlUtilization_t util = { 0 };
                nvmlReturn_t ru = CALL(n->utilization, mig, &util);
                if (!set_u64(g, ru, &m->load, util.gpu))
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
                if (!set_u64(g, r, out[i], (unsigned long long) mhz * 1000))
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
        read_clocks(n->max_clock, g, dev, NULL, &g->max_freq_khz, &g->max_sm_freq_khz, &g->max_mem_freq_khz);
}

/* The values of every sample, 1-8 us each on a real driver; stops at the
 * first sign that the GPU is lost. */
static void read_cheap(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index)
{
        unsigned scratch = 0, *no = index < MAX_GPUS ? &n->unsupported[index] : &scratch;
        if (index < MAX_GPUS) {
                unsigned long long now = monotonic_us();
                if (now - n->unsupported_since_us[index] >= JD_NVML_RECHECK_US) {
                        n->unsupported[index] = 0; /* ask them all again */
                        n->unsupported_since_us[index] = now;
                }
        }
        nvmlUtilization_t util = { 0 };
        nvmlReturn_t r = ASK(no, ASK_UTILIZATION, n->utilization, dev, &util);
        if (!set_u64(g, r, &g->load, util.gpu) || !set_u64(g, r, &g->mem_load, util.memory))
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
        if (!set_u64(g, r, &g->temp_c, v))
                return;
        r = ASK(no, ASK_POWER, n->power, dev, &v);
        if (!set_u64(g, r, &g->power_mw, v))
                return;
        r = ASK(no, ASK_POWER_LIMIT, n->power_limit, dev, &v);
        if (!set_u64(g, r, &g->power_limit_mw, v))
                return;
        r = ASK(no, ASK_FAN, n->fan, dev, &v);
        if (!set_u64(g, r, &g->fan, v))
                return;
        r = ASK(no, ASK_ENCODER, n->encoder, dev, &v, &period);
        if (!set_u64(g, r, &g->encoder_load, v))
                return;
        r = ASK(no, ASK_DECODER, n->decoder, dev, &v, &period);
        if (!set_u64(g, r, &g->decoder_load, v))
                return;
        r = ASK(no, ASK_THROTTLE, n->throttle, dev, &ull);
        if (!set_u64(g, r, &g->throttle, ull))
                return;
        /* NVML_PSTATE_UNKNOWN is no state: absent. */
        r = ASK(no, ASK_PSTATE, n->pstate, dev, &pstate);
        if (r == NVML_SUCCESS && (pstate < 0 || pstate >= NVML_PSTATE_UNKNOWN))
                r = NVML_ERROR_NOT_SUPPORTED;
        if (!set_u64(g, r, &g->pstate, (unsigned long long) pstate))
                return;
        if (!read_migs(n, g, dev, index))
                return;
        read_processes(g, n->compute, dev, true);
        read_processes(g, n->graphics, dev, false);
}

static void read_energy(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev)
{
        unsigned long long mj = 0;
        nvmlReturn_t r = CALL(n->energy, dev, &mj);
        set_u64(g, r, &g->energy_mj, mj);
}

static void read_pcie(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev)
{
        /* KB/s in NVML's words; 1024 bytes, as nvidia-smi and nvitop count. */
        unsigned v = 0;
        nvmlReturn_t r = CALL(n->pcie, dev, NVML_PCIE_UTIL_RX_BYTES, &v);
        if (!set_u64(g, r, &g->pcie_rx, (unsigned long long) v * 1024))
                return;
        r = CALL(n->pcie, dev, NVML_PCIE_UTIL_TX_BYTES, &v);
        set_u64(g, r, &g->pcie_tx, (unsigned long long) v * 1024);
}

/* A field value's number, if NVML answered it. */
static bool field_number(const nvmlFieldValue_t *f, unsigned long long *out)
{
        if (f->nvmlReturn != NVML_SUCCESS)
                return false;
        if (f->valueType == NVML_VALUE_TYPE_UNSIGNED_INT)
                *out = f->value.uiVal;
        else if (f->valueType == NVML_VALUE_TYPE_UNSIGNED_LONG_LONG)
                *out = f->value.ullVal;
        else
                return false;
        return true;
}

static void fields_request(nvmlFieldValue_t *f, unsigned id, unsigned scope)
{
        memset(f, 0, sizeof(*f));
        f->fieldId = id;
        f->scopeId = scope;
}

/* NVLink's counters: first the link count and the sums over all links
 * (one call), then each link's (a second call, only on a GPU that has
 * links). A GPU without NVLink answers NOT_SUPPORTED for the fields. */
static void read_nvlink(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev)
{
        jd_nvlink_counters *c = &g->nvlink;
        nvmlFieldValue_t f[2 * JD_MAX_NVLINKS];
        fields_request(&f[0], NVML_FI_DEV_NVLINK_LINK_COUNT, 0);
        fields_request(&f[1], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, NVML_SCOPE_ALL_LINKS);
        fields_request(&f[2], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, NVML_SCOPE_ALL_LINKS);
        nvmlReturn_t r = CALL(n->field_values, dev, 3, f);
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        if (r != NVML_SUCCESS)
                return;
        unsigned long long v = 0;
        if (field_number(&f[0], &v) && v > 0)
                c->links = v < JD_MAX_NVLINKS ? (unsigned) v : JD_MAX_NVLINKS;
        if (!c->links)
                return; /* no NVLink: whatever the sums say is no reading */
        if (field_number(&f[1], &v))
                JD_SET(c->rx_kib, v);
        if (field_number(&f[2], &v))
                JD_SET(c->tx_kib, v);
        c->at_us = f[1].timestamp;
        for (unsigned l = 0; l < c->links; l++) {
                fields_request(&f[2 * l], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, l);
                fields_request(&f[2 * l + 1], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, l);
        }
        r = CALL(n->field_values, dev, (int) (2 * c->links), f);
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        if (r != NVML_SUCCESS)
                return;
        c->links_at_us = f[0].timestamp;
        /* A driver without the all-links scope: the sum of the links. */
        bool sum_rx = !c->rx_kib.present, sum_tx = !c->tx_kib.present;
        for (unsigned l = 0; l < c->links; l++) {
                if (field_number(&f[2 * l], &v))
                        JD_SET(c->link_rx_kib[l], v);
                if (field_number(&f[2 * l + 1], &v))
                        JD_SET(c->link_tx_kib[l], v);
                if (sum_rx && c->link_rx_kib[l].present)
                        JD_SET(c->rx_kib, c->rx_kib.value + c->link_rx_kib[l].value);
                if (sum_tx && c->link_tx_kib[l].present)
                        JD_SET(c->tx_kib, c->tx_kib.value + c->link_tx_kib[l].value);
        }
        /* Only a sum of every link is the GPU's. */
        for (unsigned l = 0; l < c->links; l++) {
                if (sum_rx && !c->link_rx_kib[l].present)
                        c->rx_kib.present = false;
                if (sum_tx && !c->link_tx_kib[l].present)
                        c->tx_kib.present = false;
        }
        if (sum_rx || sum_tx)
                c->at_us = f[0].timestamp;
}

/* Bytes/s from two readings of a KiB counter DT µs apart. */
static jd_opt_u64 kib_rate(jd_opt_u64 before, jd_opt_u64 after, long long dt_us)
{
        jd_opt_u64 rate = { 0 };
        if (before.present && after.present && after.value >= before.value && dt_us > 0)
                JD_SET(rate, (uint64_t) ((double) (after.value - before.value) * 1024.0 * 1e6 / (double) dt_us + 0.5));
        return rate;
}

void jd_nvml_nvlink_rates(const jd_nvlink_counters *prev, const jd_nvlink_counters *cur, jd_nvlink_rates *out)
{
        memset(out, 0, sizeof(*out));
        if (prev->at_us && cur->at_us) {
                out->rx = kib_rate(prev->rx_kib, cur->rx_kib, cur->at_us - prev->at_us);
                out->tx = kib_rate(prev->tx_kib, cur->tx_kib, cur->at_us - prev->at_us);
        }
        if (!prev->links_at_us || !cur->links_at_us)
                return;
        long long dt = cur->links_at_us - prev->links_at_us;
        for (unsigned l = 0; l < cur->links && l < prev->links; l++) {
                out->link_rx[l] = kib_rate(prev->link_rx_kib[l], cur->link_rx_kib[l], dt);
                out->link_tx[l] = kib_rate(prev->link_tx_kib[l], cur->link_tx_kib[l], dt);
        }
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
                read_nvlink(n, g, dev);
        /* With the lists: only while NVML lists a process. */
        bool listed_only = parts & JD_NVML_CHEAP;
        if (!g->lost && (parts & JD_NVML_PROCESS_SM) && (!listed_only || g->n_processes))
                read_process_sm(n, g, dev, index, listed_only);
}

void jd_nvml_gpu_merge(jd_nvml_gpu *dst, const jd_nvml_gpu *src, unsigned parts)
{
        if (parts & JD_NVML_CONSTANTS) {
                memcpy(dst->name, src->name, sizeof(dst->name));
                memcpy(dst->uuid, src->uuid, sizeof(dst->uuid));
                memcpy(dst->pci_bus_id, src->pci_bus_id, sizeof(dst->pci_bus_id));
                dst->integrated = src->integrated;
                dst->max_freq_khz = src->max_freq_khz;
                dst->max_sm_freq_khz = src->max_sm_freq_khz;
                dst->max_mem_freq_khz = src->max_mem_freq_khz;
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
        for (size_t i = 0; (parts & JD_NVML_PROCESS_SM) && i < dst->n_processes; i++)
                for (size_t k = 0; k < src->n_processes; k++)
                        if (src->processes[k].pid == dst->processes[i].pid)
                                dst->processes[i].sm = src->processes[k].sm;
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
                if (index < MAX_GPUS && (parts & JD_NVML_CHEAP)) {
                        n->unsupported[index] = 0;
                        n->mig[index].asked_us = 0;
                }
                jd_nvml_gpu_clear(g);
                memset(g, 0, sizeof(*g));
                g->index = index;
                g->lost = true;
        }
        return true;
}

size_t jd_nvml_add_gpu_users(jd_gpu_user **usersp, size_t *cap, size_t n, const jd_nvml_gpu *g)
{
        for (size_t p = 0; p < g->n_processes; p++) {
                size_t k = 0;
                while (k < n && (*usersp)[k].pid != g->processes[p].pid)
                        k++;
                if (k == n) {
                        jd_gpu_user *grown = jd_grow(*usersp, cap, n + 1, sizeof(*grown));
                        if (!grown)
                                break; /* out of memory: those so far */
                        *usersp = grown;
                        grown[n++] = (jd_gpu_user) { .pid = g->processes[p].pid };
                }
                jd_gpu_user *users = *usersp;
                if (g->processes[p].mem_kib.present)
                        users[k].gpu_kib += g->processes[p].mem_kib.value;
        }
        return n;
}
