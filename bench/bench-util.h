/* What the benches share: the clocks they read and the qsort() comparator
 * of their medians. */
#ifndef JETSOND_BENCH_UTIL_H
#define JETSOND_BENCH_UTIL_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC for wall time, or a CPU clock, in nanoseconds. */
static inline uint64_t clock_ns(clockid_t id)
{
        struct timespec ts;
        clock_gettime(id, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* The whole process's CPU time (every thread), in seconds. */
static inline double cpu_seconds(void)
{
        return (double) clock_ns(CLOCK_PROCESS_CPUTIME_ID) / 1e9;
}

static inline int compare_double(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

#endif
