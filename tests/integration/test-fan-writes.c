/* Fan writes: SetSpeed and SetProfile on JetPack 6 (nvfancontrol started
 * and stopped through systemd's D-Bus API, seen here through
 * python-dbusmock's systemd template) and on JetPack 4 (temp_control),
 * with polkit allowing or denying set-fan (python-dbusmock's polkitd). */
#include <math.h>
#include <string.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "testbus.h"
#include "glib-compat.h"

#define FAN0 JD_FAN_PATH_PREFIX "0"
#define UNIT "nvfancontrol.service"
#define AGX_PWM "sys/devices/platform/pwm-fan/hwmon/hwmon3/pwm1"
#define AGX_CONF "etc/nvpower/nvfancontrol/nvfancontrol_p3701_0000.conf"
#define AGX_STATUS "var/lib/nvfancontrol/status"

static const char *const ALL_ACTIONS[] = { JD_ACTION_SET_FAN, JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_JETSON_CLOCKS,
                                           JD_ACTION_MANAGE_SWAP, JD_ACTION_DROP_CACHES, JD_ACTION_READ_SERIAL,
                                           NULL };
static const char *const ALL_BUT_SET_FAN[] = { JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_JETSON_CLOCKS,
                                               JD_ACTION_MANAGE_SWAP, JD_ACTION_DROP_CACHES,
                                               JD_ACTION_READ_SERIAL, NULL };

/* Calls a Fan method on fan 0; the error name, "" on success. */
#define call(method, ...) testbus_call(NULL, FAN0, JD_IFACE_FAN, method, __VA_ARGS__)

static char *fan_string(const char *prop)
{
        sd_bus *bus = testbus_connect();
        char *v = testbus_get_string(bus, FAN0, JD_IFACE_FAN, prop);
        sd_bus_flush_close_unref(bus);
        return v;
}

static double fan_speed(void)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        double v = -1;
        assert_true(sd_bus_get_property_trivial(bus, JD_BUS_NAME, FAN0, JD_IFACE_FAN, "Speed", &e, 'd', &v) >= 0);
        sd_bus_flush_close_unref(bus);
        return v;
}

/* Waits (up to 30 s: only a stall takes that long) until the fan's Profile is WANT: the unit state
 * reaches jetsond asynchronously. */
static void wait_profile(const char *want)
{
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        for (;;) {
                g_autofree char *now = fan_string("Profile");
                if (strcmp(now, want) == 0)
                        return;
                if (testbus_now_us() > deadline)
                        fail_msg("Profile is \"%s\", expected \"%s\"", now, want);
                g_usleep(20000);
        }
}

/* ---- JetPack 6: nvfancontrol ----------------------------------------- */

static void test_profile_switch_restarts_nvfancontrol(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "agx-orin-jp62", ALL_ACTIONS, UNIT);
        wait_profile("cool");
        g_autofree char *conf_before = testbus_root_file(tb, AGX_CONF);

        g_autofree char *err = call("SetProfile", "s", "quiet");
        assert_string_equal(err, "");

        g_autofree char *calls = testbus_systemd_unit_calls(false);
        assert_string_equal(calls, "StopUnit " UNIT "\nStartUnit " UNIT "\n");
        /* Exactly the one value changed; every other byte as it was. */
        g_autofree char *conf_after = testbus_root_file(tb, AGX_CONF);
        g_autoptr(GString) expected = g_string_new(conf_before);
        assert_int_equal(test_string_replace(expected, "FAN_DEFAULT_PROFILE cool", "FAN_DEFAULT_PROFILE quiet", 0), 1);
        assert_string_equal(conf_after, expected->str);
        /* The link stays a link; its target got the new text. */
        g_autofree char *link = g_build_filename(tb->root, "etc/nvfancontrol.conf", NULL);
        assert_true(g_file_test(link, G_FILE_TEST_IS_SYMLINK));
        /* The cached state would win over the new default. */
        g_autofree char *status = testbus_root_file(tb, AGX_STATUS);
        assert_string_equal(status, "<missing>");
        g_autofree char *profile = fan_string("Profile");
        assert_string_equal(profile, "quiet");
        /* nvfancontrol's profile is its FAN_DEFAULT_PROFILE. */
        g_autofree char *def = fan_string("DefaultProfile");
        assert_string_equal(def, "quiet");
        testbus_stop_cleanly(tb);
}

