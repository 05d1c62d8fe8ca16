/* One capture stream (Metrics.OpenCapture): fixed-size binary records
 * written to a pipe whose read end the client holds. The fast tier
 * thread adds a record on each of its ticks that is due for this
 * capture and writes them in batches at least every 10 ms; writes never
 * block: a record for which neither the pipe nor the batch has room is
 * dropped and counted in the next one that fits. The format is
 * introspection/capture.md. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "values.h"

#define JD_CAPTURE_MAGIC "JDCAPTUR"
#define JD_CAPTURE_VERSION 1u
/* The column of the ticks the engine missed before each record, there when
 * asked for by this name (introspection/capture.md; JD_CAPTURE_MISSED_TICKS
 * of the public jetsond-dbus.h, which the sampler does not include). */
#define JD_CAPTURE_MISSED_COLUMN "capture.missed_ticks"
/* The value lists a record is built from, in this order: the fast,
 * medium and slow tiers', the cross-tier values (ram.shared), then each
 * NVIDIA GPU's (by NVML index; gpu_poller.h). */
#define JD_CAPTURE_TIER_SOURCES 4
#define JD_CAPTURE_SOURCES (JD_CAPTURE_TIER_SOURCES + JD_MAX_DGPUS)
enum { JD_CAPTURE_SOURCE_FAST, JD_CAPTURE_SOURCE_MEDIUM, JD_CAPTURE_SOURCE_SLOW, JD_CAPTURE_SOURCE_DERIVED };
/* A source's time column: "capture.time.medium", "capture.time.slow",
 * "capture.time.dgpu.N" (JD_CAPTURE_TIME_PREFIX of jetsond-dbus.h). */
#define JD_CAPTURE_TIME_COLUMN_PREFIX "capture.time."

/* One value list as a record is built from it. */
typedef struct {
        const jd_values *values;  /* NULL: none */
        bool fresh;               /* false: stale, its columns are NaN */
        uint64_t seq;             /* differs for each new reading */
        uint64_t time_ns;         /* CLOCK_MONOTONIC when it was read */
        uint64_t period_us;       /* how often the engine reads it */
} jd_capture_source;

typedef struct jd_capture jd_capture;

/* A capture of COLUMNS (copied) every INTERVAL_US from FIRST_DUE_US
 * (CLOCK_MONOTONIC) on; *READ_FD gets the read end (close-on-exec) and
 * the header is already in the pipe. NULL with errno set on failure. */
jd_capture *jd_capture_new(uint64_t interval_us, uint64_t first_due_us, const char *const *columns, size_t n,
                           int *read_fd);
/* The same with the header naming the columns NAMES (as the reader knows
 * them: its own PIDs in process.PID keys), the records still those of
 * COLUMNS. */
jd_capture *jd_capture_new_named(uint64_t interval_us, uint64_t first_due_us, const char *const *columns,
                                 const char *const *names, size_t n, int *read_fd);
/* The capture's own rates for the medium and slow tiers, and so for the
 * NVIDIA GPUs with the medium one (0: every new reading): a tier's
 * reading is taken at most every so often, and its values repeat in
 * between. The engine reads every tier at the rate the fastest request
 * needs; each capture takes what it asked for (capture.md). */
void jd_capture_set_tier_intervals(jd_capture *c, uint64_t medium_us, uint64_t slow_us);
void jd_capture_free(jd_capture *c);
uint64_t jd_capture_interval(const jd_capture *c);
/* Whether a column's name matches the glob PATTERN ("dgpu.*.energy"). */
bool jd_capture_has_column(const jd_capture *c, const char *pattern);

/* For the fast tier: is a record due at the tick of DEADLINE_US, whose
 * reading STARTED_US? If so the capture moves on to its next due time,
 * counting the due times the engine missed before it (capture.md). */
bool jd_capture_take_due(jd_capture *c, uint64_t deadline_us, uint64_t started_us);
/* Builds a record stamped TIME_NS from SOURCES and writes it: each
 * source's columns (and its time column) hold the reading the capture
 * last took from it, NaN while it is stale. */
void jd_capture_write(jd_capture *c, uint64_t time_ns, const jd_capture_source sources[JD_CAPTURE_SOURCES]);
/* The reader closed its end: the capture is over. */
bool jd_capture_ended(const jd_capture *c);
/* Records dropped so far (the reader fell behind). */
uint64_t jd_capture_dropped_total(const jd_capture *c);
