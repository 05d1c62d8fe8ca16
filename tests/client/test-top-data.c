/* jetsonctl top's numbers (client/top/top_data.c): average power from the
 * energy counters (its process list is tests/client/test-gpu-procs.c's). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <glib.h>

#include "top/top_data.h"

/* A sample from GVariant text, e.g. "{'energy.total': <uint64 1000>}". */
static jc_sample sample_at(uint64_t usec, const char *values)
{
        jc_sample s = { .timestamp_usec = usec };
        /* g_variant_parse() returns a reference of our own (not floating). */
        s.values = g_variant_parse(G_VARIANT_TYPE("a{sv}"), values, NULL, NULL, NULL);
        assert_non_null(s.values);
        return s;
}

static void feed(jc_top_energy *e, uint64_t usec, const char *values)
{
        jc_sample s = sample_at(usec, values);
        jc_top_energy_add(e, &s);
        g_variant_unref(s.values);
}

static void test_average_power(void **state)
{
        (void) state;
        jc_top_energy *e = jc_top_energy_new();
        double mw;
        feed(e, 10000000, "{'energy.VDD_IN': <uint64 50000>, 'energy.total': <uint64 50000>}");
        assert_false(jc_top_energy_average(e, "energy.VDD_IN", &mw)); /* one sample: no average yet */
        feed(e, 10400000, "{'energy.VDD_IN': <uint64 52000>}");
        assert_false(jc_top_energy_average(e, "energy.VDD_IN", &mw)); /* one change: no span yet */
        feed(e, 10800000, "{'energy.VDD_IN': <uint64 53000>}");
        assert_false(jc_top_energy_average(e, "energy.VDD_IN", &mw)); /* 0.4 s: too short */
        /* From the first change to the last: 3 J in 1.6 s, whatever the
         * power readings said between. */
        feed(e, 12000000, "{'energy.VDD_IN': <uint64 55000>, 'power.VDD_IN.power': <uint32 9999>}");
        assert_true(jc_top_energy_average(e, "energy.VDD_IN", &mw));
        assert_float_equal(mw, 1875.0, 1e-9);
        assert_false(jc_top_energy_average(e, "energy.total", &mw)); /* not in the later samples */
        assert_false(jc_top_energy_average(e, "energy.OTHER", &mw));
        /* jetsond restarted: its counters start again from 0, and so does
         * the average. */
        feed(e, 13000000, "{'energy.VDD_IN': <uint64 100>}");
        assert_false(jc_top_energy_average(e, "energy.VDD_IN", &mw));
        feed(e, 14000000, "{'energy.VDD_IN': <uint64 1100>}");
        assert_false(jc_top_energy_average(e, "energy.VDD_IN", &mw));
        feed(e, 15000000, "{'energy.VDD_IN': <uint64 2100>}");
        assert_true(jc_top_energy_average(e, "energy.VDD_IN", &mw));
        assert_float_equal(mw, 1000.0, 1e-9);
        /* A value of another type is not a counter. */
        feed(e, 16000000, "{'energy.VDD_IN': <'x'>}");
        assert_true(jc_top_energy_average(e, "energy.VDD_IN", &mw));
        jc_top_energy_free(e);
}

/* A discrete GPU's counter, read by jetsond every 10 s and sampled every
 * second: 690 W, the counter's reads at 3.3 s, 13.3 s, ... The samples'
 * own span would give 0, then twice the power (the H200's top showed
 * both); timed by its changes the average is the power from the second
 * change on. A counter that never moves draws nothing after 30 s. */
static void test_counter_read_every_10_s(void **state)
{
        (void) state;
        jc_top_energy *e = jc_top_energy_new();
        double mw;
        for (uint64_t t = 0; t <= 40; t++) {
                /* The counter as last read: reads at 3.3 + 10k s. */
                uint64_t k = t < 4 ? 0 : (t - 4) / 10 + 1;  /* reads done by t (3.3, 13.3, ...) */
                uint64_t mj = 1000000000ull + k * 6900000ull; /* 690 W x 10 s per read */
                g_autofree char *v = g_strdup_printf("{'dgpu.0.energy': <uint64 %" G_GUINT64_FORMAT ">, "
                                                     "'energy.IDLE': <uint64 5>}", mj);
                feed(e, t * 1000000, v);
                bool have = jc_top_energy_average(e, "dgpu.0.energy", &mw);
                if (t < 14)
                        assert_false(have); /* one change (at 4 s) or none */
                else
                        assert_float_equal(mw, 690000.0, 1e-6);
                if (t < 30)
                        assert_false(jc_top_energy_average(e, "energy.IDLE", &mw));
        }
        assert_true(jc_top_energy_average(e, "energy.IDLE", &mw));
        assert_float_equal(mw, 0.0, 1e-9);
        jc_top_energy_free(e);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_average_power),
                cmocka_unit_test(test_counter_read_every_10_s),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
