/* Fan speed and profile (jetson-hardware.md §7).
 *
 * JetPack 5+: nvfancontrol.service owns the fan and overrides PWM
 * writes, so a fixed speed first stops it ("manual"); a profile change
 * stops it, sets FAN_DEFAULT_PROFILE in /etc/nvfancontrol.conf (atomic,
 * rest of the file byte-identical), removes its cached status (which
 * would otherwise win) and starts it again. JetPack 4: the kernel's
 * temp_control (1 = kernel curve, 0 = manual). A fan with neither takes
 * PWM writes only.
 *
 * No D-Bus here: starting and stopping the service is the caller's
 * (systemd's API, in the bus layer), passed in as SWITCH. */
#pragma once

#include <stdbool.h>

#include "fan.h"
#include "result.h"
#include "sysroot.h"

#define JD_NVFANCONTROL_UNIT "nvfancontrol.service"

/* Starts (START true) or stops the fan service, then calls DONE(result,
 * DONE_DATA) from the main loop. */
typedef void (*jd_fan_service_switch)(bool start, jd_result_fn done, void *done_data, void *switch_data);

typedef struct {
        jd_fan_service_switch run;
        void *data;
} jd_fan_switch;

/* PCT in 0..100 (validated by the caller). */
void jd_fan_set_speed(const jd_sysroot *sr, const jd_fan *fan, double pct, jd_fan_switch sw, jd_result_fn done,
                      void *userdata);
/* PROFILE is one of FAN's profiles (validated by the caller). */
void jd_fan_set_profile(const jd_sysroot *sr, const jd_fan *fan, const char *profile, jd_fan_switch sw,
                        jd_result_fn done, void *userdata);
