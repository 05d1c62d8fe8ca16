/* Manager.Diagnose's pieces without the bus: the probe log (places, caps,
 * attribution), the readers' notes through a real sampler on fake boards
 * (a file made unreadable to root without its DAC capabilities is a
 * sandbox refusal), and jd_diagnose()'s causes from made-up inputs. */
#include <errno.h>
#include <glib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diagnose.h"
#include "fixture.h"
#include "probe_log.h"
#include "sampler.h"
#include "values.h"

static void test_place(void **state)
{
        (void) state;
        char out[256];
        static const char *const cases[][2] = {
                { "/sys/devices/system/cpu/cpu12/cpufreq/scaling_cur_freq", "/sys/devices/system/cpu/cpuN/cpufreq" },
                { "/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/in1_input", "/sys/bus/i2c/devices/1-N/hwmon/hwmonN" },
                { "/sys/devices/platform/17000000.gpu/load", "/sys/devices/platform/17000000.gpu" },
                { "/proc/stat", "/proc/stat" },
                { "/proc/1/net/dev", "/proc/N/net/dev" },
                { "/etc/nv_tegra_release", "/etc/nv_tegra_release" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                jd_probe_place(cases[i][0], out, sizeof(out));
                assert_string_equal(out, cases[i][1]);
        }
        jd_probe_place("/sys/class/thermal/thermal_zone10/temp", out, 12);
        assert_int_equal(strlen(out), 11);
}

static void test_log(void **state)
{
        (void) state;
        jd_probe_log *log = jd_probe_log_new();
        /* No reader: nothing noted, not even a refusal. */
        jd_probe_log_note(log, "/sys/x/y", EACCES, false);
        bool tracing = true;
        const char *before = jd_probe_attribute("fans", false, &tracing);
        assert_null(before);
        assert_false(tracing);
        /* Not tracing: refusals only. */
        jd_probe_log_note(log, "/sys/a/b", 0, false);
        jd_probe_log_note(log, "/sys/a/c", ENOENT, false);
        jd_probe_log_note(log, "/sys/kernel/debug/x", EACCES, false);
        jd_probe_log_note(log, "/sys/kernel/debug/x", EACCES, false);
        jd_probe_attribute("fans", true, NULL);
        jd_probe_log_note(log, "/sys/class/hwmon/hwmon3/name", 0, false);
        jd_probe_log_note(log, "/sys/class/hwmon/hwmon4/name", 0, false);
        jd_probe_log_note(log, "/sys/devices/pwm-fan", ENOENT, true);   /* a directory looked for */
        jd_probe_log_note(log, "/sys/class/hwmon", 0, true);            /* a listing finds nothing */
        jd_probe_log_note(log, "/etc/ro", EROFS, false);
        jd_probe_log_note(log, "/etc/weird", EINVAL, false);            /* neither */
        for (int i = 0; i < JD_PROBE_LOG_MAX + 10; i++) {
                char path[64];
                g_snprintf(path, sizeof(path), "/sys/kernel/debug/many%d/x", i);
                jd_probe_log_note(log, path, EPERM, false);
                jd_probe_log_note(log, path, EPERM, false);           /* again: counted once */
        }
        jd_probe_attribute(NULL, false, NULL);
        jd_probe_entry e;
        jd_probe_log_copy(log, "fans", &e);
        assert_int_equal(e.n_found, 1);
        assert_string_equal(e.found[0], "/sys/class/hwmon/hwmonN");
        assert_int_equal(e.n_missed, 1);
        assert_string_equal(e.missed[0], "/sys/devices/pwm-fan");
        assert_int_equal(e.n_refused, JD_PROBE_LOG_MAX);
        assert_string_equal(e.refused[0].path, "/sys/kernel/debug/x");
        assert_int_equal(e.refused[0].err, EACCES);
        assert_string_equal(e.refused[1].path, "/etc/ro");
        assert_int_equal(e.refused[1].err, EROFS);
        assert_int_equal(e.more_refused, 12);
        jd_probe_entry_clear(&e);
        jd_probe_log_copy(log, "cpu", &e);
        assert_int_equal(e.n_found + e.n_missed + e.n_refused, 0);
        jd_probe_log_free(log);
}

static const jd_diag_record *find(GPtrArray *records, const char *family)
{
        for (guint i = 0; i < records->len; i++) {
                const jd_diag_record *r = g_ptr_array_index(records, i);
                if (strcmp(r->family, family) == 0)
                        return r;
        }
        fail_msg("no record for %s", family);
        return NULL;
}

static bool has(GPtrArray *items, const char *text)
{
        for (guint i = 0; i < items->len; i++)
                if (strstr(g_ptr_array_index(items, i), text))
                        return true;
        return false;
}

/* A sampler on BOARD's copy, every tier read once: the readers' notes. */
static GPtrArray *diagnose_board(jd_sysroot *sr, unsigned euid)
{
        jd_sampler *s = jd_sampler_new(sr);
        assert_non_null(s);
        jd_diag_input *in = g_new0(jd_diag_input, 1);
        jd_board_read(&in->board, sr);
        in->euid = euid;
        jd_values values;
        jd_values_init(&values);
        jd_values_from_sample(&values, jd_sampler_current(s));
        for (size_t i = 0; i < values.n; i++) {
                int f = jd_diag_family_of_key(values.items[i].key);
                if (f >= 0)
                        in->present[f]++;
        }
        for (int t = 0; t < JD_TIER_COUNT; t++)
                in->answered[t] = true;
        jd_diag_find_tools(sr, in);
        GPtrArray *records = jd_diagnose(sr, in);
        jd_values_clear(&values);
        jd_sampler_free(s);
        g_free(in);
        return records;
}

static void test_orin_found(void **state)
{
        (void) state;
        char *dir = NULL;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        g_autoptr(GPtrArray) records = diagnose_board(sr, 0);
        assert_int_equal(records->len, jd_diag_family_count());
        for (guint i = 0; i < records->len; i++) {
                const jd_diag_record *r = g_ptr_array_index(records, i);
                /* No NVML under --sysroot; a plain copy has no fake tools
                 * (make-sysroot.sh adds them). */
                if (strcmp(r->family, "dgpu") == 0 || strcmp(r->family, "nvpmodel") == 0 ||
                    strcmp(r->family, "jetson_clocks") == 0)
                        continue;
                if (r->state != JD_DIAG_FOUND)
                        fail_msg("%s: %s (%s: %s)", r->family, jd_diag_state_name(r->state), r->cause, r->detail);
        }
        assert_true(has(find(records, "cpu")->sources, "/proc/stat"));
        assert_true(has(find(records, "cpu")->sources, "/sys/devices/system/cpu/cpuN/cpufreq"));
        const jd_diag_record *nvp = find(records, "nvpmodel");
        assert_int_equal(nvp->state, JD_DIAG_PARTIAL);
        assert_string_equal(nvp->cause, "tool-missing");
        assert_true(has(nvp->sources, "/etc/nvpmodel.conf"));
        assert_string_equal(find(records, "jetson_clocks")->cause, "tool-missing");
        /* The tool in place: found, and named where it is. */
        g_autofree char *sbin = g_build_filename(dir, "usr", "sbin", NULL);
        g_autofree char *tool = g_build_filename(sbin, "nvpmodel", NULL);
        assert_int_equal(g_mkdir_with_parents(sbin, 0755), 0);
        assert_true(g_file_set_contents(tool, "#!/bin/sh\n", -1, NULL));
        assert_int_equal(chmod(tool, 0755), 0);
        g_autoptr(GPtrArray) again = diagnose_board(sr, 0);
        assert_int_equal(find(again, "nvpmodel")->state, JD_DIAG_FOUND);
        assert_true(has(find(again, "nvpmodel")->sources, "tool /usr/sbin/nvpmodel"));
        assert_true(has(find(records, "board")->sources, "/etc/nv_tegra_release"));
        assert_string_equal(find(records, "dgpu")->cause, "nvml-off");
        fixture_remove_copy(sr, dir);
}

/* Without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH a mode-000 file refuses
 * root: EACCES for uid 0, the sandbox's mark. */
static void test_refused_as_root(void **state)
{
        (void) state;
        if (geteuid() != 0)
                skip();
        char *dir = NULL;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        g_autofree char *zone = fixture_host_path(dir, "/sys/class/thermal/thermal_zone1/temp");
        g_autofree char *fans = fixture_host_path(dir, "/sys/devices/platform/pwm-fan/hwmon/hwmon3");
        assert_int_equal(chmod(zone, 0), 0);
        assert_int_equal(chmod(fans, 0), 0);
        fixture_dac_capabilities(false);
        g_autoptr(GPtrArray) records = diagnose_board(sr, 0);
        fixture_dac_capabilities(true);
        const jd_diag_record *thermal = find(records, "thermal");
        assert_int_equal(thermal->state, JD_DIAG_PARTIAL);
        assert_string_equal(thermal->cause, "sandbox");
        assert_true(has(thermal->paths, "/sys/class/thermal/thermal_zone1/temp"));
        assert_non_null(strstr(thermal->detail, "Permission denied"));
        const jd_diag_record *f = find(records, "fans");
        assert_string_equal(f->cause, "sandbox");
        /* As a service that is not root: a permission, and what to do. */
        g_autoptr(GPtrArray) as_user = NULL;
        fixture_dac_capabilities(false);
        as_user = diagnose_board(sr, 1000);
        fixture_dac_capabilities(true);
        assert_string_equal(find(as_user, "thermal")->cause, "permission");
        assert_non_null(strstr(find(as_user, "thermal")->advice, "uid 1000"));
        fixture_remove_copy(sr, dir);
}

static void test_pc(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("x86-pc");
        g_autoptr(GPtrArray) records = diagnose_board(sr, 0);
        for (const char *const *f = (const char *const[]) { "gpu", "emc", "engines", "nvpmodel", NULL }; *f; f++) {
                const jd_diag_record *r = find(records, *f);
                assert_int_equal(r->state, JD_DIAG_MISSING);
                assert_string_equal(r->cause, "not-jetson");
                assert_int_equal(r->sources->len, 0);
        }
        const jd_diag_record *fans = find(records, "fans");
        assert_string_equal(fans->cause, "no-hardware");
        assert_true(has(fans->paths, "/hwmon/hwmonN"));       /* each hwmon's name read */
        assert_int_equal(find(records, "cpu")->state, JD_DIAG_FOUND);
        assert_int_equal(find(records, "board")->state, JD_DIAG_FOUND);
        assert_string_equal(find(records, "processes")->cause, "nvml-off");
        jd_sysroot_free(sr);
}

/* Made-up inputs for what a fake board cannot show. */
static void test_causes(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("agx-orin-jp62");
        jd_diag_input *in = g_new0(jd_diag_input, 1);
        jd_board_read(&in->board, sr);
        for (int t = 0; t < JD_TIER_COUNT; t++)
                in->answered[t] = true;
        in->stale[JD_TIER_INDEX_SLOW] = true;
        g_strlcpy(in->stage[JD_TIER_INDEX_SLOW], "thermal", sizeof(in->stage[0]));
        in->board.l4t[0] = '\0';
        in->board.jetpack[0] = '\0';
        in->nvml_used = true;
        in->nvml.tried = true;
        in->nvml.failure = JD_NVML_LOADED;
        in->nvml.count = 2;
        g_strlcpy(in->nvml.library, "libnvidia-ml.so.1", sizeof(in->nvml.library));
        in->n_gpus = 2;
        in->gpus[0] = (jd_diag_gpu) { .index = 0, .name = "RTX", .present = 20 };
        in->gpus[1] = (jd_diag_gpu) { .index = 1, .name = "T4", .present = 10, .unsupported = ~0u };
        in->present[jd_diag_family_of_key("dgpu.0.load")] = 30;
        g_autoptr(GPtrArray) records = jd_diagnose(sr, in);
        assert_string_equal(find(records, "thermal")->cause, "stalled");
        assert_non_null(strstr(find(records, "thermal")->detail, "stuck reading thermal"));
        assert_string_equal(find(records, "board")->cause, "l4t-unknown");
        assert_int_equal(find(records, "board")->state, JD_DIAG_PARTIAL);
        const jd_diag_record *d = find(records, "dgpu");
        assert_int_equal(d->state, JD_DIAG_PARTIAL);
        assert_string_equal(d->cause, "nvml-not-supported");
        assert_true(has(d->paths, "dgpu.1.fan"));
        assert_false(has(d->paths, "dgpu.0."));
        assert_true(has(d->sources, "NVML GPU 1: T4"));
        g_ptr_array_unref(g_steal_pointer(&records));

        /* L4T known, not in the table, no nvidia-jetpack. */
        g_strlcpy(in->board.l4t, "99.1.0", sizeof(in->board.l4t));
        in->board.l4t_source = "/etc/nv_tegra_release";
        in->nvml.failure = JD_NVML_NO_LIBRARY;
        in->n_gpus = 0;
        in->present[jd_diag_family_of_key("dgpu.0.load")] = 0;
        g_strlcpy(in->nvml.why, "no NVIDIA driver library (libnvidia-ml.so.1: cannot open)", sizeof(in->nvml.why));
        records = jd_diagnose(sr, in);
        assert_string_equal(find(records, "board")->cause, "jetpack-unknown");
        assert_string_equal(find(records, "dgpu")->cause, "nvml-missing");
        assert_int_equal(find(records, "dgpu")->state, JD_DIAG_MISSING);
        g_free(in);
        jd_sysroot_free(sr);
}

static void test_families(void **state)
{
        (void) state;
        assert_string_equal(jd_diag_family_name((size_t) jd_diag_family_of_key("cpu.3.load")), "cpu");
        assert_string_equal(jd_diag_family_name((size_t) jd_diag_family_of_key("iram.total")), "memory");
        assert_string_equal(jd_diag_family_name((size_t) jd_diag_family_of_key("energy.VDD_IN")), "power");
        assert_string_equal(jd_diag_family_name((size_t) jd_diag_family_of_key("uptime")), "system");
        assert_string_equal(jd_diag_family_name((size_t) jd_diag_family_of_key("process.12.dgpu.0.sm")), "processes");
        assert_int_equal(jd_diag_family_of_key("uptimes"), -1);
        assert_int_equal(jd_diag_family_of_key("cpu"), -1);
        const char *keys[32];
        assert_int_equal(jd_nvml_unsupported_keys(~0u, keys, G_N_ELEMENTS(keys)), 15); /* with bar1_used, video_freq */
        assert_int_equal(jd_nvml_unsupported_keys(0, keys, G_N_ELEMENTS(keys)), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_place),       cmocka_unit_test(test_log),
                cmocka_unit_test(test_orin_found),  cmocka_unit_test(test_refused_as_root),
                cmocka_unit_test(test_pc),          cmocka_unit_test(test_causes),
                cmocka_unit_test(test_families),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
