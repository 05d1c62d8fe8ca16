#include "schedule.h"

/* The first grid point strictly after X. */
static uint64_t after(const jd_ticker *t, uint64_t x)
{
        if (x < t->anchor)
                return t->anchor;
        return t->anchor + ((x - t->anchor) / t->period + 1) * t->period;
}

static uint64_t anchor_of(uint64_t epoch, uint64_t lead)
{
        return epoch > lead ? epoch - lead : 0;
}

void jd_ticker_init(jd_ticker *t, uint64_t epoch, uint64_t period, uint64_t lead, uint64_t now)
{
        t->anchor = anchor_of(epoch, lead);
        t->period = period ? period : 1;
        t->last = t->anchor;
        t->next = after(t, now);
}

uint64_t jd_ticker_next(const jd_ticker *t)
{
        return t->next;
}

uint64_t jd_ticker_take(jd_ticker *t, uint64_t now)
{
        uint64_t deadline = t->next;
        t->last = deadline;
        t->next = after(t, now > deadline ? now : deadline);
        return deadline;
}

void jd_ticker_set_period(jd_ticker *t, uint64_t epoch, uint64_t period, uint64_t lead, uint64_t now)
{
        t->anchor = anchor_of(epoch, lead);
        t->period = period ? period : 1;
        uint64_t next = after(t, t->last);
        t->next = next > now ? next : now;
}
