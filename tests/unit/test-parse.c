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

static void test_line_fields(void **state)
{
        (void) state;
        jd_span f[4];
        assert_int_equal(jd_line_fields(" \ta  bb\tccc \nnext line", f, 4), 3);
        assert_true(jd_span_eq(f[0], "a"));
        assert_true(jd_span_eq(f[1], "bb"));
        assert_true(jd_span_eq(f[2], "ccc"));
        /* at most MAX; fields never cross the line end */
        assert_int_equal(jd_line_fields("1 2 3 4 5 6", f, 2), 2);
        assert_true(jd_span_eq(f[1], "2"));
        assert_int_equal(jd_line_fields("/dev/sda1\n/mnt/x swap sw 0 0\n", f, 4), 1);
        assert_int_equal(jd_line_fields("\nx", f, 4), 0);
        assert_int_equal(jd_line_fields("", f, 4), 0);
        /* CRLF line ends: the CR belongs to no field */
        assert_int_equal(jd_line_fields("/swap none swap\r\nnext", f, 4), 3);
        assert_true(jd_span_eq(f[2], "swap"));
        assert_false(jd_span_eq(f[0], "/dev/sda"));
}

static void test_spans(void **state)
{
        (void) state;
        const char *text = "18446744073709551615 18446744073709551616 -9223372036854775808 12x - 7";
        jd_span f[6];
        assert_int_equal(jd_line_fields(text, f, 6), 6);
        uint64_t u = 3;
        int64_t i = 3;
        assert_true(jd_span_u64(f[0], &u));
        assert_true(u == UINT64_MAX);
        assert_false(jd_span_u64(f[1], &u)); /* overflow */
        assert_false(jd_span_u64(f[2], &u)); /* sign */
        assert_true(jd_span_i64(f[2], &i));
        assert_true(i == INT64_MIN);
        assert_false(jd_span_i64(f[1], &i));
        assert_false(jd_span_u64(f[3], &u)); /* trailing garbage */
        assert_false(jd_span_i64(f[4], &i));
        /* a span ends where it says, even with digits after it in memory */
        assert_true(jd_span_u64((jd_span) { "1234", 2 }, &u));
        assert_int_equal(u, 12);
        char small[4];
        assert_true(jd_span_copy(f[5], small, sizeof(small)));
        assert_string_equal(small, "7");
        assert_false(jd_span_copy((jd_span) { "abcd", 4 }, small, sizeof(small))); /* refused, not cut */
        assert_string_equal(small, "");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_u64),
                cmocka_unit_test(test_u64_rejects),
                cmocka_unit_test(test_i64),
                cmocka_unit_test(test_hex_and_prefix),
                cmocka_unit_test(test_line_fields),
                cmocka_unit_test(test_spans),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
