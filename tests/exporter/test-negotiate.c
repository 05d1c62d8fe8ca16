/* Content negotiation of /metrics, with the headers real scrapers send. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "negotiate.h"

static void test_format(void **state)
{
        (void)state;
        /* Prometheus 2.42's scrape header. */
        assert_int_equal(negotiate_format("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                                          "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
                         EXP_FORMAT_OPENMETRICS);
        /* Prometheus with scrape_classic_histograms / older releases. */
        assert_int_equal(negotiate_format("text/plain;version=0.0.4;q=1,*/*;q=0.1"), EXP_FORMAT_PROMETHEUS);
        assert_int_equal(negotiate_format(NULL), EXP_FORMAT_PROMETHEUS);
        assert_int_equal(negotiate_format(""), EXP_FORMAT_PROMETHEUS);
        assert_int_equal(negotiate_format("*/*"), EXP_FORMAT_PROMETHEUS); /* curl */
        assert_int_equal(negotiate_format("text/html"), EXP_FORMAT_PROMETHEUS);
        assert_int_equal(negotiate_format("Application/OpenMetrics-Text"), EXP_FORMAT_OPENMETRICS);
        assert_int_equal(negotiate_format("application/openmetrics-text; version=1.0.0; charset=utf-8"),
                         EXP_FORMAT_OPENMETRICS);
        /* q-values decide, not order... */
        assert_int_equal(negotiate_format("text/plain;q=0.5, application/openmetrics-text;q=0.9"),
                         EXP_FORMAT_OPENMETRICS);
        assert_int_equal(negotiate_format("application/openmetrics-text;q=0.2, text/plain"), EXP_FORMAT_PROMETHEUS);
        /* ...except between equals, where the first wins. */
        assert_int_equal(negotiate_format("application/openmetrics-text, text/plain"), EXP_FORMAT_OPENMETRICS);
        assert_int_equal(negotiate_format("text/plain, application/openmetrics-text"), EXP_FORMAT_PROMETHEUS);
        /* q=0 means "not this"; a broken q is no preference. */
        assert_int_equal(negotiate_format("application/openmetrics-text;q=0"), EXP_FORMAT_PROMETHEUS);
        assert_int_equal(negotiate_format("application/openmetrics-text;q=abc"), EXP_FORMAT_PROMETHEUS);
        assert_int_equal(negotiate_format("application/openmetrics-text;q=2"), EXP_FORMAT_PROMETHEUS);
}

static void test_gzip(void **state)
{
        (void)state;
        assert_true(negotiate_gzip("gzip"));
        assert_true(negotiate_gzip("gzip, deflate, br")); /* browsers */
        assert_true(negotiate_gzip("deflate, GZIP;q=0.5"));
        assert_true(negotiate_gzip("x-gzip"));
        assert_true(negotiate_gzip("*"));
        assert_false(negotiate_gzip(NULL));
        assert_false(negotiate_gzip(""));
        assert_false(negotiate_gzip("identity"));
        assert_false(negotiate_gzip("br, deflate"));
        assert_false(negotiate_gzip("gzip;q=0"));
        assert_false(negotiate_gzip("*, gzip;q=0"));
        assert_false(negotiate_gzip("*;q=0"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_format),
                cmocka_unit_test(test_gzip),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
