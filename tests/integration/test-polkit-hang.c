/* While polkit thinks (python-dbusmock's polkitd with SimulateHang, which
 * holds every CheckAuthorization until ReleaseHangingCalls and then
 * answers with the verdict computed when the question arrived):
 * - jetsond keeps serving reads;
 * - a second change to the same resource gets Error.Busy at once;
 * - a caller that leaves before the answer causes no change, no crash,
 *   and no lock left behind;
 * - SIGTERM still ends jetsond cleanly and answers the waiting caller. */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "testbus.h"

/* Orin Nano: modes 0 15W, 1 25W (current), 2 MAXN_SUPER. */
#define BOARD "orin-nano-jp62"
#define NVPMODEL_STATUS "var/lib/nvpmodel/status"
#define CLOCKS_STATE "var/lib/jetsond/jetson-clocks.state"
#define CALLS ".fake/calls.log"
#define MOCK_IFACE "org.freedesktop.DBus.Mock"

static const char *const writes_allowed[] = { JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_JETSON_CLOCKS,
                                              JD_ACTION_READ_SERIAL, NULL };

static bool polkit_holds_calls(void)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int held = 0;
        if (sd_bus_call_method(bus, TESTBUS_POLKIT_NAME, TESTBUS_POLKIT_PATH, MOCK_IFACE, "HaveHangingCalls", &e,
                               &reply, "") < 0)
                fail_msg("HaveHangingCalls: %s", e.message);
        assert_true(sd_bus_message_read(reply, "b", &held) > 0);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return held;
}

static void release_polkit(void)
{
        testbus_mock_call(TESTBUS_POLKIT_NAME, TESTBUS_POLKIT_PATH, "ReleaseHangingCalls", "");
}

/* Until polkit holds a question (jetsond asked it), at most 20 s. */
static void wait_for_polkit_question(void)
{
        uint64_t deadline = testbus_now_us() + 20 * G_USEC_PER_SEC;
        while (!polkit_holds_calls()) {
                if (testbus_now_us() > deadline)
                        fail_msg("jetsond did not ask polkit within 20 s");
                g_usleep(20000);
        }
}

static void wait_for_log(testbus *tb, const char *text)
{
        uint64_t deadline = testbus_now_us() + 20 * G_USEC_PER_SEC;
        for (;;) {
                g_autofree char *log = NULL;
                g_file_get_contents(tb->daemon_log, &log, NULL, NULL);
                if (log && strstr(log, text))
                        return;
                if (testbus_now_us() > deadline)
                        fail_msg("jetsond did not log \"%s\" within 20 s:\n%s", text, log ? log : "");
                g_usleep(20000);
        }
}

/* A GetSnapshot round trip, which must be quick. */
static void snapshot_answers(sd_bus *bus)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        uint64_t t0 = testbus_now_us();
        if (sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetSnapshot", &e, NULL, "") < 0)
                fail_msg("GetSnapshot: %s: %s", e.name, e.message);
        uint64_t took = testbus_now_us() - t0;
        if (took > 5 * G_USEC_PER_SEC)
                fail_msg("GetSnapshot took %" PRIu64 " µs", took);
}

static testbus *start(void **state)
{
        testbus *tb = testbus_start(state, BOARD, NULL);
        testbus_start_polkit(tb, writes_allowed);
        testbus_mock_call(TESTBUS_POLKIT_NAME, TESTBUS_POLKIT_PATH, "SimulateHang", "b", 1);
        return tb;
}

