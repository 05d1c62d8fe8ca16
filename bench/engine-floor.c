/* jetsond-engine-floor: what the sampling engine's shape costs before it
 * does any work, on this machine.
 *
 * The same threads as jetsond's engine, on the same CLOCK_MONOTONIC
 * deadlines (fast at FAST_US, medium at max(FAST_US, 10 ms) and slow at
 * max(FAST_US, 100 ms), medium and slow a quarter period ahead, the fast
 * tier's limits at the slow period), waiting as the tier threads do
 * (pthread_cond_timedwait), each reading the very files its tier reads
 * (recorded from the readers, opened as they open them) with one pread
 * and no parsing; the fast thread hands each tick to a fourth thread
 * through an eventfd, as the engine wakes the main loop. No values, no
 * readings, no D-Bus. bench/run-bus-bench.sh runs it beside jetsond on the
 * same live board, so jetsond's CPU can be read against it.
 *
 * Usage: jetsond-engine-floor SYSROOT FAST_US SECONDS
 * Not a timed test: the figures depend on the machine. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"
#include "file-set.h"
#include "sampler.h"
#include "sysfile.h"

#include "bench-util.h"

typedef struct {
        const char *name;
        file_set files, extra;        /* extra: the fast tier's limits */
        uint64_t period_us, lead_us, extra_period_us;
        pthread_t thread;
        uint64_t cpu_ns;
        uint64_t ticks;
} floor_thread;

static uint64_t end_us;
static int event_fd;
static atomic_bool stopping;

static void *run_tier(void *data)
{
        floor_thread *t = data;
        enum { BUF_SIZE = 65536 };
        char *buf = malloc(BUF_SIZE);
        pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
        pthread_cond_t cond;
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&cond, &attr);
        uint64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        uint64_t now = clock_ns(CLOCK_MONOTONIC) / 1000u;
        uint64_t next = (now / t->period_us + 1) * t->period_us - t->lead_us;
        uint64_t next_extra = next;
        pthread_mutex_lock(&mu);
        while (next < end_us) {
                struct timespec ts = { .tv_sec = (time_t) (next / 1000000u), .tv_nsec = (long) (next % 1000000u) * 1000 };
                while (pthread_cond_timedwait(&cond, &mu, &ts) != ETIMEDOUT)
                        ;
                pthread_mutex_unlock(&mu);
                file_set_pread(&t->files, buf, BUF_SIZE);
                if (t->extra.n && next >= next_extra) {
                        file_set_pread(&t->extra, buf, BUF_SIZE);
                        next_extra += t->extra_period_us;
                }
                if (event_fd >= 0) {
                        uint64_t one = 1;
                        if (write(event_fd, &one, sizeof(one)) < 0)
                                perror("eventfd");
                }
                t->ticks++;
                next += t->period_us;
                pthread_mutex_lock(&mu);
        }
        pthread_mutex_unlock(&mu);
        t->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - start;
        pthread_cond_destroy(&cond);
        free(buf);
        return NULL;
}

/* The main loop's share: woken by the eventfd, takes the event. */
static void *run_main(void *data)
{
        floor_thread *t = data;
        uint64_t start = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        struct pollfd p = { .fd = event_fd, .events = POLLIN };
        while (!atomic_load(&stopping)) {
                if (poll(&p, 1, 100) > 0) {
                        uint64_t count;
                        if (read(event_fd, &count, sizeof(count)) == sizeof(count))
                                t->ticks++;
                }
        }
        t->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - start;
        return NULL;
}

