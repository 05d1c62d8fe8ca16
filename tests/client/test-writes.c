/* jetsonctl's changes going through: with polkit allowing everything
 * (python-dbusmock's polkitd), each command exits 0 and the change is
 * visible afterwards through jetsonctl's own read commands; what jetsond
 * refuses (a mode that needs a reboot) is one line and exit status 1. */
#include <string.h>
#include <unistd.h>

#include "jctest.h"
#include "jetsond-dbus.h"

#define UNIT "nvfancontrol.service"

static const char *const ALL[] = { JD_ACTION_SET_FAN, JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_JETSON_CLOCKS,
                                   JD_ACTION_SET_GPU, JD_ACTION_MANAGE_SWAP, JD_ACTION_DROP_CACHES, JD_ACTION_READ_SERIAL, NULL };

/* `jetsonctl ARGS --json`'s member PATH as text, polled until it is WANT
 * (PropertiesChanged may trail the reply) or 30 s pass (only a stall). */
static void wait_json(const char *cmd, const char *path, const char *want)
{
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        for (;;) {
                g_autofree char *out = jc_ok(cmd, "--json", NULL);
                g_autoptr(JsonNode) j = jc_parse_json(out);
                g_autofree char *got = json_to_string(jc_json_at(j, path), FALSE);
                if (strcmp(got, want) == 0)
                        return;
                if (testbus_now_us() > deadline)
                        fail_msg("jetsonctl %s --json: %s is %s, expected %s", cmd, path, got, want);
                g_usleep(20000);
        }
}

static void test_serial(void **state)
{
        jc_start_with_polkit(state, "agx-orin-jp62", ALL);
        g_autofree char *out = jc_ok("serial", NULL);
        assert_string_equal(out, "1424021012345\n");
        g_autofree char *json = jc_ok("serial", "--json", NULL);
        g_autoptr(JsonNode) j = jc_parse_json(json);
        jc_assert_json_string(j, "serial", "1424021012345");
}

static void test_nvpmodel(void **state)
{
        testbus *tb = jc_start_with_polkit(state, "agx-orin-jp62", ALL);
        /* On the AGX Orin fixture MODE_15W changes the online cores, so
         * nvpmodel wants a reboot: jetsond refuses, the mode stays. */
        jc_result r = jc_run("nvpmodel", "set", "MODE_15W", NULL);
        assert_int_equal(r.status, 1);
        assert_true(g_str_has_prefix(r.err, "jetsonctl: switching power mode: "));
        /* The way forward as a jetsonctl command, not as a D-Bus method. */
        assert_string_equal(r.err, "jetsonctl: switching power mode: mode 1 needs a reboot, nothing changed; make it "
                                   "the boot mode with \"jetsonctl nvpmodel default 1\" and reboot\n");
        assert_int_equal(strchr(r.err, '\n') - r.err, (long) strlen(r.err) - 1); /* one line */
        jc_result_clear(&r);
        wait_json("nvpmodel", "mode", "0");
        /* The current mode again: nothing to do, success. */
        g_autofree char *same = jc_ok("nvpmodel", "set", "MAXN", NULL);
        assert_string_equal(same, "");

        g_autofree char *out = jc_ok("nvpmodel", "default", "MODE_50W", NULL);
        assert_string_equal(out, "");
        wait_json("nvpmodel", "default_mode", "3");
        /* A new default discards nvpmodel's saved mode, but the running
         * mode stays known until the reboot (the contract's Mode). */
        wait_json("nvpmodel", "mode", "0");
        g_autofree char *list = jc_ok("nvpmodel", NULL);
        jc_check_golden("agx-orin-jp62.nvpmodel-new-default", list);
        /* Without jetsond's note either (removed by hand): unknown, and
         * jetsonctl says so. */
        g_autofree char *note = g_build_filename(tb->root, "run/jetsond/nvpmodel-running", NULL);
        assert_int_equal(unlink(note), 0);
        wait_json("nvpmodel", "mode", "null");
        g_autofree char *unknown = jc_ok("nvpmodel", NULL);
        jc_check_golden("agx-orin-jp62.nvpmodel-unknown", unknown);
        g_autofree char *by_id = jc_ok("nvpmodel", "default", "1", NULL);
        assert_string_equal(by_id, ""); /* changes print nothing */
        wait_json("nvpmodel", "default_mode", "1");
        /* Names are matched ignoring case when nothing matches exactly. */
        g_autofree char *by_name = jc_ok("nvpmodel", "default", "mode_30w", NULL);
        assert_string_equal(by_name, ""); /* changes print nothing */
        wait_json("nvpmodel", "default_mode", "2");
        g_autofree char *json = jc_ok("nvpmodel", "default", "MODE_50W", "--json", NULL);
        assert_string_equal(json, "{\"changes\":[{\"what\":\"nvpmodel.default_mode\",\"from\":2,\"to\":3},"
                                  "{\"what\":\"nvpmodel.default_mode_name\",\"from\":\"MODE_30W\",\"to\":\"MODE_50W\"}]}\n");
}

