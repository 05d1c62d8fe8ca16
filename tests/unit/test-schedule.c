/* The tier tickers: deadlines on a grid of CLOCK_MONOTONIC times that
 * does not drift with the time readings take, skips what an overrun
 * missed instead of bursting, and moves to a new period without losing
 * the grid. Pure arithmetic: times are made up. */
#include <stdint.h>

#include "fixture.h"
#include "schedule.h"

#define MS 1000u

static void test_grid_does_not_drift(void **state)
{
        (void) state;
        jd_ticker t;
        /* epoch 1000 ms, 10 ms period, 2 ms lead: grid 998, 1008, ... */
        jd_ticker_init(&t, 1000 * MS, 10 * MS, 2 * MS, 1003 * MS);
        assert_int_equal(jd_ticker_next(&t), 1008 * MS);
        /* Each reading takes 3 ms and starts 0.1 ms late: the deadlines
         * stay on the grid. */
        for (uint64_t k = 0; k < 100; k++) {
                uint64_t due = jd_ticker_next(&t);
                assert_int_equal(due, (1008 + 10 * k) * MS);
                assert_int_equal(jd_ticker_take(&t, due + 100), due);
                assert_int_equal(jd_ticker_next(&t), due + 10 * MS);
        }
}

static void test_overrun_skips(void **state)
{
        (void) state;
        jd_ticker t;
        jd_ticker_init(&t, 0, 10 * MS, 0, 0);
        assert_int_equal(jd_ticker_next(&t), 10 * MS);
        /* A reading stuck until 57 ms: the tick taken is the one due, and
         * the next is 60 ms, not 20, 30, 40, 50 in a burst. */
        assert_int_equal(jd_ticker_take(&t, 57 * MS), 10 * MS);
        assert_int_equal(jd_ticker_next(&t), 60 * MS);
        /* Exactly on a grid point counts as that point taken. */
        assert_int_equal(jd_ticker_take(&t, 60 * MS), 60 * MS);
        assert_int_equal(jd_ticker_next(&t), 70 * MS);
}

static void test_lead_before_epoch(void **state)
{
        (void) state;
        jd_ticker t;
        /* A lead larger than the epoch anchors the grid at 0. */
        jd_ticker_init(&t, 3 * MS, 10 * MS, 5 * MS, 0);
        assert_int_equal(jd_ticker_next(&t), 10 * MS);
        /* Before the anchor, the anchor itself is the first deadline. */
        jd_ticker_init(&t, 100 * MS, 10 * MS, 0, 40 * MS);
        assert_int_equal(jd_ticker_next(&t), 100 * MS);
        /* A zero period is taken as the smallest, never a division by 0. */
        jd_ticker_init(&t, 0, 0, 0, 5);
        assert_int_equal(jd_ticker_next(&t), 6);
}

static void test_new_period(void **state)
{
        (void) state;
        const uint64_t e = 10000 * MS;
        jd_ticker t;
        jd_ticker_init(&t, e, 100 * MS, 0, e);
        assert_int_equal(jd_ticker_take(&t, e + 100 * MS), e + 100 * MS);
        assert_int_equal(jd_ticker_next(&t), e + 200 * MS);
        /* Faster at +130 ms: next is the first 10 ms point after the last
         * tick (+110 ms), which has passed, so now. */
        jd_ticker_set_period(&t, e, 10 * MS, 0, e + 130 * MS);
        assert_int_equal(jd_ticker_next(&t), e + 130 * MS);
        assert_int_equal(jd_ticker_take(&t, e + 130 * MS), e + 130 * MS);
        assert_int_equal(jd_ticker_next(&t), e + 140 * MS);
        /* Slower again right after: the first 1 s point after +130 ms. */
        jd_ticker_set_period(&t, e, 1000 * MS, 0, e + 131 * MS);
        assert_int_equal(jd_ticker_next(&t), e + 1000 * MS);
        /* A lead shifts the grid: 50 ms before each point. */
        jd_ticker_set_period(&t, e, 1000 * MS, 50 * MS, e + 131 * MS);
        assert_int_equal(jd_ticker_next(&t), e + 950 * MS);
}

/* Tiers with the same epoch stay in step: the medium tier's deadline
 * falls LEAD before every tenth fast deadline at 1 ms / 10 ms. */
static void test_tiers_in_step(void **state)
{
        (void) state;
        jd_ticker fast, medium;
        uint64_t epoch = 5000 * MS;
        jd_ticker_init(&fast, epoch, 1 * MS, 0, epoch);
        jd_ticker_init(&medium, epoch, 10 * MS, 2500, epoch);
        for (int k = 0; k < 50; k++) {
                uint64_t m = jd_ticker_take(&medium, jd_ticker_next(&medium));
                assert_int_equal((m + 2500 - epoch) % (10 * MS), 0);
        }
        uint64_t f = 0;
        for (int k = 0; k < 500; k++)
                f = jd_ticker_take(&fast, jd_ticker_next(&fast));
        assert_int_equal(f, epoch + 500 * MS);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_grid_does_not_drift),
                cmocka_unit_test(test_overrun_skips),
                cmocka_unit_test(test_lead_before_epoch),
                cmocka_unit_test(test_new_period),
                cmocka_unit_test(test_tiers_in_step),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
