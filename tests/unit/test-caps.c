/* No silent caps (issue 31): on a copy of a fake board grown past every
 * fixed limit the readers once had (48 zones, 16 rails, 32 modes, 32
 * swaps, 24 engines of 4 clocks, 4 fans), every item is shown and a lookup of the
 * last one answers right. Each case would fail with the old caps: the
 * counts asserted are above them. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpu.h"
#include "dpkg.h"
#include "engines.h"
#include "fan.h"
#include "fixture.h"
#include "nvpmodel.h"
#include "power.h"
#include "processes.h"
#include "swap.h"
#include "thermal.h"

#define BOARD "agx-orin-jp62"

/* Writes TEXT to PATH in the copy DIR, making its directories. */
static void put(const char *dir, const char *path, const char *text)
{
        g_autofree char *full = g_build_filename(dir, path, NULL);
        g_autofree char *parent = g_path_get_dirname(full);
        assert_int_equal(g_mkdir_with_parents(parent, 0755), 0);
        assert_true(g_file_set_contents(full, text, -1, NULL));
}

static void test_many_zones(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy(BOARD, &dir);
        /* Zones 0..99, the board's own replaced by ours: exactly 100. */
        g_autofree char *class_dir = g_build_filename(dir, "sys/class/thermal", NULL);
        GDir *d = g_dir_open(class_dir, 0, NULL);
        assert_non_null(d);
        for (const char *name; (name = g_dir_read_name(d));) {
                g_autofree char *p = g_build_filename(class_dir, name, NULL);
                if (g_str_has_prefix(name, "thermal_zone"))
                        assert_int_equal(g_unlink(p), 0);
        }
        g_dir_close(d);
        for (int i = 0; i < 100; i++) {
                char path[128], type[32], temp[32];
                snprintf(path, sizeof(path), "sys/class/thermal/thermal_zone%d/type", i);
                snprintf(type, sizeof(type), "zone%d-thermal\n", i);
                put(dir, path, type);
                snprintf(path, sizeof(path), "sys/class/thermal/thermal_zone%d/temp", i);
                snprintf(temp, sizeof(temp), "%d\n", 20000 + i * 100);
                put(dir, path, temp);
        }
        jd_thermal_reader *r = jd_thermal_reader_new(sr);
        const jd_thermal_sample *s = jd_thermal_reader_sample(r);
        size_t zones = 0;
        for (size_t i = 0; i < s->n; i++) {
                int k;
                if (sscanf(s->zones[i].type, "zone%d-thermal", &k) != 1)
                        continue;
                zones++;
                assert_true(s->zones[i].online);
                assert_dbl_equal(s->zones[i].temp_c.value, 20.0 + k * 0.1);
        }
        printf("figure: zones shown %zu of 100\n", zones);
        assert_int_equal(zones, 100);
        jd_thermal_reader_free(r);
        fixture_remove_copy(sr, dir);
}

