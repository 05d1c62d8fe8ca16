/* A Jetson AGX Thor whose GPU is rail-gated: its gpu-thermal zone fails
 * every read with EAGAIN (as on the board while the GPU is idle) and NVML
 * answers little but the GPU's name. jetsond serves every other key, the
 * zone is absent (never an error, never a stale value) for as long as it
 * fails, and both come back when the GPU wakes. The fake board through
 * tests/fuse/slowfs.c (its "error" rule), the fake NVML (tests/fake-nvml)
 * with a file the test rewrites. */
#include <string.h>
#include <unistd.h>

#include "jetsond-dbus.h"
#include "testbus.h"

#define BOARD "agx-thor-jp71"
/* slowfs sees the path the kernel resolved: thermal_zone1 is gpu-thermal. */
#define GPU_ZONE "sys/devices/virtual/thermal/thermal_zone1/temp"

static const char GATED_NVML[] =
        "{\"devices\": [{\"name\": \"NVIDIA Thor\", \"uuid\": \"GPU-7d3e91a4-5c2b-4f80-a6d1-3e9b0c2f4a57\","
        " \"pci_bus_id\": \"00000000:01:00.0\"}]}";

static char *nvml_path;

/* A new inode each time: the fake notices the change at once. */
static void write_nvml(const char *json)
{
        g_autofree char *tmp = g_strconcat(nvml_path, ".new", NULL);
        assert_true(g_file_set_contents(tmp, json, -1, NULL));
        assert_int_equal(rename(tmp, nvml_path), 0);
}

/* The snapshot's numbers (booleans as 0/1) by key. */
static GHashTable *snapshot(sd_bus *bus)
{
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        if (sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetSnapshot", &e, &reply, "") < 0)
                fail_msg("GetSnapshot: %s", e.message);
        GHashTable *values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        uint64_t stamp;
        assert_true(sd_bus_message_read(reply, "t", &stamp) > 0);
        assert_true(sd_bus_message_enter_container(reply, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
                const char *key, *contents;
                char type;
                assert_true(sd_bus_message_read(reply, "s", &key) > 0);
                assert_true(sd_bus_message_peek_type(reply, &type, &contents) > 0);
                double *v = g_new0(double, 1);
                assert_true(sd_bus_message_enter_container(reply, 'v', contents) > 0);
                union { double d; uint32_t u; uint64_t t; int32_t i; int b; const char *s; } x;
                assert_true(sd_bus_message_read_basic(reply, contents[0], &x) > 0);
                switch (contents[0]) {
                case 'd': *v = x.d; break;
                case 'u': *v = x.u; break;
                case 't': *v = (double) x.t; break;
                case 'i': *v = x.i; break;
                case 'b': *v = x.b; break;
                default: *v = 0; break;
                }
                assert_true(sd_bus_message_exit_container(reply) > 0);
                assert_true(sd_bus_message_exit_container(reply) > 0);
                g_hash_table_insert(values, g_strdup(key), v);
        }
        sd_bus_message_unref(reply);
        return values;
}

static double number(GHashTable *s, const char *key)
{
        const double *v = g_hash_table_lookup(s, key);
        if (!v)
                fail_msg("%s is missing", key);
        return *v;
}

/* Polls GetSnapshot until KEY is there (PRESENT) or gone; 30 s, which only
 * a stall needs. */
static GHashTable *wait_key(sd_bus *bus, const char *key, bool present)
{
        for (uint64_t end = testbus_now_us() + 30 * G_USEC_PER_SEC;;) {
                GHashTable *s = snapshot(bus);
                if (g_hash_table_contains(s, key) == present)
                        return s;
                g_hash_table_unref(s);
                if (testbus_now_us() > end)
                        fail_msg("%s still %s after 30 s", key, present ? "absent" : "present");
                g_usleep(50000);
        }
}

static void test_gated_gpu(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        nvml_path = g_build_filename(tb->dir, "nvml.json", NULL);
        write_nvml(GATED_NVML);
        g_setenv("FAKE_NVML_CONFIG", nvml_path, TRUE);
        testbus_make_root(tb, BOARD);
        testbus_mount_slowfs(tb);
        testbus_slowfs_rule(tb, "error", GPU_ZONE " 11\n");
        testbus_start_daemon(tb, (const char *[]) { "--nvml-library", FAKE_NVML_PATH, NULL });
        sd_bus *bus = testbus_connect();

        /* Gated: every other key, the failing zone and NVML's GPU keys
         * absent, over many slow readings (the zone is read each second). */
        for (int i = 0; i < 5; i++) {
                g_autoptr(GHashTable) s = snapshot(bus);
                assert_false(g_hash_table_contains(s, "temp.gpu"));
                assert_false(g_hash_table_contains(s, "gpu.load"));
                assert_false(g_hash_table_contains(s, "gpu.temp"));
                assert_true(number(s, "temp.cpu") == 34.843);
                assert_true(number(s, "temp.tj") == 35.906);
                assert_true(number(s, "gpu.freq") == 1000000);
                assert_true(number(s, "gpu.video_freq") == 1556000);
                assert_true(number(s, "gpu.railgate") == 1);
                assert_true(number(s, "gpu.3d_scaling") == 1);
                assert_true(number(s, "power.VIN.power") == 35800);
                assert_true(number(s, "power.total") == 35800);
                assert_true(number(s, "fan.0.rpm") == 1786);
                assert_true(number(s, "emc.freq") == 3200000);
                GHashTableIter it;
                gpointer key;
                g_hash_table_iter_init(&it, s);
                while (g_hash_table_iter_next(&it, &key, NULL))
                        if (g_str_has_prefix(key, "dgpu."))
                                fail_msg("the board's own GPU as a discrete one: %s", (char *) key);
                g_usleep(400000);
        }
        /* An unreadable zone is not news: nothing about it in the log. */
        g_autofree char *log = NULL;
        assert_true(g_file_get_contents(tb->daemon_log, &log, NULL, NULL));
        if (strstr(log, "thermal_zone1") || strstr(log, "gpu-thermal"))
                fail_msg("the gated zone is in the log:\n%s", log);

        /* The GPU wakes: the zone reads again, NVML answers. */
        testbus_slowfs_rule(tb, "error", "");
        g_autoptr(GHashTable) woke = wait_key(bus, "temp.gpu", true);
        assert_true(number(woke, "temp.gpu") == 35.906);
        g_autofree char *thor = NULL;
        assert_true(g_file_get_contents(SOURCE_DIR "/tests/fixtures/" BOARD ".nvml.json", &thor, NULL, NULL));
        write_nvml(thor);
        g_autoptr(GHashTable) busy = wait_key(bus, "gpu.load", true);
        assert_true(number(busy, "gpu.load") == 42.0);
        g_autoptr(GHashTable) hot = wait_key(bus, "gpu.temp", true);
        assert_true(number(hot, "gpu.temp") == 36.0);

        /* Gated again: gone at once, not held at its last value. */
        testbus_slowfs_rule(tb, "error", GPU_ZONE " 11\n");
        g_autoptr(GHashTable) again = wait_key(bus, "temp.gpu", false);
        assert_true(number(again, "temp.cpu") == 34.843);

        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
        g_clear_pointer(&nvml_path, g_free);
}

int main(void)
{
        if (!testbus_have_fuse()) {
                fprintf(stderr, "/dev/fuse is missing: skipped\n");
                return 77;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_gated_gpu, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