static void test_manual_profile_only_stops(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "agx-orin-jp62", ALL_ACTIONS, UNIT);
        wait_profile("cool");
        g_autofree char *conf_before = testbus_root_file(tb, AGX_CONF);
        g_autofree char *err = call("SetProfile", "s", "manual");
        assert_string_equal(err, "");
        g_autofree char *calls = testbus_systemd_unit_calls(false);
        assert_string_equal(calls, "StopUnit " UNIT "\n");
        g_autofree char *conf_after = testbus_root_file(tb, AGX_CONF);
        assert_string_equal(conf_after, conf_before);
        g_autofree char *profile = fan_string("Profile");
        assert_string_equal(profile, "manual");
        g_autofree char *governor = fan_string("Governor");
        assert_string_equal(governor, "");
        testbus_stop_cleanly(tb);
}

static void test_speed_stops_nvfancontrol_first(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "agx-orin-jp62", ALL_ACTIONS, UNIT);
        wait_profile("cool");
        g_autofree char *err = call("SetSpeed", "d", 50.0);
        assert_string_equal(err, "");
        g_autofree char *calls = testbus_systemd_unit_calls(true);
        assert_string_equal(calls, "StopUnit " UNIT "\n");
        g_autofree char *pwm = testbus_root_file(tb, AGX_PWM);
        assert_string_equal(pwm, "127\n");   /* floor(50 * 255 / 100) */
        assert_float_equal(fan_speed(), 127 * 100.0 / 255, 1e-9);
        g_autofree char *profile = fan_string("Profile");
        assert_string_equal(profile, "manual");
        /* What RestoreDefaults goes back to. */
        g_autofree char *def = fan_string("DefaultProfile");
        assert_string_equal(def, "cool");

        /* Already manual: the next speed is a plain write. */
        g_autofree char *err2 = call("SetSpeed", "d", 20.0);
        assert_string_equal(err2, "");
        g_autofree char *calls2 = testbus_systemd_unit_calls(false);
        assert_string_equal(calls2, "");
        g_autofree char *pwm2 = testbus_root_file(tb, AGX_PWM);
        assert_string_equal(pwm2, "51\n");
        testbus_stop_cleanly(tb);
}

static void test_denied_changes_nothing(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "agx-orin-jp62", ALL_BUT_SET_FAN, UNIT);
        wait_profile("cool");
        g_autofree char *conf_before = testbus_root_file(tb, AGX_CONF);
        g_autofree char *err = call("SetSpeed", "d", 80.0);
        assert_string_equal(err, SD_BUS_ERROR_ACCESS_DENIED);
        g_autofree char *err2 = call("SetProfile", "s", "quiet");
        assert_string_equal(err2, SD_BUS_ERROR_ACCESS_DENIED);
        g_autofree char *calls = testbus_systemd_unit_calls(false);
        assert_string_equal(calls, "");
        g_autofree char *pwm = testbus_root_file(tb, AGX_PWM);
        assert_string_equal(pwm, "102\n");
        g_autofree char *conf_after = testbus_root_file(tb, AGX_CONF);
        assert_string_equal(conf_after, conf_before);
        g_autofree char *status = testbus_root_file(tb, AGX_STATUS);
        assert_non_null(strstr(status, "FAN_PROFILE:cool"));
        testbus_stop_cleanly(tb);
}

/* Bad arguments never reach polkit (which allows everything here) or
 * systemd. */
