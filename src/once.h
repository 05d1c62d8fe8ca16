/* --once: read the board and one complete sample (two readings INTERVAL_MS
 * apart so loads are real), print them, exit. */
#pragma once

#include "sysroot.h"

int jd_run_once(const jd_sysroot *sr, unsigned interval_ms, bool json);
