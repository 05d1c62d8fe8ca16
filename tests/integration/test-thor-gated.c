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
#include "snapshot.h"
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

/* Polls GetSnapshot until KEY is there (PRESENT) or gone; 30 s, which only
 * a stall needs. */
static testbus_snapshot *wait_key(sd_bus *bus, const char *key, bool present)
{
        for (uint64_t end = testbus_now_us() + 30 * G_USEC_PER_SEC;;) {
                testbus_snapshot *s = testbus_get_snapshot(bus);
                if (g_hash_table_contains(s->numbers, key) == present)
                        return s;
                testbus_snapshot_free(s);
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
                g_autoptr(testbus_snapshot) s = testbus_get_snapshot(bus);
                assert_false(g_hash_table_contains(s->numbers, "temp.gpu"));
                assert_false(g_hash_table_contains(s->numbers, "gpu.load"));
                assert_false(g_hash_table_contains(s->numbers, "gpu.temp"));
                assert_true(testbus_number(s, "temp.cpu") == 34.843);
                assert_true(testbus_number(s, "temp.tj") == 35.906);
                assert_true(testbus_number(s, "gpu.freq") == 1000000);
                assert_true(testbus_number(s, "gpu.video_freq") == 1556000);
                assert_true(testbus_number(s, "gpu.railgate") == 1);
                assert_true(testbus_number(s, "gpu.3d_scaling") == 1);
                assert_true(testbus_number(s, "power.VIN.power") == 35800);
                assert_true(testbus_number(s, "power.total") == 35800);
                assert_true(testbus_number(s, "fan.0.rpm") == 1786);
                assert_true(testbus_number(s, "emc.freq") == 3200000);
                GHashTableIter it;
                gpointer key;
                g_hash_table_iter_init(&it, s->numbers);
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
        g_autoptr(testbus_snapshot) woke = wait_key(bus, "temp.gpu", true);
        assert_true(testbus_number(woke, "temp.gpu") == 35.906);
        g_autofree char *thor = NULL;
        assert_true(g_file_get_contents(SOURCE_DIR "/tests/fixtures/" BOARD ".nvml.json", &thor, NULL, NULL));
        write_nvml(thor);
        g_autoptr(testbus_snapshot) busy = wait_key(bus, "gpu.load", true);
        assert_true(testbus_number(busy, "gpu.load") == 42.0);
        g_autoptr(testbus_snapshot) hot = wait_key(bus, "gpu.temp", true);
        assert_true(testbus_number(hot, "gpu.temp") == 36.0);

        /* Gated again: gone at once, not held at its last value. */
        testbus_slowfs_rule(tb, "error", GPU_ZONE " 11\n");
        g_autoptr(testbus_snapshot) again = wait_key(bus, "temp.gpu", false);
        assert_true(testbus_number(again, "temp.cpu") == 34.843);

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
