/* Key stability on every simulated board: the first GetSnapshot, made as
 * soon as jetsond owns its name, already has every key the board gives
 * (rates included), and every Sample of a 10 ms subscription over 5 s
 * has exactly those keys: /proc/stat moving only every 50 ms here (every
 * 10 ms on a real board) never drops cpu.load, and the slower tiers'
 * keys ride along in every sample. The one exception is what jetsond
 * itself reports: a reader it logs as late (on a machine too busy to run
 * its thread for a second) has its keys left out, never new ones, and
 * they must come back. */
#include <string.h>

#include "jetsond-dbus.h"
#include "testbus.h"
#include "spacing.h"

static GHashTable *read_keys(sd_bus_message *m)
{
        GHashTable *keys = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        assert_true(sd_bus_message_enter_container(m, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                const char *key;
                assert_true(sd_bus_message_read(m, "s", &key) >= 0);
                assert_true(sd_bus_message_skip(m, "v") >= 0);
                /* A key twice (sysfs's and NVML's gpu.load) would be two
                 * answers to one question. */
                if (!g_hash_table_add(keys, g_strdup(key)))
                        fail_msg("key %s twice in one sample", key);
                assert_true(sd_bus_message_exit_container(m) >= 0);
        }
        assert_true(sd_bus_message_exit_container(m) >= 0);
        return keys;
}

typedef struct {
        GPtrArray *keys;     /* each Sample's key set */
        GArray *stamps;      /* and its timestamp */
} sample_log;

static int on_sample(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        sample_log *log = userdata;
        uint64_t stamp;
        testbus_skip_period(m);
        if (sd_bus_message_read(m, "t", &stamp) >= 0) {
                g_ptr_array_add(log->keys, read_keys(m));
                g_array_append_val(log->stamps, stamp);
        }
        return 0;
}

/* What one set has that the other lacks, for the failure message. */
static char *difference(GHashTable *a, GHashTable *b)
{
        GString *out = g_string_new(NULL);
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, a);
        while (g_hash_table_iter_next(&it, &key, NULL))
                if (!g_hash_table_contains(b, key))
                        g_string_append_printf(out, " +%s", (char *) key);
        g_hash_table_iter_init(&it, b);
        while (g_hash_table_iter_next(&it, &key, NULL))
                if (!g_hash_table_contains(a, key))
                        g_string_append_printf(out, " -%s", (char *) key);
        return g_string_free(out, FALSE);
}

