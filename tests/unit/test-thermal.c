/* Thermal zones by name: JP5 and JP6 spellings give the same keys,
 * power-gated zones are offline, PMIC-Die is hidden, hwmon sensors join. */
#include <math.h>
#include <string.h>

#include "fixture.h"
#include "thermal.h"

static const jd_thermal_zone *zone(const jd_thermal_sample *s, const char *key)
{
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->zones[i].key, key) == 0)
                        return &s->zones[i];
        return NULL;
}

static const jd_thermal_sample *read_board(const char *board, jd_sysroot **sr, jd_thermal_reader **r)
{
        *sr = fixture_open(board);
        *r = jd_thermal_reader_new(*sr);
        return jd_thermal_reader_sample(*r);
}

static void test_agx_orin(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_thermal_reader *r;
        const jd_thermal_sample *s = read_board("agx-orin-jp62", &sr, &r);
        assert_string_equal(zone(s, "cpu")->type, "cpu-thermal");
        assert_dbl_equal(zone(s, "cpu")->temp_c.value, 46.5);
        assert_dbl_equal(zone(s, "gpu")->temp_c.value, 44.0);
        assert_dbl_equal(zone(s, "soc0")->temp_c.value, 44.125);
        assert_dbl_equal(zone(s, "soc1")->temp_c.value, 43.906);
        assert_dbl_equal(zone(s, "tj")->temp_c.value, 46.5);
        /* -256000 and an unreadable file: offline, no temperature. */
        for (const char *k = "cv0"; k; k = strcmp(k, "cv0") == 0 ? "cv1" : strcmp(k, "cv1") == 0 ? "cv2" : NULL) {
                assert_non_null(zone(s, k));
                assert_false(zone(s, k)->online);
                assert_false(zone(s, k)->temp_c.present);
        }
        jd_thermal_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_jp5_names_and_pmic(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_thermal_reader *r;
        const jd_thermal_sample *s = read_board("xavier-nx-jp51", &sr, &r);
        assert_string_equal(zone(s, "cpu")->type, "CPU-therm"); /* same key as JP6's cpu-thermal */
        assert_dbl_equal(zone(s, "cpu")->temp_c.value, 41.5);
        assert_dbl_equal(zone(s, "tboard")->temp_c.value, 38.0);
        assert_dbl_equal(zone(s, "tdiode")->temp_c.value, 39.75);
        assert_dbl_equal(zone(s, "iwlwifi")->temp_c.value, 37.0);
        assert_null(zone(s, "pmic"));
        for (size_t i = 0; i < s->n; i++)
                assert_true(strcmp(s->zones[i].type, "PMIC-Die") != 0);
        jd_thermal_reader_free(r);
        jd_sysroot_free(sr);

        s = read_board("nano-jp46", &sr, &r);
        assert_dbl_equal(zone(s, "pll")->temp_c.value, 32.0);
        assert_dbl_equal(zone(s, "ao")->temp_c.value, 37.0);
        assert_null(zone(s, "pmic"));
        jd_thermal_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_pc(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_thermal_reader *r;
        const jd_thermal_sample *s = read_board("x86-pc", &sr, &r);
        assert_dbl_equal(zone(s, "acpitz")->temp_c.value, 45.0);
        assert_dbl_equal(zone(s, "x86")->temp_c.value, 51.0);
        const jd_thermal_zone *pkg = zone(s, "coretemp_package_id_0");
        assert_non_null(pkg);
        assert_true(pkg->temp_c.present);
        assert_true(pkg->crit_c.present);
        assert_non_null(zone(s, "nvme_composite"));
        jd_thermal_reader_free(r);
        jd_sysroot_free(sr);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_agx_orin),
                cmocka_unit_test(test_jp5_names_and_pmic),
                cmocka_unit_test(test_pc),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
