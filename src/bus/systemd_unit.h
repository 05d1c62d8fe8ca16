/* One systemd unit seen through systemd's D-Bus API
 * (org.freedesktop.systemd1.Manager): whether it is active, and starting
 * or stopping it as a job that is waited for. jetsond uses it for
 * nvfancontrol.service, which owns the fan on JetPack 5 and later; going
 * through the API instead of running systemctl keeps the main loop free
 * and gives the job's real result. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "opt.h"
#include "result.h"

typedef struct jd_unit jd_unit;

/* Watches NAME on BUS; CHANGED runs whenever the active state becomes
 * known or changes (also after our own jobs). Jobs time out after
 * TIMEOUT_MS. */
jd_unit *jd_unit_new(sd_bus *bus, const char *name, unsigned timeout_ms, void (*changed)(void *userdata),
                     void *userdata);
void jd_unit_free(jd_unit *u);

/* True/false once systemd answered; absent while unknown (systemd not
 * on the bus, or not asked yet). A unit systemd has not loaded is
 * inactive. */
jd_opt_bool jd_unit_active(const jd_unit *u);

/* StartUnit/StopUnit(NAME, "replace") and waits for the job to be
 * removed: DONE gets JD_OK for result "done", JD_FAILED (with systemd's
 * message or the job result) or JD_TIMEOUT. Always called from the loop,
 * never from inside this call. One job at a time (the caller holds the
 * fan domain lock). */
void jd_unit_run(jd_unit *u, bool start, jd_result_fn done, void *userdata);

/* EnableUnitFiles or DisableUnitFiles of NAME (not at runtime only), then
 * Reload, as "systemctl enable|disable NAME" does. DONE gets JD_OK,
 * JD_FAILED with systemd's message, or JD_NOT_SUPPORTED when systemd is
 * not on the bus; always from the loop. */
void jd_unit_file_set_enabled(sd_bus *bus, const char *name, bool enable, jd_result_fn done, void *userdata);