int main(int argc, char **argv)
{
        if (argc != 4) {
                fprintf(stderr, "usage: jetsond-engine-floor SYSROOT FAST_US SECONDS\n");
                return 2;
        }
        const char *why;
        jd_sysroot *sr = jd_sysroot_new(argv[1], &why);
        jd_tier_timing timings[JD_TIER_COUNT];
        jd_recheck_set_interval(JD_RECHECK_INTERVAL_US);
        jd_engine_timings(strtoull(argv[2], NULL, 10), 0, timings);
        double seconds = atof(argv[3]);
        if (!sr || seconds <= 0) {
                fprintf(stderr, "jetsond-engine-floor: %s\n", sr ? "bad duration" : why);
                return 2;
        }
        floor_thread tiers[JD_TIER_COUNT] = {
                [JD_TIER_INDEX_FAST] = { .name = "fast" },
                [JD_TIER_INDEX_MEDIUM] = { .name = "medium" },
                [JD_TIER_INDEX_SLOW] = { .name = "slow" },
        };
        static const unsigned tier_bits[JD_TIER_COUNT] = { JD_TIER_FAST, JD_TIER_MEDIUM, JD_TIER_SLOW };
        jd_sampler *samplers[JD_TIER_COUNT];
        for (int i = 0; i < JD_TIER_COUNT; i++) {
                samplers[i] = jd_sampler_new_tiers(sr, tier_bits[i], NULL);
                if (!samplers[i]) {
                        fprintf(stderr, "jetsond-engine-floor: cannot read %s\n", argv[1]);
                        return 1;
                }
                /* Two readings first, as the tier threads start: rates and
                 * tracked processes settle what is read. The second is one
                 * with no recheck due, as almost every reading of the
                 * daemon's is (settings and config files once a second),
                 * so the floor reads what every tick reads. */
                jd_sampler_sample(samplers[i], tier_bits[i]);
                file_set_record(&tiers[i].files, samplers[i], tier_bits[i]);
                tiers[i].period_us = timings[i].period;
                tiers[i].lead_us = timings[i].lead;
        }
        /* The fast thread reads its readers' limits at the extra period. */
        file_set_record(&tiers[JD_TIER_INDEX_FAST].extra, samplers[JD_TIER_INDEX_FAST], JD_TIER_SLOW);
        tiers[JD_TIER_INDEX_FAST].extra_period_us = timings[JD_TIER_INDEX_FAST].extra_period;

        event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        floor_thread main_thread = { .name = "main" };
        uint64_t start_us = clock_ns(CLOCK_MONOTONIC) / 1000u;
        end_us = start_us + (uint64_t) (seconds * 1e6);
        pthread_create(&main_thread.thread, NULL, run_main, &main_thread);
        for (int i = 0; i < JD_TIER_COUNT; i++)
                pthread_create(&tiers[i].thread, NULL, run_tier, &tiers[i]);
        for (int i = 0; i < JD_TIER_COUNT; i++)
                pthread_join(tiers[i].thread, NULL);
        atomic_store(&stopping, true);
        pthread_join(main_thread.thread, NULL);
        double wall_s = (double) (clock_ns(CLOCK_MONOTONIC) / 1000u - start_us) / 1e6;

        uint64_t n = tiers[JD_TIER_INDEX_FAST].ticks ? tiers[JD_TIER_INDEX_FAST].ticks : 1;
        uint64_t total = main_thread.cpu_ns;
        for (int i = 0; i < JD_TIER_COUNT; i++)
                total += tiers[i].cpu_ns;
        printf("  floor        %6.3f %% of one core, %7.1f us per fast tick (%llu ticks in %.1f s; files fast %zu+%zu, "
               "medium %zu, slow %zu)\n",
               100.0 * (double) total / 1e9 / wall_s, (double) total / 1e3 / (double) n, (unsigned long long) n,
               wall_s, tiers[0].files.n, tiers[0].extra.n, tiers[1].files.n, tiers[2].files.n);
        printf("  by thread, us per fast tick: main %.1f", (double) main_thread.cpu_ns / 1e3 / (double) n);
        for (int i = 0; i < JD_TIER_COUNT; i++)
                printf(" %s %.1f", tiers[i].name, (double) tiers[i].cpu_ns / 1e3 / (double) n);
        printf("\n");
        for (int i = 0; i < JD_TIER_COUNT; i++) {
                file_set_free(&tiers[i].files);
                file_set_free(&tiers[i].extra);
                jd_sampler_free(samplers[i]);
        }
        jd_sysroot_free(sr);
        close(event_fd);
        return 0;
}
