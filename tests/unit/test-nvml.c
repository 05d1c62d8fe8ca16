/* The NVML reader (src/readers/nvml.c) against the fake NVML
 * (tests/fake-nvml): loading, units, NOT_SUPPORTED as absent, a lost GPU,
 * processes from both lists, the file changing under a running reader,
 * and no library at all. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <time.h>

#include "fake_nvml_config.h"
#include "nvml.h"
#include "sampler.h"
#include "values.h"

static const char TWO_GPUS[] =
        "{\"devices\": ["
        "{\"name\": \"NVIDIA GeForce RTX 4090\", \"uuid\": \"GPU-4090\", \"pci_bus_id\": \"00000000:01:00.0\","
        " \"utilization\": {\"gpu\": 37, \"memory\": 12},"
        " \"memory\": {\"total\": 25757220864, \"used\": 1073741824, \"free\": 24038612992,"
        "            \"reserved\": 644874240},"
        " \"temperature\": 61, \"power_mw\": 231000, \"energy_mj\": 123456789, \"power_limit_mw\": 450000,"
        " \"clocks_mhz\": {\"graphics\": 2520, \"sm\": 2520, \"mem\": 10501},"
        " \"max_clocks_mhz\": {\"graphics\": 3105, \"sm\": 3105, \"mem\": 10501},"
        " \"fan\": 40, \"encoder\": 0, \"decoder\": 3, \"pstate\": 2, \"throttle\": 4,"
        " \"pcie_kbps\": {\"tx\": 100, \"rx\": 2000},"
        " \"processes\": [{\"pid\": 4242, \"type\": \"compute\", \"used_memory\": 1073741824, \"sm\": 35},"
        "                 {\"pid\": 1834, \"type\": \"both\", \"used_memory\": 20971520,"
        "                  \"graphics_used_memory\": 31457280},"
        "                 {\"pid\": 77, \"type\": \"graphics\"}],"
        " \"unknown_field\": 1},"
        "{\"name\": \"Tesla T4\", \"uuid\": \"GPU-T4\", \"pci_bus_id\": \"00000000:02:00.0\","
        " \"utilization\": {\"gpu\": 5, \"memory\": 1}, \"temperature\": 40}"
        "]}";

/* A read, the previous one's process list freed first (G starts zeroed). */
static bool read_gpu(jd_nvml *n, unsigned index, jd_nvml_gpu *g)
{
        jd_nvml_gpu_clear(g);
        return jd_nvml_read_gpu(n, index, g);
}

static jd_nvml *open_fake(void)
{
        char why[256] = "";
        jd_nvml *n = jd_nvml_open(FAKE_NVML_PATH, why, sizeof(why));
        if (!n)
                fail_msg("the fake NVML did not open: %s", why);
        return n;
}

