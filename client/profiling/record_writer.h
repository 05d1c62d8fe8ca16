/* jetsonctl record's output formats: csv (a time_s column, the absolute
 * time's unless relative, then one per key, then mark: pandas-ready),
 * jsonl (one object per record) and trace (the Chrome Trace Event JSON
 * format: one counter track per key group, marks as instant events;
 * Perfetto UI and chrome://tracing open it).
 * Times are seconds (trace: microseconds) since the recording started,
 * and in csv and jsonl also absolute (jc_record_time). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { JC_RECORD_CSV, JC_RECORD_JSONL, JC_RECORD_TRACE } jc_record_format;

/* The absolute time csv and jsonl add after time_s: time_unix_s (seconds
 * since the epoch, µs), time_utc (RFC 3339, µs, "Z") or none. */
typedef enum { JC_RECORD_TIME_UNIX, JC_RECORD_TIME_ISO, JC_RECORD_TIME_RELATIVE } jc_record_time;

typedef struct jc_record_writer jc_record_writer;

/* "csv", "jsonl" or "trace"; false for anything else. */
bool jc_record_format_parse(const char *name, jc_record_format *out);
/* "unix", "iso" or "relative"; false for anything else. */
bool jc_record_time_parse(const char *name, jc_record_time *out);

/* Writes to OUT (not closed); START_NS is the CLOCK_MONOTONIC time of
 * time 0, REALTIME_OFFSET_NS the stream header's CLOCK_REALTIME minus
 * CLOCK_MONOTONIC (one pair read when the capture opened: absolute times
 * follow the records' monotonic clock, never an NTP step). The header
 * (csv) or the document's head (trace) is written at once. */
jc_record_writer *jc_record_writer_new(FILE *out, jc_record_format format, jc_record_time time, char *const *columns,
                                       size_t n, uint64_t start_ns, int64_t realtime_offset_ns);
/* One record at TIME_NS (CLOCK_MONOTONIC), with the marks (sync points)
 * that came before it and after the previous record (MARKS may be NULL). */
void jc_record_writer_record(jc_record_writer *w, uint64_t time_ns, const double *values, char *const *marks);
/* Ends the document (trace) and flushes. False if any write failed:
 * errno says why. */
bool jc_record_writer_finish(jc_record_writer *w);
/* Set once a write has failed (errno value), 0 while all went well. */
int jc_record_writer_error(const jc_record_writer *w);
void jc_record_writer_free(jc_record_writer *w);
