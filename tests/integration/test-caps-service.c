/* No silent caps through the service (issue 31): on a copy of the Orin
 * Nano grown to 40 power modes, 100 thermal zones and 40 swap areas,
 * NVPModel.Modes lists all 40, SetMode of the 40th (past the old cap of
 * 32) runs nvpmodel and Mode follows, a mode that does not exist is still
 * InvalidArgs, GetSnapshot has every zone's key and Memory.Swaps every
 * swap area, and with 20 more PWM fans (the old caps were 4 fans and 4
 * PWMs) each has its Fan object and jetson_clocks puts each one's PWM
 * back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "testbus.h"

#define BOARD "orin-nano-jp62"
#define NVPMODEL_CONF "etc/nvpmodel/nvpmodel_p3767_0005_super.conf"
#define CALLS ".fake/calls.log"

static void put(testbus *tb, const char *rel, const char *text)
{
        g_autofree char *full = g_build_filename(tb->root, rel, NULL);
        g_autofree char *parent = g_path_get_dirname(full);
        assert_int_equal(g_mkdir_with_parents(parent, 0755), 0);
        assert_true(g_file_set_contents(full, text, -1, NULL));
}

static void append(testbus *tb, const char *rel, const char *text)
{
        g_autofree char *old = testbus_root_file(tb, rel);
        g_autofree char *both = g_strconcat(old, text, NULL);
        put(tb, rel, both);
}

/* The board's four modes, then 36 more (ids 4..39) that change nothing
 * nvpmodel would ask a reboot for. */
static void grow_modes(testbus *tb)
{
        GString *more = g_string_new("");
        for (int id = 4; id < 40; id++)
                g_string_append_printf(more, "< POWER_MODEL ID=%d NAME=EXTRA_%d >\n", id, id);
        append(tb, NVPMODEL_CONF, more->str);
        g_string_free(more, TRUE);
}

static void test_fortieth_mode(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, BOARD);
        grow_modes(tb);
        testbus_start_daemon(tb, NULL);
        const char *allowed[] = { JD_ACTION_SET_NVPMODEL, NULL };
        testbus_start_polkit(tb, allowed);

        sd_bus *bus = testbus_connect();
        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        assert_true(sd_bus_get_property(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Modes", &error, &reply,
                                        "a(us)") >= 0);
        assert_true(sd_bus_message_enter_container(reply, 'a', "(us)") > 0);
        uint32_t id, last_id = 0;
        const char *name, *last_name = NULL;
        size_t n = 0;
        while (sd_bus_message_read(reply, "(us)", &id, &name) > 0) {
                n++;
                last_id = id;
                last_name = name;
        }
        printf("figure: NVPModel.Modes lists %zu modes\n", n);
        assert_int_equal(n, 40);
        assert_int_equal(last_id, 39);
        assert_string_equal(last_name, "EXTRA_39");
        sd_bus_message_unref(reply);

        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 39);
        assert_string_equal(err, "");
        g_autofree char *status = testbus_root_file(tb, "var/lib/nvpmodel/status");
        assert_non_null(strstr(status, "pmode:0039"));
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        assert_non_null(strstr(calls, "nvpmodel -m 39"));
        assert_int_equal(testbus_get_u32(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), 39);
        g_autofree char *mode_name = testbus_get_string(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "ModeName");
        assert_string_equal(mode_name, "EXTRA_39");

        g_autofree char *unknown = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 40);
        assert_string_equal(unknown, SD_BUS_ERROR_INVALID_ARGS);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

/* 100 zones and 40 swap areas: every zone's key in GetSnapshot, every
 * swap in Memory.Swaps. */
