/* The NVML reader's health and activity parts (JD_NVML_HEALTH,
 * JD_NVML_GPM) against the fake NVML: memory temperature, PCIe replays,
 * XID events and GPM's activities, each present where the GPU answers
 * and absent (never 0) where it answers NOT_SUPPORTED; the XID events
 * counted once each; GPM absent on the first read. And a GPU's facts
 * (nvml_facts.c): CUDA version, compute capability, BAR1, video clock,
 * the modes (JD_NVML_MODES) and ECC's error counts, each present where
 * the GPU answers and absent where it does not (an L4 without ECC). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "fake_nvml_config.h"
#include "nvml.h"
#include "values.h"

static jd_nvml *open_fake(void)
{
        char why[256] = "";
        jd_nvml *n = jd_nvml_open(FAKE_NVML_PATH, why, sizeof(why));
        if (!n)
                fail_msg("the fake NVML did not open: %s", why);
        return n;
}

/* An H100 with all of it; an L4 (GDDR, before Hopper) with none. */
#define H100 \
        "{\"name\": \"NVIDIA H100 80GB HBM3\", \"temperature\": 45, \"memory_temperature\": 52," \
        " \"pcie_replays\": 7, \"xids\": [%s], \"gpm\": {\"tensor\": 42.5, \"graphics\": 80, \"dram\": 30.25}}"
#define L4 "{\"name\": \"NVIDIA L4\", \"temperature\": 40}"

static void write_gpus(const char *xids)
{
        g_autofree char *h100 = g_strdup_printf(H100, xids);
        g_autofree char *json = g_strdup_printf("{\"devices\": [%s, " L4 "]}", h100);
        fake_nvml_write_config(json);
}

static void keys_of(const jd_nvml_gpu *g, jd_values *v)
{
        jd_values_init(v);
        jd_values_begin(v);
        jd_values_add_nvml_gpu(v, g, false);
        jd_values_end(v);
}

static const jd_value *key(const jd_values *v, const char *name)
{
        const jd_value *x = jd_values_find(v, name);
        if (!x)
                fail_msg("no key %s", name);
        return x;
}

static void test_health(void **state)
{
        (void) state;
        /* An XID listed before registration came before jetsond: not counted. */
        write_gpus("31");
        jd_nvml *n = open_fake();
        jd_nvml_gpu g = { 0 };
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_HEALTH, &g));
        assert_true(g.mem_temp_c.present && g.mem_temp_c.value == 52);
        assert_true(g.pcie_replays.present && g.pcie_replays.value == 7);
        /* Registered, none yet: DCGM's 0, a true value. */
        assert_true(g.xid.present && g.xid.value == 0);
        assert_true(g.xid_count.present && g.xid_count.value == 0);

        /* Two XIDs come: the last one's number, both counted, once. */
        write_gpus("31, 79, 48");
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_HEALTH, &g));
        assert_int_equal(g.xid.value, 48);
        assert_int_equal(g.xid_count.value, 2);
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_HEALTH, &g));
        assert_int_equal(g.xid.value, 48);
        assert_int_equal(g.xid_count.value, 2);

        jd_values v;
        keys_of(&g, &v);
        assert_int_equal(key(&v, "dgpu.0.mem_temp")->type, JD_VALUE_DOUBLE);
        assert_true(key(&v, "dgpu.0.mem_temp")->d == 52.0);
        assert_int_equal(key(&v, "dgpu.0.pcie_replay")->t, 7);
        assert_int_equal(key(&v, "dgpu.0.xid")->type, JD_VALUE_U32);
        assert_int_equal(key(&v, "dgpu.0.xid")->u, 48);
        assert_int_equal(key(&v, "dgpu.0.xid_count")->t, 2);
        jd_values_clear(&v);

        /* The L4 answers none of it: absent, not 0. */
        assert_true(jd_nvml_read_parts(n, 1, JD_NVML_HEALTH, &g));
        assert_false(g.mem_temp_c.present || g.pcie_replays.present || g.xid.present || g.xid_count.present);
        g.temp_c.present = true; /* a key of its own, so the GPU is there */
        keys_of(&g, &v);
        assert_non_null(jd_values_find(&v, "dgpu.1.temp"));
        for (size_t i = 0; i < v.n; i++)
                assert_true(strcmp(v.items[i].key, "dgpu.1.temp") == 0);
        jd_values_clear(&v);

        /* Lost and back: the count since jetsond started stays, the
         * events are registered again. */
        fake_nvml_write_config("{\"devices\": [{\"name\": \"NVIDIA H100\", \"lost\": true}, " L4 "]}");
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_HEALTH, &g));
        assert_true(g.lost);
        write_gpus("31, 79, 48");
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_HEALTH, &g));
        assert_int_equal(g.xid_count.value, 2);
        write_gpus("31, 79, 48, 94");
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_HEALTH, &g));
        assert_int_equal(g.xid.value, 94);
        assert_int_equal(g.xid_count.value, 3);
        jd_nvml_close(n);
}

