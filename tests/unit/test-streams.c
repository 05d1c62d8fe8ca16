/* The Metrics streams' schedule (src/bus/streams.c): Sample every
 * DefaultInterval whatever is subscribed, one stream per distinct period
 * shared by its subscribers, each at its own mean period on ticks of the
 * fastest, none catching up in a burst after a stall. */
#include <glib.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "streams.h"

typedef struct {
        unsigned sample, at[4];
        uint64_t at_period[4];
        char arg0[4][24];
        unsigned n_at;
} emitted;

static void on_emit(const jd_stream *st, void *data)
{
        emitted *e = data;
        if (st->kind == JD_STREAM_SAMPLE) {
                e->sample++;
                return;
        }
        for (unsigned i = 0; i < e->n_at; i++)
                if (e->at_period[i] == st->period_us) {
                        e->at[i]++;
                        return;
                }
        assert_true(e->n_at < 4);
        e->at_period[e->n_at] = st->period_us;
        g_strlcpy(e->arg0[e->n_at], st->arg0, sizeof(e->arg0[0]));
        e->at[e->n_at++] = 1;
}

static unsigned count_of(const emitted *e, uint64_t period)
{
        for (unsigned i = 0; i < e->n_at; i++)
                if (e->at_period[i] == period)
                        return e->at[i];
        return 0;
}

/* Ticks every TICK from START for DURATION, each JITTER late on odd ticks. */
static uint64_t run(jd_streams *s, emitted *e, uint64_t start, uint64_t duration, uint64_t jitter)
{
        uint64_t tick = jd_streams_fastest(s), t = start;
        for (unsigned i = 0; t < start + duration; i++, t = start + i * tick)
                jd_streams_emit_due(s, t + (i % 2 ? jitter : 0), tick, false, on_emit, e);
        return t;
}

static void test_sample_alone(void **state)
{
        (void) state;
        jd_streams s;
        jd_streams_init(&s, 1000000);
        assert_int_equal(jd_streams_fastest(&s), 1000000);
        emitted e = { 0 };
        run(&s, &e, 5000000, 10000000, 0);
        assert_int_equal(e.sample, 10);
        assert_int_equal(e.n_at, 0);
        jd_streams_clear(&s);
}

static void test_fast_subscribers_share(void **state)
{
        (void) state;
        jd_streams s;
        jd_streams_init(&s, 1000000);
        for (int i = 0; i < 10; i++)
                jd_streams_add(&s, JD_STREAM_SAMPLE_AT, 10000);
        assert_int_equal(s.streams->len, 2);     /* Sample and one SampleAt */
        assert_int_equal(jd_streams_fastest(&s), 10000);
        emitted e = { 0 };
        /* Ticks up to 3 ms late every other time. */
        run(&s, &e, 1000000, 10000000, 3000);
        assert_int_equal(count_of(&e, 10000), 1000);
        assert_string_equal(e.arg0[0], "10000");
        /* The passive listeners' Sample stays at 1 s. */
        assert_in_range(e.sample, 10, 11);
        /* Nine leave: the stream goes on; the tenth: it ends. */
        for (int i = 0; i < 9; i++)
                jd_streams_remove(&s, JD_STREAM_SAMPLE_AT, 10000);
        assert_int_equal(s.streams->len, 2);
        jd_streams_remove(&s, JD_STREAM_SAMPLE_AT, 10000);
        assert_int_equal(s.streams->len, 1);
        assert_int_equal(jd_streams_fastest(&s), 1000000);
        jd_streams_clear(&s);
}

static void test_periods_not_multiples(void **state)
{
        (void) state;
        jd_streams s;
        jd_streams_init(&s, 1000000);
        jd_streams_add(&s, JD_STREAM_SAMPLE_AT, 30000);
        jd_streams_add(&s, JD_STREAM_VALUES_AT, 70000);
        jd_streams_add(&s, JD_STREAM_SAMPLE_AT, 2500000);   /* slower than the default */
        jd_streams_add(&s, JD_STREAM_VALUES_AT, 30000);     /* the same period, another signal */
        assert_int_equal(s.streams->len, 5);
        emitted e = { 0 };
        run(&s, &e, 0, 21000000, 0);
        /* Each at its own mean period, within a tick over 21 s. */
        assert_in_range(e.sample, 20, 22);
        assert_in_range(count_of(&e, 70000), 299, 301);
        assert_in_range(count_of(&e, 2500000), 8, 9);
        /* Two streams of 30 ms, a SampleAt and a ValuesAt. */
        assert_in_range(count_of(&e, 30000), 2 * 699, 2 * 701);
        jd_streams_clear(&s);
}

static void test_stall_no_burst(void **state)
{
        (void) state;
        jd_streams s;
        jd_streams_init(&s, 1000000);
        jd_streams_add(&s, JD_STREAM_SAMPLE_AT, 10000);
        emitted e = { 0 };
        jd_streams_emit_due(&s, 1000000, 10000, false, on_emit, &e);
        assert_int_equal(count_of(&e, 10000), 1);
        /* No tick for 2 s: one signal on the next, then a period apart. */
        jd_streams_emit_due(&s, 3000000, 10000, false, on_emit, &e);
        jd_streams_emit_due(&s, 3001000, 10000, false, on_emit, &e);
        assert_int_equal(count_of(&e, 10000), 2);
        jd_streams_emit_due(&s, 3010000, 10000, false, on_emit, &e);
        assert_int_equal(count_of(&e, 10000), 3);
        /* A reading jetsond asked for: every stream, the schedule kept. */
        unsigned samples = e.sample;
        jd_streams_emit_due(&s, 3012000, 10000, true, on_emit, &e);
        assert_int_equal(count_of(&e, 10000), 4);
        assert_int_equal(e.sample, samples + 1);
        jd_streams_emit_due(&s, 3014000, 10000, false, on_emit, &e);
        assert_int_equal(count_of(&e, 10000), 4);
        jd_streams_emit_due(&s, 3020000, 10000, false, on_emit, &e);
        assert_int_equal(count_of(&e, 10000), 5);
        jd_streams_clear(&s);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sample_alone),
                cmocka_unit_test(test_fast_subscribers_share),
                cmocka_unit_test(test_periods_not_multiples),
                cmocka_unit_test(test_stall_no_burst),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
