/* No silent caps through the service (issue 31): on a copy of the Orin
 * Nano grown to 40 power modes, 100 thermal zones and 40 swap areas,
 * NVPModel.Modes lists all 40, SetMode of the 40th (past the old cap of
 * 32) runs nvpmodel and Mode follows, a mode that does not exist is still
 * InvalidArgs, GetSnapshot has every zone's key and Memory.Swaps every
 * swap area, and with 20 more PWM fans (the old caps were 4 fans and 4
 * PWMs) each has its Fan object and jetson_clocks puts each one's PWM
 * back; 20 NVIDIA GPUs (the old cap was 16) are all on the bus, and past
 * the driver's 32 the log says "too many". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "snapshot.h"
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
        g_autoptr(testbus_snapshot) snap = testbus_get_snapshot(bus);
        size_t zones = 0;
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, snap->types);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
                int k;
                if (sscanf(key, "temp.extra%d", &k) == 1)
                        zones++;
        }
        printf("figure: GetSnapshot has %zu keys of the 100 added zones\n", zones);
        assert_int_equal(zones, 100);

        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
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

/* A fake NVML file of N GPUs in the test's directory (each a Tesla T4
 * with its own UUID, bus id and temperature); its path. */
static char *many_gpus_file(testbus *tb, unsigned n)
{
        GString *json = g_string_new("{\"devices\": [\n");
        for (unsigned i = 0; i < n; i++)
                g_string_append_printf(json,
                                       "%s{\"name\": \"Tesla T4\", \"uuid\": \"GPU-00000000-0000-0000-0000-%012u\", "
                                       "\"pci_bus_id\": \"00000000:%02X:00.0\", \"temperature\": %u, "
                                       "\"utilization\": {\"gpu\": 5, \"memory\": 1}, \"power_mw\": 27000}\n",
                                       i ? "," : "", i, i + 1, 30 + i);
        g_string_append(json, "]}\n");
        char *path = g_build_filename(tb->dir, "many-gpus.nvml.json", NULL);
        assert_true(g_file_set_contents(path, json->str, -1, NULL));
        g_string_free(json, TRUE);
        return path;
}

/* The distinct N of GetSnapshot's dgpu.N.temp keys, each checked to be
 * its own GPU's 30 + N. */
static size_t snapshot_gpus(sd_bus *bus)
{
        g_autoptr(testbus_snapshot) snap = testbus_get_snapshot(bus);
        size_t n = 0;
        GHashTableIter it;
        gpointer key, value;
        g_hash_table_iter_init(&it, snap->numbers);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                unsigned k;
                int end = 0;
                if (sscanf(key, "dgpu.%u.temp%n", &k, &end) != 1 || ((const char *) key)[end] != '\0')
                        continue;
                assert_true(*(const double *) value == 30.0 + k);
                n++;
        }
        return n;
}

/* N fake GPUs: the GPUs GetSnapshot shows once every one NVML can give
 * was read (deadline 30 s, which only a stall misses), and the
 * DiscreteGpu objects, each with its own bus id. */
static void run_many_gpus(testbus *tb, unsigned n, size_t *in_snapshot, size_t *objects)
{
        testbus_make_root(tb, "x86-pc");
        g_autofree char *nvml = many_gpus_file(tb, n);
        g_setenv("FAKE_NVML_CONFIG", nvml, TRUE);
        testbus_start_daemon(tb, (const char *[]) { "--nvml-library", FAKE_NVML_PATH, NULL });
        sd_bus *bus = testbus_connect();
        size_t expect = n < 32 ? n : 32;
        uint64_t end = testbus_now_us() + 30 * G_USEC_PER_SEC;
        while ((*in_snapshot = snapshot_gpus(bus)) < expect && testbus_now_us() < end)
                g_usleep(100000);
        *objects = 0;
        for (unsigned i = 0; i < n + 1; i++) {
                char path[64];
                snprintf(path, sizeof(path), JD_DGPU_PATH_PREFIX "%u", i);
                sd_bus_error error = SD_BUS_ERROR_NULL;
                char *bus_id = NULL;
                if (sd_bus_get_property_string(bus, JD_BUS_NAME, path, JD_IFACE_DISCRETE_GPU, "PciBusId", &error,
                                               &bus_id) < 0) {
                        sd_bus_error_free(&error);
                        continue;
                }
                char want[32];
                snprintf(want, sizeof(want), "00000000:%02X:00.0", i + 1);
                if (g_ascii_strcasecmp(bus_id, want) != 0)
                        fail_msg("%s: PciBusId %s, not %s", path, bus_id, want);
                (*objects)++;
                free(bus_id);
        }
        sd_bus_flush_close_unref(bus);
        g_unsetenv("FAKE_NVML_CONFIG");
}

/* 20 GPUs, past the old cap of 16: every one in GetSnapshot and on the bus. */
static void test_twenty_gpus(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        size_t in_snapshot, objects;
        run_many_gpus(tb, 20, &in_snapshot, &objects);
        printf("figure: 20 GPUs: %zu in GetSnapshot, %zu DiscreteGpu objects\n", in_snapshot, objects);
        assert_int_equal(in_snapshot, 20);
        assert_int_equal(objects, 20);
        testbus_stop_cleanly(tb);
}

/* 40 GPUs, more than the NVIDIA driver can have (NV_MAX_DEVICES, 32): the
 * first 32 read and the log says so, once. */
static void test_too_many_gpus(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        size_t in_snapshot, objects;
        run_many_gpus(tb, 40, &in_snapshot, &objects);
        printf("figure: 40 GPUs: %zu in GetSnapshot, %zu DiscreteGpu objects\n", in_snapshot, objects);
        assert_int_equal(in_snapshot, 32);
        assert_int_equal(objects, 32);
        /* The main loop logs the poller's lines at its next wake-up. */
        g_autofree char *log = NULL;
        const char *line = NULL;
        for (uint64_t end = testbus_now_us() + 30 * G_USEC_PER_SEC; !line && testbus_now_us() < end;) {
                g_free(log);
                log = NULL;
                assert_true(g_file_get_contents(tb->daemon_log, &log, NULL, NULL));
                line = strstr(log, "NVML: too many GPUs: it lists 40");
                if (!line)
                        g_usleep(100000);
        }
        if (!line)
                fail_msg("no \"too many GPUs\" line in jetsond's log after 30 s:\n%s", log);
        testbus_stop_cleanly(tb);
        g_autofree char *all = NULL;
        assert_true(g_file_get_contents(tb->daemon_log, &all, NULL, NULL));
        const char *first = strstr(all, "too many GPUs");
        assert_null(strstr(first + 1, "too many GPUs"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_fortieth_mode, testbus_teardown),
                cmocka_unit_test_teardown(test_zones_and_swaps, testbus_teardown),
                cmocka_unit_test_teardown(test_many_fan_pwms, testbus_teardown),
                cmocka_unit_test_teardown(test_twenty_gpus, testbus_teardown),
                cmocka_unit_test_teardown(test_too_many_gpus, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
