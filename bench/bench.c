/* jetsond-bench: where does sampling time go?
 *
 * Reports the CPU time of each tier's sample and of a full sample on a
 * board tree, next to the floor: pread-ing the very files that sample
 * read, with no parsing at all, and the cost of building the value list
 * (done once per emitted signal, not per reader). Usage: jetsond-bench [SYSROOT] [ITERATIONS]
 * With JETSOND_BENCH_FILES set, lists the files each tier reads on stderr.
 * With JETSOND_BENCH_LOOP=TIERS (1 fast, 2 medium, 4 slow, 7 all), only
 * samples those tiers ITERATIONS times, a recheck every RECHECK_EVERY, and
 * prints the CPU time per sample: the run bench/sample-breakdown.py
 * profiles to split it by reader.
 * With JETSOND_BENCH_COLD_US=N, each floor and each sample (alternated,
 * ITERATIONS / 10 of each) follows a sleep of N µs, as the daemon's
 * readings follow their tier's wait: the CPU time of one and the medians,
 * caches and TLBs as a sleep leaves them on this machine.
 * User time (getrusage) is shown apart: what parsing costs.
 * Not a timed test: numbers depend on the machine; compare the ratios. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench-util.h"
#include "engine.h"
#include "file-set.h"
#include "sampler.h"
#include "sysfile.h"
#include "values.h"

/* User-mode CPU time alone: what parsing costs, as opposed to the
 * kernel's side of the reads. */
static double user_seconds(void)
{
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        return (double) ru.ru_utime.tv_sec + (double) ru.ru_utime.tv_usec / 1e6;
}

typedef struct {
        double sample, values, floor;
        double sample_user, floor_user;
        double ratio, ratio_lo, ratio_hi;   /* median and 10-90 % of the blocks */
        size_t files;
} tier_cost;

#define BLOCKS 50
/* The daemon looks at config files and free space once a second
 * (JD_RECHECK_INTERVAL_US); its slow tier reads at most 10 times a
 * second, so at least one reading in ten pays for those stat() calls:
 * the bench makes every tenth reading do so. */
#define RECHECK_EVERY 10

/* N readings of TIERS, every RECHECK_EVERY-th with the rechecks due. */
static void sample_n(jd_sampler *sampler, unsigned tiers, int n)
{
        for (int i = 0; i < n; i++) {
                if (i % RECHECK_EVERY == 0)
                        jd_recheck_now();
                jd_sampler_sample(sampler, tiers);
        }
}

/* The floor is the files of a reading with no recheck due (one was just
 * made): what every reading reads. The rechecks' own reads and stat()
 * calls, made below one reading in RECHECK_EVERY, count against the
 * sample, not into its floor. */
static void record_floor(file_set *set, jd_sampler *sampler, unsigned tiers)
{
        jd_recheck_now();
        jd_sampler_sample(sampler, tiers);
        file_set_record(set, sampler, tiers);
}

static tier_cost measure(jd_sampler *sampler, unsigned tiers, int iterations, jd_values *values)
{
        static file_set set;
        static char buf[65536];
        tier_cost c = { 0 };

        record_floor(&set, sampler, tiers);
        c.files = set.n;
        if (getenv("JETSOND_BENCH_FILES"))
                for (size_t i = 0; i < set.n; i++)
                        fprintf(stderr, "tier %#x: %s\n", tiers, set.paths[i]);

        /* Floor and sample alternate in blocks, and the ratio reported is
         * the median of the blocks' ratios: a neighbour on a shared machine
         * slows both sides of a block alike instead of one whole side. */
        double ratios[BLOCKS];
        int per_block = iterations / BLOCKS > 0 ? iterations / BLOCKS : 1;
        for (int b = 0; b < BLOCKS; b++) {
                double t0 = cpu_seconds(), u0 = user_seconds();
                for (int i = 0; i < per_block; i++)
                        file_set_pread(&set, buf, sizeof(buf));
                double floor = cpu_seconds() - t0;
                c.floor += floor;
                c.floor_user += user_seconds() - u0;
                t0 = cpu_seconds();
                u0 = user_seconds();
                sample_n(sampler, tiers, per_block);
                double sample = cpu_seconds() - t0;
                c.sample += sample;
                c.sample_user += user_seconds() - u0;
                ratios[b] = floor > 0 ? sample / floor : 0;
        }
        int runs = per_block * BLOCKS;
        c.floor /= runs;
        c.floor_user /= runs;
        c.sample /= runs;
        c.sample_user /= runs;
        qsort(ratios, BLOCKS, sizeof(double), compare_double);
        c.ratio = ratios[BLOCKS / 2];
        c.ratio_lo = ratios[BLOCKS / 10];
        c.ratio_hi = ratios[BLOCKS - 1 - BLOCKS / 10];

        double t0 = cpu_seconds();
        const jd_sample *x = jd_sampler_current(sampler);
        t0 = cpu_seconds();
        for (int i = 0; i < iterations; i++)
                jd_values_from_sample(values, x);
        c.values = (cpu_seconds() - t0) / iterations;
        file_set_free(&set);
        return c;
}

