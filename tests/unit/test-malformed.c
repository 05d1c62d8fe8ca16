/* Broken files — empty, garbage, truncated, huge numbers, missing — must
 * make the affected readings absent and never crash or invent a value. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "board.h"
#include "fixture.h"
#include "sampler.h"
#include "values.h"

typedef struct {
        const char *path;   /* in the sysroot */
        const char *key;    /* value that must disappear */
} victim;

/* Paths as the AGX Orin fixture has them (see agx-orin-jp62.expected.md). */
static const victim victims[] = {
        { "sys/devices/system/cpu/cpu3/cpufreq/scaling_cur_freq", "cpu.3.freq" },
        { "sys/devices/platform/bus@0/17000000.gpu/load", "gpu.load" },
        { "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu/cur_freq", "gpu.freq" },
        { "sys/kernel/debug/bpmp/debug/clk/emc/rate", "emc.freq" },
        { "sys/kernel/debug/cactmon/mc_all", "emc.load" },
        { "sys/class/thermal/thermal_zone0/temp", "temp.cpu" },
        { "var/lib/nvpmodel/status", "nvpmodel.mode" },
        { "proc/uptime", "uptime" },
};

static const char *const poisons[] = {
        "",
        "garbage\n",
        "12garbage\n",
        "99999999999999999999999999999\n",
        "-\n",
        "\xff\xfe\x00\x01",
};

static jd_values sample_values(jd_sysroot *sr)
{
        jd_values v;
        jd_values_init(&v);
        jd_sampler *s = jd_sampler_new(sr);
        assert_non_null(s);
        jd_values_from_sample(&v, jd_sampler_sample(s, JD_TIER_ALL));
        jd_sampler_free(s);
        return v;
}

static void test_poisoned_files(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_values clean = sample_values(sr);
        for (size_t i = 0; i < G_N_ELEMENTS(victims); i++)
                if (!jd_values_find(&clean, victims[i].key))
                        fail_msg("fixture lacks %s before poisoning", victims[i].key);
        jd_values_clear(&clean);

        for (size_t p = 0; p < G_N_ELEMENTS(poisons); p++) {
                size_t len = p == G_N_ELEMENTS(poisons) - 1 ? 4 : strlen(poisons[p]);
                for (size_t i = 0; i < G_N_ELEMENTS(victims); i++)
                        fixture_write(dir, victims[i].path, poisons[p], len);
                jd_values v = sample_values(sr);
                for (size_t i = 0; i < G_N_ELEMENTS(victims); i++)
                        if (jd_values_find(&v, victims[i].key))
                                fail_msg("poison %zu: %s still present", p, victims[i].key);
                /* Untouched neighbours still read. */
                assert_non_null(jd_values_find(&v, "cpu.4.freq"));
                assert_non_null(jd_values_find(&v, "ram.total"));
                jd_values_clear(&v);
        }
        fixture_remove_copy(sr, dir);
}

static void test_missing_files(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        for (size_t i = 0; i < G_N_ELEMENTS(victims); i++)
                fixture_unlink(dir, victims[i].path);
        fixture_unlink(dir, "proc/meminfo");
        fixture_unlink(dir, "proc/stat");
        jd_values v = sample_values(sr);
        for (size_t i = 0; i < G_N_ELEMENTS(victims); i++)
                assert_null(jd_values_find(&v, victims[i].key));
        assert_null(jd_values_find(&v, "ram.total"));
        assert_null(jd_values_find(&v, "cpu.load"));
        assert_non_null(jd_values_find(&v, "cpu.4.freq"));
        jd_values_clear(&v);
        fixture_remove_copy(sr, dir);
}

/* Truncated multi-line files: the part that is there parses, the rest is absent. */
static void test_truncated_tables(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        fixture_write_str(dir, "proc/meminfo", "MemTotal:       64334848 kB\nMemFr");
        fixture_write_str(dir, "proc/swaps", "Filename\tType\tSize\tUsed\tPriority\n/dev/zram0 part");
        fixture_write_str(dir, "proc/stat", "cpu  1 2 3");
        fixture_write_str(dir, "etc/nvpmodel.conf", "< POWER_MODEL ID=0 NAME=MAX");
        jd_values v = sample_values(sr);
        const jd_value *total = jd_values_find(&v, "ram.total");
        assert_non_null(total);
        assert_int_equal(total->t, 64334848);
        assert_null(jd_values_find(&v, "ram.free"));
        assert_null(jd_values_find(&v, "ram.used"));
        assert_null(jd_values_find(&v, "cpu.load"));
        assert_null(jd_values_find(&v, "nvpmodel.mode"));
        jd_values_clear(&v);
        fixture_remove_copy(sr, dir);
}

/* An empty directory is a valid sysroot of a machine we know nothing about. */
static void test_empty_sysroot(void **state)
{
        (void) state;
        g_autofree char *tmp = g_dir_make_tmp("jetsond-empty-XXXXXX", NULL);
        const char *why;
        jd_sysroot *sr = jd_sysroot_new(tmp, &why);
        assert_non_null(sr);
        jd_board b;
        jd_board_read(&b, sr);
        assert_false(b.is_jetson);
        /* Named all the same (Model is never empty): no architecture known. */
        assert_string_equal(b.model, "PC");
        jd_values v = sample_values(sr);
        /* Only the filesystem of "/" (the directory itself) is known. */
        for (size_t i = 0; i < v.n; i++)
                assert_true(g_str_has_prefix(v.items[i].key, "disk."));
        jd_values_clear(&v);
        jd_sysroot_free(sr);
        g_rmdir(tmp);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_poisoned_files),
                cmocka_unit_test(test_missing_files),
                cmocka_unit_test(test_truncated_tables),
                cmocka_unit_test(test_empty_sysroot),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
