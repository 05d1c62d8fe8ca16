/* EMC: BPMP debugfs (JP5/JP6), tegra_bwmgr + override.emc (JP4), devfreq
 * bwmgr (Thor), the cap. */
#include <math.h>

#include "emc.h"
#include "fixture.h"

typedef struct {
        const char *board;
        uint64_t rate, min, max;
        double load;
} emc_case;

static const emc_case cases[] = {
        { "agx-orin-jp62", 2133000000, 204000000, 3199000000, 20.0 },
        { "orin-nano-jp62", 3199000000, 204000000, 3199000000, 35.0 },
        { "xavier-nx-jp51", 1600000000, 204000000, 1600000000, 10.0 },
        { "nano-jp46", 1600000000, 204000000, 1600000000, 25.0 },
};

static void test_boards(void **state)
{
        (void) state;
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                jd_sysroot *sr = fixture_open(cases[i].board);
                jd_emc_reader *r = jd_emc_reader_new(sr);
                const jd_emc_sample *e = jd_emc_reader_sample(r);
                assert_true(e->present);
                assert_int_equal(e->cur_hz.value, cases[i].rate);
                assert_int_equal(e->min_hz.value, cases[i].min);
                assert_int_equal(e->max_hz.value, cases[i].max);
                assert_true(e->load.present);
                assert_dbl_equal(e->load.value, cases[i].load);
                assert_true(e->cap_hz.present);
                assert_int_equal(e->cap_hz.value, 0);
                assert_int_equal(jd_emc_effective_max(e).value, cases[i].max); /* cap 0 = none */
                assert_false(e->locked.value);
                jd_emc_reader_free(r);
                jd_sysroot_free(sr);
        }
}

/* Thor: EMC through devfreq bwmgr (Hz) and BPMP's actmon; no nvpmodel EMC
 * cap file, so no cap, rather than a cap of 0. */
static void test_thor_bwmgr(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("agx-thor-jp71");
        jd_emc_reader *r = jd_emc_reader_new(sr);
        const jd_emc_sample *e = jd_emc_reader_sample(r);
        assert_true(e->present);
        assert_int_equal(e->cur_hz.value, 3200000000);
        assert_int_equal(e->min_hz.value, 665600000);
        assert_int_equal(e->max_hz.value, 4266000000);
        assert_true(e->load.present);
        assert_dbl_equal(e->load.value, 7.0);
        assert_false(e->cap_hz.present);
        assert_int_equal(jd_emc_effective_max(e).value, 4266000000);
        assert_false(e->locked.value);
        jd_emc_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_rate_zero_and_cap(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_emc_reader *r = jd_emc_reader_new(sr);
        fixture_write_str(dir, "sys/kernel/debug/bpmp/debug/clk/emc/rate", "0\n");
        const jd_emc_sample *e = jd_emc_reader_sample(r);
        assert_true(e->cur_hz.present);
        assert_false(e->load.present); /* no division by zero, no fake 0 % */
        fixture_write_str(dir, "sys/kernel/nvpmodel_emc_cap/emc_iso_cap", "2133000000\n");
        jd_emc_reader_sample_limits(r);
        assert_int_equal(jd_emc_effective_max(e).value, 2133000000);
        jd_emc_reader_free(r);
        fixture_remove_copy(sr, dir);

        sr = fixture_open("x86-pc");
        r = jd_emc_reader_new(sr);
        assert_false(jd_emc_reader_sample(r)->present);
        jd_emc_reader_free(r);
        jd_sysroot_free(sr);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_boards),
                cmocka_unit_test(test_thor_bwmgr),
                cmocka_unit_test(test_rate_zero_and_cap),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