static void test_many_rails(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy(BOARD, &dir);
        jd_power_reader *r = jd_power_reader_new(sr);
        size_t before = jd_power_reader_sample(r, 1000000)->n;
        jd_power_reader_free(r);
        /* 14 more INA3221s of three rails each: 40 and more in all. */
        for (int dev = 0; dev < 14; dev++) {
                char path[160], text[64];
                snprintf(path, sizeof(path), "sys/bus/i2c/devices/9-00%02d/name", 10 + dev);
                put(dir, path, "ina3221\n");
                for (int ch = 1; ch <= 3; ch++) {
                        snprintf(path, sizeof(path), "sys/bus/i2c/devices/9-00%02d/hwmon/hwmon%d/in%d_label", 10 + dev,
                                 50 + dev, ch);
                        snprintf(text, sizeof(text), "EXTRA_%d_%d\n", dev, ch);
                        put(dir, path, text);
                        snprintf(path, sizeof(path), "sys/bus/i2c/devices/9-00%02d/hwmon/hwmon%d/in%d_input", 10 + dev,
                                 50 + dev, ch);
                        put(dir, path, "5000\n");
                        snprintf(path, sizeof(path), "sys/bus/i2c/devices/9-00%02d/hwmon/hwmon%d/curr%d_input",
                                 10 + dev, 50 + dev, ch);
                        snprintf(text, sizeof(text), "%d\n", 100 + dev * 10 + ch);
                        put(dir, path, text);
                }
        }
        /* And one part with twelve channels, numbered past 9: no channel
         * number is too high to be looked at. */
        for (int ch = 1; ch <= 12; ch++) {
                char path[160], text[64];
                snprintf(path, sizeof(path), "sys/bus/i2c/devices/9-0040/hwmon/hwmon70/in%d_label", ch);
                snprintf(text, sizeof(text), "WIDE_%d\n", ch);
                put(dir, path, text);
                snprintf(path, sizeof(path), "sys/bus/i2c/devices/9-0040/hwmon/hwmon70/in%d_input", ch);
                put(dir, path, "12000\n");
                snprintf(path, sizeof(path), "sys/bus/i2c/devices/9-0040/hwmon/hwmon70/curr%d_input", ch);
                snprintf(text, sizeof(text), "%d\n", ch);
                put(dir, path, text);
        }
        put(dir, "sys/bus/i2c/devices/9-0040/name", "ina3221\n");
        r = jd_power_reader_new(sr);
        const jd_power_sample *s = jd_power_reader_sample(r, 1000000);
        printf("figure: rails shown %zu (board's %zu + 42 + 12)\n", s->n, before);
        assert_int_equal(s->n, before + 42 + 12);
        const jd_rail *wide = NULL;
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->rails[i].name, "WIDE_12") == 0)
                        wide = &s->rails[i];
        assert_non_null(wide);
        assert_int_equal(wide->power_mw.value, 12 * 12);
        assert_true(s->n >= 40);
        const jd_rail *last = NULL;
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->rails[i].name, "EXTRA_13_3") == 0)
                        last = &s->rails[i];
        assert_non_null(last);
        assert_int_equal(last->current_ma.value, 100 + 13 * 10 + 3);
        assert_int_equal(last->power_mw.value, 5 * (100 + 13 * 10 + 3));
        jd_power_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* SetMode's check is jd_nvpmodel_mode_name on the latest sample: the
 * 40th mode of a 40-mode conf is known, named, and can be current. */
static void test_many_modes(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy(BOARD, &dir);
        GString *conf = g_string_new("< PARAM TYPE=FILE NAME=CPU_ONLINE >\nCORE_0 /sys/devices/system/cpu/cpu0/online\n");
        for (int i = 0; i < 40; i++)
                g_string_append_printf(conf, "< POWER_MODEL ID=%d NAME=MODE_%dW >\nCPU_ONLINE CORE_0 1\n", i, 10 + i);
        g_string_append(conf, "< PM_CONFIG DEFAULT=39 >\n");
        fixture_write_str(dir, "etc/nvpmodel.conf", conf->str);
        fixture_write_str(dir, "var/lib/nvpmodel/status", "pmode:0039 fmode:cool\n");
        jd_nvpmodel_reader *r = jd_nvpmodel_reader_new(sr);
        const jd_nvpmodel_sample *s = jd_nvpmodel_reader_sample(r);
        printf("figure: modes shown %zu of 40\n", s->n_modes);
        assert_int_equal(s->n_modes, 40);
        assert_int_equal(s->modes[39].id, 39);
        assert_string_equal(jd_nvpmodel_mode_name(s, 39), "MODE_49W");
        assert_null(jd_nvpmodel_mode_name(s, 40));
        assert_int_equal(s->default_id.value, 39);
        assert_string_equal(s->current_name, "MODE_49W");
        jd_nvpmodel_reader_free(r);
        g_string_free(conf, TRUE);
        fixture_remove_copy(sr, dir);
}

/* More swap areas than the old 32 (the kernel has fewer, but a file is
 * no proof of that): every one listed, the last one's fstab entry seen. */
