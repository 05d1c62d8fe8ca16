/* jetsonctl's argument parsing and number formatting, without a bus:
 * sizes, percentages, on/off, globs, and the units shown to people. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "common/output.h"
#include "common/parse.h"

static void test_sizes(void **state)
{
        (void) state;
        static const struct {
                const char *text;
                uint64_t bytes;
        } good[] = {
                { "67108864", 67108864ULL },          { "8G", 8ULL << 30 },  { "8g", 8ULL << 30 },
                { "8GiB", 8ULL << 30 },               { "8GB", 8ULL << 30 }, { "512M", 512ULL << 20 },
                { "1024K", 1024ULL << 10 },           { "1T", 1ULL << 40 },  { "16777215T", 16777215ULL << 40 },
                { "18446744073709551615", UINT64_MAX },
        };
        for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
                uint64_t v = 0;
                char *error = NULL;
                if (!jc_parse_size(good[i].text, &v, &error))
                        fail_msg("%s: %s", good[i].text, error);
                assert_int_equal(v, good[i].bytes);
        }
        static const char *const bad[] = { "", "G", "-1G", "1.5G", "8X", "8Gb2", "8 G", "0x10",
                                           "16777216T", "18446744073709551616", "99999999999999999999" };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                uint64_t v = 0;
                char *error = NULL;
                if (jc_parse_size(bad[i], &v, &error))
                        fail_msg("\"%s\" accepted as %llu", bad[i], (unsigned long long) v);
                assert_non_null(error);
                g_free(error);
        }
}

static void test_swap_sizes(void **state)
{
        (void) state;
        uint64_t v = 0;
        char *error = NULL;
        assert_true(jc_parse_swap_size("64M", 4096, &v, &error));
        assert_int_equal(v, 64ULL << 20);
        assert_true(jc_parse_swap_size("8G", 65536, &v, &error));

        assert_false(jc_parse_swap_size("63M", 4096, &v, &error));
        assert_string_equal(error, "swap size 63M is too small: at least 64M");
        g_clear_pointer(&error, g_free);
        assert_false(jc_parse_swap_size("67108865", 4096, &v, &error));
        assert_string_equal(error, "swap size 67108865 is not a multiple of the page size (4K)");
        g_clear_pointer(&error, g_free);
        /* 64 KiB pages: 64M + 4K is a multiple of 4K but not of 64K. */
        assert_false(jc_parse_swap_size("67112960", 65536, &v, &error));
        assert_string_equal(error, "swap size 67112960 is not a multiple of the page size (64K)");
        g_clear_pointer(&error, g_free);
}

static void test_percent(void **state)
{
        (void) state;
        double v = -1;
        char *error = NULL;
        assert_true(jc_parse_percent("0", &v, &error));
        assert_true(v == 0.0);
        assert_true(jc_parse_percent("100", &v, &error));
        assert_true(v == 100.0);
        assert_true(jc_parse_percent("37.5", &v, &error));
        assert_true(v == 37.5);
        assert_true(jc_parse_percent("50%", &v, &error));
        assert_true(v == 50.0);
        static const char *const bad[] = { "", "%", "-1", "100.01", "101", "nan", "inf", "1e3", "50%%", "5O", "37,5" };
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                if (jc_parse_percent(bad[i], &v, &error))
                        fail_msg("\"%s\" accepted as %g", bad[i], v);
                g_clear_pointer(&error, g_free);
        }
        assert_false(jc_parse_percent("150", &v, &error));
        assert_string_equal(error, "150 is out of range: a percentage is 0 to 100");
        g_free(error);
}

static void test_on_off_and_numbers(void **state)
{
        (void) state;
        bool on = false;
        char *error = NULL;
        assert_true(jc_parse_on_off("on", &on, &error) && on);
        assert_true(jc_parse_on_off("OFF", &on, &error) && !on);
        assert_true(jc_parse_on_off("yes", &on, &error) && on);
        assert_true(jc_parse_on_off("0", &on, &error) && !on);
        assert_false(jc_parse_on_off("maybe", &on, &error));
        assert_string_equal(error, "\"maybe\": expected on or off");
        g_free(error);

        uint64_t n = 0;
        assert_true(jc_parse_uint("4294967295", UINT32_MAX, &n));
        assert_int_equal(n, UINT32_MAX);
        assert_false(jc_parse_uint("4294967296", UINT32_MAX, &n));
        assert_false(jc_parse_uint("", UINT32_MAX, &n));
        assert_false(jc_parse_uint("-1", UINT32_MAX, &n));
        assert_false(jc_parse_uint("1a", UINT32_MAX, &n));
}

static void test_globs(void **state)
{
        (void) state;
        char *patterns[] = { (char *) "power.*", (char *) "temp.cpu" };
        assert_true(jc_key_matches("power.VDD_IN.power", patterns, 2));
        assert_true(jc_key_matches("temp.cpu", patterns, 2));
        assert_false(jc_key_matches("temp.gpu", patterns, 2));
        assert_false(jc_key_matches("energy.total", patterns, 2));
        assert_true(jc_key_matches("anything", NULL, 0));
}

