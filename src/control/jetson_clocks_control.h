/* jetson_clocks on and off (jetson-hardware.md §9). The previous limits
 * are stored in jetsond's state directory, never in $HOME (which the
 * unit hides), and fan PWM values are put back after either direction,
 * since jetson_clocks drives the fan to its maximum. */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "config.h"
#include "opt.h"
#include "result.h"
#include "sysroot.h"

#define JD_JETSON_CLOCKS_STORE JD_STATE_DIR "/l4t_dfs.conf"

/* The fans' PWM files (in-root paths) and the values to put back after
 * jetson_clocks: the caller's latest readings, so that the main loop
 * never reads the fan itself; an absent value is not put back. One per
 * fan with a PWM, however many (issue 31: no silent caps). */
typedef struct {
        char path[256];
        jd_opt_u64 value;
} jd_fan_pwm;

typedef struct {
        size_t n;
        jd_fan_pwm *fan;
} jd_fan_pwms;

/* TO becomes a copy of FROM (NULL: none) of its own. */
void jd_fan_pwms_copy(jd_fan_pwms *to, const jd_fan_pwms *from);
void jd_fan_pwms_clear(jd_fan_pwms *pwms);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(jd_fan_pwms, jd_fan_pwms_clear)

void jd_jetson_clocks_set(const jd_sysroot *sr, const jd_config *cfg, bool on, const jd_fan_pwms *pwms,
                          jd_result_fn done, void *userdata);
