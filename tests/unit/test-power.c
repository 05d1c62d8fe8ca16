/* INA3221 rails: hwmon (JP5/JP6) and iio (JP4), NC and the shunt-sum
 * channel skipped, the board total, and energy integrated over time. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "power.h"

static const jd_rail *rail(const jd_power_sample *s, const char *name)
{
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->rails[i].name, name) == 0)
                        return &s->rails[i];
        fail_msg("no rail %s", name);
        return NULL;
}

static void check(const jd_rail *r, uint64_t mv, uint64_t ma, uint64_t mw, uint64_t warn, uint64_t crit)
{
        assert_int_equal(r->voltage_mv.value, mv);
        assert_int_equal(r->current_ma.value, ma);
        assert_int_equal(r->power_mw.value, mw);
        assert_int_equal(r->warn_ma.value, warn);
        assert_int_equal(r->crit_ma.value, crit);
}

static void test_agx_orin(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("agx-orin-jp62");
        jd_power_reader *r = jd_power_reader_new(sr);
        const jd_power_sample *s = jd_power_reader_sample(r, 1000000);
        /* 1-0040: three rails (in7 "sum of shunt voltages" is none); 1-0041: two NC skipped. */
        assert_int_equal(s->n, 4);
        check(rail(s, "VDD_GPU_SOC"), 5016, 477, 2392, 12000, 15000);
        check(rail(s, "VDD_CPU_CV"), 5016, 80, 401, 12000, 15000);
        check(rail(s, "VIN_SYS_5V0"), 5000, 804, 4020, 6000, 8000);
        check(rail(s, "VDDQ_VDD2_1V8AO"), 5000, 60, 300, 2000, 3000);
        /* No input rail on the AGX Orin: the total is the sum, and says so. */
        assert_true(s->total_mw.present);
        assert_int_equal(s->total_mw.value, 2392 + 401 + 4020 + 300);
        assert_true(s->total_is_sum);
        jd_power_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_input_rail_is_total(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("orin-nano-jp62");
        jd_power_reader *r = jd_power_reader_new(sr);
        const jd_power_sample *s = jd_power_reader_sample(r, 1000000);
        assert_int_equal(s->n, 3);
        check(rail(s, "VDD_IN"), 4975, 720, 3582, 5000, 6200);
        assert_int_equal(s->total_mw.value, 3582); /* VDD_IN, not VDD_IN + its subsets */
        assert_false(s->total_is_sum);
        jd_power_reader_free(r);
        jd_sysroot_free(sr);

        sr = fixture_open("xavier-nx-jp51");
        r = jd_power_reader_new(sr);
        s = jd_power_reader_sample(r, 1000000);
        check(rail(s, "VDD_IN"), 5096, 680, 3465, 4000, 5000);
        check(rail(s, "VDD_SOC"), 5088, 240, 1221, 2500, 3000);
        assert_int_equal(s->total_mw.value, 3465);
        jd_power_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_nano_iio(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("nano-jp46");
        jd_power_reader *r = jd_power_reader_new(sr);
        const jd_power_sample *s = jd_power_reader_sample(r, 1000000);
        assert_int_equal(s->n, 3);
        /* JP4 reports mW itself; limits may end in " ma". */
        check(rail(s, "POM_5V_IN"), 5072, 184, 933, 3000, 4000);
        check(rail(s, "POM_5V_GPU"), 5064, 24, 121, 2000, 2500);
        assert_int_equal(s->total_mw.value, 933);
        assert_false(s->total_is_sum);
        jd_power_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_energy_and_pc(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("orin-nano-jp62", &dir);
        jd_power_reader *r = jd_power_reader_new(sr);
        jd_power_reader_sample(r, 10000000);
        assert_dbl_equal(rail(jd_power_reader_sample(r, 10000000), "VDD_IN")->energy_mj, 0.0);
        /* 2 s at 3582 mW, then 1 s ramping to 4975 mV x 1000 mA = 4975 mW (trapezoid). */
        const jd_power_sample *s = jd_power_reader_sample(r, 12000000);
        assert_dbl_equal(rail(s, "VDD_IN")->energy_mj, 7164.0);
        char **names;
        size_t n = jd_sysroot_list(sr, "/sys/bus/i2c/devices/1-0040/hwmon", &names);
        assert_int_equal(n, 1);
        char path[256];
        snprintf(path, sizeof(path), "sys/bus/i2c/devices/1-0040/hwmon/%s/curr1_input", names[0]);
        jd_names_free(names, n);
        fixture_write_str(dir, path, "1000\n");
        s = jd_power_reader_sample(r, 13000000);
        assert_dbl_equal(rail(s, "VDD_IN")->energy_mj, 7164.0 + (3582.0 + 4975.0) / 2.0);
        assert_dbl_equal(s->total_energy_mj, rail(s, "VDD_IN")->energy_mj);
        jd_power_reader_free(r);
        fixture_remove_copy(sr, dir);

        sr = fixture_open("x86-pc");
        r = jd_power_reader_new(sr);
        s = jd_power_reader_sample(r, 1);
        assert_int_equal(s->n, 0);
        assert_false(s->total_mw.present);
        jd_power_reader_free(r);
        jd_sysroot_free(sr);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_agx_orin),
                cmocka_unit_test(test_input_rail_is_total),
                cmocka_unit_test(test_nano_iio),
                cmocka_unit_test(test_energy_and_pc),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