static void test_gpm(void **state)
{
        (void) state;
        write_gpus("");
        jd_nvml *n = open_fake();
        jd_nvml_gpu g = { 0 };
        /* One sample: no interval yet. */
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_GPM, &g));
        assert_false(g.tensor_active.present || g.graphics_active.present || g.dram_active.present);
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_GPM, &g));
        assert_true(g.tensor_active.present && g.tensor_active.value == 42.5);
        assert_true(g.graphics_active.present && g.graphics_active.value == 80.0);
        assert_true(g.dram_active.present && g.dram_active.value == 30.25);
        jd_values v;
        keys_of(&g, &v);
        assert_true(key(&v, "dgpu.0.tensor_active")->d == 42.5);
        assert_true(key(&v, "dgpu.0.gr_active")->d == 80.0);
        assert_true(key(&v, "dgpu.0.dram_active")->d == 30.25);
        jd_values_clear(&v);

        /* A metric the GPU does not give: that one absent. */
        fake_nvml_write_config("{\"devices\": [{\"name\": \"NVIDIA H100\", \"gpm\": {\"tensor\": 1, \"graphics\": 2}}, " L4
                     "]}");
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_GPM, &g));
        assert_true(g.tensor_active.present && g.tensor_active.value == 1.0);
        assert_false(g.dram_active.present);

        /* Before Hopper: never any, however often read. */
        for (int i = 0; i < 3; i++) {
                assert_true(jd_nvml_read_parts(n, 1, JD_NVML_GPM, &g));
                assert_false(g.tensor_active.present || g.graphics_active.present || g.dram_active.present);
        }
        jd_nvml_close(n);
}

/* A read of everything has them too: they are in JD_NVML_ALL. */
static void test_in_full_read(void **state)
{
        (void) state;
        write_gpus("");
        jd_nvml *n = open_fake();
        jd_nvml_gpu g = { 0 };
        assert_true(jd_nvml_read_gpu(n, 0, &g));
        assert_true(g.mem_temp_c.present && g.pcie_replays.present && g.xid.present);
        jd_nvml_gpu_clear(&g);
        assert_true(jd_nvml_read_gpu(n, 0, &g));
        assert_true(g.tensor_active.present);
        /* The cheap part alone reads none of them. */
        jd_nvml_gpu_clear(&g);
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_CHEAP, &g));
        assert_false(g.mem_temp_c.present || g.xid.present || g.tensor_active.present);
        jd_nvml_gpu_clear(&g);
        jd_nvml_close(n);
}

/* An H200 with ECC on and every fact; an L4 that answers none of them. */
#define H200_FACTS \
        "{\"cuda_driver_version\": 12080, \"devices\": [{\"name\": \"NVIDIA H200\"," \
        " \"compute_capability\": {\"major\": 9, \"minor\": 0}," \
        " \"bar1\": {\"total\": 274877906944, \"used\": 5242880}, \"clocks_mhz\": {\"video\": 1755}," \
        " \"ecc_mode\": {\"current\": %d, \"pending\": 1}, \"persistence_mode\": 1, \"compute_mode\": %d," \
        " \"display_mode\": 0, \"display_active\": 0," \
        " \"ecc_errors\": {\"volatile_corrected\": 3, \"volatile_uncorrected\": 1," \
        " \"aggregate_corrected\": 30, \"aggregate_uncorrected\": 2}," \
        " \"processes\": [{\"pid\": 4242, \"sm\": 35, \"enc\": 12, \"dec\": 7}]}, " L4 "]}"

static void write_facts(int ecc, int compute_mode)
{
        g_autofree char *json = g_strdup_printf(H200_FACTS, ecc, compute_mode);
        fake_nvml_write_config(json);
}

