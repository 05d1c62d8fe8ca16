/* jetsond --capture ARCHIVE: jetsond's probe and two samples read through
 * a recording sysroot, and every file, listing and link they touched
 * written as a .tar.gz that `jetsond --sysroot DIR` replays once
 * unpacked (docs/capture.md). */
#pragma once

#include <stdbool.h>

#include "sysroot.h"

typedef struct {
        const char *archive;
        unsigned interval_ms;       /* between the two samples, and the steps of a series */
        unsigned duration_ms;       /* 0: no time series */
        bool redact;
        const char *nvml_library;   /* NULL: no NVML */
} jc_capture_options;

/* Prints the report for an issue on stdout; 0, or 1 with a message on
 * stderr if the archive could not be written (nothing left then), or 2
 * if it was but the probe had no answer within its deadline (a stuck
 * read: the archive holds what was read until then). */
int jc_run_capture(jd_sysroot *sr, const jc_capture_options *o);