static void test_clocks(void **state)
{
        jc_start_with_polkit(state, "agx-orin-jp62", ALL);
        g_autofree char *on = jc_ok("clocks", "on", NULL);
        assert_string_equal(on, "");
        wait_json("clocks", "active", "true");
        g_autofree char *status = jc_ok("status", NULL);
        assert_non_null(strstr(status, "jetson_clocks on (at boot: off)"));
        g_autofree char *off = jc_ok("clocks", "off", NULL);
        assert_string_equal(off, ""); /* changes print nothing */
        wait_json("clocks", "active", "false");
        g_autofree char *boot = jc_ok("clocks", "boot", "on", NULL);
        assert_string_equal(boot, ""); /* changes print nothing */
        wait_json("clocks", "on_boot", "true");
        g_autofree char *noboot = jc_ok("clocks", "boot", "off", NULL);
        assert_string_equal(noboot, ""); /* changes print nothing */
        wait_json("clocks", "on_boot", "false");

        /* --json: what changed, from what to what; nothing for a no-op. */
        g_autofree char *on_json = jc_ok("clocks", "on", "--json", NULL);
        assert_string_equal(on_json, "{\"changes\":[{\"what\":\"jetson_clocks.active\",\"from\":false,\"to\":true}]}\n");
        g_autofree char *again = jc_ok("clocks", "on", "--json", NULL);
        assert_string_equal(again, "{\"changes\":[]}\n");
}

static void test_drop_caches(void **state)
{
        testbus *tb = jc_start_with_polkit(state, "agx-orin-jp62", ALL);
        g_autofree char *out = jc_ok("drop-caches", NULL);
        assert_string_equal(out, "");
        g_autofree char *written = testbus_root_file(tb, "proc/sys/vm/drop_caches");
        assert_string_equal(g_strstrip(written), "3");
}

/* JetPack 6: nvfancontrol through systemd (python-dbusmock's template). */
static void start_systemd(testbus *tb)
{
        testbus_start_mock(tb, "systemd", TESTBUS_SYSTEMD_NAME);
        testbus_mock_call(TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "AddMockUnit", "s", UNIT);
        testbus_mock_call(TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "AddMethod", "sssss",
                          "org.freedesktop.systemd1.Manager", "Subscribe", "", "", "");
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        if (sd_bus_call_method(bus, TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "org.freedesktop.systemd1.Manager",
                               "StartUnit", &e, NULL, "ss", UNIT, "replace") < 0)
                fail_msg("systemd mock StartUnit: %s", e.message);
        sd_bus_flush_close_unref(bus);
}

