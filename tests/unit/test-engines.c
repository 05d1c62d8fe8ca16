/* Engines grouped as tegrastats shows them, on every board. */
#include <math.h>
#include <string.h>

#include "engines.h"
#include "fixture.h"

static const jd_engine *find(const jd_engines_sample *s, const char *name)
{
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->engines[i].name, name) == 0)
                        return &s->engines[i];
        fail_msg("no engine %s", name);
        return NULL;
}

static const jd_engines_sample *read_board(const char *board, jd_sysroot **sr, jd_engines_reader **r)
{
        *sr = fixture_open(board);
        *r = jd_engines_reader_new(*sr);
        return jd_engines_reader_sample(*r);
}

static void test_agx_orin(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_engines_reader *r;
        const jd_engines_sample *s = read_board("agx-orin-jp62", &sr, &r);
        const char *names[] = { "APE", "DLA0", "DLA1", "NVDEC", "NVENC", "NVJPG", "OFA", "PVA0", "SE", "VIC" };
        assert_int_equal(s->n, 10);
        for (size_t i = 0; i < 10; i++)
                assert_string_equal(s->engines[i].name, names[i]);
        assert_true(find(s, "APE")->online.value);
        assert_int_equal(find(s, "APE")->rate_hz.value, 233000000);
        assert_false(find(s, "DLA0")->online.value);
        /* Off: no frequency, though its clocks have a rate (absent, never 0). */
        assert_false(find(s, "DLA0")->rate_hz.present);
        assert_false(find(s, "NVENC")->rate_hz.present);
        assert_true(find(s, "DLA1")->online.value);
        assert_int_equal(find(s, "DLA1")->rate_hz.value, 1600000000); /* core, not falcon */
        assert_int_equal(find(s, "NVDEC")->rate_hz.value, 1075200000);
        assert_false(find(s, "NVENC")->online.value);
        assert_false(find(s, "PVA0")->online.value);
        assert_false(find(s, "PVA0")->rate_hz.present);
        assert_true(find(s, "SE")->online.value);
        assert_int_equal(find(s, "SE")->rate_hz.value, 652800000);
        assert_int_equal(find(s, "VIC")->rate_hz.value, 115200000);
        jd_engines_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_other_boards(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_engines_reader *r;
        const jd_engines_sample *s = read_board("orin-nano-jp62", &sr, &r);
        assert_int_equal(s->n, 6); /* APE NVDEC NVJPG OFA SE VIC: no NVENC, DLA, PVA */
        assert_true(find(s, "NVJPG")->online.value);
        assert_int_equal(find(s, "NVJPG")->rate_hz.value, 499200000);
        jd_engines_reader_free(r);
        jd_sysroot_free(sr);

        s = read_board("xavier-nx-jp51", &sr, &r);
        assert_int_equal(s->n, 10);
        assert_false(find(s, "CVNAS")->online.value);
        assert_true(find(s, "NVENC")->online.value);
        assert_false(find(s, "PVA0")->online.value);
        assert_false(find(s, "PVA0")->rate_hz.present);
        jd_engines_reader_free(r);
        jd_sysroot_free(sr);

        s = read_board("nano-jp46", &sr, &r);
        assert_int_equal(s->n, 6);
        assert_true(find(s, "VIC")->online.value); /* vic03 */
        assert_int_equal(find(s, "VIC")->rate_hz.value, 140800000);
        jd_engines_reader_free(r);
        jd_sysroot_free(sr);

        s = read_board("x86-pc", &sr, &r);
        assert_int_equal(s->n, 0);
        jd_engines_reader_free(r);
        jd_sysroot_free(sr);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_agx_orin),
                cmocka_unit_test(test_other_boards),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
