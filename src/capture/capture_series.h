/* --duration: the files that change, read again every interval for a
 * while after the probe, each step only the files that differ from the
 * step before. Stored in the archive as .capture/series/index ("STEP
 * OFFSET_MS" lines) and .capture/series/STEP/PATH; replayed into an
 * unpacked capture by tests/fixtures/replay-series.py. */
#pragma once

#include "capture_redact.h"
#include "capture_tar.h"
#include "capture_tree.h"

typedef struct {
        GPtrArray *steps;   /* jc_step* */
} jc_series;

void jc_series_init(jc_series *s);
void jc_series_clear(jc_series *s);
/* Reads T's files (not those of processes, which come and go) every
 * INTERVAL_MS for DURATION_MS, as T's root has them now. */
void jc_series_record(jc_series *s, const jc_tree *t, unsigned interval_ms, unsigned duration_ms);
void jc_series_redact(jc_series *s, const jc_redaction *r);
unsigned jc_series_files(const jc_series *s);
bool jc_series_write(const jc_series *s, jc_tar *tar);