static void test_fan_jetpack6(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, "agx-orin-jp62");
        start_systemd(tb);
        testbus_start_polkit(tb, ALL);
        testbus_start_daemon(tb, NULL);
        wait_json("fan", "fans.[0].profile", "\"cool\"");

        g_autofree char *out = jc_ok("fan", "speed", "50", NULL);
        assert_string_equal(out, "");
        /* PWM floor(50 x 255 / 100) = 127 -> 127 x 100 / 255 % */
        wait_json("fan", "fans.[0].profile", "\"manual\"");
        g_autofree char *pwm = testbus_root_file(tb, "sys/devices/platform/pwm-fan/hwmon/hwmon3/pwm1");
        assert_string_equal(g_strstrip(pwm), "127");

        g_autofree char *back = jc_ok("fan", "profile", "pwmfan", "quiet", NULL);
        assert_string_equal(back, ""); /* changes print nothing */
        wait_json("fan", "fans.[0].profile", "\"quiet\"");
}

/* JetPack 4: the kernel's temp_control. */
static void test_fan_jetpack4(void **state)
{
        jc_start_with_polkit(state, "nano-jp46", ALL);
        g_autofree char *out = jc_ok("fan", "speed", "0", "100%", NULL);
        assert_string_equal(out, ""); /* changes print nothing */
        wait_json("fan", "fans.[0].profile", "\"manual\"");
        wait_json("fan", "fans.[0].speed_percent", "100.0");
        g_autofree char *back = jc_ok("fan", "profile", "temp_control", NULL);
        assert_string_equal(back, ""); /* changes print nothing */
        wait_json("fan", "fans.[0].profile", "\"temp_control\"");
}

/* jetsond's one swap file: created with --on-boot, listed (as a file,
 * enabled at boot), removed; removing it again is FileNotFound, exit 1;
 * a size beyond the free disk space is refused by jetsond itself
 * (InvalidArgs), exit 2 like a usage error. */
static void test_swap(void **state)
{
        testbus *tb = jc_start_with_polkit(state, "xavier-nx-jp51", ALL);
        g_autofree char *out = jc_ok("swap", "create", "64M", "--on-boot", NULL);
        assert_string_equal(out, "");
        wait_json("swap", "swaps.[7].path", "\"/var/lib/jetsond/swap/swapfile\"");
        wait_json("swap", "swaps.[7].type", "\"file\"");
        /* /proc/swaps counts the area without its header page: 64 MiB - 4 KiB. */
        wait_json("swap", "swaps.[7].size_bytes", "67104768");
        wait_json("swap", "swaps.[7].on_boot", "true");
        g_autofree char *fstab = testbus_root_file(tb, "etc/fstab");
        assert_non_null(strstr(fstab, "/var/lib/jetsond/swap/swapfile none swap sw 0 0\n"));

        /* The file exists now: Busy, one line, exit 1. */
        jc_result r = jc_run("swap", "create", "64M", NULL);
        assert_int_equal(r.status, 1);
        assert_true(g_str_has_prefix(r.err, "jetsonctl: creating the swap file: "));
        jc_result_clear(&r);

        g_autofree char *removed = jc_ok("swap", "remove", NULL);
        assert_string_equal(removed, "");
        g_autofree char *json = jc_ok("swap", "--json", NULL);
        assert_null(strstr(json, "/var/lib/jetsond/swap/swapfile"));
        g_autofree char *fstab_after = testbus_root_file(tb, "etc/fstab");
        assert_null(strstr(fstab_after, "/var/lib/jetsond/swap/swapfile"));

        r = jc_run("swap", "remove", NULL);
        assert_int_equal(r.status, 1);
        assert_true(g_str_has_prefix(r.err, "jetsonctl: removing the swap file: "));
        assert_string_equal(r.out, "");
        jc_result_clear(&r);

        r = jc_run("swap", "create", "1000T", NULL);
        assert_int_equal(r.status, 2);
        assert_true(g_str_has_prefix(r.err, "jetsonctl: creating the swap file: "));
        assert_int_equal(strchr(r.err, '\n') - r.err, (long) strlen(r.err) - 1);
        jc_result_clear(&r);
}

/* restore after jetson_clocks on (also at boot) and a manual fan speed:
 * one line per step on stdout, and everything back (Nano, JetPack 4:
 * no systemd needed for the fan). */
