/* Blocking work (a write to a driver that may hang, say) in a GLib worker
 * thread, answered on the main loop within a time limit. A stuck driver
 * blocks that thread only: at the deadline the caller is answered with
 * "timed out" and the thread is left to finish on its own, its outcome
 * dropped. */
#pragma once

#include <glib.h>
#include <stdbool.h>

/* Runs in the worker thread. */
typedef void (*jd_deadline_work)(void *data);

/* Runs on the main loop exactly once: when WORK returned (TIMED_OUT
 * false) or when TIMEOUT_MS passed first (true; WORK still runs, so DATA
 * is still alive but must not be read for WORK's results). */
typedef void (*jd_deadline_done)(bool timed_out, void *data);

/* DATA is freed with FREE_DATA once WORK has returned and DONE has run. */
void jd_run_with_deadline(jd_deadline_work work, jd_deadline_done done, void *data, GDestroyNotify free_data,
                          unsigned timeout_ms);
