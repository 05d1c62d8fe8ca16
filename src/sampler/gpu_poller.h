/* NVIDIA GPUs through NVML (nvml.h), read off the main loop like every
 * sensor, but each GPU in a thread of its own: an NVML call that hangs or
 * a GPU that falls off the bus holds up neither the tiers nor the other
 * GPUs, and never a D-Bus answer. A probe thread loads NVML and starts a
 * thread per GPU; while NVML is missing (the driver loads late, or not at
 * all) it tries again every JD_NVML_REPROBE_US, and it looks for GPUs
 * added since. Each GPU thread publishes refcounted readings; the engine
 * leaves out the keys of a GPU whose latest reading is stale, as it does
 * for a tier. A GPU's values are read at the rate they change (issue 35):
 * its thread reads the constants once and the cheap values every period;
 * a second thread per GPU reads the costly ones on their own cadence
 * (below), and each reading takes in their latest, so the cheap ones
 * never wait on the costly ones. */
#pragma once

#include <stdatomic.h>
#include <stdint.h>

#include "nvml.h"
#include "values.h"

/* The cheap values (nvml.h: load, power, temperature, clocks, ...) at
 * the sample period, down to 10 ms: the driver refreshes them every
 * 100-200 ms, and a change reaches a 10 ms Sample within a period. */
#define JD_NVML_MIN_PERIOD_US 10000u
/* The costly ones (the energy counter, PCIe rx/tx, each process's SM use:
 * ~8 ms of CPU and 42 ms of waiting on an H200; NVLink's counters, whose
 * rates are then the means over the period; memory temperature, PCIe
 * replays and XID events, GPM's activities over the period, the ECC,
 * persistence, compute and display modes and ECC's error counts, not
 * measured on a real driver) in a thread of their own
 * per GPU, every 10 s or at the sample period if slower... */
#define JD_NVML_COSTLY_PERIOD_US 10000000u
/* ...and the energy counter every 100 ms while a capture has it as a
 * column (jetsonctl measure, jetsond.measure(): energy from the counter). */
#define JD_NVML_ENERGY_EXACT_PERIOD_US 100000u
#define JD_NVML_REPROBE_US 10000000u

typedef struct {
        atomic_int refs;
        jd_nvml_gpu gpu;
        jd_values values;         /* dgpu.N.* and process.PID.dgpu.N.* */
        uint64_t finished_us;     /* CLOCK_MONOTONIC */
        uint64_t timestamp_us;    /* CLOCK_REALTIME */
} jd_gpu_reading;

jd_gpu_reading *jd_gpu_reading_ref(jd_gpu_reading *r);
void jd_gpu_reading_unref(jd_gpu_reading *r);

typedef struct jd_gpu_poller jd_gpu_poller;

/* Starts the probe thread for LIBRARY (NULL: libnvidia-ml.so.1).
 * NOTIFY(DATA) is called from the threads when a message waits
 * (jd_gpu_poller_take_message); readings are only taken, never pushed. */
jd_gpu_poller *jd_gpu_poller_new(const char *library, void (*notify)(void *data), void *data);
/* Stops the threads, waiting at most TIMEOUT_US in all; a thread stuck in
 * NVML is left behind with what it uses (the process is about to exit). */
void jd_gpu_poller_free(jd_gpu_poller *p, uint64_t timeout_us);
/* How often each GPU is read (never faster than JD_NVML_MIN_PERIOD_US). */
void jd_gpu_poller_set_period(jd_gpu_poller *p, uint64_t period_us);
uint64_t jd_gpu_poller_period(jd_gpu_poller *p);
/* How often the energy counter is read (0: as the other costly values,
 * JD_NVML_COSTLY_PERIOD_US); never faster than the period. */
void jd_gpu_poller_set_energy_period(jd_gpu_poller *p, uint64_t period_us);
/* Whether the integrated GPU's sysfs node has a load file, told by the
 * fast tier: then gpu.load is sysfs's, never also NVML's. */
void jd_gpu_poller_set_sysfs_load(jd_gpu_poller *p, bool has_load);
/* The latest reading of every GPU that has one, by NVML index (new
 * references into OUT); returns how many. */
size_t jd_gpu_poller_latest(jd_gpu_poller *p, jd_gpu_reading *out[JD_MAX_DGPUS]);
/* Where NVML stands, for Manager.Diagnose: LOADED (then DRIVER and COUNT,
 * the GPUs it listed when last asked), or why not (WHY, as logged);
 * TRIED false until the probe thread's first attempt. */
typedef struct {
        bool tried;
        jd_nvml_failure failure;
        char library[256];            /* as asked for: a path or the soname */
        char why[256];
        char driver[80];
        char cuda[16];                /* the CUDA version the driver supports, "12.8" */
        unsigned count;
} jd_nvml_status;
void jd_gpu_poller_status(jd_gpu_poller *p, jd_nvml_status *out);

/* A line for the log (NVML loaded or missing, a GPU lost or back), oldest
 * first; NULL when there is none. Free with g_free. */
char *jd_gpu_poller_take_message(jd_gpu_poller *p);