static void test_facts(void **state)
{
        (void) state;
        write_facts(1, 3);
        jd_nvml *n = open_fake();
        assert_string_equal(jd_nvml_cuda_driver_version(n), "12.8");
        jd_nvml_gpu g = { 0 };
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_CONSTANTS, &g));
        assert_true(g.cc_major.present && g.cc_major.value == 9 && g.cc_minor.present && g.cc_minor.value == 0);
        assert_true(g.bar1_total_kib.present && g.bar1_total_kib.value == 274877906944ull / 1024);
        assert_false(g.bar1_used_kib.present || g.modes_read);

        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_CHEAP, &g));
        assert_true(g.bar1_used_kib.present && g.bar1_used_kib.value == 5120);
        assert_true(g.video_freq_khz.present && g.video_freq_khz.value == 1755000);
        assert_false(g.ecc.present || g.cc_major.present);
        jd_nvml_gpu_clear(&g);

        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_MODES, &g));
        assert_true(g.modes_read);
        assert_true(g.ecc.present && g.ecc.value == 1 && g.ecc_pending.present && g.ecc_pending.value == 1);
        assert_true(g.persistence.present && g.persistence.value == 1);
        assert_true(g.compute_mode.present && g.compute_mode.value == 3);
        assert_string_equal(jd_nvml_compute_mode_name(g.compute_mode.value), "exclusive_process");
        assert_true(g.display_mode.present && g.display_mode.value == 0);
        assert_true(g.display_active.present && g.display_active.value == 0);
        assert_int_equal(g.ecc_volatile_corrected.value, 3);
        assert_int_equal(g.ecc_volatile_uncorrected.value, 1);
        assert_int_equal(g.ecc_aggregate_corrected.value, 30);
        assert_int_equal(g.ecc_aggregate_uncorrected.value, 2);
        jd_values v;
        keys_of(&g, &v);
        assert_int_equal(key(&v, "dgpu.0.ecc_volatile_corrected")->t, 3);
        assert_int_equal(key(&v, "dgpu.0.ecc_volatile_uncorrected")->t, 1);
        assert_int_equal(key(&v, "dgpu.0.ecc_aggregate_corrected")->t, 30);
        assert_int_equal(key(&v, "dgpu.0.ecc_aggregate_uncorrected")->t, 2);
        jd_values_clear(&v);

        /* ECC turned off (nvidia-smi -e 0 and a reset): no counts, the
         * compute mode another. */
        write_facts(0, 2);
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_MODES, &g));
        assert_true(g.ecc.present && g.ecc.value == 0);
        assert_string_equal(jd_nvml_compute_mode_name(g.compute_mode.value), "prohibited");
        assert_false(g.ecc_volatile_corrected.present || g.ecc_aggregate_uncorrected.present);

        /* The whole read: every key, the process's encoder and decoder use. */
        write_facts(1, 0);
        assert_true(jd_nvml_read_gpu(n, 0, &g));
        keys_of(&g, &v);
        assert_int_equal(key(&v, "dgpu.0.bar1_used")->t, 5120);
        assert_int_equal(key(&v, "dgpu.0.video_freq")->u, 1755000);
        assert_int_equal(key(&v, "dgpu.0.ecc_aggregate_corrected")->t, 30);
        assert_true(key(&v, "process.4242.dgpu.0.sm")->d == 35.0);
        assert_true(key(&v, "process.4242.dgpu.0.enc")->d == 12.0);
        assert_true(key(&v, "process.4242.dgpu.0.dec")->d == 7.0);
        jd_values_clear(&v);
        jd_nvml_gpu_clear(&g);

        /* The L4 answers none: each absent, never 0; the modes read, unknown. */
        assert_true(jd_nvml_read_gpu(n, 1, &g));
        assert_true(g.modes_read);
        assert_false(g.cc_major.present || g.bar1_total_kib.present || g.bar1_used_kib.present ||
                     g.video_freq_khz.present || g.ecc.present || g.ecc_pending.present || g.persistence.present ||
                     g.compute_mode.present || g.display_mode.present || g.display_active.present ||
                     g.ecc_volatile_corrected.present);
        keys_of(&g, &v);
        assert_null(jd_values_find(&v, "dgpu.1.bar1_used"));
        assert_null(jd_values_find(&v, "dgpu.1.video_freq"));
        assert_null(jd_values_find(&v, "dgpu.1.ecc_volatile_corrected"));
        jd_values_clear(&v);
        jd_nvml_gpu_clear(&g);
        jd_nvml_close(n);

        /* A driver that does not say its CUDA version: "". */
        fake_nvml_write_config("{\"devices\": [" L4 "]}");
        n = open_fake();
        assert_string_equal(jd_nvml_cuda_driver_version(n), "");
        jd_nvml_close(n);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_health, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_gpm, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_in_full_read, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_facts, fake_nvml_setup, fake_nvml_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
