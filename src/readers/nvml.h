/* NVIDIA GPUs through NVML, the library of the NVIDIA driver, loaded at
 * run time with dlopen(): discrete cards of PCs and servers, and the
 * integrated GPU of Jetson Thor (JetPack 7), where NVML is the only source
 * of load and GPU processes. No build dependency: without the library, or
 * without a working driver, jd_nvml_open() says why and jetsond reads what
 * sysfs offers, as before.
 *
 * A value NVML answers NOT_SUPPORTED (or any error) for is absent, never
 * 0; a GPU that fell off the bus (NVML_ERROR_GPU_IS_LOST) is reported lost
 * with no values. Calls may block (a driver in trouble takes seconds), so
 * whoever reads a GPU must do so off the main loop, one GPU at a time
 * (jd_nvml_read_gpu() touches only that GPU). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "opt.h"
#include "processes.h"

/* GPUs jetsond reads: NVML indexes 0 to 31, every GPU the NVIDIA driver
 * can have (its NV_MAX_DEVICES, "the maximum number of GPUs supported in
 * a single system", is 32), so this is the driver's limit, not ours. Were
 * NVML ever to list more, the GPU poller says so once in the log
 * (issue 31: no silent caps). */
#define JD_MAX_DGPUS 32

/* NVLink links a GPU can have: NVML's NVML_NVLINK_MAX_LINKS (18 on
 * Hopper), the driver's limit. */
#define JD_MAX_NVLINKS 18

/* NVLink counters of one read: data received and sent since the driver
 * loaded, all links summed and each link, with the driver's time of the
 * reading. Absent without NVLink. */
typedef struct {
        unsigned links;               /* 0: no NVLink, or NVML does not say */
        long long at_us;              /* NVML's timestamp of the sums; 0: none */
        long long links_at_us;        /* ... and of the links' (a call of their own) */
        jd_opt_u64 rx_kib, tx_kib;    /* all links */
        jd_opt_u64 link_rx_kib[JD_MAX_NVLINKS], link_tx_kib[JD_MAX_NVLINKS];
} jd_nvlink_counters;

/* NVLink rates between two reads of the counters, bytes/s. */
typedef struct {
        jd_opt_u64 rx, tx;
        jd_opt_u64 link_rx[JD_MAX_NVLINKS], link_tx[JD_MAX_NVLINKS];
} jd_nvlink_rates;

/* MIG devices a GPU can be split into: 7 on A100, H100 and H200. */
#define JD_MAX_MIGS 8

/* One MIG device (a GPU instance with a compute instance) of a GPU with
 * MIG on. */
typedef struct {
        unsigned slot;                /* nvmlDeviceGetMigDeviceHandleByIndex's index */
        char uuid[96];                /* "MIG-...", for CUDA_VISIBLE_DEVICES */
        jd_opt_u64 gpu_instance, compute_instance;
        jd_opt_u64 mem_used_kib, mem_total_kib;
        jd_opt_u64 load;              /* %: where NVML gives it (so far it does not) */
} jd_nvml_mig;

typedef struct {
        unsigned pid;
        bool compute, graphics;       /* in which of NVML's lists */
        jd_opt_u64 mem_kib;           /* GPU memory it uses */
        jd_opt_u64 sm;                /* %, SM utilization over the last interval */
        jd_opt_u64 enc, dec;          /* %, encoder and decoder use: the same call's */
        jd_opt_u64 mem_util;          /* %, memory bandwidth utilization, the same interval */
        jd_opt_u64 gpu_instance;      /* with MIG on: the GPU instance it runs in */
} jd_nvml_process;