static void test_many_swaps(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy(BOARD, &dir);
        GString *swaps = g_string_new("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
        GString *fstab = g_string_new("/dev/root / ext4 defaults 0 1\n");
        for (int i = 0; i < 40; i++) {
                g_string_append_printf(swaps, "/swap/file%d\tfile\t\t%d\t\t%d\t\t-%d\n", i, 65536 + i, i, i + 2);
                g_string_append_printf(fstab, "/swap/file%d none swap sw 0 0\n", i);
        }
        fixture_write_str(dir, "proc/swaps", swaps->str);
        fixture_write_str(dir, "etc/fstab", fstab->str);
        jd_swap_reader *r = jd_swap_reader_new(sr);
        const jd_swap_sample *s = jd_swap_reader_sample(r);
        printf("figure: swaps shown %zu of 40\n", s->n);
        assert_int_equal(s->n, 40);
        assert_string_equal(s->swaps[39].path, "/swap/file39");
        assert_int_equal(s->swaps[39].size_bytes, (65536ull + 39) * 1024);
        assert_int_equal(s->swaps[39].priority, -41);
        assert_true(s->swaps[39].on_boot);
        jd_swap_reader_free(r);
        g_string_free(swaps, TRUE);
        g_string_free(fstab, TRUE);
        fixture_remove_copy(sr, dir);
}

/* 30 DLA instances (the old cap was 24 groups) and one group of six
 * clocks (the old cap was 4), its fastest clock the sixth. */
static void test_many_engines(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy(BOARD, &dir);
        for (int i = 0; i < 30; i++) {
                char path[128];
                snprintf(path, sizeof(path), "sys/kernel/debug/clk/dla%d_core/clk_enable_count", 100 + i);
                put(dir, path, "1\n");
                snprintf(path, sizeof(path), "sys/kernel/debug/clk/dla%d_core/clk_rate", 100 + i);
                put(dir, path, "1000000\n");
        }
        for (int i = 0; i < 6; i++) {
                char path[128], rate[32];
                snprintf(path, sizeof(path), "sys/kernel/debug/clk/pva9_part%d/clk_enable_count", i);
                put(dir, path, "1\n");
                snprintf(path, sizeof(path), "sys/kernel/debug/clk/pva9_part%d/clk_rate", i);
                snprintf(rate, sizeof(rate), "%d\n", 1000 + i);
                put(dir, path, rate);
        }
        jd_engines_reader *r = jd_engines_reader_new(sr);
        const jd_engines_sample *s = jd_engines_reader_sample(r);
        size_t dlas = 0;
        const jd_engine *pva9 = NULL;
        for (size_t i = 0; i < s->n; i++) {
                int k;
                if (sscanf(s->engines[i].name, "DLA%d", &k) == 1 && k >= 100)
                        dlas++;
                if (strcmp(s->engines[i].name, "PVA9") == 0)
                        pva9 = &s->engines[i];
        }
        printf("figure: engines shown %zu (30 added DLAs: %zu)\n", s->n, dlas);
        assert_int_equal(dlas, 30);
        assert_non_null(pva9);
        assert_int_equal(pva9->rate_hz.value, 1005);
        jd_engines_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* 300 GPU processes (the old cap was 64): 200 in nvmap's table (past
 * the old 64 KiB buffer too, with three handle rows each) and 100 more from
 * NVML, every one listed with its user, memory and RSS. */
static void test_many_processes(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy(BOARD, &dir);
        GString *maps = g_string_new("CLIENT                        PROCESS      PID        SIZE\n");
        for (int i = 0; i < 300; i++) {
                unsigned pid = 20000 + (unsigned) i;
                char path[64], text[512];
                snprintf(path, sizeof(path), "proc/%u/stat", pid);
                snprintf(text, sizeof(text),
                         "%u (worker %d) S 1 %u %u 0 -1 4194560 1 0 0 0 %d 0 0 0 20 0 1 0 %u 1000 5 "
                         "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 2 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
                         pid, i, pid, pid, i, 1000 + pid);
                put(dir, path, text);
                snprintf(path, sizeof(path), "proc/%u/statm", pid);
                snprintf(text, sizeof(text), "1000 %d 10 1 0 10 0\n", 100 + i);
                put(dir, path, text);
                snprintf(path, sizeof(path), "proc/%u/loginuid", pid);
                put(dir, path, "1000\n");
                if (i >= 200)
                        continue;
                g_string_append_printf(maps, "user                       worker %-5d %8u %10dK\n", i, pid, 1024 + i);
                for (int h = 0; h < 3; h++)
                        g_string_append_printf(maps,
                                               "                                             0 %10dK      300      1 "
                                               "00000000a1b2c3d4                            %10dK\n",
                                               1024 + i, 1024 + i);
        }
        g_string_append(maps, "total                                              999999K\n");
        assert_true(maps->len > 65536);
        fixture_write_str(dir, "sys/kernel/debug/nvmap/iovmm/maps", maps->str);
        jd_gpu_user users[100];
        for (int i = 0; i < 100; i++)
                users[i] = (jd_gpu_user) { .pid = 20200 + (uint32_t) i, .gpu_kib = 4096 };
        jd_process_reader *r = jd_process_reader_new(sr);
        jd_process_reader_set_gpu_users(r, users, 100);
        const jd_process_sample *s = jd_process_reader_sample(r, 1000000);
        printf("figure: GPU processes shown %zu of 300 (nvmap table %zu bytes)\n", s->n, maps->len);
        assert_int_equal(s->n, 300);
        for (size_t i = 0; i < s->n; i++) {
                const jd_process *p = &s->procs[i];
                int k = (int) p->pid - 20000;
                assert_true(k >= 0 && k < 300);
                char name[32];
                snprintf(name, sizeof(name), "worker %d", k);
                assert_string_equal(p->name, name);
                assert_int_equal(p->gpu_kib, k < 200 ? 1024 + k : 4096);
                assert_int_equal(p->rss_bytes.value, (uint64_t) (100 + k) * (uint64_t) sysconf(_SC_PAGESIZE));
                assert_string_equal(p->user, "nvidia"); /* uid 1000 in the board's passwd */
        }
        jd_process_reader_free(r);
        g_string_free(maps, TRUE);
        fixture_remove_copy(sr, dir);
}

/* 20 fan profiles (the old cap was 8, "manual" included): all listed,
 * then "manual", the 20th the default. */
static void test_many_fan_profiles(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy(BOARD, &dir);
        GString *conf = g_string_new("<FAN 1>\n\tTMARGIN ENABLED\n");
        for (int i = 0; i < 20; i++)
                g_string_append_printf(conf, "\tFAN_PROFILE profile%d {\n\t\t0 0 255 2900\n\t}\n", i);
        g_string_append(conf, "\tFAN_DEFAULT_PROFILE profile19\n");
        fixture_write_str(dir, "etc/nvfancontrol.conf", conf->str);
        jd_fan_reader *r = jd_fan_reader_new(sr);
        const jd_fan_sample *s = jd_fan_reader_sample(r);
        assert_true(s->n >= 1);
        const jd_fan *f = &s->fans[0];
        printf("figure: fan profiles shown %zu (20 and manual)\n", f->n_profiles);
        assert_int_equal(f->n_profiles, 21);
        assert_string_equal(f->profiles[19], "profile19");
        assert_string_equal(f->profiles[20], "manual");
        assert_string_equal(f->default_profile, "profile19");
        jd_fan_reader_free(r);
        g_string_free(conf, TRUE);
        fixture_remove_copy(sr, dir);
}

/* 20 hwmon fans besides the board's own, each a PWM and a tachometer
 * (the old array held 4 fans): every one listed with its own readings
 * and PWM file. */
static void test_many_fans(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy(BOARD, &dir);
        for (int i = 0; i < 20; i++) {
                char path[96], text[32];
                snprintf(path, sizeof(path), "sys/class/hwmon/hwmon%d/name", 40 + i);
                snprintf(text, sizeof(text), "extrafan%d\n", i);
                put(dir, path, text);
                snprintf(path, sizeof(path), "sys/class/hwmon/hwmon%d/pwm1", 40 + i);
                snprintf(text, sizeof(text), "%d\n", 10 * i);
                put(dir, path, text);
                snprintf(path, sizeof(path), "sys/class/hwmon/hwmon%d/fan1_input", 40 + i);
                snprintf(text, sizeof(text), "%d\n", 1000 + i);
                put(dir, path, text);
        }
        jd_fan_reader *r = jd_fan_reader_new(sr);
        const jd_fan_sample *s = jd_fan_reader_sample(r);
        bool seen[20] = { false };
        size_t extra = 0;
        for (size_t i = 0; i < s->n; i++) {
                int k;
                if (sscanf(s->fans[i].name, "extrafan%d", &k) != 1)
                        continue;
                assert_true(k >= 0 && k < 20 && !seen[k]);
                seen[k] = true;
                extra++;
                assert_true(s->fans[i].pwm.present);
                assert_int_equal(s->fans[i].pwm.value, 10 * k);
                assert_true(s->fans[i].rpm.present);
                assert_int_equal(s->fans[i].rpm.value, 1000 + k);
                char pwm_path[64];
                snprintf(pwm_path, sizeof(pwm_path), "/sys/class/hwmon/hwmon%d/pwm1", 40 + k);
                assert_string_equal(s->fans[i].pwm_path, pwm_path);
        }
        printf("figure: fans shown %zu (20 added, %zu in all)\n", extra, s->n);
        assert_int_equal(extra, 20);
        jd_fan_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* dpkg's status: thousands of packages (the array doubles) and a name
 * too long for its slot left out rather than cut into another name. */
static void test_dpkg_names(void **state)
{
        (void) state;
        GString *status = g_string_new("");
        for (int i = 0; i < 5000; i++)
                g_string_append_printf(status,
                                       "Package: pkg%d\nStatus: install ok installed\nVersion: 1.%d-1\r\n\n", i, i);
        g_string_append(status, "Package: libcudnn9-");
        for (int i = 0; i < 300; i++)
                g_string_append_c(status, 'x');
        g_string_append(status, "\nStatus: install ok installed\nVersion: 9.1\n");
        jd_dpkg db;
        jd_dpkg_parse(&db, status->str);
        printf("figure: dpkg packages %zu of 5000 (and one name too long)\n", db.n);
        assert_int_equal(db.n, 5000);
        assert_string_equal(jd_dpkg_version(&db, "pkg4999"), "1.4999");
        assert_null(jd_dpkg_version_containing(&db, "cudnn"));
        jd_dpkg_free(&db);
        g_string_free(status, TRUE);
}

/* Ten idle states on a core, as many as the kernel allows
 * (CPUIDLE_STATE_MAX): all ten listed (the old array held eight). */
static void test_cpu_idle_states(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy(BOARD, &dir);
        for (int k = 0; k < 10; k++) {
                char path[96], name[16];
                snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu0/cpuidle/state%d/name", k);
                snprintf(name, sizeof(name), "c%d\n", k);
                put(dir, path, name);
                snprintf(path, sizeof(path), "sys/devices/system/cpu/cpu0/cpuidle/state%d/disable", k);
                put(dir, path, "0\n");
        }
        jd_cpu_reader *r = jd_cpu_reader_new(sr);
        const jd_cpu_sample *s = jd_cpu_reader_sample(r);
        assert_true(s->n_cores > 0);
        printf("figure: cpu0 idle states %zu of 10\n", s->cores[0].n_idle);
        assert_int_equal(s->cores[0].n_idle, 10);
        assert_string_equal(s->cores[0].idle[9].name, "c9");
        jd_cpu_reader_free(r);
        fixture_remove_copy(sr, dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_many_zones),   cmocka_unit_test(test_many_rails),
                cmocka_unit_test(test_many_modes),   cmocka_unit_test(test_many_swaps),
                cmocka_unit_test(test_many_engines), cmocka_unit_test(test_many_processes),
                cmocka_unit_test(test_many_fan_profiles), cmocka_unit_test(test_dpkg_names),
                cmocka_unit_test(test_cpu_idle_states), cmocka_unit_test(test_many_fans),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
