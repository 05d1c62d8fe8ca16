/* Number parsing: clean numbers pass, everything else is rejected. */
#include <math.h>
#include <stdint.h>

#include "fixture.h"
#include "parse.h"

static void test_u64(void **state)
{
        (void) state;
        uint64_t v = 7;
        assert_true(jd_parse_u64("12345\n", &v));
        assert_int_equal(v, 12345);
        assert_true(jd_parse_u64("  0 ", &v));
        assert_int_equal(v, 0);
        assert_true(jd_parse_u64("18446744073709551615", &v));
        assert_true(v == UINT64_MAX);
}

static void test_u64_rejects(void **state)
{
        (void) state;
        uint64_t v = 7;
        assert_false(jd_parse_u64("", &v));
        assert_false(jd_parse_u64("\n", &v));
        assert_false(jd_parse_u64("garbage", &v));
        assert_false(jd_parse_u64("12abc", &v));
        assert_false(jd_parse_u64("-5", &v));
        assert_false(jd_parse_u64("18446744073709551616", &v)); /* overflow */
        assert_false(jd_parse_u64("99999999999999999999999999", &v));
        assert_false(jd_parse_u64("1 2", &v));
        assert_int_equal(v, 7); /* untouched on failure */
}

static void test_i64(void **state)
{
        (void) state;
        int64_t v;
        assert_true(jd_parse_i64("-256000\n", &v));
        assert_int_equal(v, -256000);
        assert_true(jd_parse_i64("41500", &v));
        assert_int_equal(v, 41500);
        assert_false(jd_parse_i64("-", &v));
        assert_false(jd_parse_i64("--1", &v));
        assert_false(jd_parse_i64("9223372036854775808", &v));
}

static void test_hex_and_prefix(void **state)
{
        (void) state;
        uint64_t v;
        assert_true(jd_parse_u64_any_base("0x3f000\n", &v));
        assert_int_equal(v, 0x3f000);
        assert_true(jd_parse_u64_any_base("252", &v));
        assert_int_equal(v, 252);
        assert_false(jd_parse_u64_any_base("0xzz", &v));
        assert_true(jd_parse_u64_prefix("1500 ma\n", &v));
        assert_int_equal(v, 1500);
        assert_false(jd_parse_u64_prefix("ma", &v));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_u64),
                cmocka_unit_test(test_u64_rejects),
                cmocka_unit_test(test_i64),
                cmocka_unit_test(test_hex_and_prefix),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