static void test_values(void **state)
{
        (void) state;
        fake_nvml_write_config(TWO_GPUS);
        jd_nvml *n = open_fake();
        assert_string_equal(jd_nvml_driver_version(n), "595.78 (fake)");
        assert_int_equal(jd_nvml_count(n), 2);
        jd_nvml_gpu g = { 0 };
        assert_true(read_gpu(n, 0, &g));
        assert_false(g.lost);
        assert_false(g.integrated);
        assert_string_equal(g.name, "NVIDIA GeForce RTX 4090");
        assert_string_equal(g.uuid, "GPU-4090");
        assert_string_equal(g.pci_bus_id, "00000000:01:00.0");
        assert_int_equal(g.load.value, 37);
        assert_int_equal(g.mem_load.value, 12);
        assert_int_equal(g.mem_total_kib.value, 25757220864ULL / 1024);   /* bytes -> KiB */
        assert_int_equal(g.mem_used_kib.value, 1048576);                 /* v2: reserved left out */
        assert_int_equal(g.mem_reserved_kib.value, 644874240 / 1024);
        assert_int_equal(g.freq_khz.value, 2520000);                      /* MHz -> kHz */
        assert_int_equal(g.mem_freq_khz.value, 10501000);
        assert_int_equal(g.max_freq_khz.value, 3105000);
        assert_int_equal(g.temp_c.value, 61);
        assert_int_equal(g.power_mw.value, 231000);
        assert_int_equal(g.power_limit_mw.value, 450000);
        assert_int_equal(g.energy_mj.value, 123456789);
        assert_int_equal(g.fan.value, 40);
        assert_true(g.encoder_load.present && g.encoder_load.value == 0);  /* a real 0, present */
        assert_int_equal(g.decoder_load.value, 3);
        assert_int_equal(g.pstate.value, 2);
        assert_int_equal(g.throttle.value, 4);
        assert_int_equal(g.pcie_rx.value, 2000 * 1024);                  /* KB/s -> bytes/s */
        assert_int_equal(g.pcie_tx.value, 100 * 1024);

        /* Processes: both lists merged, each PID once. */
        assert_int_equal(g.n_processes, 3);
        for (size_t i = 0; i < g.n_processes; i++) {
                const jd_nvml_process *p = &g.processes[i];
                if (p->pid == 4242) {
                        assert_true(p->compute && !p->graphics);
                        assert_int_equal(p->mem_kib.value, 1048576);
                        assert_int_equal(p->sm.value, 35);
                } else if (p->pid == 1834) {
                        assert_true(p->compute && p->graphics);
                        /* The later (graphics) list's memory, not the sum, not the first. */
                        assert_int_equal(p->mem_kib.value, 30720);
                        assert_false(p->sm.present);
                } else {
                        assert_int_equal(p->pid, 77);
                        assert_false(p->mem_kib.present);   /* NVML_VALUE_NOT_AVAILABLE */
                }
        }

        /* The second GPU answers few calls: the rest is absent, not 0. */
        assert_true(read_gpu(n, 1, &g));
        assert_string_equal(g.name, "Tesla T4");
        assert_int_equal(g.load.value, 5);
        assert_int_equal(g.temp_c.value, 40);
        assert_false(g.mem_total_kib.present);
        assert_false(g.freq_khz.present);
        assert_false(g.power_mw.present);
        assert_false(g.energy_mj.present);
        assert_false(g.fan.present);
        assert_false(g.pstate.present);
        assert_int_equal(g.n_processes, 0);

        assert_false(read_gpu(n, 2, &g));
        jd_nvml_gpu_clear(&g);
        jd_nvml_close(n);
}

/* A driver before R510 has no nvmlDeviceGetMemoryInfo_v2: v1's used,
 * which counts the driver's reservation, and no reserved value. */
static void test_memory_v1_fallback(void **state)
{
        (void) state;
        g_autofree char *old_driver = g_strdup_printf("{\"memory_v2\": false, %s", TWO_GPUS + 1);
        fake_nvml_write_config(old_driver);
        jd_nvml *n = open_fake();
        jd_nvml_gpu g = { 0 };
        assert_true(read_gpu(n, 0, &g));
        assert_false(g.lost);
        assert_int_equal(g.mem_used_kib.value, (1073741824 + 644874240) / 1024);
        assert_int_equal(g.mem_total_kib.value, 25757220864ULL / 1024);
        assert_false(g.mem_reserved_kib.present);
        /* The same file with v2 (a newer driver, so opened again: a call
         * once unsupported is not asked again): nvidia-smi's used. */
        fake_nvml_write_config(TWO_GPUS);
        jd_nvml_close(n);
        n = open_fake();
        assert_true(read_gpu(n, 0, &g));
        assert_int_equal(g.mem_used_kib.value, 1073741824 / 1024);
        assert_true(g.mem_reserved_kib.present);
        jd_nvml_gpu_clear(&g);
        jd_nvml_close(n);
}

static void test_lost_and_back(void **state)
{
        (void) state;
        fake_nvml_write_config(TWO_GPUS);
        jd_nvml *n = open_fake();
        jd_nvml_gpu g = { 0 };
        g_autofree char *lost = g_strdup(TWO_GPUS);
        char *at = strstr(lost, "\"unknown_field\": 1");
        memcpy(at, "\"lost\":   true    ", strlen("\"unknown_field\": 1"));
        fake_nvml_write_config(lost);
        assert_true(read_gpu(n, 0, &g));
        assert_true(g.lost);
        assert_string_equal(g.name, "");          /* nothing of a lost GPU stands */
        assert_false(g.load.present);
        assert_int_equal(g.n_processes, 0);
        /* The other GPU is untouched. */
        assert_true(read_gpu(n, 1, &g));
        assert_false(g.lost);
        assert_int_equal(g.load.value, 5);
        /* The driver recovers it: values again, from the file as it is now. */
        g_autofree char *back = g_strdup(TWO_GPUS);
        at = strstr(back, "\"gpu\": 37");
        memcpy(at, "\"gpu\": 99", 9);
        fake_nvml_write_config(back);
        assert_true(read_gpu(n, 0, &g));
        assert_false(g.lost);
        assert_int_equal(g.load.value, 99);
        jd_nvml_gpu_clear(&g);
        jd_nvml_close(n);
}

