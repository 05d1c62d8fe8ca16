/* JetsonClocks.OnBoot means "at boot" (introspection/ JetsonClocks.xml):
 * SetOnBoot enables or disables jetsond.service through systemd's D-Bus
 * API (dbusmock's systemd here), saves the setting only once systemd
 * agreed, and a jetsond started later than BootDelaySec + BootGraceSec
 * after boot leaves the clocks alone. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "testbus.h"

#define BOARD "orin-nano-jp62"           /* up 12345 s (proc/uptime) */
#define STATE "var/lib/jetsond/jetson-clocks.state"
#define CALLS ".fake/calls.log"

static const char *const allowed[] = { JD_ACTION_SET_JETSON_CLOCKS, NULL };

/* A JetsonClocks property, on a connection of its own. */
static bool get_bool(const char *prop)
{
        sd_bus *bus = testbus_connect();
        bool v = testbus_get_bool(bus, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, prop);
        sd_bus_flush_close_unref(bus);
        return v;
}

static char *daemon_log(testbus *tb)
{
        char *log = NULL;
        assert_true(g_file_get_contents(tb->daemon_log, &log, NULL, NULL));
        return log;
}

static void test_enables_and_disables_the_unit(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, BOARD, allowed, "nvfancontrol.service");
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", "b", 1);
        g_autofree char *on = testbus_systemd_unit_calls(true);
        assert_string_equal(on, "EnableUnitFiles jetsond.service\nReload\n");
        assert_true(get_bool("OnBoot"));
        g_autofree char *saved = testbus_root_file(tb, STATE);
        assert_string_equal(saved, "[JetsonClocks]\nOnBoot=true\n");

        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", "b", 0);
        g_autofree char *off = testbus_systemd_unit_calls(true);
        assert_string_equal(off, "DisableUnitFiles jetsond.service\nReload\n");
        assert_false(get_bool("OnBoot"));
        /* The clocks themselves are not touched. */
        assert_false(get_bool("Active"));
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        assert_null(strstr(calls, "jetson_clocks"));
        testbus_stop_cleanly(tb);
}

/* systemd refuses: the call fails with its message, nothing is saved. */
static void test_systemd_refusal_saves_nothing(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, BOARD, allowed, "nvfancontrol.service");
        testbus_mock_call("org.freedesktop.systemd1", "/org/freedesktop/systemd1", "AddMethod", "sssss",
                          "org.freedesktop.systemd1.Manager", "EnableUnitFiles", "asbb", "ba(sss)",
                          "raise dbus.exceptions.DBusException('Unit file jetsond.service does not exist.', "
                          "name='org.freedesktop.systemd1.NoSuchUnit')");
        g_autofree char *message = NULL;
        g_autofree char *err = testbus_call(&message, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", "b", 1);
        assert_string_equal(err, JD_ERROR_FAILED);
        assert_string_equal(message, "systemd could not enable jetsond.service: Unit file jetsond.service does not "
                                     "exist.");
        assert_false(get_bool("OnBoot"));
        g_autofree char *saved = testbus_root_file(tb, STATE);
        assert_string_equal(saved, "<missing>");
        testbus_stop_cleanly(tb);
}

/* No systemd on the bus: saved, and the log says the unit was left. */
static void test_without_systemd(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, BOARD);
        testbus_start_polkit(tb, allowed);
        testbus_start_daemon(tb, NULL);
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", "b", 1);
        assert_true(get_bool("OnBoot"));
        g_autofree char *log = daemon_log(tb);
        assert_non_null(strstr(log, "systemd is not on the bus: jetsond.service is not enabled; OnBoot applies when "
                                    "jetsond is started at boot"));
        assert_non_null(strstr(log, "jetson_clocks on boot: yes (jetsond.service left as it is)"));
        testbus_stop_cleanly(tb);
}

/* A root where OnBoot was set, and jetsond's configuration CONF. */
static testbus *start_with_on_boot(void **state, const char *conf)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, BOARD);
        g_autofree char *lib = g_build_filename(tb->root, "var/lib/jetsond", NULL);
        g_autofree char *etc = g_build_filename(tb->root, "etc/jetsond", NULL);
        assert_int_equal(g_mkdir_with_parents(lib, 0700), 0);
        assert_int_equal(g_mkdir_with_parents(etc, 0755), 0);
        fixture_write_str(tb->root, STATE, "[JetsonClocks]\nOnBoot=true\n");
        if (conf)
                fixture_write_str(tb->root, "etc/jetsond/jetsond.conf", conf);
        testbus_start_daemon(tb, NULL);
        return tb;
}

static void test_applied_within_the_grace(void **state)
{
        testbus *tb = start_with_on_boot(state, "[JetsonClocks]\nBootDelaySec=1\nBootGraceSec=86400\n");
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        while (!get_bool("Active") && testbus_now_us() < deadline)
                g_usleep(100000);
        assert_true(get_bool("Active"));
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        assert_non_null(strstr(calls, "jetson_clocks"));
        g_autofree char *log = daemon_log(tb);
        assert_non_null(strstr(log, "jetson_clocks applied at boot"));
        testbus_stop_cleanly(tb);
}

/* Up 12345 s, later than the default 60 + 300 s: not "at boot". */
static void test_not_applied_later(void **state)
{
        testbus *tb = start_with_on_boot(state, NULL);
        sleep(2);
        assert_false(get_bool("Active"));
        assert_true(get_bool("OnBoot"));
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        assert_true(strcmp(calls, "<missing>") == 0 || !strstr(calls, "jetson_clocks"));
        g_autofree char *log = daemon_log(tb);
        assert_non_null(strstr(log, "jetson_clocks at boot not applied: jetsond started 12345 s after boot, later "
                                    "than [JetsonClocks] BootDelaySec + BootGraceSec (360 s)"));
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_enables_and_disables_the_unit, testbus_teardown),
                cmocka_unit_test_teardown(test_systemd_refusal_saves_nothing, testbus_teardown),
                cmocka_unit_test_teardown(test_without_systemd, testbus_teardown),
                cmocka_unit_test_teardown(test_applied_within_the_grace, testbus_teardown),
                cmocka_unit_test_teardown(test_not_applied_later, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
