/* Integration test harness: a private system bus with the project's
 * policy enforced, a writable copy of a fake board, and jetsond serving
 * it (../shared/testing-on-a-private-bus.md). Nothing on the host is
 * touched; every process started is recorded and stopped by PID. */
#pragma once

#include <glib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <systemd/sd-bus.h>

typedef struct {
        char *dir;            /* private directory: bus socket, config, logs */
        char *address;
        GPid bus_pid;
        char *root;           /* the board's sysroot copy */
        GPid daemon_pid;
        char *daemon_log;
        GPid simulator_pid;
        GPid mock_pids[4];    /* python-dbusmock templates */
        size_t n_mocks;
        GPid slowfs_pid;      /* tests/fuse/slowfs over the board copy */
        char *slowfs_mount;
        char *slowfs_control;
} testbus;

/* Starts a bus (DBUS_SYSTEM_BUS_ADDRESS is set to it for this process and
 * its children). EXTRA_CONF is inserted into the bus configuration
 * (NULL for none). */
testbus *testbus_new(const char *extra_conf);
/* Copies BOARD into tb->root with tests/fixtures/make-sysroot.sh. */
void testbus_make_root(testbus *tb, const char *board);
/* Brings tb->root to life with tests/fixtures/simulate.py (counters
 * advance, temperatures drift) until testbus_free(). */
void testbus_start_simulator(testbus *tb);
/* One step of simulate.py on tb->root with EXTRA arguments (NULL-terminated:
 * "--oc-events", "2=3", "--cap", "gpu-throttle-alert=1", ...), waited for. */
void testbus_simulate_once(testbus *tb, const char *const *extra);
/* Whether FUSE can be used here (/dev/fuse exists). */
bool testbus_have_fuse(void);
/* Mounts tests/fuse/slowfs over tb->root and makes the mount tb->root
 * (the simulator, started before, goes on writing the copy beneath).
 * testbus_slowfs_rule() sets its rules: FILE "delay" or "block", TEXT
 * the whole rule file ("" clears it). */
void testbus_mount_slowfs(testbus *tb);
void testbus_slowfs_rule(testbus *tb, const char *file, const char *text);
/* Starts jetsond on tb->root with the extra arguments (NULL-terminated)
 * and waits until it owns its name. */
void testbus_start_daemon(testbus *tb, const char *const *args);
/* SIGTERM, then the daemon's exit status as waitpid() gives it. */
int testbus_stop_daemon(testbus *tb);
/* Stops what is still running and removes the directory. */
void testbus_free(testbus *tb);

/* For cmocka tests: a bus, a copy of BOARD and jetsond with ARGS, kept in
 * *STATE so that testbus_teardown() stops everything even when an
 * assertion ends the test early. */
testbus *testbus_start(void **state, const char *board, const char *const *args);
/* SIGTERM must end jetsond cleanly: exit status 0. */
void testbus_stop_cleanly(testbus *tb);
int testbus_teardown(void **state);

/* A new client connection to the private bus. */
sd_bus *testbus_connect(void);
/* Processes messages on BUS for up to TIMEOUT_US or until *DONE. */
void testbus_pump(sd_bus *bus, uint64_t timeout_us, const bool *done);
/* Runs a command (argv) with a timeout in seconds; returns its exit
 * status and its stdout in *out (g_free). */
int testbus_run(const char *const *argv, char **out);

uint64_t testbus_now_us(void);

/* Property getters that fail the test on any error. */
char *testbus_get_string(sd_bus *bus, const char *path, const char *iface, const char *prop);
uint64_t testbus_get_u64(sd_bus *bus, const char *path, const char *iface, const char *prop);
/* Matches jetsond's Metrics signal MEMBER on BUS: for "SampleAt" and
 * "ValuesAt", the stream of PERIOD_US only (its arg0); the handler calls
 * testbus_skip_period() first. */
int testbus_match_metrics(sd_bus *bus, sd_bus_slot **slot, const char *member, uint64_t period_us,
                          sd_bus_message_handler_t handler, void *userdata);
/* Reads past the period of a SampleAt or ValuesAt message (nothing for
 * Sample), so that its timestamp comes next. */
