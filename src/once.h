/* --once: read the board and one complete sample (two readings INTERVAL_MS
 * apart so loads are real), print them, exit. */
#pragma once

#include <stdbool.h>

#include "sysroot.h"

/* NVML_LIBRARY: also read the GPUs of this NVML library (NULL: none). */
int jd_run_once(const jd_sysroot *sr, unsigned interval_ms, bool json, const char *nvml_library);
