/* Thermal zones by name: JP5 and JP6 spellings give the same keys,
 * power-gated zones are offline, PMIC-Die is hidden, hwmon sensors join;
 * each zone's lowest passive and its critical trip point. */
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

/* A zone's trips: THROTTLE and CRITICAL in °C, NAN for none. */
static void assert_trips(const jd_thermal_sample *s, const char *key, double throttle, double critical)
{
        const jd_thermal_zone *z = zone(s, key);
        assert_non_null(z);
        if (isnan(throttle))
                assert_false(z->throttle_trip_c.present);
        else
                assert_true(z->throttle_trip_c.present && z->throttle_trip_c.value == throttle);
        if (isnan(critical))
                assert_false(z->critical_trip_c.present);
        else
                assert_true(z->critical_trip_c.present && z->critical_trip_c.value == critical);
}

/* Every board's trips as tests/fixtures/<board>.expected.md lists them. */
static void test_trips(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_thermal_reader *r;
        const jd_thermal_sample *s = read_board("agx-orin-jp62", &sr, &r);
        /* Power-gated and unreadable zones keep theirs. */
        static const char *const soc[] = { "cpu", "gpu", "cv0", "cv1", "cv2", "soc0", "soc1", "soc2" };
        for (size_t i = 0; i < sizeof(soc) / sizeof(soc[0]); i++)
                assert_trips(s, soc[i], 99.0, 104.5);
        assert_trips(s, "tj", NAN, 104.5);
        jd_thermal_reader_free(r);
        jd_sysroot_free(sr);

        /* "hot" and "active" trips are neither; the passive one is. */
        s = read_board("orin-nano-jp62", &sr, &r);
        assert_trips(s, "cpu", 95.0, 104.5);
        assert_trips(s, "gpu", NAN, NAN);
        jd_thermal_reader_free(r);
        jd_sysroot_free(sr);

        s = read_board("nano-jp46", &sr, &r);
        assert_trips(s, "ao", NAN, 110.0); /* ten actives, one at -25 °C */
        assert_trips(s, "cpu", 97.0, 102.0);
        assert_trips(s, "gpu", 97.5, 102.5);
        assert_trips(s, "pll", 70.0, NAN);
        assert_trips(s, "thermal", NAN, NAN);
        jd_thermal_reader_free(r);
        jd_sysroot_free(sr);

        s = read_board("xavier-nx-jp51", &sr, &r);
        assert_trips(s, "cpu", NAN, NAN);
        jd_thermal_reader_free(r);
        jd_sysroot_free(sr);

        s = read_board("agx-thor-jp71", &sr, &r);
        for (const char *k = "cpu"; k; k = strcmp(k, "cpu") == 0 ? "gpu" : strcmp(k, "gpu") == 0 ? "tj" : NULL)
                assert_trips(s, k, NAN, 114.5);
        jd_thermal_reader_free(r);
        jd_sysroot_free(sr);

        /* x86_pkg_temp's passive trips read 0 until programmed: unset.
         * hwmon channels have no trip keys (their crit is the hwmon's). */
        s = read_board("x86-pc", &sr, &r);
        assert_trips(s, "acpitz", NAN, 128.0);
        assert_trips(s, "x86", NAN, NAN);
        assert_trips(s, "coretemp_package_id_0", NAN, NAN);
        jd_thermal_reader_free(r);
        jd_sysroot_free(sr);
}

/* The rule on its own: lowest passive, lowest critical, nothing at or below 0. */
static void test_add_trip(void **state)
{
        (void) state;
        jd_thermal_zone z = { 0 };
        jd_thermal_add_trip(&z, "passive", 0);
        jd_thermal_add_trip(&z, "passive", -5000);
        assert_false(z.throttle_trip_c.present);
        jd_thermal_add_trip(&z, "passive", 99000);
        jd_thermal_add_trip(&z, "passive", 95500);
        jd_thermal_add_trip(&z, "passive", 97000);
        jd_thermal_add_trip(&z, "hot", 90000);
        jd_thermal_add_trip(&z, "active", 50000);
        jd_thermal_add_trip(&z, "critical", 104500);
        jd_thermal_add_trip(&z, "critical", 110000);
        assert_true(z.throttle_trip_c.present && z.throttle_trip_c.value == 95.5);
        assert_true(z.critical_trip_c.present && z.critical_trip_c.value == 104.5);
}

/* A trip written at run time (writable trips) shows within the trip period,
 * not on every reading of the temperatures. */
static void test_trip_changes(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_thermal_reader *r = jd_thermal_reader_new(sr);
        assert_trips(jd_thermal_reader_sample(r), "cpu", 99.0, 104.5);
        fixture_write_str(dir, "/sys/class/thermal/thermal_zone0/trip_point_1_temp", "90000\n");
        assert_trips(jd_thermal_reader_sample(r), "cpu", 99.0, 104.5);
        jd_thermal_reader_free(r);
        r = jd_thermal_reader_new(sr);
        assert_trips(jd_thermal_reader_sample(r), "cpu", 90.0, 104.5);
        jd_thermal_reader_free(r);
        fixture_remove_copy(sr, dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_trips),
                cmocka_unit_test(test_add_trip),
                cmocka_unit_test(test_trip_changes),
                cmocka_unit_test(test_agx_orin),
                cmocka_unit_test(test_jp5_names_and_pmic),
                cmocka_unit_test(test_pc),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