static void test_delay(void **state)
{
        (void) state;
        fake_nvml_write_config("{\"devices\": [{\"name\": \"slow\", \"temperature\": 50, \"delay_ms\": 20}]}");
        jd_nvml *n = open_fake();
        uint64_t start = jd_monotonic_us();
        jd_nvml_gpu g = { 0 };
        assert_true(read_gpu(n, 0, &g));
        /* Every call sleeps: well over one delay for the whole reading. */
        assert_true(jd_monotonic_us() - start >= 20000 * 2);
        assert_int_equal(g.temp_c.value, 50);
        jd_nvml_gpu_clear(&g);
        jd_nvml_close(n);
}

static void test_no_devices_no_library(void **state)
{
        (void) state;
        fake_nvml_remove_config();
        jd_nvml *n = open_fake();
        assert_int_equal(jd_nvml_count(n), 0);
        fake_nvml_write_config("{\"devices\": []}");
        assert_int_equal(jd_nvml_count(n), 0);
        jd_nvml_close(n);

        char why[256] = "";
        assert_null(jd_nvml_open("/nonexistent/libnvidia-ml.so.1", why, sizeof(why)));
        assert_non_null(strstr(why, "no NVIDIA driver library"));
        /* A library that is not NVML. */
        assert_null(jd_nvml_open("libm.so.6", why, sizeof(why)));
        assert_non_null(strstr(why, "nvmlInit"));
}

/* Thor's GPU through NVML (the agx-thor-jp71 fixture's file): gpu.load
 * from NVML only while sysfs has no load file, gpu.temp, and no dgpu.*
 * key, for it is the board's own GPU. */
static void test_integrated_values(void **state)
{
        (void) state;
        g_autofree char *thor = NULL;
        assert_true(g_file_get_contents(FIXTURES_DIR "/agx-thor-jp71.nvml.json", &thor, NULL, NULL));
        fake_nvml_write_config(thor);
        jd_nvml *n = open_fake();
        jd_nvml_gpu g = { 0 };
        assert_true(read_gpu(n, 0, &g));
        assert_true(g.integrated);
        assert_false(g.mem_total_kib.present);   /* unified memory: NOT_SUPPORTED */
        for (int sysfs_load = 0; sysfs_load < 2; sysfs_load++) {
                jd_values v;
                jd_values_init(&v);
                jd_values_begin(&v);
                jd_values_add_nvml_gpu(&v, &g, sysfs_load);
                jd_values_end(&v);
                const jd_value *load = jd_values_find(&v, "gpu.load"), *temp = jd_values_find(&v, "gpu.temp");
                if (sysfs_load) {
                        assert_null(load);
                } else {
                        assert_non_null(load);
                        assert_true(load->d == 42.0);
                }
                assert_non_null(temp);
                assert_true(temp->d == 36.0);
                for (size_t i = 0; i < v.n; i++)
                        assert_null(strstr(v.items[i].key, "dgpu"));
                jd_values_clear(&v);
        }
        jd_nvml_gpu_clear(&g);
        jd_nvml_close(n);
}

static void test_integrated_names(void **state)
{
        (void) state;
        assert_true(jd_nvml_is_integrated("NVIDIA Thor"));
        assert_true(jd_nvml_is_integrated("Orin (nvgpu)"));
        assert_false(jd_nvml_is_integrated("NVIDIA GeForce RTX 4090"));
        assert_false(jd_nvml_is_integrated("(nvgpu"));
        assert_false(jd_nvml_is_integrated(""));
}