/* Floor and sample of TIERS, each after a sleep of SLEEP_US. */
static void measure_cold(jd_sampler *sampler, unsigned tiers, const char *what, int n, unsigned sleep_us)
{
        static file_set set;
        static char buf[65536];
        record_floor(&set, sampler, tiers);
        double *floor = calloc((size_t) n, sizeof(double)), *sample = calloc((size_t) n, sizeof(double));
        double *ratio = calloc((size_t) n, sizeof(double));
        for (int i = 0; floor && sample && ratio && i < n; i++) {
                usleep(sleep_us);
                double t0 = cpu_seconds();
                file_set_pread(&set, buf, sizeof(buf));
                floor[i] = (cpu_seconds() - t0) * 1e6;
                usleep(sleep_us);
                if (i % RECHECK_EVERY == 0)
                        jd_recheck_now();
                t0 = cpu_seconds();
                jd_sampler_sample(sampler, tiers);
                sample[i] = (cpu_seconds() - t0) * 1e6;
                ratio[i] = floor[i] > 0 ? sample[i] / floor[i] : 0;
        }
        if (floor && sample && ratio) {
                qsort(floor, (size_t) n, sizeof(double), compare_double);
                qsort(sample, (size_t) n, sizeof(double), compare_double);
                qsort(ratio, (size_t) n, sizeof(double), compare_double);
                printf("%-12s %4zu files  after %u us asleep: floor %7.1f us  sample %7.1f us  ratio %.2fx (medians of %d)\n",
                       what, set.n, sleep_us, floor[n / 2], sample[n / 2], ratio[n / 2], n);
        }
        free(floor);
        free(sample);
        free(ratio);
        file_set_free(&set);
}

static void report(const char *what, const tier_cost *c)
{
        printf("%-12s %4zu files  floor %6.1f us  sample %6.1f us  ratio %.2fx (%.2f-%.2f)  + value list %4.1f us"
               "  [user: floor %4.1f, sample %4.1f us]\n",
               what, c->files, c->floor * 1e6, c->sample * 1e6, c->ratio, c->ratio_lo, c->ratio_hi,
               c->values * 1e6, c->floor_user * 1e6, c->sample_user * 1e6);
}

int main(int argc, char **argv)
{
        const char *dir = argc > 1 ? argv[1] : BENCH_DEFAULT_SYSROOT;
        int iterations = argc > 2 ? atoi(argv[2]) : 2000;
        const char *why;
        jd_sysroot *sr = jd_sysroot_new(dir, &why);
        if (!sr || iterations <= 0) {
                fprintf(stderr, "jetsond-bench: %s: %s\n", dir, sr ? "bad iteration count" : why);
                return 2;
        }
        jd_recheck_set_interval(JD_RECHECK_INTERVAL_US);
        jd_sampler *sampler = jd_sampler_new(sr);
        const char *loop = getenv("JETSOND_BENCH_LOOP");
        if (loop) {
                unsigned tiers = (unsigned) strtoul(loop, NULL, 0) & JD_TIER_ALL;
                double t0 = cpu_seconds();
                sample_n(sampler, tiers ? tiers : JD_TIER_ALL, iterations);
                printf("%.2f us per sample\n", (cpu_seconds() - t0) * 1e6 / iterations);
                jd_sampler_free(sampler);
                jd_sysroot_free(sr);
                return 0;
        }
        const char *cold = getenv("JETSOND_BENCH_COLD_US");
        if (cold) {
                unsigned sleep_us = (unsigned) strtoul(cold, NULL, 10);
                int n = iterations / 10 > 0 ? iterations / 10 : 1;
                printf("sysroot: %s (CPU time, each after a sleep)\n", dir);
                measure_cold(sampler, JD_TIER_FAST, "fast tier", n, sleep_us);
                measure_cold(sampler, JD_TIER_ALL, "full sample", n, sleep_us);
                jd_sampler_free(sampler);
                jd_sysroot_free(sr);
                return 0;
        }
        jd_values values;
        jd_values_init(&values);
        tier_cost fast = measure(sampler, JD_TIER_FAST, iterations, &values);
        tier_cost medium = measure(sampler, JD_TIER_MEDIUM, iterations, &values);
        tier_cost slow = measure(sampler, JD_TIER_SLOW, iterations, &values);
        tier_cost all = measure(sampler, JD_TIER_ALL, iterations, &values);

        printf("sysroot: %s (%d iterations, CPU time per sample)\n", dir, iterations);
        report("fast tier", &fast);
        report("medium tier", &medium);
        report("slow tier", &slow);
        report("full sample", &all);
        printf("values per sample: %zu\n", values.n);

        jd_values_clear(&values);
        jd_sampler_free(sampler);
        jd_sysroot_free(sr);
        return 0;
}
