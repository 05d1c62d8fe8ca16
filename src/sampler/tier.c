#include "tier.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "schedule.h"

/* The newest reading, the main loop's and a spare. */
#define KEPT_READINGS 3

struct jd_tier_thread {
        const jd_sysroot *sr;
        jd_tier_spec spec;
        jd_tier_hooks hooks;
        pthread_t thread;
        _Atomic(const char *) stage;

        /* Owned by the thread. */
        jd_sampler *sampler;
        jd_values builder;        /* reused: keys are spelled only when they change */
        uint64_t seq;
        /* Readings this thread made, a reference each: once the main loop
         * and the captures have let one go, the next reading is made in
         * its memory (no malloc() and free() across threads each tick). */
        jd_reading *kept[KEPT_READINGS];

        /* Under mu. */
        pthread_mutex_t mu;
        pthread_cond_t wake;
        bool stop, stopped;
        jd_tier_timing timing;
        bool timing_changed;
        jd_ticker ticker, extra;
        uint64_t requested, answered;     /* resample generations */
        jd_reading *latest;
        bool fan_pending;
        jd_opt_bool fan_active;
        bool gpu_users_pending;
        jd_gpu_user *gpu_users;
        size_t n_gpu_users, cap_gpu_users;
};

static uint64_t now_us(void)
{
        return jd_monotonic_us();
}

static void wait_until(jd_tier_thread *t, uint64_t deadline_us)
{
        struct timespec ts = { .tv_sec = (time_t) (deadline_us / 1000000u),
                               .tv_nsec = (long) (deadline_us % 1000000u) * 1000 };
        pthread_cond_timedwait(&t->wake, &t->mu, &ts);
}

static void sleep_us(uint64_t us)
{
        struct timespec ts = { .tv_sec = (time_t) (us / 1000000u), .tv_nsec = (long) (us % 1000000u) * 1000 };
        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
                ;
}

/* A reading of S in the memory of a kept one no one else holds, else a
 * new one. */
static jd_reading *make_reading(jd_tier_thread *t, const jd_sample *s)
{
        for (size_t i = 0; i < KEPT_READINGS; i++)
                if (t->kept[i] && jd_reading_unshared(t->kept[i])) {
                        jd_reading *r = t->kept[i];
                        t->kept[i] = NULL;      /* its reference is the caller's now */
                        return jd_reading_renew(r, t->spec.tier, s, &t->builder);
                }
        return jd_reading_new(t->spec.tier, s, &t->builder);
}

static void keep(jd_tier_thread *t, jd_reading *r)
{
        for (size_t i = 0; i < KEPT_READINGS; i++)
                if (!t->kept[i]) {
                        t->kept[i] = jd_reading_ref(r);
                        return;
                }
}

/* Reads TIERS and publishes the result. Called without the lock. */
static void read_and_publish(jd_tier_thread *t, unsigned tiers, uint64_t deadline, uint64_t generation)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t started_ns = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
        uint64_t started = started_ns / 1000u;
        const jd_sample *s = jd_sampler_sample(t->sampler, tiers);
        jd_values_begin(&t->builder);
        jd_values_add_sample(&t->builder, s);
        jd_values_end(&t->builder);
        jd_reading *r = make_reading(t, s);
        if (!r)
                return; /* out of memory: the previous reading stays */
        r->seq = ++t->seq;
        r->requested = generation != 0;
        r->read_tiers = tiers;
        r->started_ns = started_ns;
        r->started_us = started;
        r->finished_us = now_us();
        r->deadline_us = deadline ? deadline : started;
        keep(t, r);

        pthread_mutex_lock(&t->mu);
        if (generation > t->answered)
                t->answered = generation;
        r->generation = t->answered;
        jd_reading *old = t->latest;
        t->latest = jd_reading_ref(r);
        pthread_mutex_unlock(&t->mu);
        jd_reading_unref(old);
        if (t->hooks.published)
                t->hooks.published(t->hooks.data, t, r);
        jd_reading_unref(r);
}

