/* When to read which tier. Every tick reads the fast tier; the medium
 * tier (power rails over I2C, engines over debugfs) at most every 100 ms
 * and the slow tier (thermal, fans, modes, swap, processes, disk) at most
 * every second, so a client asking for 10 ms samples makes jetsond read
 * the cheap counters 100 times a second, not every sensor. Ticks are
 * deadlines on CLOCK_MONOTONIC: period N ends at start + N * period, so
 * the rate does not drift with the time each tick takes. Pure logic, no
 * timers: the daemon arms its timer with jd_schedule_next(). */
#pragma once

#include <stdint.h>

#define JD_MEDIUM_MIN_PERIOD_US 100000u
#define JD_SLOW_MIN_PERIOD_US 1000000u

typedef struct {
        uint64_t period_us;
        uint64_t last_tick_us;        /* deadline of the tick last taken */
        uint64_t next_tick_us;
        uint64_t medium_due_us;
        uint64_t slow_due_us;
} jd_schedule;

/* Every tier was just read at NOW (the sampler's first full sample). */
void jd_schedule_init(jd_schedule *s, uint64_t period_us, uint64_t now_us);
/* Called when the timer fires: the jd_tier mask to read now. Advances the
 * next deadline; after a stall of more than a period (suspend, a stopped
 * process) it restarts from NOW instead of firing a burst. */
unsigned jd_schedule_take(jd_schedule *s, uint64_t now_us);
uint64_t jd_schedule_next(const jd_schedule *s);
/* A new period takes effect from the last tick: a faster period may make
 * the next tick due at once, a slower one postpones it. */
void jd_schedule_set_period(jd_schedule *s, uint64_t period_us, uint64_t now_us);
