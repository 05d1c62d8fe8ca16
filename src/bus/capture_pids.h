/* OpenCapture's process.PID columns for a caller in another PID
 * namespace (a container): the PIDs its patterns name are its own, the
 * columns it gets back name its own processes, and the processes its
 * namespace cannot see are no columns of it. Placed by caller_ns.c; a
 * caller in jetsond's namespace, or one jetsond cannot see in its /proc,
 * gets the columns as jetsond names them. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "engine.h"
#include "sysroot.h"

typedef struct {
        jd_capture_rates rates;       /* the call's, carried for the answer */
        char **patterns;              /* as the caller gave them */
        /* The same with process.N.* of the caller's N as jetsond's N;
         * NULL where nothing is translated (see translate). */
        char **host_patterns;
        bool translate;               /* the caller is in another namespace, placed */
        GHashTable *to_caller;        /* jetsond's PID -> the caller's + 1 (0: not visible) */
        char *invalid;                /* a pattern names a PID the caller's namespace has not */
} jd_capture_pids;

/* Runs on the main loop with the answer; DONE owns P (free with
 * jd_capture_pids_free). */
typedef void (*jd_capture_pids_done_fn)(sd_bus_message *m, jd_capture_pids *p, void *data);

/* Whether COLUMNS (the resolved keys) hold a process.PID key. */
bool jd_capture_has_process_columns(const GPtrArray *columns);
/* Places M's caller and translates PATTERNS (copied) and the N PIDs of
 * the latest sample (HOST_PIDS), then DONE(DATA). 1, or a negative errno
 * with *ERROR set. */
int jd_capture_pids_start(sd_bus_message *m, const jd_sysroot *sr, const jd_capture_rates *rates, char **patterns,
                          const uint32_t *host_pids, size_t n, jd_capture_pids_done_fn done, void *data,
                          sd_bus_error *error);
/* Leaves out of COLUMNS (resolved from host_patterns) the processes the
 * caller cannot see, and returns the columns as the caller names them (a
 * NULL-terminated array of new strings, as many as COLUMNS keeps). */
char **jd_capture_pids_names(const jd_capture_pids *p, GPtrArray *columns);
void jd_capture_pids_free(jd_capture_pids *p);
