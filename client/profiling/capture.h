/* The client's side of Metrics.OpenCapture: opens a capture stream,
 * reads its header (introspection/capture.md) and splits what arrives
 * into records. No parsing of keys: the columns are the daemon's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jetsonctl.h"

typedef struct {
        int fd;                   /* the stream, non-blocking */
        char **columns;           /* NULL-terminated, in record order */
        size_t n_columns;
        uint64_t interval_ns;
        int64_t realtime_offset_ns;
        size_t record_size;
        unsigned char *buf;       /* a partial record carried to the next read */
        size_t buf_len;
        double *values;           /* one record's values, aligned */
        uint64_t dropped;         /* records jetsond dropped, in all */
        /* The stream's capture.missed_ticks column (asked for, kept out of
         * columns and values; -1 from a jetsond without it) and its sum:
         * ticks the engine missed (introspection/capture.md). */
        long missed_column;
        uint64_t missed;
} jc_capture;

/* One record: CLOCK_MONOTONIC ns and one value per column (NaN: absent). */
typedef void (*jc_record_fn)(void *data, uint64_t time_ns, const double *values);

/* OpenCapture(INTERVAL_US, KEYS plus capture.missed_ticks and
 * capture.tier_times; without them from a jetsond that does not know
 * them) and the header; OpenCaptureWithOptions with the medium and slow
 * tiers' rates MEDIUM_US and SLOW_US where either is not 0. The tier time
 * columns (capture.time.*) are columns like the keys'. Prints the error
 * and returns an exit code on failure. */
int jc_capture_open(jc_ctx *c, uint64_t interval_us, uint64_t medium_us, uint64_t slow_us, char **keys,
                    jc_capture *cap);
/* Reads what the stream holds now and hands each whole record to FN.
 * Returns 1 while the stream is open, 0 at its end, -errno on error. */
int jc_capture_read(jc_capture *cap, jc_record_fn fn, void *data);
void jc_capture_close(jc_capture *cap);