/* The first publication has every key: rates need a second reading. */
static void first_reading(jd_tier_thread *t)
{
        unsigned all = t->spec.tier | t->spec.extra_tiers;
        uint64_t start = now_us();
        const jd_sample *s = jd_sampler_sample(t->sampler, all);
        if (t->spec.tier == JD_TIER_FAST) {
                /* /proc/stat moves every USER_HZ tick (10 ms): a few
                 * readings at most; a tree whose counters never move (a
                 * fake board at rest) gives up after 250 ms. */
                while (s->cpu && s->cpu->n_cores && !s->cpu->load.present && now_us() - start < 250000) {
                        sleep_us(2000);
                        s = jd_sampler_sample(t->sampler, JD_TIER_FAST);
                }
        } else if (t->spec.second_reading_us) {
                sleep_us(t->spec.second_reading_us);
        }
        read_and_publish(t, all, 0, 0);
}

static void *run(void *data)
{
        jd_tier_thread *t = data;
        /* Signals are the main thread's (SIGTERM, SIGINT); a capture whose
         * reader left must give EPIPE, not kill the daemon with SIGPIPE. */
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, NULL);

        t->sampler = jd_sampler_new_tiers(t->sr, t->spec.tier, &t->stage);
        if (t->sampler)
                first_reading(t);

        pthread_mutex_lock(&t->mu);
        while (t->sampler && !t->stop) {
                uint64_t now = now_us();
                if (t->timing_changed) {
                        t->timing_changed = false;
                        jd_ticker_set_period(&t->ticker, t->timing.epoch, t->timing.period, t->timing.lead, now);
                        jd_ticker_set_period(&t->extra, t->timing.epoch, t->timing.extra_period, t->timing.lead, now);
                }
                bool forced = t->requested > t->answered;
                uint64_t next = jd_ticker_next(&t->ticker);
                if (!forced && now < next) {
                        wait_until(t, next);
                        continue;
                }
                unsigned tiers = t->spec.tier;
                uint64_t deadline = 0, generation = 0;
                if (forced) {
                        generation = t->requested;
                        tiers |= t->spec.extra_tiers;
                } else {
                        deadline = jd_ticker_take(&t->ticker, now);
                }
                /* Extras ride on the tick due nearest their deadline. */
                if (t->spec.extra_tiers && now + t->timing.period / 2 >= jd_ticker_next(&t->extra)) {
                        jd_ticker_take(&t->extra, now);
                        tiers |= t->spec.extra_tiers;
                }
                if (t->gpu_users_pending) {
                        t->gpu_users_pending = false;
                        jd_sampler_set_gpu_users(t->sampler, t->gpu_users, t->n_gpu_users);
                }
                if (t->fan_pending) {
                        t->fan_pending = false;
                        jd_sampler_set_fan_service_active(t->sampler, t->fan_active);
                }
                pthread_mutex_unlock(&t->mu);
                read_and_publish(t, tiers, deadline, generation);
                pthread_mutex_lock(&t->mu);
        }
        t->stopped = true;
        pthread_mutex_unlock(&t->mu);
        return NULL;
}

jd_tier_thread *jd_tier_thread_start(const jd_sysroot *sr, const jd_tier_spec *spec, const jd_tier_timing *timing,
                                     jd_tier_hooks hooks)
{
        jd_tier_thread *t = calloc(1, sizeof(*t));
        if (!t)
                return NULL;
        t->sr = sr;
        t->spec = *spec;
        t->hooks = hooks;
        t->timing = *timing;
        atomic_init(&t->stage, NULL);
        jd_values_init(&t->builder);
        uint64_t now = now_us();
        jd_ticker_init(&t->ticker, timing->epoch, timing->period, timing->lead, now);
        jd_ticker_init(&t->extra, timing->epoch, timing->extra_period, timing->lead, now);
        t->latest = jd_reading_new_empty(spec->tier);
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&t->wake, &attr);
        pthread_condattr_destroy(&attr);
        pthread_mutex_init(&t->mu, NULL);
        if (!t->latest || pthread_create(&t->thread, NULL, run, t) != 0) {
                jd_reading_unref(t->latest);
                pthread_cond_destroy(&t->wake);
                pthread_mutex_destroy(&t->mu);
                free(t);
                return NULL;
        }
        char name[16];
        snprintf(name, sizeof(name), "jetsond-%s", spec->name);
        pthread_setname_np(t->thread, name);
        return t;
}

