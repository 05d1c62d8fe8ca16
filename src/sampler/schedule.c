#include "schedule.h"

#include "sampler.h"

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static uint64_t tier_period(const jd_schedule *s, uint64_t min_period)
{
        return max_u64(s->period_us, min_period);
}

void jd_schedule_init(jd_schedule *s, uint64_t period_us, uint64_t now_us)
{
        s->period_us = period_us;
        s->last_tick_us = now_us;
        s->next_tick_us = now_us + period_us;
        s->medium_due_us = now_us + tier_period(s, JD_MEDIUM_MIN_PERIOD_US);
        s->slow_due_us = now_us + tier_period(s, JD_SLOW_MIN_PERIOD_US);
}

/* A tier is due if its deadline falls within half a period of now: timer
 * wake-ups jitter by a little either way, and a tier that just missed
 * its deadline would otherwise wait a whole extra tick. */
static int due(const jd_schedule *s, uint64_t deadline, uint64_t now_us)
{
        return now_us + s->period_us / 2 >= deadline;
}

unsigned jd_schedule_take(jd_schedule *s, uint64_t now_us)
{
        unsigned tiers = JD_TIER_FAST;
        if (due(s, s->medium_due_us, now_us)) {
                tiers |= JD_TIER_MEDIUM;
                s->medium_due_us = now_us + tier_period(s, JD_MEDIUM_MIN_PERIOD_US);
        }
        if (due(s, s->slow_due_us, now_us)) {
                tiers |= JD_TIER_SLOW;
                s->slow_due_us = now_us + tier_period(s, JD_SLOW_MIN_PERIOD_US);
        }
        s->last_tick_us = s->next_tick_us;
        s->next_tick_us += s->period_us;
        if (s->next_tick_us <= now_us) {
                s->last_tick_us = now_us;
                s->next_tick_us = now_us + s->period_us;
        }
        return tiers;
}

uint64_t jd_schedule_next(const jd_schedule *s)
{
        return s->next_tick_us;
}

void jd_schedule_set_period(jd_schedule *s, uint64_t period_us, uint64_t now_us)
{
        s->period_us = period_us;
        s->next_tick_us = max_u64(s->last_tick_us + period_us, now_us);
        /* A tier waiting out a long period is due sooner with a short one. */
        if (s->medium_due_us > now_us + tier_period(s, JD_MEDIUM_MIN_PERIOD_US))
                s->medium_due_us = now_us + tier_period(s, JD_MEDIUM_MIN_PERIOD_US);
        if (s->slow_due_us > now_us + tier_period(s, JD_SLOW_MIN_PERIOD_US))
                s->slow_due_us = now_us + tier_period(s, JD_SLOW_MIN_PERIOD_US);
}
