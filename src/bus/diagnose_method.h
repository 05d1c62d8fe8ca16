/* Manager.Diagnose(): what jetsond found of each family of sample keys,
 * and why the rest is missing (src/sampler/diagnose.h computes it). */
#pragma once

#include <systemd/sd-bus.h>

#include "service.h"

/* The method's handler: gathers the latest snapshot's facts on the main
 * loop (no file is read there), computes the records in a worker thread
 * (the tool lookups are file checks) and replies from the main loop. */
int jd_method_diagnose(sd_bus_message *m, jd_service *svc, sd_bus_error *error);
