/* Changes that span jetson_clocks, the fan and nvpmodel, on the AGX Orin
 * with python-dbusmock's polkitd and systemd.
 *
 * Manager.RestoreDefaults: after jetson_clocks on (and on at boot), a
 * manual fan speed and a power mode other than the default, every step
 * runs in order and reports itself (the GPU's 3D scaling and rail gating
 * last, already on here); polkit must allow all four actions before
 * anything changes; a default mode that needs a reboot is not a
 * failure. And NVPModel.SetMode while jetson_clocks is on. */
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "testbus.h"

#define FAN0 JD_FAN_PATH_PREFIX "0"
#define UNIT "nvfancontrol.service"
#define AGX_PWM "sys/devices/platform/pwm-fan/hwmon/hwmon3/pwm1"

static const char *const ALL[] = { JD_ACTION_SET_FAN, JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_JETSON_CLOCKS,
                                   JD_ACTION_SET_GPU, NULL };

/* Away from every default: jetson_clocks on and on at boot, fan at 50 %
 * (manual), power mode MAXN (0) while the default is DEFAULT. */
static void leave_defaults(unsigned default_mode)
{
        /* SetDefaultMode discards nvpmodel's saved mode; SetMode saves it. */
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "u", default_mode);
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 0);
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", "b", 1);
        testbus_must_call(FAN0, JD_IFACE_FAN, "SetSpeed", "d", 50.0);
        g_free(testbus_systemd_unit_calls(true));
}

/* RestoreDefaults: the error name ("" on success) and the step lines. */
static char *restore(char **lines)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_MANAGER, "RestoreDefaults", &e, &reply,
                                   "");
        char *err = g_strdup(r < 0 ? e.name : "");
        *lines = NULL;
        if (r >= 0) {
                char **strv = NULL;
                assert_true(sd_bus_message_read_strv(reply, &strv) >= 0);
                *lines = g_strjoinv("\n", strv);
                g_strfreev(strv);
        } else {
                *lines = g_strdup(e.message);
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return err;
}

/* A JetsonClocks property, on a connection of its own. */
static bool get_bool(const char *prop)
{
        sd_bus *bus = testbus_connect();
        bool v = testbus_get_bool(bus, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, prop);
        sd_bus_flush_close_unref(bus);
        return v;
}

static void test_restores_every_default(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "agx-orin-jp62", ALL, UNIT);
        leave_defaults(3);
        assert_true(get_bool("Active"));

        g_autofree char *lines = NULL;
        g_autofree char *err = restore(&lines);
        assert_string_equal(err, "");
        assert_string_equal(lines, "jetson_clocks: switched off\n"
                                   "jetson_clocks: not switched on at boot\n"
                                   "fan 0 (pwmfan): profile manual -> cool\n"
                                   "nvpmodel: mode 0 (MAXN) -> 3 (MODE_50W)\n"
                                   "gpu (17000000.gpu): 3D scaling already on\n"
                                   "gpu (17000000.gpu): rail gating already on");

        /* Every step is in the log, naming the caller as every write
         * does: its unique name, uid, pid and command (this program). */
        g_autofree char *daemon_log = NULL;
        assert_true(g_file_get_contents(tb->daemon_log, &daemon_log, NULL, NULL));
        g_autofree char *who = g_strdup_printf(", uid %u, pid %d, test-restore)", (unsigned) getuid(), (int) getpid());
        const char *const steps[] = { "jetson_clocks: switched off", "jetson_clocks: not switched on at boot",
                                      "fan 0 (pwmfan): profile manual -> cool", "nvpmodel: mode 0 (MAXN) -> 3 (MODE_50W)" };
        for (size_t i = 0; i < G_N_ELEMENTS(steps); i++) {
                g_autofree char *line = g_strdup_printf("Restore defaults: %s (for :1.", steps[i]);
                const char *at = strstr(daemon_log, line);
                if (!at)
                        fail_msg("no log line \"%s\" in:\n%s", line, daemon_log);
                const char *end = strchr(at, '\n');
                assert_non_null(end);
                g_autofree char *logged = g_strndup(at, (gsize) (end - at));
                if (!g_str_has_suffix(logged, who))
                        fail_msg("\"%s\" does not end in \"%s\"", logged, who);
        }

        assert_false(get_bool("Active"));
        assert_false(get_bool("OnBoot"));
        g_autofree char *state_file = testbus_root_file(tb, "var/lib/jetsond/jetson-clocks.state");
        assert_non_null(strstr(state_file, "OnBoot=false"));
        /* jetsond's unit is disabled as "systemctl disable" would, then
         * nvfancontrol runs again with its default profile. */
        g_autofree char *calls = testbus_systemd_unit_calls(false);
        assert_string_equal(calls, "DisableUnitFiles jetsond.service\nReload\nStopUnit " UNIT "\nStartUnit " UNIT "\n");
        sd_bus *bus = testbus_connect();
        g_autofree char *profile = testbus_get_string(bus, FAN0, JD_IFACE_FAN, "Profile");
        assert_string_equal(profile, "cool");
        assert_int_equal(testbus_get_u32(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), 3);
        sd_bus_flush_close_unref(bus);
        /* jetson_clocks ran --restore before nvpmodel -m, in that order. */
        g_autofree char *log = testbus_root_file(tb, ".fake/calls.log");
        const char *restore_at = strstr(log, "jetson_clocks --restore");
        const char *mode_at = strstr(log, "nvpmodel -m 3");
        assert_non_null(restore_at);
        assert_non_null(mode_at);
        assert_true(restore_at < mode_at);

        /* Nothing left to do: every step says so, nothing runs. */
        g_autofree char *log_before = testbus_root_file(tb, ".fake/calls.log");
        g_autofree char *lines2 = NULL;
        g_autofree char *err2 = restore(&lines2);
        assert_string_equal(err2, "");
        assert_string_equal(lines2, "jetson_clocks: already off\n"
                                    "jetson_clocks: not switched on at boot\n"
                                    "fan 0 (pwmfan): already cool\n"
                                    "nvpmodel: already mode 3 (MODE_50W)\n"
                                    "gpu (17000000.gpu): 3D scaling already on\n"
                                    "gpu (17000000.gpu): rail gating already on");
        g_autofree char *log_after = testbus_root_file(tb, ".fake/calls.log");
        assert_string_equal(log_after, log_before);
        testbus_stop_cleanly(tb);
}