static void test_zones_and_swaps(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, BOARD);
        for (int i = 0; i < 100; i++) {
                char rel[96], text[32];
                snprintf(rel, sizeof(rel), "sys/class/thermal/thermal_zone%d/type", 200 + i);
                snprintf(text, sizeof(text), "extra%d-thermal\n", i);
                put(tb, rel, text);
                snprintf(rel, sizeof(rel), "sys/class/thermal/thermal_zone%d/temp", 200 + i);
                put(tb, rel, "42000\n");
        }
        GString *swaps = g_string_new("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
        for (int i = 0; i < 40; i++)
                g_string_append_printf(swaps, "/swap/file%d\tfile\t\t65536\t\t0\t\t-%d\n", i, i + 2);
        put(tb, "proc/swaps", swaps->str);
        g_string_free(swaps, TRUE);
        testbus_start_daemon(tb, NULL);

        sd_bus *bus = testbus_connect();
        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        assert_true(sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetSnapshot", &error,
                                       &reply, "") >= 0);
        uint64_t timestamp;
        assert_true(sd_bus_message_read(reply, "t", &timestamp) >= 0);
        assert_true(sd_bus_message_enter_container(reply, 'a', "{sv}") > 0);
        size_t zones = 0;
        while (sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
                const char *key;
                assert_true(sd_bus_message_read(reply, "s", &key) >= 0);
                int k;
                if (sscanf(key, "temp.extra%d", &k) == 1)
                        zones++;
                assert_true(sd_bus_message_skip(reply, "v") >= 0);
                assert_true(sd_bus_message_exit_container(reply) >= 0);
        }
        sd_bus_message_unref(reply);
        printf("figure: GetSnapshot has %zu keys of the 100 added zones\n", zones);
        assert_int_equal(zones, 100);

        reply = NULL;
        assert_true(sd_bus_get_property(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_MEMORY, "Swaps", &error, &reply,
                                        "a(ssttib)") >= 0);
        assert_true(sd_bus_message_enter_container(reply, 'a', "(ssttib)") > 0);
        size_t n = 0;
        const char *path;
        while (sd_bus_message_enter_container(reply, 'r', "ssttib") > 0) {
                assert_true(sd_bus_message_read(reply, "s", &path) >= 0);
                n++;
                assert_true(sd_bus_message_skip(reply, "sttib") >= 0);
                assert_true(sd_bus_message_exit_container(reply) >= 0);
        }
        sd_bus_message_unref(reply);
        printf("figure: Memory.Swaps lists %zu swap areas\n", n);
        assert_int_equal(n, 40);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

/* 20 more fans named pwmfan (the fake jetson_clocks drives every pwmfan
 * to 255, as the real one drives the board's): each has its Fan object,
 * and after SetActive each PWM is back at its own value. */
static void test_many_fan_pwms(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, BOARD);
        for (int i = 0; i < 20; i++) {
                char rel[96], text[32];
                snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon%d/name", 40 + i);
                put(tb, rel, "pwmfan\n");
                snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon%d/pwm1", 40 + i);
                snprintf(text, sizeof(text), "%d\n", 10 + i);
                put(tb, rel, text);
        }
        testbus_start_daemon(tb, NULL);
        const char *allowed[] = { JD_ACTION_SET_JETSON_CLOCKS, NULL };
        testbus_start_polkit(tb, allowed);

        sd_bus *bus = testbus_connect();
        size_t objects = 0;
        for (int i = 0; i < 64; i++) {
                char path[64];
                snprintf(path, sizeof(path), JD_FAN_PATH_PREFIX "%d", i);
                sd_bus_error error = SD_BUS_ERROR_NULL;
                char *name = NULL;
                if (sd_bus_get_property_string(bus, JD_BUS_NAME, path, JD_IFACE_FAN, "Name", &error, &name) < 0) {
                        sd_bus_error_free(&error);
                        break;
                }
                objects++;
                free(name);
        }
        printf("figure: Fan objects %zu (the board's and 20 added)\n", objects);
        assert_true(objects >= 21);

        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        assert_string_equal(err, "");
        size_t restored = 0;
        for (int i = 0; i < 20; i++) {
                char rel[96], text[32];
                snprintf(rel, sizeof(rel), "sys/class/hwmon/hwmon%d/pwm1", 40 + i);
                snprintf(text, sizeof(text), "%d\n", 10 + i);
                g_autofree char *pwm = testbus_root_file(tb, rel);
                restored += strcmp(pwm, text) == 0;
        }
        printf("figure: PWMs put back after jetson_clocks %zu of 20\n", restored);
        assert_int_equal(restored, 20);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_fortieth_mode, testbus_teardown),
                cmocka_unit_test_teardown(test_zones_and_swaps, testbus_teardown),
                cmocka_unit_test_teardown(test_many_fan_pwms, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