static void test_invalid_arguments(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "agx-orin-jp62", ALL_ACTIONS, UNIT);
        const double bad[] = { -0.5, 100.01, NAN, INFINITY };
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                g_autofree char *err = call("SetSpeed", "d", bad[i]);
                assert_string_equal(err, SD_BUS_ERROR_INVALID_ARGS);
        }
        const char *profiles[] = { "turbo", "", "COOL", "cool ", "temp_control" };
        for (size_t i = 0; i < G_N_ELEMENTS(profiles); i++) {
                g_autofree char *err = call("SetProfile", "s", profiles[i]);
                assert_string_equal(err, SD_BUS_ERROR_INVALID_ARGS);
        }
        g_autofree char *calls = testbus_systemd_unit_calls(false);
        assert_string_equal(calls, "");
        g_autofree char *pwm = testbus_root_file(tb, AGX_PWM);
        assert_string_equal(pwm, "102\n");
        testbus_stop_cleanly(tb);
}

/* Someone runs `systemctl stop nvfancontrol`: the profile is "manual"
 * from then on, announced with PropertiesChanged. */
static int on_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        const char *iface;
        if (sd_bus_message_read(m, "s", &iface) < 0 || strcmp(iface, JD_IFACE_FAN) != 0)
                return 0;
        assert_true(sd_bus_message_enter_container(m, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                const char *name, *value;
                assert_true(sd_bus_message_read(m, "s", &name) > 0);
                if (strcmp(name, "Profile") == 0) {
                        assert_true(sd_bus_message_read(m, "v", "s", &value) > 0);
                        if (strcmp(value, "manual") == 0)
                                *(bool *) userdata = true;
                } else {
                        assert_true(sd_bus_message_skip(m, "v") > 0);
                }
                assert_true(sd_bus_message_exit_container(m) > 0);
        }
        return 0;
}

static void test_outside_stop_means_manual(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "agx-orin-jp62", ALL_ACTIONS, UNIT);
        wait_profile("cool");
        sd_bus *bus = testbus_connect();
        bool manual = false;
        assert_true(sd_bus_match_signal(bus, NULL, JD_BUS_NAME, FAN0, "org.freedesktop.DBus.Properties",
                                        "PropertiesChanged", on_changed, &manual) >= 0);
        testbus_systemd_job("StopUnit", UNIT);
        testbus_pump(bus, 30 * G_USEC_PER_SEC, &manual);
        assert_true(manual);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

/* ---- JetPack 4: temp_control ----------------------------------------- */

static void test_jp4_temp_control(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "nano-jp46", ALL_ACTIONS, NULL);
        g_autofree char *p0 = fan_string("Profile");
        assert_string_equal(p0, "temp_control");

        g_autofree char *err = call("SetSpeed", "d", 20.0);
        assert_string_equal(err, "");
        g_autofree char *tc = testbus_root_file(tb, "sys/devices/pwm-fan/hwmon/hwmon0/temp_control");
        assert_string_equal(tc, "0\n");
        g_autofree char *pwm = testbus_root_file(tb, "sys/devices/pwm-fan/hwmon/hwmon0/target_pwm");
        assert_string_equal(pwm, "51\n");
        g_autofree char *p1 = fan_string("Profile");
        assert_string_equal(p1, "manual");

        g_autofree char *err2 = call("SetProfile", "s", "temp_control");
        assert_string_equal(err2, "");
        g_autofree char *tc2 = testbus_root_file(tb, "sys/devices/pwm-fan/hwmon/hwmon0/temp_control");
        assert_string_equal(tc2, "1\n");
        g_autofree char *p2 = fan_string("Profile");
        assert_string_equal(p2, "temp_control");
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_profile_switch_restarts_nvfancontrol, testbus_teardown),
                cmocka_unit_test_teardown(test_manual_profile_only_stops, testbus_teardown),
                cmocka_unit_test_teardown(test_speed_stops_nvfancontrol_first, testbus_teardown),
                cmocka_unit_test_teardown(test_denied_changes_nothing, testbus_teardown),
                cmocka_unit_test_teardown(test_invalid_arguments, testbus_teardown),
                cmocka_unit_test_teardown(test_outside_stop_means_manual, testbus_teardown),
                cmocka_unit_test_teardown(test_jp4_temp_control, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
