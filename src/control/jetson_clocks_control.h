/* jetson_clocks on and off (jetson-hardware.md §9). The previous limits
 * are stored in jetsond's state directory, never in $HOME (which the
 * unit hides), and fan PWM values are put back after either direction,
 * since jetson_clocks drives the fan to its maximum. */
#pragma once

#include <stdbool.h>

#include "config.h"
#include "result.h"
#include "sysroot.h"

#define JD_JETSON_CLOCKS_STORE JD_STATE_DIR "/l4t_dfs.conf"

/* PWM_PATHS: in-root PWM files of the fans, whose values are kept. */
void jd_jetson_clocks_set(const jd_sysroot *sr, const jd_config *cfg, bool on, const char *const *pwm_paths,
                          jd_result_fn done, void *userdata);