static GHashTable *snapshot_keys(sd_bus *bus)
{
        sd_bus_message *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        if (sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetSnapshot", &e, &reply, "") < 0)
                fail_msg("GetSnapshot: %s", e.message);
        uint64_t stamp;
        assert_true(sd_bus_message_read(reply, "t", &stamp) >= 0);
        GHashTable *keys = read_keys(reply);
        sd_bus_message_unref(reply);
        return keys;
}

/* jetsond logs a reader that has not finished a reading for a while (a
 * tier or an NVML GPU): its keys are left out until it does. */
static bool stall_logged(testbus *tb)
{
        g_autofree char *log = NULL;
        return g_file_get_contents(tb->daemon_log, &log, NULL, NULL) && strstr(log, "has not finished a reading for");
}

/* GetSnapshot with exactly the keys of WANT again, within 30 s. */
static void wait_for_keys(sd_bus *bus, GHashTable *want, const char *board)
{
        for (uint64_t end = testbus_now_us() + 30 * G_USEC_PER_SEC;;) {
                g_autoptr(GHashTable) keys = snapshot_keys(bus);
                g_autofree char *diff = difference(keys, want);
                if (!diff[0])
                        return;
                if (testbus_now_us() > end)
                        fail_msg("%s: the keys left out during a stall are not back after 30 s:%s", board, diff);
                g_usleep(100000);
        }
}

/* A board with a fake NVML file (tests/fixtures/BOARD.nvml.json) runs
 * with the fake NVML: its GPUs' keys come from their own threads, after
 * the first answer, so the key set to compare with is the first one that
 * has them. */
static void check_board_nvml(void **state, const char *board, const char *const *nvml_keys);

static void check_board(void **state, const char *board)
{
        check_board_nvml(state, board, NULL);
}

static bool has_all(GHashTable *keys, const char *const *want)
{
        for (size_t i = 0; want && want[i]; i++)
                if (!g_hash_table_contains(keys, want[i]))
                        return false;
        return true;
}

/* NVML_KEYS: run with the fake NVML and the board's file; the keys its
 * GPU brings (none for a GPU that answers only its name). */
static void check_board_nvml(void **state, const char *board, const char *const *nvml_keys)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, board);
        testbus_start_simulator(tb);
        g_autofree char *nvml = g_strdup_printf(SOURCE_DIR "/tests/fixtures/%s.nvml.json", board);
        if (nvml_keys) {
                g_setenv("FAKE_NVML_CONFIG", nvml, TRUE);
                testbus_start_daemon(tb, (const char *[]) { "--nvml-library", FAKE_NVML_PATH, NULL });
        } else {
                testbus_start_daemon(tb, NULL);
        }
        sd_bus *bus = testbus_connect();
        g_autoptr(GHashTable) first = snapshot_keys(bus);
        for (uint64_t end = testbus_now_us() + 30 * G_USEC_PER_SEC;
             !has_all(first, nvml_keys) && testbus_now_us() < end;) {
                g_usleep(50000);
                g_hash_table_unref(first);
                first = snapshot_keys(bus);
        }
        for (size_t i = 0; nvml_keys && nvml_keys[i]; i++)
                if (!g_hash_table_contains(first, nvml_keys[i]))
                        fail_msg("%s: no %s after 30 s", board, nvml_keys[i]);
        /* Rates are there from the first answer. */
        assert_true(g_hash_table_contains(first, "cpu.load"));
        assert_true(g_hash_table_contains(first, "cpu.0.load"));
        if (g_hash_table_contains(first, "process.5377.name"))
                assert_true(g_hash_table_contains(first, "process.5377.cpu"));

        sample_log log = {
                g_ptr_array_new_with_free_func((GDestroyNotify) g_hash_table_unref),
                g_array_new(FALSE, FALSE, sizeof(uint64_t)),
        };
        GPtrArray *samples = log.keys;
        assert_true(testbus_match_metrics(bus, NULL, "SampleAt", 10000,
                                        on_sample, &log) >= 0);
        assert_true(sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "Subscribe", NULL, NULL,
                                       "t", (uint64_t) 10000) >= 0);
        /* 250 samples to compare, 5 s of them on an idle machine; their
         * own timestamps say the period was kept, however busy this one. */
        uint64_t t0 = testbus_now_us();
        while (samples->len < 250 && testbus_now_us() - t0 < 60 * G_USEC_PER_SEC)
                testbus_pump(bus, 100000, NULL);
        testbus_spacing sp = testbus_spacing_of((const uint64_t *) (void *) log.stamps->data, log.stamps->len);
        print_message("figure: keys %s: %u keys, %u Samples at 10 ms in %.2f s, spacing median %.2f ms\n", board,
                      g_hash_table_size(first), samples->len, (double) (testbus_now_us() - t0) / 1e6,
                      sp.median_us / 1e3);
        assert_true(samples->len >= 250);
        testbus_assert_period(board, sp, 10000, 20);
        unsigned explained = 0;
        for (guint i = 0; i < samples->len; i++) {
                GHashTable *keys = g_ptr_array_index(samples, i);
                g_autofree char *diff = difference(keys, first);
                if (!diff[0] && g_hash_table_size(keys) > 0)
                        continue;
                /* Keys left out (never new ones) while jetsond says a
                 * reader is late: a machine so busy that a reading thread
                 * did not run for a second. They must come back. */
                if (!strstr(diff, " +") && stall_logged(tb)) {
                        if (!explained++)
                                print_message("figure: keys %s: Sample %u lacks%s while jetsond logged a stall\n",
                                              board, i, diff);
                        continue;
                }
                fail_msg("%s: Sample %u differs from the first snapshot:%s", board, i, diff);
        }
        if (explained) {
                print_message("figure: keys %s: %u of %u Samples lacked keys during a logged stall\n", board,
                              explained, samples->len);
                wait_for_keys(bus, first, board);
        }
        g_ptr_array_unref(log.keys);
        g_array_unref(log.stamps);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

static void test_agx_orin(void **state) { check_board(state, "agx-orin-jp62"); }
static void test_orin_nano(void **state) { check_board(state, "orin-nano-jp62"); }
static void test_xavier_nx(void **state) { check_board(state, "xavier-nx-jp51"); }
static void test_nano(void **state) { check_board(state, "nano-jp46"); }
static void test_pc(void **state) { check_board(state, "x86-pc"); }
/* Thor's GPU load and temperature from NVML; JetPack 7.2 Orin's NVML
 * answers only the name, and its load stays sysfs's, once. */
static void test_thor(void **state)
{
        /* NVML's processes reach the process list at the slow tier's
         * next reading after the GPU's, their CPU share (a rate) at the
         * one after. */
        check_board_nvml(state, "agx-thor-jp71",
                         (const char *[]) { "gpu.load", "gpu.temp", "gpu.video_freq", "power.VIN.power",
                                            "process.5555.gpu_mem", "process.5555.cpu", NULL });
}
static void test_orin_jp72(void **state)
{
        check_board_nvml(state, "agx-orin-jp72", (const char *[]) { "gpu.load", "gpu.3d_scaling", NULL });
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_agx_orin, testbus_teardown),
                cmocka_unit_test_teardown(test_orin_nano, testbus_teardown),
                cmocka_unit_test_teardown(test_xavier_nx, testbus_teardown),
                cmocka_unit_test_teardown(test_nano, testbus_teardown),
                cmocka_unit_test_teardown(test_pc, testbus_teardown),
                cmocka_unit_test_teardown(test_thor, testbus_teardown),
                cmocka_unit_test_teardown(test_orin_jp72, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