/* Three of the four actions are not enough, whichever is missing. */
static void test_needs_all_four_actions(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "agx-orin-jp62", ALL, UNIT);
        leave_defaults(3);
        g_autofree char *log_before = testbus_root_file(tb, ".fake/calls.log");
        for (size_t missing = 0; missing < 4; missing++) {
                const char *three[4];
                size_t n = 0;
                for (size_t i = 0; i < 4; i++)
                        if (i != missing)
                                three[n++] = ALL[i];
                three[n] = NULL;
                testbus_polkit_allow(three);
                g_autofree char *lines = NULL;
                g_autofree char *err = restore(&lines);
                assert_string_equal(err, SD_BUS_ERROR_ACCESS_DENIED);
        }
        g_autofree char *log_after = testbus_root_file(tb, ".fake/calls.log");
        assert_string_equal(log_after, log_before);
        g_autofree char *calls = testbus_systemd_unit_calls(false);
        assert_string_equal(calls, "");
        assert_true(get_bool("Active"));
        assert_true(get_bool("OnBoot"));
        testbus_stop_cleanly(tb);
}

/* The AGX's shipped default, MODE_30W, has fewer CPUs online than MAXN:
 * nvpmodel wants a reboot, which is reported, not failed. A failing step
 * (jetson_clocks here) does not stop the others, and fails the call. */
static void test_reboot_is_not_failure_but_errors_are(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "agx-orin-jp62", ALL, UNIT);
        leave_defaults(2);
        g_autofree char *lines = NULL;
        g_autofree char *err = restore(&lines);
        assert_string_equal(err, "");
        assert_non_null(strstr(lines, "nvpmodel: mode 0 (MAXN) -> 2 (MODE_30W) (needs a reboot: applies at the next boot)"));
        /* ... because nvpmodel's saved mode is gone. */
        g_autofree char *status = testbus_root_file(tb, "var/lib/nvpmodel/status");
        assert_string_equal(status, "<missing>");

        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        fixture_write_str(tb->root, ".fake/jetson_clocks.fail", "Error: cannot restore\n");
        g_autofree char *lines2 = NULL;
        g_autofree char *err2 = restore(&lines2);
        assert_string_equal(err2, JD_ERROR_FAILED);
        assert_non_null(strstr(lines2, "jetson_clocks: failed: jetson_clocks --restore failed: Error: cannot restore\n"));
        assert_non_null(strstr(lines2, "jetson_clocks: not switched on at boot\n"));
        assert_non_null(strstr(lines2, "nvpmodel: "));
        testbus_stop_cleanly(tb);
}

/* A mode change resets the clock limits: jetson_clocks is restored, the
 * mode set, and jetson_clocks stored (the new mode's limits) and applied
 * again, with the fan's PWM kept throughout. */
static void test_set_mode_with_jetson_clocks_on(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "agx-orin-jp62", ALL, UNIT);
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        g_autofree char *pwm_before = testbus_root_file(tb, AGX_PWM);
        g_autofree char *log_before = testbus_root_file(tb, ".fake/calls.log");
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 3);
        g_autofree char *log_after = testbus_root_file(tb, ".fake/calls.log");
        assert_true(g_str_has_prefix(log_after, log_before));
        assert_string_equal(log_after + strlen(log_before),
                            "jetson_clocks --restore /var/lib/jetsond/l4t_dfs.conf\n"
                            "nvpmodel -m 3\n"
                            "jetson_clocks --store /var/lib/jetsond/l4t_dfs.conf\n"
                            "jetson_clocks\n");
        g_autofree char *pwm_after = testbus_root_file(tb, AGX_PWM);
        assert_string_equal(pwm_after, pwm_before);
        assert_true(get_bool("Active"));
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_restores_every_default, testbus_teardown),
                cmocka_unit_test_teardown(test_needs_all_four_actions, testbus_teardown),
                cmocka_unit_test_teardown(test_reboot_is_not_failure_but_errors_are, testbus_teardown),
                cmocka_unit_test_teardown(test_set_mode_with_jetson_clocks_on, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
