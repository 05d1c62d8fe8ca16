/* Power mode changes: `nvpmodel -m ID` and the boot default in
 * /etc/nvpmodel.conf (jetson-hardware.md §8). */
#pragma once

#include <stdbool.h>

#include "config.h"
#include "jetson_clocks_control.h"
#include "nvpmodel.h"
#include "result.h"
#include "sysroot.h"

/* Runs nvpmodel -m ID. If jetson_clocks is active it is restored first
 * and applied again afterwards (a mode change resets the clock limits),
 * putting back the PWM values of FAN_PWMS (as read before the change) as
 * jd_jetson_clocks_set() does. A mode that needs a reboot is declined
 * (stdin closed) and reported as JD_REBOOT_REQUIRED. MODE_NAME is for
 * messages. */
void jd_nvpmodel_set_mode(const jd_sysroot *sr, const jd_config *cfg, unsigned id, const char *mode_name,
                          bool jetson_clocks_active, const jd_fan_pwms *fan_pwms, jd_result_fn done, void *userdata);

/* Rewrites `< PM_CONFIG DEFAULT=n >` in the conf (atomically, the rest of
 * the file byte for byte, in a thread), then discards nvpmodel's saved
 * state; DONE follows from the main loop. */
void jd_nvpmodel_set_default(const jd_sysroot *sr, unsigned id, jd_result_fn done, void *userdata);

/* Removes nvpmodel's status file (fact sheet §8): at boot nvpmodel
 * applies the mode saved there, and the conf's default only without it.
 * The mode it named is noted first (JD_NVPMODEL_RUNNING_NOTE), so the
 * current mode stays known until the reboot. False with RESULT set if the
 * file exists and cannot be removed. */
bool jd_nvpmodel_discard_state(const jd_sysroot *sr, jd_result *result);