static void test_reads_served_while_polkit_hangs(void **state)
{
        testbus *tb = start(state);
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        testbus_pending *w = testbus_call_start(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 0);
        wait_for_polkit_question();

        sd_bus *reader = testbus_connect();
        for (int i = 0; i < 3; i++) {
                snapshot_answers(reader);
                assert_int_equal(testbus_get_u32(reader, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), 1);
        }
        g_autofree char *model = testbus_get_string(reader, JD_OBJECT_PATH, JD_IFACE_BOARD, "Model");
        assert_string_equal(model, "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super");
        /* Nothing is done before polkit has answered. */
        testbus_pump(w->bus, 0, NULL);
        assert_false(w->done);
        g_autofree char *ran = testbus_root_file(tb, CALLS);
        assert_string_equal(ran, calls);

        release_polkit();
        assert_string_equal(testbus_call_finish(w), "");
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status, "pmode:0000 fmode:quiet\n");
        assert_int_equal(testbus_get_u32(reader, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), 0);
        testbus_pending_free(w);
        sd_bus_flush_close_unref(reader);
        testbus_stop_cleanly(tb);
}

/* A second change to the same resource while the first waits for
 * polkit: Busy at once, without asking polkit (which holds everything). */
static void test_busy_while_waiting(void **state)
{
        testbus *tb = start(state);
        testbus_pending *w = testbus_call_start(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 0);
        wait_for_polkit_question();

        g_autofree char *msg = NULL;
        g_autofree char *err = testbus_call(&msg, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 2);
        assert_string_equal(err, JD_ERROR_BUSY);
        g_autofree char *err2 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "u", 2);
        assert_string_equal(err2, JD_ERROR_BUSY);
        /* SetMode's Busy list also names jetson_clocks changes, and
         * SetActive's names power mode changes: they share the clocks. */
        g_autofree char *err3 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        assert_string_equal(err3, JD_ERROR_BUSY);
        /* An argument error is still InvalidArgs, not Busy. */
        g_autofree char *err4 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 9);
        assert_string_equal(err4, SD_BUS_ERROR_INVALID_ARGS);

        release_polkit();
        assert_string_equal(testbus_call_finish(w), "");
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status, "pmode:0000 fmode:quiet\n");
        testbus_pending_free(w);

        /* The lock went with the answer. */
        testbus_mock_call(TESTBUS_POLKIT_NAME, TESTBUS_POLKIT_PATH, "SimulateHang", "b", 0);
        g_autofree char *err5 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 2);
        assert_string_equal(err5, "");
        testbus_stop_cleanly(tb);
}

static void test_busy_jetson_clocks(void **state)
{
        testbus *tb = start(state);
        testbus_pending *w = testbus_call_start(JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        wait_for_polkit_question();

        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 0);
        assert_string_equal(err, JD_ERROR_BUSY);
        g_autofree char *err2 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 2);
        assert_string_equal(err2, JD_ERROR_BUSY);
        /* Only the power mode is locked by neither: SetOnBoot and
         * SetDefaultMode list no Busy against a jetson_clocks change, so
         * they wait for polkit like anything else. */
        testbus_pending *on_boot = testbus_call_start(JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", "b", 1);
        testbus_pending *def = testbus_call_start(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "u", 2);
        g_usleep(200000);
        testbus_pump(on_boot->bus, 0, NULL);
        testbus_pump(def->bus, 0, NULL);
        assert_false(on_boot->done);
        assert_false(def->done);

        release_polkit();
        assert_string_equal(testbus_call_finish(w), "");
        /* Released before the two later questions reached polkit? Then
         * they are held again: keep releasing until they are answered. */
        uint64_t deadline = testbus_now_us() + 20 * G_USEC_PER_SEC;
        while ((!on_boot->done || !def->done) && testbus_now_us() < deadline) {
                release_polkit();
                testbus_pump(on_boot->bus, 50000, &on_boot->done);
                testbus_pump(def->bus, 50000, &def->done);
        }
        assert_string_equal(testbus_call_finish(on_boot), "");
        assert_string_equal(testbus_call_finish(def), "");
        g_autofree char *saved = testbus_root_file(tb, CLOCKS_STATE);
        assert_string_equal(saved, "[JetsonClocks]\nOnBoot=true\n");
        sd_bus *bus = testbus_connect();
        assert_int_equal(testbus_get_u32(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "DefaultMode"), 2);
        sd_bus_flush_close_unref(bus);
        testbus_pending_free(w);
        testbus_pending_free(on_boot);
        testbus_pending_free(def);
        testbus_stop_cleanly(tb);
}

