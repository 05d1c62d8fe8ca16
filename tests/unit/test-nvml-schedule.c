/* Which NVML calls the GPU poller (src/sampler/gpu_poller.c) makes, and
 * how often, counted by the fake NVML (FAKE_NVML_CALLS) over a number of
 * its reads: no clock is involved, so a busy machine only makes the test
 * slower. The constants once, the cheap values once per read, the costly
 * ones (energy, PCIe, per-process SM use, health, GPM) a small fraction of
 * that, every key in every reading, and a costly call that hangs holds
 * up no cheap read. */
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_poller.h"
#include "sampler.h"

/* The fake's table (fake_nvml.c): 64 slots of a name and a count. */
typedef struct {
        char name[56];
        uint64_t count;
} call_slot;
#define CALL_SLOTS 64

static char *dir, *config_path, *calls_path;
static const call_slot *calls;

static void write_config(const char *json)
{
        g_autofree char *tmp = g_strconcat(config_path, ".new", NULL);
        assert_true(g_file_set_contents(tmp, json, -1, NULL));
        assert_int_equal(rename(tmp, config_path), 0);
}

static uint64_t count(const char *fn)
{
        if (!calls) {
                /* Mapped once the fake has made it its full size. */
                int fd = open(calls_path, O_RDONLY | O_CLOEXEC);
                struct stat st;
                if (fd >= 0 && (fstat(fd, &st) != 0 || (size_t) st.st_size < CALL_SLOTS * sizeof(call_slot))) {
                        close(fd);
                        fd = -1;
                }
                if (fd < 0)
                        return 0;
                void *m = mmap(NULL, CALL_SLOTS * sizeof(call_slot), PROT_READ, MAP_SHARED, fd, 0);
                close(fd);
                if (m == MAP_FAILED)
                        return 0;
                calls = m;
        }
        for (size_t i = 0; i < CALL_SLOTS; i++)
                if (strncmp(calls[i].name, fn, sizeof(calls[i].name)) == 0)
                        return __atomic_load_n(&calls[i].count, __ATOMIC_RELAXED);
        return 0;
}

/* Waits until FN was called AT_LEAST times; only a stalled poller
 * misses the minute. */
static uint64_t wait_calls(const char *fn, uint64_t at_least)
{
        for (int i = 0; i < 60000 && count(fn) < at_least; i++)
                g_usleep(1000);
        uint64_t n = count(fn);
        if (n < at_least)
                fail_msg("%s: %" PRIu64 " calls in a minute, waited for %" PRIu64, fn, n, at_least);
        return n;
}

static const char GPU[] =
        "{\"devices\": [{\"name\": \"NVIDIA H200\", \"uuid\": \"GPU-h200\", \"pci_bus_id\": \"00000000:01:00.0\","
        " \"utilization\": {\"gpu\": 37, \"memory\": 12},"
        " \"memory\": {\"total\": 150754820096, \"used\": 1073741824, \"free\": 149681078272},"
        " \"temperature\": 41, \"power_mw\": 231000, \"energy_mj\": 123456789, \"power_limit_mw\": 700000,"
        " \"clocks_mhz\": {\"graphics\": 1980, \"sm\": 1980, \"mem\": 3201, \"video\": 1755},"
        " \"bar1\": {\"total\": 274877906944, \"used\": 5242880}, \"compute_capability\": {\"major\": 9, \"minor\": 0},"
        " \"ecc_mode\": {\"current\": 1, \"pending\": 1}, \"persistence_mode\": 1, \"compute_mode\": 0,"
        " \"display_mode\": 0, \"display_active\": 0, \"ecc_errors\": {\"volatile_corrected\": 0,"
        " \"volatile_uncorrected\": 0, \"aggregate_corrected\": 0, \"aggregate_uncorrected\": 0},"
        " \"max_clocks_mhz\": {\"graphics\": 1980, \"sm\": 1980, \"mem\": 3201},"
        " \"encoder\": 0, \"decoder\": 0, \"pstate\": 0, \"throttle\": 0,"
        " \"pcie_kbps\": {\"tx\": 100, \"rx\": 2000},"
        " \"memory_temperature\": 47, \"pcie_replays\": 0, \"xids\": [],"
        " \"gpm\": {\"tensor\": 10, \"graphics\": 20, \"dram\": 30},"
        " \"processes\": [{\"pid\": 4242, \"type\": \"compute\", \"used_memory\": 1073741824, \"sm\": 35}]%s}]}";

static void write_gpu(const char *extra)
{
        g_autofree char *json = g_strdup_printf(GPU, extra);
        write_config(json);
}

static void no_message(void *data)
{
        (void) data;
}