/* 300 processes on one GPU (the old list held 64): NVML's count
 * protocol asked again with room for all, each with its memory and SM
 * load, and all 300 handed on as GPU users. */
static void test_many_processes(void **state)
{
        (void) state;
        GString *json = g_string_new("{\"devices\": [{\"name\": \"NVIDIA GeForce RTX 4090\", \"processes\": [");
        for (int i = 0; i < 300; i++)
                g_string_append_printf(json, "%s{\"pid\": %d, \"type\": \"%s\", \"used_memory\": %d, \"sm\": %d}",
                                       i ? "," : "", 30000 + i, i % 2 ? "both" : "compute", (i + 1) * 1024, i % 100);
        g_string_append(json, "]}]}");
        fake_nvml_write_config(json->str);
        g_string_free(json, TRUE);
        jd_nvml *n = open_fake();
        jd_nvml_gpu g = { 0 };
        assert_true(read_gpu(n, 0, &g));
        printf("figure: NVML processes read %zu of 300\n", g.n_processes);
        assert_int_equal(g.n_processes, 300);
        for (size_t i = 0; i < g.n_processes; i++) {
                const jd_nvml_process *p = &g.processes[i];
                int k = (int) p->pid - 30000;
                assert_true(k >= 0 && k < 300);
                assert_int_equal(p->mem_kib.value, k + 1);
                assert_int_equal(p->sm.value, k % 100);
                assert_int_equal(p->graphics, k % 2 == 1);
        }
        jd_gpu_user *users = NULL;
        size_t cap = 0;
        assert_int_equal(jd_nvml_add_gpu_users(&users, &cap, 0, &g), 300);
        free(users);
        jd_nvml_gpu_clear(&g);
        jd_nvml_close(n);
}

/* NVLink (issue 42): a GPU with two links whose counters run at known
 * rates, one whose driver lacks the all-links scope, one without NVLink. */
static const char NVLINK_GPUS[] =
        "{\"devices\": ["
        "{\"name\": \"NVIDIA H200\", \"nvlink\": ["
        "  {\"rx_kib\": 1000, \"tx_kib\": 2000, \"rx_kibps\": 500000, \"tx_kibps\": 250000},"
        "  {\"rx_kib\": 0, \"tx_kib\": 0, \"rx_kibps\": 100000, \"tx_kibps\": 0}]},"
        "{\"name\": \"NVIDIA H100\", \"nvlink_all_links\": false, \"nvlink\": ["
        "  {\"rx_kib\": 10, \"tx_kib\": 20}, {\"rx_kib\": 30, \"tx_kib\": 40}]},"
        "{\"name\": \"NVIDIA L4\", \"utilization\": {\"gpu\": 1, \"memory\": 0}}"
        "]}";

static uint64_t key_u64(const jd_values *v, const char *key)
{
        const jd_value *x = jd_values_find(v, key);
        if (!x)
                fail_msg("no key %s", key);
        return x->t;
}

