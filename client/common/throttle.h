/* "Is it throttled, and why": the one line jetsonctl status and top show,
 * made from the summary keys jetsond publishes (throttle.reasons,
 * throttle.oc_events, throttle.ocN.counter, dgpu.N.throttle_reasons,
 * temp_trip.*; docs/throttling.md), so that every view says the same. */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "common/sample.h"

/* "over-current, GPU thermal cap now; 3 over-current events since boot",
 * "none now; 0 over-current events since boot", with "; dGPU 0:
 * sw_power_cap, hw_thermal" per discrete GPU held down and "; oc1 counter
 * went_back" for a counter that could not be trusted, then the zone
 * nearest to a trip point ("; cpu 46.5°C, 52.5°C below its throttle trip
 * 99.0°C", common/trips.h). NULL when the sample
 * has nothing to say (a board that can report no reason). *ACTIVE (may be
 * NULL) tells whether any reason holds now. */
char *jc_throttle_line(const jc_sample *s, bool *active);
/* What holds the clocks down now, short, for a marker: "GPU thermal cap;
 * dGPU 0: sw_power_cap" (the SoC's reasons, then each discrete GPU held
 * down for a reason other than idling); NULL when nothing does. */
char *jc_throttle_now(const jc_sample *s);
/* The reason names of throttle.reasons as people read them ("over-current",
 * "CPU thermal cap", ...); NAME itself for one this client does not know. */
const char *jc_throttle_reason_label(const char *name);
