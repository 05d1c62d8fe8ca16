/* INA3221 rails: hwmon (JP5/JP6) and iio (JP4), NC and the shunt-sum
 * channel skipped, the board total, and energy integrated over time; RAPL
 * zones on a PC. */
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

/* Thor: the INA3221's module rails and the carrier's INA238 "VIN" (bus
 * mV, mA, µW), which is the total, never VIN plus the rails behind it;
 * the USB-PD power supplies are no rails. */
static void test_thor_ina238(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("agx-thor-jp71");
        jd_power_reader *r = jd_power_reader_new(sr);
        const jd_power_sample *s = jd_power_reader_sample(r, 1000000);
        assert_int_equal(s->n, 4);
        const jd_rail *vin = rail(s, "VIN");
        assert_int_equal(vin->voltage_mv.value, 20000);
        assert_int_equal(vin->current_ma.value, 1790);
        assert_int_equal(vin->power_mw.value, 35800);
        assert_false(vin->warn_ma.present);
        assert_int_equal(rail(s, "VDD_GPU")->power_mw.value, 7705);
        assert_int_equal(rail(s, "VDD_CPU_SOC_MSS")->power_mw.value, 11558);
        assert_int_equal(rail(s, "VIN_SYS_5V0")->power_mw.value, 8853);
        assert_true(s->total_mw.present);
        assert_int_equal(s->total_mw.value, 35800);
        assert_false(s->total_is_sum);
        for (size_t i = 0; i < s->n; i++)
                assert_null(strstr(s->rails[i].name, "ucsi"));
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

static void test_energy(void **state)
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

}

/* A PC: RAPL zones as rails (x86-pc.expected.md, Power rails): names,
 * power only from the second reading, energy the counter's steps, the
 * DRAM counter wrapping, no board total, intel-rapl-mmio left out. */
static void test_rapl(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("x86-pc", &dir);
        jd_power_reader *r = jd_power_reader_new(sr);
        const jd_power_sample *s = jd_power_reader_sample(r, 1000000);
        const char *names[] = { "RAPL_PACKAGE_0", "RAPL_PACKAGE_0_CORE", "RAPL_PACKAGE_0_UNCORE",
                                "RAPL_PACKAGE_0_DRAM", "RAPL_PSYS" };
        assert_int_equal(s->n, G_N_ELEMENTS(names));
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
                const jd_rail *x = rail(s, names[i]);
                assert_false(x->power_mw.present); /* one reading: no interval yet */
                assert_false(x->voltage_mv.present);
                assert_false(x->current_ma.present);
                assert_dbl_equal(x->energy_mj, 0.0);
        }
        assert_false(s->total_mw.present);

        /* 0.5 s later: package +6.25 J (12.5 W); DRAM from 500 J below
         * its wrap to 1.5 J after it (501.5 J, 1003 W: a made-up step). */
        fixture_write_str(dir, "sys/class/powercap/intel-rapl:0/energy_uj", "51240817890\n");
        fixture_write_str(dir, "sys/class/powercap/intel-rapl:0:2/energy_uj", "1499999\n");
        s = jd_power_reader_sample(r, 1500000);
        const jd_rail *pkg = rail(s, "RAPL_PACKAGE_0");
        assert_true(pkg->power_mw.present);
        assert_int_equal(pkg->power_mw.value, 12500);
        assert_dbl_equal(pkg->energy_mj, 6250.0);
        const jd_rail *dram = rail(s, "RAPL_PACKAGE_0_DRAM");
        assert_true(dram->power_mw.present);
        /* (65712999613 - 65212999613) + 1499999 + 1 = 501500000 µJ */
        assert_dbl_equal(dram->energy_mj, 501500.0);
        assert_int_equal(dram->power_mw.value, 1003000);
        /* Unchanged counters: 0 W, present (a real idle zone). */
        const jd_rail *core = rail(s, "RAPL_PACKAGE_0_CORE");
        assert_true(core->power_mw.present);
        assert_int_equal(core->power_mw.value, 0);
        /* No board total from RAPL. */
        assert_false(s->total_mw.present);

        /* An unreadable counter (not root on Linux >= 5.10): no power, and
         * the next good reading starts a new interval. */
        fixture_write_str(dir, "sys/class/powercap/intel-rapl:1/energy_uj", "garbage\n");
        s = jd_power_reader_sample(r, 2000000);
        assert_false(rail(s, "RAPL_PSYS")->power_mw.present);
        fixture_write_str(dir, "sys/class/powercap/intel-rapl:1/energy_uj", "98765432109\n");
        s = jd_power_reader_sample(r, 2500000);
        assert_false(rail(s, "RAPL_PSYS")->power_mw.present);
        fixture_write_str(dir, "sys/class/powercap/intel-rapl:1/energy_uj", "98766432109\n");
        s = jd_power_reader_sample(r, 3000000);
        assert_int_equal(rail(s, "RAPL_PSYS")->power_mw.value, 2000);
        assert_dbl_equal(rail(s, "RAPL_PSYS")->energy_mj, 1000.0);
        jd_power_reader_free(r);
        fixture_remove_copy(sr, dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_agx_orin),
                cmocka_unit_test(test_input_rail_is_total),
                cmocka_unit_test(test_nano_iio),
                cmocka_unit_test(test_thor_ina238),
                cmocka_unit_test(test_energy),
                cmocka_unit_test(test_rapl),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
