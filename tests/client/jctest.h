/* Support for the jetsonctl tests: run the client as a process (stdout,
 * stderr, exit status), compare its output with golden files, and read
 * its JSON. The daemon, bus and mocks come from the service tests'
 * harness (tests/integration/testbus.h). */
#pragma once

#include <json-glib/json-glib.h>

#include "testbus.h"

typedef struct {
        int status;     /* exit status; 128+N if killed by signal N */
        char *out, *err;
        uint64_t usec;  /* wall time from start to exit */
} jc_result;

void jc_result_clear(jc_result *r);

/* Runs jetsonctl ARGS... (NULL-terminated) on the test bus with a 20 s
 * limit; JETSONCTL_TEST_WRAPPER (e.g. valgrind ...) runs it under a tool. */
jc_result jc_run(const char *first, ...) G_GNUC_NULL_TERMINATED;
/* The same with the arguments in a NULL-terminated array. */
jc_result jc_runv(const char *const *args);
/* jc_run that must exit 0 with nothing on stderr; returns stdout (g_free). */
char *jc_ok(const char *first, ...) G_GNUC_NULL_TERMINATED;

/* `sleep SECONDS` in the background, for a test to follow with --pid. Not
 * reaped until the test's waitpid, so its PID cannot be reused meanwhile. */
GPid jc_spawn_sleep(const char *seconds);

/* jetsonctl ARGS... --pid PID (ARGS NULL-terminated) for a PID that is
 * gone, both ways it can be: R[0] while PID is a child that has exited
 * but is not reaped (a zombie, which kill(PID, 0) still finds), R[1] once
 * it is no process at all. Checks that each run exits 1 with the one line
 * that says so; the caller may check more, then clears both. */
void jc_run_pid_gone(const char *const *args, jc_result r[2]);

/* Compares TEXT with tests/client/golden/NAME after masking (see
 * jc_mask()). With JETSONCTL_UPDATE_GOLDEN=1 the file is (re)written
 * instead; review the diff before committing it. */
void jc_check_golden(const char *name, const char *text);
/* The only values the golden files do not fix: the local time at the start
 * of each `watch` line ("12:34:56.789" -> "HH:MM:SS.mmm"). Everything else
 * comes from the fixture and must match exactly. */
char *jc_mask(const char *text);

/* Parses TEXT as one JSON document; fails the test otherwise. */
JsonNode *jc_parse_json(const char *text);
/* The node at a dotted PATH of object members ("board.model"); array
 * elements as "[N]" members ("fans.[0].name"). A path that contains '|'
 * is split at '|' instead, for sample keys with dots of their own
 * ("values|ram.total", or "|fan.0.speed" for a top-level one). Fails the test if absent. */
JsonNode *jc_json_at(JsonNode *root, const char *path);
JsonNode *jc_json_member(JsonNode *object, const char *name);
void jc_assert_json_string(JsonNode *root, const char *path, const char *want);
void jc_assert_json_int(JsonNode *root, const char *path, gint64 want);
void jc_assert_json_double(JsonNode *root, const char *path, double want);
void jc_assert_json_bool(JsonNode *root, const char *path, gboolean want);

/* Starts a bus, a copy of BOARD and jetsond (ARGS), without polkit. */
testbus *jc_start(void **state, const char *board, const char *const *args);
/* The same with the polkitd mock allowing ALLOWED (NULL: nothing). */
testbus *jc_start_with_polkit(void **state, const char *board, const char *const *allowed);

/* tests/client/forking-workload.py in the background, writing into DIR:
 * N children of MEM_MIB, CPU_S and WRITE_MIB each (see the script). Its
 * PID into *PID; jc_workload_end() waits for it and returns the JSON it
 * printed (what it did). */
typedef struct {
        GPid pid;
        int out_fd;
} jc_workload;
jc_workload jc_workload_start(const char *dir, int n, int mem_mib, double cpu_s, int write_mib);
JsonNode *jc_workload_end(jc_workload *w);