void testbus_skip_period(sd_bus_message *m);
uint32_t testbus_get_u32(sd_bus *bus, const char *path, const char *iface, const char *prop);
bool testbus_get_bool(sd_bus *bus, const char *path, const char *iface, const char *prop);

/* python-dbusmock: TEMPLATE ("polkitd", "systemd") on the test bus, as
 * root (the test bus policy lets root own their names), until
 * testbus_free(); waits until it owns BUS_NAME. Its log is
 * tb->dir/mock-TEMPLATE.log. */
void testbus_start_mock(testbus *tb, const char *template, const char *bus_name);
/* A method of the mock's org.freedesktop.DBus.Mock interface, e.g.
 * testbus_mock_call(TESTBUS_POLKIT_NAME, TESTBUS_POLKIT_PATH, "SimulateHang", "b", 1). */
void testbus_mock_call(const char *bus_name, const char *path, const char *method, const char *types, ...);

#define TESTBUS_POLKIT_NAME "org.freedesktop.PolicyKit1"
#define TESTBUS_POLKIT_PATH "/org/freedesktop/PolicyKit1/Authority"
#define TESTBUS_SYSTEMD_NAME "org.freedesktop.systemd1"
#define TESTBUS_SYSTEMD_PATH "/org/freedesktop/systemd1"

/* The polkitd mock, allowing exactly ALLOWED (NULL-terminated, NULL for
 * none); every caller gets the same answer (it ignores the subject). */
void testbus_start_polkit(testbus *tb, const char *const *allowed);
/* Replaces the allow-list. */
void testbus_polkit_allow(const char *const *actions);

/* A file of the board copy, "<missing>" if it cannot be read (g_free). */
char *testbus_root_file(testbus *tb, const char *rel);
/* Calls METHOD on jetsond from a new connection; returns the error name
 * ("" on success, g_free). MESSAGE (may be NULL) receives the error
 * message ("" on success, g_free). */
char *testbus_call(char **message, const char *path, const char *iface, const char *method, const char *types, ...);
/* The same, failing the test (with the error) unless the call succeeds. */
void testbus_must_call(const char *path, const char *iface, const char *method, const char *types, ...);

/* A call whose answer is awaited later, on a connection of its own. */
typedef struct {
        sd_bus *bus;
        bool done;
        char *error;                  /* the error name, "" for success */
} testbus_pending;

testbus_pending *testbus_call_start(const char *path, const char *iface, const char *method, const char *types, ...);
/* Waits up to 30 s for the answer; returns its error name ("" for success). */
const char *testbus_call_finish(testbus_pending *p);
void testbus_pending_free(testbus_pending *p);

/* The words of the environment variable ENV (e.g. "valgrind --quiet"),
 * shell-split, appended to ARGV: a tool to run the program under. */
void testbus_add_wrapper(GPtrArray *argv, const char *env);
/* The daemon runs under JETSOND_TEST_WRAPPER (valgrind): timings do not hold. */
bool testbus_daemon_wrapped(void);

/* For write tests: a bus, a copy of BOARD, the polkitd mock allowing
 * ALLOWED, python-dbusmock's systemd with UNIT running unless UNIT is
 * NULL, and jetsond; in *STATE for testbus_teardown(). */
testbus *testbus_start_with_mocks(void **state, const char *board, const char *const *allowed, const char *unit);

/* python-dbusmock's systemd with UNIT loaded and running (as on a booted
 * JetPack 5/6 board) and a Subscribe() like the real one; its call log
 * starts empty. */
void testbus_start_systemd(testbus *tb, const char *unit);
/* StartUnit/StopUnit (METHOD) of UNIT on the systemd mock, as
 * `systemctl start/stop` would do behind jetsond's back. */
void testbus_systemd_job(const char *method, const char *unit);
/* The mock's record of StartUnit/StopUnit ("Method unit"), Enable/
 * DisableUnitFiles ("Method unit...") and Reload calls, one per line;
 * CLEAR empties the record afterwards. */
char *testbus_systemd_unit_calls(bool clear);