static void test_restore(void **state)
{
        jc_start_with_polkit(state, "nano-jp46", ALL);
        g_autofree char *a = jc_ok("clocks", "on", NULL), *b = jc_ok("clocks", "boot", "on", NULL);
        g_autofree char *c = jc_ok("fan", "speed", "70", NULL);
        assert_string_equal(a, "");
        assert_string_equal(b, "");
        assert_string_equal(c, "");
        wait_json("clocks", "active", "true");
        wait_json("fan", "fans.[0].profile", "\"manual\"");

        g_autofree char *steps = jc_ok("restore", NULL);
        /* Wording is for people; one line per step, each naming its part. */
        g_auto(GStrv) lines = g_strsplit(steps, "\n", -1);
        assert_true(g_strv_length(lines) >= 4);
        assert_true(g_str_has_prefix(lines[0], "jetson_clocks"));
        assert_non_null(strstr(steps, "fan 0"));
        assert_non_null(strstr(steps, "nvpmodel"));
        wait_json("clocks", "active", "false");
        wait_json("clocks", "on_boot", "false");
        wait_json("fan", "fans.[0].profile", "\"temp_control\"");

        /* Nothing left to restore: every step unchanged. */
        g_autofree char *json = jc_ok("restore", "--json", NULL);
        assert_string_equal(json, "{\"steps\":["
                                  "{\"step\":\"jetson_clocks.active\",\"from\":false,\"to\":false,\"status\":\"unchanged\"},"
                                  "{\"step\":\"jetson_clocks.on_boot\",\"from\":false,\"to\":false,\"status\":\"unchanged\"},"
                                  "{\"step\":\"fan.0.profile\",\"from\":\"temp_control\",\"to\":\"temp_control\","
                                  "\"status\":\"unchanged\"},"
                                  "{\"step\":\"nvpmodel.mode\",\"from\":0,\"to\":0,\"status\":\"unchanged\"},"
                                  "{\"step\":\"gpu.scaling_3d\",\"from\":true,\"to\":true,\"status\":\"unchanged\"},"
                                  "{\"step\":\"gpu.railgate\",\"from\":true,\"to\":true,\"status\":\"unchanged\"}]}\n");
        /* And with something to restore: each step from what to what. */
        g_autofree char *d = jc_ok("clocks", "on", NULL), *e = jc_ok("fan", "speed", "20", NULL);
        assert_string_equal(d, "");
        assert_string_equal(e, "");
        wait_json("fan", "fans.[0].profile", "\"manual\"");
        g_autofree char *changed = jc_ok("restore", "--json", NULL);
        assert_string_equal(changed, "{\"steps\":["
                                     "{\"step\":\"jetson_clocks.active\",\"from\":true,\"to\":false,\"status\":\"changed\"},"
                                     "{\"step\":\"jetson_clocks.on_boot\",\"from\":false,\"to\":false,\"status\":\"unchanged\"},"
                                     "{\"step\":\"fan.0.profile\",\"from\":\"manual\",\"to\":\"temp_control\","
                                     "\"status\":\"changed\"},"
                                     "{\"step\":\"nvpmodel.mode\",\"from\":0,\"to\":0,\"status\":\"unchanged\"},"
                                     "{\"step\":\"gpu.scaling_3d\",\"from\":true,\"to\":true,\"status\":\"unchanged\"},"
                                     /* jetson_clocks on switched rail gating off */
                                     "{\"step\":\"gpu.railgate\",\"from\":false,\"to\":true,"
                                     "\"status\":\"changed\"}]}\n");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_serial, testbus_teardown),
                cmocka_unit_test_teardown(test_nvpmodel, testbus_teardown),
                cmocka_unit_test_teardown(test_clocks, testbus_teardown),
                cmocka_unit_test_teardown(test_drop_caches, testbus_teardown),
                cmocka_unit_test_teardown(test_fan_jetpack6, testbus_teardown),
                cmocka_unit_test_teardown(test_fan_jetpack4, testbus_teardown),
                cmocka_unit_test_teardown(test_swap, testbus_teardown),
                cmocka_unit_test_teardown(test_restore, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
