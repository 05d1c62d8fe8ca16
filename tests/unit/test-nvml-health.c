/* The NVML reader's health and activity parts (JD_NVML_HEALTH,
 * JD_NVML_GPM) against the fake NVML: memory temperature, PCIe replays,
 * XID events and GPM's activities, each present where the GPU answers
 * and absent (never 0) where it answers NOT_SUPPORTED; the XID events
 * counted once each; GPM absent on the first read. */
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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_health, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_gpm, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_in_full_read, fake_nvml_setup, fake_nvml_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
