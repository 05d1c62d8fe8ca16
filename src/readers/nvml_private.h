/* What the NVML reader's files share (nvml.c: the library, the device
 * reads; nvml_processes.c: the process lists; nvml_nvlink.c: NVLink's
 * counters): the library's entry points and the per-GPU state. Not for
 * other readers: nvml.h is the interface. */
#pragma once

#include <pthread.h>
#include <stdbool.h>

#include "nvml.h"
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
        nvml_device_uint_fn *minor;
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
        nvml_device_uint_fn *pcie_replays;
        nvml_event_set_create_fn *event_set_create;
        nvml_event_set_free_fn *event_set_free;
        nvml_register_events_fn *register_events;
        nvml_event_set_wait_fn *event_set_wait;
        nvml_gpm_support_fn *gpm_support;
        nvml_gpm_sample_alloc_fn *gpm_sample_alloc;
        nvml_gpm_sample_free_fn *gpm_sample_free;
        nvml_gpm_sample_get_fn *gpm_sample_get;
        nvml_gpm_metrics_get_fn *gpm_metrics_get;
        /* nvml_facts.c's */
        char cuda[16];                /* "12.8"; "": NVML does not say */
        nvml_capability_fn *capability;
        nvml_bar1_fn *bar1;
        nvml_enable_states_fn *ecc_mode;
        nvml_enable_state_fn *persistence, *display_mode, *display_active;
        nvml_compute_mode_fn *compute_mode;
        nvml_ecc_errors_fn *ecc_errors;
        unsigned long long last_seen_us[MAX_GPUS];
        /* The cheap reads' own (one thread per GPU): answers taken as
         * lasting until REMEMBERED_SINCE_US + JD_NVML_RECHECK_US (or the
         * GPU is lost): the calls it answered NOT_SUPPORTED, its MIG mode. */
        struct {
                unsigned long long since_us; /* CLOCK_MONOTONIC; 0: nothing remembered */
                unsigned unsupported;
                bool mig_known, mig_on;
                unsigned mig_slots;
        } remembered[MAX_GPUS];
        /* What outlives a read of JD_NVML_HEALTH and JD_NVML_GPM: a GPU's
         * event set and its count, its last GPM sample. Both the cheap
         * thread (its full reads) and the costly one read these parts,
         * hence the lock. */
        struct jd_nvml_slow {
                pthread_mutex_t mu;
                bool events_tried;            /* registration asked (again after a loss) */
                nvmlEventSet_t events;        /* NULL: not registered */
                unsigned long long xid, xid_count;
                bool gpm_tried, gpm_on;       /* nvmlGpmQueryDeviceSupport asked; its answer */
                nvmlGpmSample_t gpm_sample[2];
                int gpm_last;                 /* gpm_sample[gpm_last] is the previous read's; -1: none */
        } slow[MAX_GPUS];
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
        ASK_BAR1 = 1u << 13,
        ASK_VIDEO_CLOCK = 1u << 14,
};

/* Calls FN where the library has it. */
#define CALL(fn, ...) ((fn) ? (fn)(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

/* NVML's count protocol: asked with ROOM entries; INSUFFICIENT_SIZE says
 * how many there are now, and the call is made again with that room (and
 * some more, as processes come and go between calls), a few times. */
#define LIST_TRIES 4
#define LIST_SLACK 16

/* NOT_SUPPORTED is a device's lasting answer (a fan an H200 does not
 * have), and on a real driver the slowest: 130-160 us of CPU against 1-2
 * us for an answered call (H200, driver 580; docs/nvidia-gpus.md). So a
 * call a GPU answered so is not made again for JD_NVML_RECHECK_US (an
 * integrated GPU may answer little while rail-gated, as Thor's, and all
 * once awake); UNSUPPORTED NULL (a MIG device, the maximum clocks):
 * always asked. */
static inline nvmlReturn_t jd_nvml_remember(unsigned *unsupported, unsigned bit, nvmlReturn_t r)
{
        if (unsupported && (r == NVML_ERROR_NOT_SUPPORTED || r == NVML_ERROR_FUNCTION_NOT_FOUND))
                *unsupported |= bit;
        return r;
}
#define ASK(unsupported, bit, fn, ...)                                                                 \
        ((unsupported) && (*(unsupported) & (bit)) ? NVML_ERROR_NOT_SUPPORTED                           \
                                                   : jd_nvml_remember((unsupported), (bit), CALL(fn, __VA_ARGS__)))

/* Sets OUT from a call's result; true while the GPU is still there. */
static inline bool jd_nvml_set_u64(jd_nvml_gpu *g, nvmlReturn_t r, jd_opt_u64 *out, unsigned long long value)
{
        if (r == NVML_SUCCESS)
                JD_SET(*out, value);
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        return !g->lost;
}

/* nvml_facts.c: the facts' entry points and the CUDA version, at open. */
void jd_nvml_resolve_facts(jd_nvml *n);
/* The facts of JD_NVML_CONSTANTS: compute capability, BAR1's size. */
void jd_nvml_read_constant_facts(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev);
/* Those of JD_NVML_CHEAP: BAR1 in use, the video clock; UNSUPPORTED as
 * read_cheap's (nvml.c). False once the GPU is lost. */
bool jd_nvml_read_cheap_facts(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned *unsupported);
/* JD_NVML_MODES: the modes and, with ECC on, its error counts. */
void jd_nvml_read_modes(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev);

/* One of NVML's process lists (FN: compute or graphics), all of it, into G. */
void jd_nvml_read_processes(jd_nvml_gpu *g, nvml_processes_fn *fn, nvmlDevice_t dev, bool compute);
/* Each process's SM use over NVML's last interval. LISTED_ONLY: only
 * for G's listed processes (a sample may outlive its process); else a
 * process for each sample, for jd_nvml_gpu_merge to match later. */
void jd_nvml_read_process_sm(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index, bool listed_only);
/* Memory temperature, PCIe replays and XID events of G (JD_NVML_HEALTH). */
void jd_nvml_read_health(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index);
/* GPM's activities of G since the read before (JD_NVML_GPM). */
void jd_nvml_read_gpm(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index);
/* After G was lost: GPU INDEX's event set and GPM samples are no more
 * valid (the GPU comes back reset, or another); the XID count stays. */
void jd_nvml_slow_reset(jd_nvml *n, unsigned index);
/* Frees what jd_nvml.slow holds, for jd_nvml_close. */
void jd_nvml_slow_free(jd_nvml *n);
/* A field value's number as a double, if NVML answered it. */
bool jd_nvml_field_double(const nvmlFieldValue_t *f, double *out);
/* NVLink's counters of G, all links and each. */
void jd_nvml_read_nvlink(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev);
