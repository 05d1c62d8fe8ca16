/* Metrics.OpenCapture()'s streams (introspection/capture.md): the columns
 * resolved from the caller's patterns (as its PID namespace names
 * processes: capture_pids.c), the limits per connection, per user
 * (caller_uid.c, [Limits] in jetsond.conf) and in all, and
 * each stream ended when its reader closes it or its owner leaves the
 * bus. */
#pragma once

#include <systemd/sd-bus.h>

#include "service.h"

typedef struct jd_capture_set jd_capture_set;

jd_capture_set *jd_capture_set_new(jd_service *svc);
void jd_capture_set_free(jd_capture_set *set);
/* OpenCapture(PATTERNS) at RATES for M, the rates already checked:
 * answered now or, with process columns, once the caller's namespace is
 * known. A handler's return value. */
int jd_capture_set_open(jd_capture_set *set, sd_bus_message *m, const jd_capture_rates *rates, char **patterns,
                        sd_bus_error *error);
/* Reads OpenCaptureWithOptions()'s options into RATES (the medium and
 * slow tiers' intervals). A negative errno with ERROR set for an unknown
 * option, a wrong type or a value out of range. */
int jd_capture_read_options(sd_bus_message *m, jd_capture_rates *rates, sd_bus_error *error);
/* Ends the streams whose reader closed its end. */
void jd_capture_set_reap(jd_capture_set *set);
