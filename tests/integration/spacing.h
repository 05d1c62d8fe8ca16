#pragma once
/* What rate jetsond kept, told by its own data: the spacing of the
 * timestamps it puts on Sample and SampleAt signals (the time of each reading) or on
 * capture records. A test that counts events per wall-clock second proves
 * only that the machine was idle; these figures hold on a busy one, where
 * a delivery may be late but the readings' times still say when they were
 * taken. */

#include <stdint.h>
#include <systemd/sd-bus.h>

typedef struct {
        unsigned n;           /* intervals measured */
        uint64_t median_us;   /* the period jetsond kept */
        uint64_t min_us, max_us;
        uint64_t span_us;     /* first to last timestamp */
        uint64_t *gaps;       /* the N intervals, shortest first: testbus_assert_period frees them */
} testbus_spacing;

/* The spacing of the sorted timestamps STAMPS[0..N-1] (any unit). */
testbus_spacing testbus_spacing_of(const uint64_t *stamps, unsigned n);

/* Listens on BUS for Sample signals until N + 1 have come (N intervals)
 * or DEADLINE_US has passed: a generous limit only a stall misses. Fails
 * the test if fewer than 2 came. Prints the figures. */
testbus_spacing testbus_sample_spacing(sd_bus *bus, unsigned n, uint64_t deadline_us);
/* The same for the stream of MEMBER ("SampleAt", "ValuesAt") at
 * PERIOD_US, or for "Sample" (PERIOD_US unused). */
testbus_spacing testbus_stream_spacing(sd_bus *bus, const char *member, uint64_t period_us, unsigned n,
                                       uint64_t deadline_us);

/* Fails the test unless S says jetsond kept PERIOD_US (within PERCENT):
 * its median interval, or, where jetsond missed more than half the ticks
 * (a machine so busy its thread did not run in time), the median of the
 * single-tick intervals (under 1.5 periods), which must be at least a
 * tenth of them. A missed tick only lengthens an interval to about a
 * multiple of the period, so a wrong period still fails: too slow leaves
 * too few single ticks, too fast a median too short. Frees S's gaps. */
void testbus_assert_period(const char *what, testbus_spacing s, uint64_t period_us, unsigned percent);
