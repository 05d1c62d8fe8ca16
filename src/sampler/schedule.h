/* When a tier reads: deadlines on a grid of CLOCK_MONOTONIC times,
 * epoch + k * period - lead, so the rate does not drift with the time
 * each reading takes, and tiers with the same epoch stay in step (the
 * medium and slow tiers run LEAD ahead of the fast tier's grid, so their
 * readings are usually done when a Sample is built from the fast one).
 * A tier that overran skips the deadlines it missed instead of firing a
 * burst. Pure logic, no timers: the tier thread sleeps until
 * jd_ticker_next(). */
#pragma once

#include <stdint.h>

typedef struct {
        uint64_t anchor;     /* epoch - lead: a point of the grid */
        uint64_t period;
        uint64_t next;       /* the next deadline */
        uint64_t last;       /* the deadline last taken (anchor before any) */
} jd_ticker;

/* The first deadline is the first grid point after NOW. */
void jd_ticker_init(jd_ticker *t, uint64_t epoch, uint64_t period, uint64_t lead, uint64_t now);
uint64_t jd_ticker_next(const jd_ticker *t);
/* Takes the tick due at NOW (>= next): returns its deadline and moves
 * next to the first grid point after NOW. */
uint64_t jd_ticker_take(jd_ticker *t, uint64_t now);
/* A new period (and lead) on the same epoch: the next deadline is the
 * first point of the new grid after the last tick taken, or NOW if that
 * has passed already (a faster period can make the tier due at once). */
void jd_ticker_set_period(jd_ticker *t, uint64_t epoch, uint64_t period, uint64_t lead, uint64_t now);