typedef struct {
        unsigned index;               /* NVML's index: nvidia-smi -i N */
        bool lost;                    /* fell off the bus: nothing else is valid */
        bool integrated;              /* the SoC's own GPU (Thor, "... (nvgpu)") */
        char name[96], uuid[96];
        char pci_bus_id[32];          /* "00000000:01:00.0" as NVML gives it */
        jd_opt_u64 minor;             /* N of the device node /dev/nvidiaN */
        /* JD_NVML_CONSTANTS's facts (nvml_facts.c) */
        jd_opt_u64 cc_major, cc_minor; /* CUDA compute capability, 9.0 on Hopper */
        jd_opt_u64 bar1_total_kib;
        /* JD_NVML_CHEAP's, beside the others */
        jd_opt_u64 bar1_used_kib;
        jd_opt_u64 video_freq_khz;
        /* JD_NVML_MODES's (nvml_facts.c): modes that nvidia-smi changes
         * while the driver runs; each 0/1 (NVML's nvmlEnableState_t) but
         * compute_mode (NVML's nvmlComputeMode_t) */
        bool modes_read;              /* the part was read (or merged in) */
        jd_opt_u64 ecc, ecc_pending, persistence, compute_mode, display_mode, display_active;
        /* ECC error counts, only while ECC is on: volatile (since the
         * driver loaded) and aggregate (the GPU's life) */
        jd_opt_u64 ecc_volatile_corrected, ecc_volatile_uncorrected;
        jd_opt_u64 ecc_aggregate_corrected, ecc_aggregate_uncorrected;
        jd_opt_u64 load, mem_load;    /* % */
        jd_opt_u64 mem_used_kib, mem_total_kib;
        jd_opt_u64 mem_reserved_kib;  /* the driver's own, left out of mem_used (NVML v2 only) */
        jd_opt_u64 freq_khz, sm_freq_khz, mem_freq_khz;
        jd_opt_u64 max_freq_khz, max_sm_freq_khz, max_mem_freq_khz;
        jd_opt_u64 temp_c;
        jd_opt_u64 power_mw, power_limit_mw;
        jd_opt_u64 energy_mj;         /* since the driver loaded */
        jd_opt_u64 fan;               /* % */
        jd_opt_u64 encoder_load, decoder_load;   /* % */
        jd_opt_u64 pstate;            /* 0 (fastest) to 15 */
        jd_opt_u64 throttle;          /* clock event reasons, NVML's bitmask */
        jd_opt_u64 pcie_rx, pcie_tx;  /* bytes/s */
        /* JD_NVML_HEALTH's (nvml_events.c) */
        jd_opt_u64 mem_temp_c;        /* memory (HBM) temperature */
        jd_opt_u64 pcie_replays;      /* PCIe replays since the driver loaded */
        jd_opt_u64 xid;               /* the last XID error seen, 0 none yet: present once XID events are registered */
        jd_opt_u64 xid_count;         /* XID errors seen since the events were registered */
        /* JD_NVML_GPM's (nvml_gpm.c), %, over the time since the read before */
        jd_opt_dbl tensor_active, graphics_active, dram_active;
        bool mig;                     /* MIG mode on (then the migs, read with the cheap part) */
        jd_nvml_mig migs[JD_MAX_MIGS];
        unsigned n_migs;
        jd_nvlink_counters nvlink;    /* this read's counters */
        jd_nvlink_rates nvlink_rate;  /* since the read before (jd_nvml_nvlink_rates) */
        jd_nvml_process *processes;   /* every one NVML lists (malloc'ed) */
        size_t n_processes, cap_processes;
        /* The cheap values the GPU answered NOT_SUPPORTED to in this read
         * (jd_nvml_unsupported_keys names them), for Manager.Diagnose. */
        unsigned unsupported;
} jd_nvml_gpu;

typedef struct jd_nvml jd_nvml;

/* Loads LIBRARY (NULL: "libnvidia-ml.so.1") and initialises NVML. NULL
 * when there is no library, no driver or nvmlInit fails, with the reason
 * in WHY (for one info line in the log). */
jd_nvml *jd_nvml_open(const char *library, char *why, size_t why_len);
/* What kept jd_nvml_open_why() from loading NVML, for Manager.Diagnose. */
typedef enum {
        JD_NVML_LOADED,
        JD_NVML_NO_LIBRARY,           /* dlopen failed: no NVIDIA driver installed */
        JD_NVML_NOT_NVML,             /* a library without NVML's entry points */
        JD_NVML_NO_PERMISSION,        /* nvmlInit: the device nodes are not ours to open */
        JD_NVML_NO_DRIVER,            /* nvmlInit: the kernel driver is not loaded */
        JD_NVML_INIT_FAILED,          /* nvmlInit failed otherwise */
} jd_nvml_failure;
jd_nvml *jd_nvml_open_why(const char *library, char *why, size_t why_len, jd_nvml_failure *failure);
/* nvmlShutdown and dlclose. */
void jd_nvml_close(jd_nvml *n);
/* The driver's version ("595.78"), "" if NVML does not say. */
const char *jd_nvml_driver_version(const jd_nvml *n);
/* The CUDA version the driver supports ("12.8",
 * nvmlSystemGetCudaDriverVersion_v2), "" if NVML does not say. */
const char *jd_nvml_cuda_driver_version(const jd_nvml *n);
/* How many GPUs NVML sees now (0 on error). */
unsigned jd_nvml_count(jd_nvml *n);
/* Reads GPU INDEX into OUT. False if NVML has no such GPU (then OUT is
 * not valid); a GPU that fell off the bus is true with OUT->lost. Safe to
 * call for different GPUs from different threads (NVML is thread-safe
 * after init), and for one GPU from two threads into different OUTs. */
bool jd_nvml_read_gpu(jd_nvml *n, unsigned index, jd_nvml_gpu *out);

/* A GPU's values by what they cost (issue 35: on an H200 a read of all
 * of them took 10-12 ms of CPU and waited 42 ms), so that each is read at
 * the rate it changes (gpu_poller.c says when). */