static void test_nvlink(void **state)
{
        (void) state;
        fake_nvml_write_config(NVLINK_GPUS);
        jd_nvml *n = open_fake();
        jd_nvml_gpu a = { 0 }, b = { 0 };
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_NVLINK, &a));
        g_usleep(200000);
        assert_true(jd_nvml_read_parts(n, 0, JD_NVML_NVLINK, &b));
        assert_int_equal(b.nvlink.links, 2);
        assert_true(b.nvlink.at_us > a.nvlink.at_us);
        assert_true(b.nvlink.link_rx_kib[0].present && b.nvlink.link_rx_kib[1].present);
        jd_nvml_nvlink_rates(&a.nvlink, &b.nvlink, &b.nvlink_rate);
        /* KiB/s * 1024, to a KiB over the span (and its rounding); the
         * all-links rate is the links' sum. */
        double dt = (double) (b.nvlink.at_us - a.nvlink.at_us) / 1e6, slack = 2 * 1024 / dt;
        assert_true(fabs((double) b.nvlink_rate.rx.value - 600000.0 * 1024) <= slack);
        assert_true(fabs((double) b.nvlink_rate.tx.value - 250000.0 * 1024) <= slack);
        assert_true(fabs((double) b.nvlink_rate.link_rx[0].value - 500000.0 * 1024) <= slack);
        assert_true(fabs((double) b.nvlink_rate.link_rx[1].value - 100000.0 * 1024) <= slack);
        assert_true(b.nvlink_rate.link_tx[1].present && b.nvlink_rate.link_tx[1].value == 0); /* an idle link: 0 */
        assert_false(b.nvlink_rate.link_rx[2].present);

        /* The keys: bytes and bytes/s. */
        jd_values v;
        jd_values_init(&v);
        jd_values_begin(&v);
        jd_values_add_nvml_gpu(&v, &b, false);
        jd_values_end(&v);
        assert_int_equal(key_u64(&v, "dgpu.0.nvlink_rx_total"), b.nvlink.rx_kib.value * 1024);
        assert_int_equal(key_u64(&v, "dgpu.0.nvlink_tx"), b.nvlink_rate.tx.value);
        assert_int_equal(key_u64(&v, "dgpu.0.nvlink.1.rx"), b.nvlink_rate.link_rx[1].value);
        assert_null(jd_values_find(&v, "dgpu.0.nvlink.2.rx"));
        jd_values_clear(&v);

        /* A counter that went back (the driver reloaded): no rate. */
        jd_nvml_nvlink_rates(&b.nvlink, &a.nvlink, &a.nvlink_rate);
        assert_false(a.nvlink_rate.rx.present);

        /* Without the all-links scope: the sum of every link. */
        assert_true(jd_nvml_read_parts(n, 1, JD_NVML_NVLINK, &a));
        assert_int_equal(a.nvlink.links, 2);
        assert_int_equal(a.nvlink.rx_kib.value, 40);
        assert_int_equal(a.nvlink.tx_kib.value, 60);

        /* Without NVLink: nothing, and no key. */
        assert_true(jd_nvml_read_gpu(n, 2, &a));
        assert_int_equal(a.nvlink.links, 0);
        assert_false(a.nvlink.rx_kib.present);
        jd_values_init(&v);
        jd_values_begin(&v);
        jd_values_add_nvml_gpu(&v, &a, false);
        jd_values_end(&v);
        assert_true(jd_values_find(&v, "dgpu.2.load") != NULL);
        for (size_t i = 0; i < v.n; i++)
                assert_null(strstr(v.items[i].key, "nvlink"));
        jd_values_clear(&v);
        jd_nvml_gpu_clear(&a);
        jd_nvml_close(n);
}

/* MIG (issue 42): an H100 with MIG on, three MIG devices in slots 0, 1
 * and 5 of 7, processes in two GPU instances; the same GPU with MIG off
 * gives the same keys as one that has no MIG at all. */
#define H100_BASE \
        "\"name\": \"NVIDIA H100 80GB HBM3\", \"uuid\": \"GPU-h100\"," \
        " \"memory\": {\"total\": 85899345920, \"used\": 32212254720, \"free\": 53687091200}," \
        " \"temperature\": 45, \"power_mw\": 300000," \
        " \"processes\": [{\"pid\": 100, \"used_memory\": 10737418240, \"gpu_instance\": 1, \"compute_instance\": 0}," \
        "                 {\"pid\": 200, \"used_memory\": 21474836480, \"gpu_instance\": 2, \"compute_instance\": 0}]"
static const char MIG_ON[] =
        "{\"devices\": [{" H100_BASE ", \"mig\": {\"mode\": 1, \"max_devices\": 7, \"devices\": ["
        "  {\"slot\": 0, \"uuid\": \"MIG-aaaa\", \"gpu_instance\": 1, \"compute_instance\": 0,"
        "   \"memory\": {\"total\": 42949672960, \"used\": 10737418240, \"free\": 32212254720}},"
        "  {\"slot\": 1, \"uuid\": \"MIG-bbbb\", \"gpu_instance\": 2, \"compute_instance\": 0,"
        "   \"memory\": {\"total\": 21474836480, \"used\": 21474836480, \"free\": 0}, \"utilization\": {\"gpu\": 80, \"memory\": 5}},"
        "  {\"slot\": 5, \"uuid\": \"MIG-cccc\", \"gpu_instance\": 9, \"compute_instance\": 0,"
        "   \"memory\": {\"total\": 10737418240, \"used\": 0, \"free\": 10737418240}}]}}]}";
