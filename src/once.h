/* --once: read the board and one complete sample (two readings INTERVAL_MS
 * apart so loads are real), print them, exit. */
#pragma once

#include <stdbool.h>

#include "nvml.h"
#include "sampler.h"
#include "sysroot.h"

/* NVML_LIBRARY: also read the GPUs of this NVML library (NULL: none). */
int jd_run_once(const jd_sysroot *sr, unsigned interval_ms, bool json, const char *nvml_library);

/* Every GPU NVML sees, read once (none without NVML), for --once and
 * --capture. */
typedef struct {
        jd_nvml_gpu *gpus;
        unsigned n;
        char cuda[16];                /* the CUDA version the driver supports, "" unknown */
} jd_nvml_reading;

/* LIBRARY NULL: no NVML, no GPUs. */
void jd_nvml_reading_read(jd_nvml_reading *out, const char *library);
/* Their processes join the process reader's, as the daemon's engine
 * passes them. */
void jd_nvml_reading_pass_users(const jd_nvml_reading *nv, jd_sampler *sampler);
void jd_nvml_reading_clear(jd_nvml_reading *nv);