/* The caller leaves while polkit thinks; polkit then says yes. Nothing
 * may change, and jetsond must go on serving (and unlocked). */
static void leave_while_waiting(testbus *tb, const char *iface, const char *method, const char *types, int arg)
{
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        g_autofree char *saved = testbus_root_file(tb, CLOCKS_STATE);
        testbus_pending *w = testbus_call_start(JD_OBJECT_PATH, iface, method, types, arg);
        wait_for_polkit_question();

        const char *unique = NULL;
        assert_true(sd_bus_get_unique_name(w->bus, &unique) >= 0);
        g_autofree char *name = g_strdup(unique);
        sd_bus_flush_close_unref(w->bus);
        w->bus = NULL;
        /* Once the bus has dropped the name, a call to jetsond is queued
         * behind the NameOwnerChanged it sends jetsond, so jetsond knows. */
        sd_bus *bus = testbus_connect();
        uint64_t deadline = testbus_now_us() + 20 * G_USEC_PER_SEC;
        for (;;) {
                int has = 1;
                sd_bus_message *reply = NULL;
                assert_true(sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                               "org.freedesktop.DBus", "NameHasOwner", NULL, &reply, "s", name) >= 0);
                assert_true(sd_bus_message_read(reply, "b", &has) > 0);
                sd_bus_message_unref(reply);
                if (!has)
                        break;
                assert_true(testbus_now_us() < deadline);
                g_usleep(10000);
        }
        snapshot_answers(bus);

        release_polkit();
        g_autofree char *logged = g_strdup_printf("Caller %s left before polkit answered", name);
        wait_for_log(tb, logged);
        snapshot_answers(bus);
        g_autofree char *calls_after = testbus_root_file(tb, CALLS);
        assert_string_equal(calls_after, calls);
        g_autofree char *status_after = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status_after, status);
        g_autofree char *saved_after = testbus_root_file(tb, CLOCKS_STATE);
        assert_string_equal(saved_after, saved);
        assert_int_equal(testbus_get_u32(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), 1);
        sd_bus_flush_close_unref(bus);
        testbus_pending_free(w);
}

static void test_caller_leaves_while_waiting(void **state)
{
        testbus *tb = start(state);
        leave_while_waiting(tb, JD_IFACE_NVPMODEL, "SetMode", "u", 0);
        leave_while_waiting(tb, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        leave_while_waiting(tb, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", "b", 1);
        leave_while_waiting(tb, JD_IFACE_BOARD, "GetSerialNumber", "", 0);

        /* No lock left behind: the same changes now go through. */
        testbus_mock_call(TESTBUS_POLKIT_NAME, TESTBUS_POLKIT_PATH, "SimulateHang", "b", 0);
        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 0);
        assert_string_equal(err, "");
        g_autofree char *err2 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        assert_string_equal(err2, "");
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status, "pmode:0000 fmode:quiet\n");
        testbus_stop_cleanly(tb);
}

/* SIGTERM while a caller waits for polkit: the caller is told no, nothing
 * is done, and jetsond exits 0. */
static void test_sigterm_while_waiting(void **state)
{
        testbus *tb = start(state);
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        testbus_pending *w = testbus_call_start(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 0);
        wait_for_polkit_question();
        testbus_stop_cleanly(tb);
        assert_string_equal(testbus_call_finish(w), SD_BUS_ERROR_ACCESS_DENIED);
        release_polkit();
        g_autofree char *calls_after = testbus_root_file(tb, CALLS);
        assert_string_equal(calls_after, calls);
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status, "pmode:0001 fmode:quiet\n");
        testbus_pending_free(w);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_reads_served_while_polkit_hangs, testbus_teardown),
                cmocka_unit_test_teardown(test_busy_while_waiting, testbus_teardown),
                cmocka_unit_test_teardown(test_busy_jetson_clocks, testbus_teardown),
                cmocka_unit_test_teardown(test_caller_leaves_while_waiting, testbus_teardown),
                cmocka_unit_test_teardown(test_sigterm_while_waiting, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
