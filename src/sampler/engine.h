/* The sampling engine: three tier threads (fast: CPU, GPU, EMC, RAM, up
 * to 1 kHz; medium: rails and engines, up to 100 Hz; slow: thermal,
 * fans, modes, swap, processes, disk, net, up to 10 Hz), each reading on
 * its own CLOCK_MONOTONIC deadlines and publishing finished readings,
 * and the capture streams the fast tier writes. The main loop never
 * reads hardware: it watches jd_engine_event_fd(), takes the events and
 * builds what it publishes from a jd_snapshot of the latest readings.
 *
 * Tier periods follow the requests: the fast tier runs at the fastest of
 * the Sample interval and the captures' intervals (>= 1 ms), the medium
 * tier at that but no faster than 10 ms, the slow tier no faster than
 * 100 ms. A tier whose latest reading is older than max(3 periods, 1 s)
 * is stale: its keys leave the sample until it answers again. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "gpu_poller.h"
#include "opt.h"
#include "reading.h"
#include "sysroot.h"
#include "tier.h"
#include "values.h"

#define JD_FAST_MIN_PERIOD_US 1000u
#define JD_MEDIUM_MIN_PERIOD_US 10000u
#define JD_SLOW_MIN_PERIOD_US 100000u
#define JD_STALE_MIN_US 1000000u
/* The daemon takes its name when every tier has answered once, or after
 * this long without those that have not. */
#define JD_STARTUP_TIMEOUT_US 5000000u
#define JD_MAX_CAPTURES 16
/* Config and state files and the disk's free space are looked at again at
 * most this often, and at once after jd_engine_request() (jd_recheck). */
#define JD_RECHECK_INTERVAL_US 1000000u

enum { JD_TIER_INDEX_FAST, JD_TIER_INDEX_MEDIUM, JD_TIER_INDEX_SLOW, JD_TIER_COUNT };

/* Events for the main loop (jd_engine_take_events). */
enum {
        JD_ENGINE_SAMPLE = 1 << 0,         /* a Sample is due: the fast tier read for its tick */
        JD_ENGINE_CHANGED = 1 << 1,        /* slow readings or limits: properties may have changed */
        JD_ENGINE_ANSWERED = 1 << 2,       /* a first reading or a requested one was published */
        JD_ENGINE_CAPTURE_ENDED = 1 << 3,  /* a capture's reader closed its end */
        JD_ENGINE_MESSAGE = 1 << 4,        /* a line for the log (jd_engine_take_message) */
};

typedef struct jd_sampling_engine jd_sampling_engine;

/* What the main loop publishes from: the latest reading of each tier
 * (references), which are stale, and the sample they make together
 * (parts of a tier that never answered point to empty structs, so
 * properties can always be read). */
typedef struct {
        jd_reading *tier[JD_TIER_COUNT];
        bool stale[JD_TIER_COUNT];
        jd_sample sample;
        jd_values derived;        /* values combining tiers (ram.shared) */
        /* NVML's GPUs (jd_engine_use_nvml), stale as tiers are. */
        jd_gpu_reading *gpu[JD_MAX_DGPUS];
        bool gpu_stale[JD_MAX_DGPUS];
        size_t n_gpu;
} jd_snapshot;

#define JD_SNAPSHOT_MAX_LISTS (JD_TIER_COUNT + 1 + JD_MAX_DGPUS)

/* The periods, leads and extra period the engine gives its tiers when the
 * fast tier is asked to run every FAST_US (bench/engine-floor.c copies the
 * engine's shape with them). */
void jd_engine_timings(uint64_t fast_us, uint64_t epoch, jd_tier_timing out[JD_TIER_COUNT]);

/* Starts the tier threads; they discover their readers and take their
 * first readings at once. NULL when threads cannot be started. */
jd_sampling_engine *jd_engine_new(const jd_sysroot *sr, uint64_t sample_interval_us);
/* Reads NVIDIA GPUs through NVML's LIBRARY too (NULL: the soname), each in
 * a thread of its own (gpu_poller.h). Call once, before snapshots. */
void jd_engine_use_nvml(jd_sampling_engine *e, const char *library);
/* Where NVML stands (gpu_poller.h); false when jetsond reads no NVML
 * (jd_engine_use_nvml was not called: a --sysroot board without
 * --nvml-library). */
bool jd_engine_nvml_status(jd_sampling_engine *e, jd_nvml_status *out);
/* A line for the log from the sampling threads, or NULL; g_free it. */
char *jd_engine_take_message(jd_sampling_engine *e);
/* Stops the threads, waiting at most about a second in all: a thread
 * stuck in a read is left behind (the process is about to exit). */
void jd_engine_free(jd_sampling_engine *e);

int jd_engine_event_fd(const jd_sampling_engine *e);
/* Clears the event fd and returns the JD_ENGINE_* bits since last time. */
unsigned jd_engine_take_events(jd_sampling_engine *e);
/* Every tier has published once, or the startup time is over (NOW). */
bool jd_engine_started(jd_sampling_engine *e, uint64_t now_us);
uint64_t jd_engine_startup_deadline(const jd_sampling_engine *e);

/* The Sample interval (Metrics.Interval). */
void jd_engine_set_sample_interval(jd_sampling_engine *e, uint64_t interval_us);
/* Asks every tier for a reading now, config files looked at anew (after a
 * change jetsond made); returns the generation to wait for. */
uint64_t jd_engine_request(jd_sampling_engine *e);
/* Every tier that is not stale has answered GENERATION. */
bool jd_engine_answered(jd_sampling_engine *e, uint64_t generation, uint64_t now_us);
void jd_engine_set_fan_service_active(jd_sampling_engine *e, jd_opt_bool active);

/* A tier's name ("fast"), what it reads now (NULL between readings) and
 * its period. */
const char *jd_engine_tier_name(const jd_sampling_engine *e, int tier);
const char *jd_engine_tier_stage(jd_sampling_engine *e, int tier);
uint64_t jd_engine_tier_period(jd_sampling_engine *e, int tier);

void jd_snapshot_init(jd_snapshot *s);
void jd_snapshot_clear(jd_snapshot *s);
/* Refreshes S from the latest readings at NOW. */
void jd_engine_snapshot(jd_sampling_engine *e, jd_snapshot *s, uint64_t now_us);
/* The value lists of S's sample, in order (stale tiers and GPUs left
 * out); returns their count (at most JD_SNAPSHOT_MAX_LISTS). */
size_t jd_snapshot_lists(const jd_snapshot *s, const jd_values *lists[JD_SNAPSHOT_MAX_LISTS]);

/* A capture's rates, µs: its records' (>= 1 ms) and how often it takes
 * the medium and slow tiers' readings (0: every new one). They change
 * nothing for other requests: the tiers run at the engine's periods and
 * each capture takes the readings it asked for. */
typedef struct {
        uint64_t interval_us, medium_us, slow_us;
} jd_capture_rates;

/* A capture stream of COLUMNS at RATES, its header naming them NAMES
 * (NULL: COLUMNS); *READ_FD is the client's end. -EBUSY beyond
 * JD_MAX_CAPTURES, other -errno. */
int jd_engine_open_capture(jd_sampling_engine *e, const jd_capture_rates *rates, const char *const *columns,
                           const char *const *names, size_t n, int *read_fd, jd_capture **out);
/* Ends C (its reader sees end of file) and frees it. */
void jd_engine_close_capture(jd_sampling_engine *e, jd_capture *c);
