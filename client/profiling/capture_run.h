/* A capture stream read while a command runs, while a running process
 * does (until it exits), for a time, or until Ctrl-C: what jetsonctl
 * record and measure share. The command gets the
 * write end of a pipe as fd JETSONCTL_MARK_FD; each line it writes there
 * is a sync point (a mark), timed when it arrives. The loop is GLib's, so
 * GSubprocess watches the command; the bus connection only has to stay
 * open (closing it would end the capture). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "capture.h"
#include "jetsonctl.h"

typedef struct {
        uint64_t interval_us;
        uint64_t medium_us, slow_us;  /* the capture's own tier rates; 0: jetsond's */
        char **keys;              /* globs; empty: every numeric key */
        double duration_s;        /* 0: until the command ends or Ctrl-C */
        char **command;           /* NULL or empty: no command */
        /* A running process to follow instead of a command (0: none): the
         * recording ends when it exits, or at Ctrl-C or SIGTERM, which it
         * does not receive. */
        pid_t follow_pid;
} jc_capture_run_spec;

typedef struct {
        /* Once the stream is open and the command started (PID: the
         * command's or the followed process's, 0 without either): time 0
         * is START_NS (CLOCK_MONOTONIC). False stops. */
        bool (*begin)(void *data, const jc_capture *cap, uint64_t start_ns, pid_t pid);
        /* Each record from time 0 on, with the marks that arrived since
         * the one before (NULL-terminated); a mark that came after the
         * last record gets one of its own, every value NaN. False: the
         * recording failed (the hook said why); it stops. */
        bool (*record)(void *data, uint64_t time_ns, const double *values, char *const *marks);
        /* As a mark arrives, before any record carries it. */
        void (*mark)(void *data, uint64_t time_ns, const char *label);
        /* Every TICK_MS while the command or the followed process runs
         * (0: never). */
        void (*tick)(void *data);
        unsigned tick_ms;
        void *data;
} jc_capture_run_hooks;

typedef struct {
        int status;               /* the command's, as a shell gives it (128+signal, 127 not found); 0 when following */
        bool followed_exited;     /* the followed process exited (not Ctrl-C, SIGTERM or --duration) */
        bool failed;              /* the recording failed (its message is printed) */
        uint64_t start_ns, end_ns;  /* time 0 and when the command ended (or the recording did) */
        uint64_t dropped;         /* records jetsond dropped */
        uint64_t missed;          /* ticks the engine missed (a busy machine): gaps in the records' times */
} jc_capture_run_result;

/* Runs it. Returns JC_EXIT_OK or the exit code of a failure before the
 * loop (no capture, a command that cannot start: 127/126). */
int jc_capture_run(jc_ctx *c, const jc_capture_run_spec *spec, const jc_capture_run_hooks *hooks,
                   jc_capture_run_result *result);