/* One calls file for the whole run: the fake maps it once. */
static int setup(void **state)
{
        (void) state;
        dir = g_dir_make_tmp("jetsond-nvml-schedule.XXXXXX", NULL);
        config_path = g_build_filename(dir, "nvml.json", NULL);
        calls_path = g_build_filename(dir, "calls", NULL);
        setenv("FAKE_NVML_CONFIG", config_path, 1);
        setenv("FAKE_NVML_CALLS", calls_path, 1);
        return 0;
}

static int teardown(void **state)
{
        (void) state;
        if (calls)
                munmap((void *) calls, CALL_SLOTS * sizeof(call_slot));
        calls = NULL;
        g_unlink(config_path);
        g_unlink(calls_path);
        g_rmdir(dir);
        g_clear_pointer(&config_path, g_free);
        g_clear_pointer(&calls_path, g_free);
        g_clear_pointer(&dir, g_free);
        return 0;
}

static jd_gpu_poller *start(uint64_t period_us)
{
        jd_gpu_poller *p = jd_gpu_poller_new(FAKE_NVML_PATH, no_message, NULL);
        assert_non_null(p);
        jd_gpu_poller_set_period(p, period_us);
        return p;
}

/* The latest reading's value of KEY, or NULL when it has none. */
static bool has_key(jd_gpu_poller *p, const char *key)
{
        jd_gpu_reading *r[JD_MAX_DGPUS];
        size_t n = jd_gpu_poller_latest(p, r);
        bool found = n && jd_values_find(&r[0]->values, key);
        for (size_t i = 0; i < n; i++)
                jd_gpu_reading_unref(r[i]);
        return found;
}

/* Memory through v2 (the fake's driver has it): v1 is never called. */
static const char *const cheap[] = {
        "nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetTemperature", "nvmlDeviceGetPowerUsage",
        "nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetEncoderUtilization",
        "nvmlDeviceGetDecoderUtilization", "nvmlDeviceGetCurrentClocksEventReasons",
        "nvmlDeviceGetPerformanceState", "nvmlDeviceGetComputeRunningProcesses_v3",
        "nvmlDeviceGetGraphicsRunningProcesses_v3",
};