static void test_formatting(void **state)
{
        (void) state;
        struct {
                char *got;
                const char *want;
        } cases[] = {
                { jc_format_khz(729600), "729 MHz" },
                { jc_format_khz(1300500), "1300 MHz" },
                /* Memory in MiB in every command. */
                { jc_format_kib(480), "0.5 MiB" },
                { jc_format_kib(3840), "3.8 MiB" },
                { jc_format_kib(102348), "99.9 MiB" },
                { jc_format_kib(102349), "100 MiB" },
                { jc_format_kib(64302080), "62795 MiB" },
                { jc_format_bytes(0), "0 MiB" },
                { jc_format_bytes(2743554048ULL), "2616 MiB" },
                { jc_format_double(34.7), "34.7" },
                { jc_format_double(43.906), "43.906" },
                { jc_format_double(0.1 + 0.2), "0.30000000000000004" },
                { jc_format_double(40), "40" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                assert_string_equal(cases[i].got, cases[i].want);
                g_free(cases[i].got);
        }

        GString *s = g_string_new(NULL);
        jc_append_bar(s, false, 55.0, 20);
        assert_string_equal(s->str, "[###########.........]");
        g_string_truncate(s, 0);
        jc_append_bar(s, false, 0.0, 10);
        assert_string_equal(s->str, "[..........]");
        g_string_truncate(s, 0);
        jc_append_bar(s, false, 250.0, 4); /* clamped */
        assert_string_equal(s->str, "[####]");
        g_string_truncate(s, 0);
        jc_append_bar(s, true, 85.0, 4); /* red from 80 % */
        assert_string_equal(s->str, "[\033[31m###\033[0m\033[90m.\033[0m]");
        g_string_free(s, TRUE);
}

static void test_color_choice(void **state)
{
        (void) state;
        assert_true(jc_want_color("always", -1));
        assert_false(jc_want_color("never", 0));
        /* auto: never on something that is not a terminal */
        assert_false(jc_want_color("auto", -1));
}

static void quoted(const char *text, const char *want)
{
        char *got = jc_quote_value(text);
        assert_string_equal(got, want);
        g_free(got);
}

/* key=value lines: values quoted as systemctl show does. */
static void test_quote_value(void)
{
        quoted("34.7", "34.7");
        quoted("MAXN", "MAXN");
        quoted("(my) app", "\"(my) app\"");
        quoted("", "\"\"");
        quoted("a\"b\\c", "\"a\\\"b\\\\c\"");
        quoted("two\nlines", "\"two\\nlines\"");
        quoted("it's", "\"it's\"");
}

static void test_quoting(void **state)
{
        (void) state;
        test_quote_value();
}

static void size_error(const char *text, const char *want)
{
        uint64_t bytes;
        char *error = NULL;
        assert_false(jc_parse_size(text, &bytes, &error));
        assert_string_equal(error, want);
        g_free(error);
}

/* A decimal size: the message is about the number, not the unit. */
static void test_decimal_sizes(void **state)
{
        (void) state;
        size_error("64.5M", "\"64.5M\": a size is a whole number (64.5M is 66048K)");
        size_error("1,5G", "\"1,5G\": a size is a whole number (1,5G is 1536M)");
        size_error("0.5K", "\"0.5K\": a size is a whole number (0.5K is 512 bytes)");
        size_error("1.0001G", "\"1.0001G\": a size is a whole number of bytes, K, M, G or T");
        size_error("64Q", "\"64Q\": unknown size unit (use K, M, G or T)");
}

/* GLib's option errors in jetsonctl's words. */
static void option_error(const char *glib, const char *want)
{
        GError *e = g_error_new_literal(G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, glib);
        char *got = jc_option_error_text(e);
        assert_string_equal(got, want);
        g_free(got);
        g_error_free(e);
}

static void test_option_errors(void **state)
{
        (void) state;
        option_error("Cannot parse integer value “fast” for --interval", "--interval: \"fast\" is not a whole number");
        option_error("Integer value “99999999999” for -n out of range", "-n: 99999999999 is out of range");
        option_error("Cannot parse double value “x” for --duration", "--duration: \"x\" is not a number");
        option_error("Unknown option -5", "unknown option -5 (a negative number goes after --)");
        option_error("Unknown option --frob", "unknown option --frob");
        option_error("Missing argument for --interval", "--interval needs a value");
        /* Unknown (another language): as it is. */
        option_error("Valeur entière « x » invalide pour -n", "Valeur entière « x » invalide pour -n");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sizes),       cmocka_unit_test(test_swap_sizes),
                cmocka_unit_test(test_percent),     cmocka_unit_test(test_on_off_and_numbers),
                cmocka_unit_test(test_globs),       cmocka_unit_test(test_formatting),
                cmocka_unit_test(test_color_choice),  cmocka_unit_test(test_quoting),
                cmocka_unit_test(test_decimal_sizes), cmocka_unit_test(test_option_errors),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