enum {
        /* name, UUID, PCI id, max clocks (the integrated flag from the
         * name), compute capability, BAR1's size: never change while the
         * driver runs; 1.6 ms per max clock */
        JD_NVML_CONSTANTS = 1u << 0,
        /* load, memory (with its total: the same call), clocks,
         * temperature, power, limit, pstate, clock event reasons, fan,
         * encoder, decoder, the process lists: 1-41 us each on an H200;
         * BAR1 in use and the video clock (not measured: as memory and
         * a clock);
         * a call the GPU answered NOT_SUPPORTED (130-360 us) is made again
         * only every JD_NVML_RECHECK_US, as MIG mode (120-420 us), and
         * with MIG on each MIG device's memory and instances (a few calls
         * each, not measured) */
        JD_NVML_CHEAP = 1u << 1,
        JD_NVML_ENERGY = 1u << 2,     /* the energy counter: ~4 ms of CPU */
        JD_NVML_PCIE = 1u << 3,       /* rx and tx: ~0.8 ms of CPU and ~21 ms of waiting each */
        /* each process's SM use, ~2 ms: with CHEAP, only while a process
         * is listed and only for the listed ones; without CHEAP, every
         * process NVML has a sample for */
        JD_NVML_PROCESS_SM = 1u << 4,
        /* NVLink's counters, all links and each: one or two
         * nvmlDeviceGetFieldValues calls (cost assumed, not measured:
         * read with the costly parts, which a counter allows at no loss,
         * its rate being the mean since the read before) */
        JD_NVML_NVLINK = 1u << 5,
        /* memory temperature (nvmlDeviceGetFieldValues), the PCIe replay
         * counter and the XID events that came since the read before
         * (nvmlEventSetWait_v2 with timeout 0, never waiting): cost not
         * measured, read with the costly parts, as an exporter scraping
         * every 15-30 s wants them; an XID is counted whenever it is read */
        JD_NVML_HEALTH = 1u << 6,
        /* GPM's tensor, graphics and DRAM activity: a sample per read
         * (cost not measured), the metrics over the time since the read
         * before, so read with the costly parts, at their period */
        JD_NVML_GPM = 1u << 7,
        /* ECC, persistence, compute and display modes and, with ECC on,
         * the ECC error counts: they change only when an administrator
         * says so (nvidia-smi -e, -pm, -c) or on a memory error, so read
         * with the costly parts (cost not measured on a real driver) */
        JD_NVML_MODES = 1u << 8,
        JD_NVML_ALL = (1u << 9) - 1,
};
/* Reads the PARTS of GPU INDEX into OUT, as jd_nvml_read_gpu (which reads
 * JD_NVML_ALL); values of the other parts are absent. */
/* How long a GPU's MIG mode, as last asked, is taken as true (it changes
 * only with a GPU reset), and a NOT_SUPPORTED answer. */
#define JD_NVML_RECHECK_US 10000000ull
bool jd_nvml_read_parts(jd_nvml *n, unsigned index, unsigned parts, jd_nvml_gpu *out);
/* Copies into DST the values of PARTS (JD_NVML_CONSTANTS, JD_NVML_ENERGY,
 * JD_NVML_PCIE, JD_NVML_NVLINK with its rates, JD_NVML_HEALTH, JD_NVML_GPM,
 * JD_NVML_MODES, JD_NVML_PROCESS_SM: the SM, memory bandwidth, encoder
 * and decoder use of each of DST's processes that SRC has)
 * that SRC holds, for a read of the cheap part completed
 * with the others' latest. */
void jd_nvml_gpu_merge(jd_nvml_gpu *dst, const jd_nvml_gpu *src, unsigned parts);
/* The NVLink rates from PREV's counters to CUR's, bytes/s: present where
 * both reads have the counter, time went forward and the counter did not
 * go back (a driver reload restarts it). */
void jd_nvml_nvlink_rates(const jd_nvlink_counters *prev, const jd_nvlink_counters *cur, jd_nvlink_rates *out);
/* OUT's process list, which jd_nvml_read_gpu allocates, freed (OUT keeps
 * its values, with no processes). Every read is followed by one. */
void jd_nvml_gpu_clear(jd_nvml_gpu *out);
/* DST as SRC, with a process list of its own; false (DST without
 * processes) when out of memory. */
bool jd_nvml_gpu_copy(jd_nvml_gpu *dst, const jd_nvml_gpu *src);
/* The keys (the part after "dgpu.N.") of the values an UNSUPPORTED mask
 * (jd_nvml_gpu.unsupported) names, into OUT (at most MAX); returns how
 * many. */
size_t jd_nvml_unsupported_keys(unsigned unsupported, const char **out, size_t max);
/* A compute mode's name: "default", "exclusive_thread",
 * "prohibited", "exclusive_process"; "" for another number. */
const char *jd_nvml_compute_mode_name(unsigned long long mode);
/* The NVML device that is the SoC's own GPU, by name: Thor's "NVIDIA
 * Thor", JetPack 7.2's "... (nvgpu)". */
bool jd_nvml_is_integrated(const char *name);

/* Adds G's processes to *USERS (N of them, *CAP allocated, grown as
 * needed), each PID once with its memory summed over the GPUs; returns
 * the new N. */
size_t jd_nvml_add_gpu_users(jd_gpu_user **users, size_t *cap, size_t n, const jd_nvml_gpu *g);