/* The first test of the run: the counts start at 0. */
static void test_schedule(void **state)
{
        (void) state;
        write_gpu("");
        jd_gpu_poller *p = start(JD_NVML_MIN_PERIOD_US);
        const uint64_t reads = 200;
        wait_calls("nvmlDeviceGetUtilizationRates", reads);
        /* No read after the one under way, which ends with the graphics
         * list (the utilization begins each): the counts hold still. */
        jd_gpu_poller_set_period(p, 3600000000u);
        wait_calls("nvmlDeviceGetGraphicsRunningProcesses_v3", count("nvmlDeviceGetUtilizationRates"));
        uint64_t u = count("nvmlDeviceGetUtilizationRates");
        for (size_t i = 0; i < sizeof(cheap) / sizeof(cheap[0]); i++) {
                uint64_t c = count(cheap[i]);
                if (c != u)
                        fail_msg("%s: %" PRIu64 " calls over %" PRIu64 " reads, not one per read", cheap[i], c, u);
        }
        assert_int_equal(count("nvmlDeviceGetClockInfo"), 4 * u); /* graphics, SM, memory, video */
        assert_int_equal(count("nvmlDeviceGetMemoryInfo"), 0);
        /* The GPU has no fan: NOT_SUPPORTED, asked again only every
         * JD_NVML_RECHECK_US (10 s), as MIG mode. */
        assert_in_range(count("nvmlDeviceGetFanSpeed"), 1, 1 + u / 20);
        /* MIG mode (off) with the first read, then every
         * JD_NVML_RECHECK_US (10 s): far from once per read. */
        assert_in_range(count("nvmlDeviceGetMigMode"), 1, 1 + u / 20);
        assert_int_equal(count("nvmlDeviceGetMaxMigDeviceCount"), 0);
        /* Constants once, with the first read. */
        assert_int_equal(count("nvmlDeviceGetName"), 1);
        assert_int_equal(count("nvmlDeviceGetUUID"), 1);
        assert_int_equal(count("nvmlDeviceGetPciInfo_v3"), 1);
        assert_int_equal(count("nvmlDeviceGetMaxClockInfo"), 3);
        assert_int_equal(count("nvmlDeviceGetCudaComputeCapability"), 1);
        /* BAR1: its size with the constants, its use every read. */
        assert_int_equal(count("nvmlDeviceGetBAR1MemoryInfo"), u + 1);
        /* The costly ones: with the first read, then at their own cadence
         * (10 s), far from once per read. */
        uint64_t costly_bound = 1 + u / 20;
        assert_in_range(count("nvmlDeviceGetTotalEnergyConsumption"), 1, costly_bound);
        assert_in_range(count("nvmlDeviceGetPcieThroughput"), 2, 2 * costly_bound);
        assert_in_range(count("nvmlDeviceGetProcessUtilization"), 1, costly_bound);
        /* The health and GPM calls with them (memory temperature a field
         * value beside NVLink's; a drain with no event pending is one
         * wait), the event registration and GPM's support asked once. */
        assert_in_range(count("nvmlDeviceGetPcieReplayCounter"), 1, costly_bound);
        assert_in_range(count("nvmlDeviceGetFieldValues"), 2, 2 * costly_bound);
        assert_in_range(count("nvmlEventSetWait_v2"), 1, costly_bound);
        assert_in_range(count("nvmlGpmSampleGet"), 1, costly_bound);
        assert_int_equal(count("nvmlDeviceRegisterEvents"), 1);
        assert_int_equal(count("nvmlGpmQueryDeviceSupport"), 1);
        /* The modes and ECC's counts (4 a read) with them. */
        assert_in_range(count("nvmlDeviceGetEccMode"), 1, costly_bound);
        assert_in_range(count("nvmlDeviceGetComputeMode"), 1, costly_bound);
        assert_in_range(count("nvmlDeviceGetPersistenceMode"), 1, costly_bound);
        assert_in_range(count("nvmlDeviceGetTotalEccErrors"), 4, 4 * costly_bound);
        assert_true(has_key(p, "dgpu.0.ecc_volatile_corrected"));
        assert_true(has_key(p, "dgpu.0.mem_temp"));
        assert_true(has_key(p, "dgpu.0.xid_count"));
        /* ...and still in every reading. */
        assert_true(has_key(p, "dgpu.0.energy"));
        assert_true(has_key(p, "dgpu.0.pcie_rx"));
        assert_true(has_key(p, "dgpu.0.pcie_tx"));
        assert_true(has_key(p, "process.4242.dgpu.0.sm"));
        assert_true(has_key(p, "dgpu.0.power"));

        /* A capture of the energy counter: it is read at its own faster
         * period, the other costly values not. */
        uint64_t energy = count("nvmlDeviceGetTotalEnergyConsumption");
        uint64_t pcie = count("nvmlDeviceGetPcieThroughput");
        jd_gpu_poller_set_period(p, JD_NVML_MIN_PERIOD_US);
        jd_gpu_poller_set_energy_period(p, JD_NVML_ENERGY_EXACT_PERIOD_US);
        wait_calls("nvmlDeviceGetTotalEnergyConsumption", energy + 5);
        uint64_t u2 = count("nvmlDeviceGetUtilizationRates");
        /* 100 ms against the cheap reads' 10 ms: at most one in two. */
        assert_true(count("nvmlDeviceGetTotalEnergyConsumption") - energy <= (u2 - u) / 2 + 1);
        assert_true(count("nvmlDeviceGetPcieThroughput") <= pcie + 2);
        jd_gpu_poller_free(p, 2000000);
}

/* The energy call hangs (a driver in trouble): the cheap reads go on, and
 * their values change while it hangs. */
static void test_costly_hang(void **state)
{
        (void) state;
        write_gpu("");
        jd_gpu_poller *p = start(JD_NVML_MIN_PERIOD_US);
        wait_calls("nvmlDeviceGetUtilizationRates", count("nvmlDeviceGetUtilizationRates") + 5);
        /* The same GPU, with a costs entry beside it. */
        g_autofree char *gpu = g_strdup_printf(GPU, "");
        gpu[strlen(gpu) - 1] = '\0';
        g_autofree char *json = g_strconcat(gpu, ", \"costs\": {\"nvmlDeviceGetTotalEnergyConsumption\": "
                                                 "{\"wall_us\": 60000000}}}", NULL);
        write_config(json);
        uint64_t energy = count("nvmlDeviceGetTotalEnergyConsumption");
        jd_gpu_poller_set_energy_period(p, JD_NVML_ENERGY_EXACT_PERIOD_US);
        /* The costly thread is in the call, for a minute. */
        wait_calls("nvmlDeviceGetTotalEnergyConsumption", energy + 1);
        uint64_t u = count("nvmlDeviceGetUtilizationRates");
        wait_calls("nvmlDeviceGetUtilizationRates", u + 50);
        assert_int_equal(count("nvmlDeviceGetTotalEnergyConsumption"), energy + 1);
        assert_true(has_key(p, "dgpu.0.power"));
        /* Left behind in the fake's sleep: the poller stays allocated,
         * as it does in jetsond when a thread is stuck in NVML. */
        jd_gpu_poller_free(p, 100000);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_schedule),
                cmocka_unit_test(test_costly_hang),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
