/* Sample and record spacing from jetsond's own timestamps (spacing.h). */
#include "spacing.h"
#include "testbus.h"
#include "jetsond-dbus.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

static int compare_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

testbus_spacing testbus_spacing_of(const uint64_t *stamps, unsigned n)
{
        testbus_spacing s = { 0 };
        if (n < 2)
                return s;
        s.n = n - 1;
        uint64_t *gaps = g_new(uint64_t, s.n);
        for (unsigned i = 0; i < s.n; i++)
                gaps[i] = stamps[i + 1] - stamps[i];
        qsort(gaps, s.n, sizeof(*gaps), compare_u64);
        s.min_us = gaps[0];
        s.max_us = gaps[s.n - 1];
        s.median_us = gaps[s.n / 2];
        s.span_us = stamps[n - 1] - stamps[0];
        s.gaps = gaps;
        return s;
}

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        uint64_t stamp;
        testbus_skip_period(m);
        if (sd_bus_message_read(m, "t", &stamp) > 0)
                g_array_append_val((GArray *) userdata, stamp);
        return 0;
}

testbus_spacing testbus_stream_spacing(sd_bus *bus, const char *member, uint64_t period_us, unsigned n,
                                       uint64_t deadline_us)
{
        GArray *stamps = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        sd_bus_slot *slot = NULL;
        assert_true(testbus_match_metrics(bus, &slot, member, period_us, on_signal, stamps) >= 0);
        uint64_t end = testbus_now_us() + deadline_us;
        while (stamps->len < n + 1 && testbus_now_us() < end)
                testbus_pump(bus, 50000, NULL);
        sd_bus_slot_unref(slot);
        if (stamps->len < 2)
                fail_msg("%u %s signals in %.1f s", stamps->len, member, (double) deadline_us / 1e6);
        for (guint i = 1; i < stamps->len; i++)
                if (g_array_index(stamps, uint64_t, i) <= g_array_index(stamps, uint64_t, i - 1))
                        fail_msg("%s timestamps do not increase at %u", member, i);
        testbus_spacing s = testbus_spacing_of((const uint64_t *) (void *) stamps->data, stamps->len);
        g_array_unref(stamps);
        print_message("%s: %u intervals, median %.1f ms (min %.1f, max %.1f)\n", member, s.n, s.median_us / 1e3,
                      s.min_us / 1e3, s.max_us / 1e3);
        return s;
}

testbus_spacing testbus_sample_spacing(sd_bus *bus, unsigned n, uint64_t deadline_us)
{
        return testbus_stream_spacing(bus, "Sample", 0, n, deadline_us);
}

void testbus_assert_period(const char *what, testbus_spacing s, uint64_t period_us, unsigned percent)
{
        uint64_t slack = period_us * percent / 100;
        bool kept = s.median_us + slack >= period_us && s.median_us <= period_us + slack;
        if (!kept && s.n) {
                unsigned single = 0;
                while (single < s.n && s.gaps[single] < period_us + period_us / 2)
                        single++;
                uint64_t median = single ? s.gaps[single / 2] : 0;
                kept = single >= 5 && single * 10 >= s.n && median + slack >= period_us &&
                       median <= period_us + slack;
                print_message("figure: %s: median spacing %" PRIu64 " µs over %u intervals (ticks missed); %u "
                              "single-tick intervals, median %" PRIu64 " µs\n",
                              what, s.median_us, s.n, single, median);
        }
        g_free(s.gaps);
        if (!kept)
                fail_msg("%s: median spacing %" PRIu64 " µs over %u intervals, want %" PRIu64 " µs ± %u %%", what,
                         s.median_us, s.n, period_us, percent);
}
