/* The PID namespace of the process that sent a method call: the bus is
 * asked who sent it (GetConnectionCredentials' ProcessID, a PID of the
 * bus's namespace, jetsond's) without blocking, then /proc is read in a
 * worker thread, never on the main loop (placing a caller in another
 * namespace lists /proc). Used by Metrics.PidsToCaller/PidsFromCaller
 * (pid_methods.c) and by OpenCapture for process.PID columns
 * (capture_pids.c). */
#pragma once

#include <systemd/sd-bus.h>

#include "pidns.h"
#include "sysroot.h"

/* Runs in the worker thread with the caller placed (CALLER) and DATA. */
typedef void (*jd_caller_work_fn)(const jd_sysroot *sr, const jd_pidns_process *caller, void *data);
/* Runs on the main loop afterwards with the call M; ERROR is NULL after
 * WORK ran, else why the caller could not be placed (the message of
 * Error.UnknownProcess: jetsond cannot see it in its /proc, or the bus
 * did not say who called) and WORK did not run. DONE owns DATA. */
typedef void (*jd_caller_done_fn)(sd_bus_message *m, const char *error, void *data);

/* Starts the query for M's sender; 1, or a negative errno with *ERROR set
 * (DATA not taken: the caller frees it). */
int jd_caller_ns_query(sd_bus_message *m, const jd_sysroot *sr, jd_caller_work_fn work, jd_caller_done_fn done,
                       void *data, sd_bus_error *error);
/* At shutdown, before the sysroot and the service go: runs the main loop
 * until every query has finished (answered, or its answer dropped). */
void jd_caller_ns_shutdown(void);