static const char MIG_OFF[] = "{\"devices\": [{" H100_BASE ", \"mig\": {\"mode\": 0, \"max_devices\": 7}}]}";
static const char NO_MIG[] = "{\"devices\": [{" H100_BASE "}]}";

/* The keys of GPU 0 in the current file, one string, sorted by reading order. */
static char *gpu_keys(jd_nvml *n, jd_values *v)
{
        jd_nvml_gpu g = { 0 };
        assert_true(jd_nvml_read_gpu(n, 0, &g));
        jd_values_begin(v);
        jd_values_add_nvml_gpu(v, &g, false);
        jd_values_end(v);
        GString *keys = g_string_new(NULL);
        for (size_t i = 0; i < v->n; i++)
                g_string_append_printf(keys, "%s\n", v->items[i].key);
        jd_nvml_gpu_clear(&g);
        return g_string_free(keys, FALSE);
}

static void test_mig(void **state)
{
        (void) state;
        fake_nvml_write_config(MIG_ON);
        jd_nvml *n = open_fake();
        jd_nvml_gpu g = { 0 };
        assert_true(read_gpu(n, 0, &g));
        assert_true(g.mig);
        assert_int_equal(g.n_migs, 3);
        assert_int_equal(g.migs[2].slot, 5);
        assert_string_equal(g.migs[1].uuid, "MIG-bbbb");
        assert_int_equal(g.migs[1].gpu_instance.value, 2);
        assert_int_equal(g.migs[0].mem_total_kib.value, 42949672960ULL / 1024);
        assert_int_equal(g.migs[0].mem_used_kib.value, 10737418240ULL / 1024);
        assert_false(g.migs[0].load.present);                 /* NOT_SUPPORTED: absent */
        assert_int_equal(g.migs[1].load.value, 80);
        for (size_t i = 0; i < g.n_processes; i++)
                assert_int_equal(g.processes[i].gpu_instance.value, g.processes[i].pid / 100);

        jd_values v;
        jd_values_init(&v);
        jd_values_begin(&v);
        jd_values_add_nvml_gpu(&v, &g, false);
        jd_values_end(&v);
        assert_int_equal(key_u64(&v, "dgpu.0.mig.5.mem_total"), 10737418240ULL / 1024);
        assert_int_equal(jd_values_find(&v, "dgpu.0.mig.1.gpu_instance")->u, 2);
        assert_string_equal(jd_values_find(&v, "dgpu.0.mig.1.uuid")->s, "MIG-bbbb");
        assert_true(jd_values_find(&v, "dgpu.0.mig.1.load")->d == 80.0);
        assert_null(jd_values_find(&v, "dgpu.0.mig.0.load"));
        assert_null(jd_values_find(&v, "dgpu.0.mig.2.mem_used"));  /* an empty slot */
        assert_int_equal(jd_values_find(&v, "process.200.dgpu.0.gpu_instance")->u, 2);
        jd_nvml_gpu_clear(&g);

        /* Switched off (it takes a GPU reset): MIG mode, as last asked,
         * stands for JD_NVML_RECHECK_US. */
        fake_nvml_write_config(MIG_OFF);
        assert_true(read_gpu(n, 0, &g));
        assert_true(g.mig);
        jd_nvml_gpu_clear(&g);
        jd_nvml_close(n);

        /* MIG off: exactly the keys of a GPU without MIG. */
        n = open_fake();
        g_autofree char *off = gpu_keys(n, &v);
        jd_nvml_close(n);
        fake_nvml_write_config(NO_MIG);
        n = open_fake();
        g_autofree char *none = gpu_keys(n, &v);
        assert_string_equal(off, none);
        assert_null(strstr(off, "mig"));
        assert_null(strstr(off, "gpu_instance"));
        jd_values_clear(&v);
        jd_nvml_close(n);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_many_processes, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_values, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_nvlink, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_mig, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_memory_v1_fallback, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_lost_and_back, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_delay, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test_setup_teardown(test_no_devices_no_library, fake_nvml_setup, fake_nvml_teardown),
                cmocka_unit_test(test_integrated_names),
                cmocka_unit_test_setup_teardown(test_integrated_values, fake_nvml_setup, fake_nvml_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
