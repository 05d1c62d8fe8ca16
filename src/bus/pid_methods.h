/* Metrics.PidsToCaller() and Metrics.PidsFromCaller(), answered later
 * (the bus is asked who called, then /proc read in a worker thread):
 * the vtable handlers of metrics_iface.c call these. */
#pragma once

#include <systemd/sd-bus.h>

#include "sysroot.h"

int jd_method_pids_to_caller(sd_bus_message *m, const jd_sysroot *sr, sd_bus_error *error);
int jd_method_pids_from_caller(sd_bus_message *m, const jd_sysroot *sr, sd_bus_error *error);
