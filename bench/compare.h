/* qsort() comparators the benches share: their figures are medians. */
#ifndef JETSOND_BENCH_COMPARE_H
#define JETSOND_BENCH_COMPARE_H

static inline int compare_double(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;
        return (x > y) - (x < y);
}

#endif
