/* Power mode changes: `nvpmodel -m ID` and the boot default in
 * /etc/nvpmodel.conf (jetson-hardware.md §8). */
#pragma once

#include <stdbool.h>

#include "config.h"
#include "result.h"
#include "sysroot.h"

/* Runs nvpmodel -m ID. If jetson_clocks is active it is restored first
 * and applied again afterwards (a mode change resets the clock limits).
 * A mode that needs a reboot is declined (stdin closed) and reported as
 * JD_REBOOT_REQUIRED. MODE_NAME is for messages. */
void jd_nvpmodel_set_mode(const jd_sysroot *sr, const jd_config *cfg, unsigned id, const char *mode_name,
                          bool jetson_clocks_active, jd_result_fn done, void *userdata);

/* Rewrites `< PM_CONFIG DEFAULT=n >` in the conf (atomically, the rest of
 * the file byte for byte). Synchronous: one small local file. */
void jd_nvpmodel_set_default(const jd_sysroot *sr, unsigned id, jd_result *result);