bool jd_tier_thread_stop(jd_tier_thread *t, uint64_t timeout_us)
{
        if (!t)
                return true;
        pthread_mutex_lock(&t->mu);
        t->stop = true;
        pthread_cond_signal(&t->wake);
        pthread_mutex_unlock(&t->mu);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        uint64_t ns = (uint64_t) until.tv_nsec + timeout_us * 1000u;
        until.tv_sec += (time_t) (ns / 1000000000u);
        until.tv_nsec = (long) (ns % 1000000000u);
        if (pthread_timedjoin_np(t->thread, NULL, &until) != 0) {
                /* Stuck in the kernel on a sensor: exit() ends it. */
                pthread_detach(t->thread);
                return false;
        }
        jd_sampler_free(t->sampler);
        jd_values_clear(&t->builder);
        jd_reading_unref(t->latest);
        for (size_t i = 0; i < KEPT_READINGS; i++)
                jd_reading_unref(t->kept[i]);
        pthread_cond_destroy(&t->wake);
        pthread_mutex_destroy(&t->mu);
        free(t->gpu_users);
        free(t);
        return true;
}

void jd_tier_thread_set_timing(jd_tier_thread *t, const jd_tier_timing *timing)
{
        pthread_mutex_lock(&t->mu);
        if (memcmp(&t->timing, timing, sizeof(*timing)) != 0) {
                t->timing = *timing;
                t->timing_changed = true;
                pthread_cond_signal(&t->wake);
        }
        pthread_mutex_unlock(&t->mu);
}

void jd_tier_thread_request(jd_tier_thread *t, uint64_t generation)
{
        pthread_mutex_lock(&t->mu);
        if (generation > t->requested) {
                t->requested = generation;
                pthread_cond_signal(&t->wake);
        }
        pthread_mutex_unlock(&t->mu);
}

jd_reading *jd_tier_thread_latest(jd_tier_thread *t)
{
        pthread_mutex_lock(&t->mu);
        jd_reading *r = jd_reading_ref(t->latest);
        pthread_mutex_unlock(&t->mu);
        return r;
}

const char *jd_tier_thread_stage(jd_tier_thread *t)
{
        return atomic_load_explicit(&t->stage, memory_order_relaxed);
}

uint64_t jd_tier_thread_period(jd_tier_thread *t)
{
        pthread_mutex_lock(&t->mu);
        uint64_t p = t->timing.period;
        pthread_mutex_unlock(&t->mu);
        return p;
}

const char *jd_tier_thread_name(const jd_tier_thread *t)
{
        return t->spec.name;
}

void jd_tier_thread_set_fan_service_active(jd_tier_thread *t, jd_opt_bool active)
{
        pthread_mutex_lock(&t->mu);
        t->fan_pending = true;
        t->fan_active = active;
        pthread_mutex_unlock(&t->mu);
}

void jd_tier_thread_set_gpu_users(jd_tier_thread *t, const jd_gpu_user *users, size_t n)
{
        pthread_mutex_lock(&t->mu);
        jd_gpu_user *room = jd_grow(t->gpu_users, &t->cap_gpu_users, n, sizeof(*room));
        if (room) { /* out of memory: the previous list stays */
                t->gpu_users = room;
                if (n)
                        memcpy(t->gpu_users, users, n * sizeof(*users));
                t->n_gpu_users = n;
                t->gpu_users_pending = true;
        }
        pthread_mutex_unlock(&t->mu);
}
