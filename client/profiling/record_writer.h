/* jetsonctl record's output formats: csv (a time_s column, then one per
 * key, then mark: pandas-ready), jsonl (one object per record) and trace
 * (the Chrome Trace Event JSON format: one counter track per key group,
 * marks as instant events; Perfetto UI and chrome://tracing open it).
 * Times are seconds (trace: microseconds) since the recording started. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { JC_RECORD_CSV, JC_RECORD_JSONL, JC_RECORD_TRACE } jc_record_format;

typedef struct jc_record_writer jc_record_writer;

/* "csv", "jsonl" or "trace"; false for anything else. */
bool jc_record_format_parse(const char *name, jc_record_format *out);

/* Writes to OUT (not closed); START_NS is the CLOCK_MONOTONIC time of
 * time 0. The header (csv) or the document's head (trace) is written at once. */
jc_record_writer *jc_record_writer_new(FILE *out, jc_record_format format, char *const *columns, size_t n,
                                       uint64_t start_ns);
/* One record at TIME_NS (CLOCK_MONOTONIC), with the marks (sync points)
 * that came before it and after the previous record (MARKS may be NULL). */
void jc_record_writer_record(jc_record_writer *w, uint64_t time_ns, const double *values, char *const *marks);
/* Ends the document (trace) and flushes. False if any write failed:
 * errno says why. */
bool jc_record_writer_finish(jc_record_writer *w);
/* Set once a write has failed (errno value), 0 while all went well. */
int jc_record_writer_error(const jc_record_writer *w);
void jc_record_writer_free(jc_record_writer *w);
