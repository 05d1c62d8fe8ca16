/* The Metrics interface's Sensors property: every temperature sensor and
 * power rail in the order the hardware lists them, with the hardware's own
 * name, which the flat, sorted sample keys cannot carry. */
#pragma once

#include <systemd/sd-bus.h>

#include "sampler.h"

/* Appends the a(sss) of S's thermal zones, hwmon temperatures and rails. */
int jd_append_sensors(sd_bus_message *m, const jd_sample *s);
