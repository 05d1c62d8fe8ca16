/* Runs the board's tools (nvpmodel, jetson_clocks, mkswap, swapon,
 * swapoff) asynchronously on the GLib main loop: no shell, a fixed argv,
 * stdin closed (so an interactive prompt reads EOF and is declined),
 * stdout and stderr captured together for error messages, and the child
 * killed when it exceeds its time limit. */
#pragma once

#include <stdbool.h>

#include "result.h"
#include "sysroot.h"

typedef struct {
        const char *tool;             /* "nvpmodel" */
        bool started;                 /* false: not found or could not be executed */
        bool timed_out;               /* killed after the time limit */
        bool exited;                  /* exited normally (not by a signal) */
        int exit_status;
        const char *output;           /* stdout + stderr, never NULL */
} jd_tool_result;

typedef void (*jd_tool_done)(const jd_tool_result *result, void *userdata);

/* Looks NAME up in the sysroot's sbin/bin directories and runs it with
 * ARGS (NULL-terminated, without argv[0]). DONE is always called, from
 * the main loop, also when the tool cannot be started. */
void jd_tool_run(const jd_sysroot *sr, const char *name, const char *const *args, unsigned timeout_ms,
                 jd_tool_done done, void *userdata);

/* The last non-empty line of OUTPUT (tools print their error last),
 * without trailing whitespace; g_free. */
char *jd_tool_last_line(const char *output);

/* For a tool whose success is exit status 0: false if R succeeded; else
 * true with OUT set to JD_TIMEOUT ("WHAT did not finish within N s"),
 * JD_NOT_SUPPORTED (the tool is missing) or JD_FAILED ("WHAT failed: "
 * and the tool's last line). */
bool jd_tool_failed(const jd_tool_result *r, const char *what, unsigned timeout_ms, jd_result *out);
