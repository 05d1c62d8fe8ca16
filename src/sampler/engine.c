#include "engine.h"

#include <errno.h>
#include <glib.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "schedule.h"
#include "sysfile.h"
#include "tier.h"

struct jd_sampling_engine {
        jd_tier_thread *tiers[JD_TIER_COUNT];
        int event_fd;
        atomic_uint events;
        uint64_t start_us;

        pthread_mutex_t mu;
        /* Under mu (the fast tier's hook takes it on every tick). */
        uint64_t epoch;
        uint64_t sample_interval;
        jd_ticker sample_ticker;
        uint64_t period[JD_TIER_COUNT];
        GPtrArray *captures;          /* jd_capture * */
        jd_values capture_derived;    /* the cross-tier values for captures */

        /* Main thread only. */
        uint64_t generation;
        jd_gpu_poller *gpus;          /* NULL without NVML */
        jd_gpu_user *gpu_users;       /* as last given to the slow tier */
        size_t n_gpu_users, cap_gpu_users;
        jd_gpu_user *users_now;       /* scratch for the next list */
        size_t cap_users_now;
};

static const jd_tier_spec specs[JD_TIER_COUNT] = {
        [JD_TIER_INDEX_FAST] = { .tier = JD_TIER_FAST, .name = "fast", .extra_tiers = JD_TIER_SLOW },
        [JD_TIER_INDEX_MEDIUM] = { .tier = JD_TIER_MEDIUM, .name = "medium" },
        /* Process CPU % is a rate over wall time: give it a window. */
        [JD_TIER_INDEX_SLOW] = { .tier = JD_TIER_SLOW, .name = "slow", .second_reading_us = JD_SLOW_MIN_PERIOD_US },
};

/* See on_slow(). */
#define JD_COALESCE_SLOW_US 50000u

static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

static void notify(jd_sampling_engine *e, unsigned events)
{
        if (!events)
                return;
        atomic_fetch_or(&e->events, events);
        uint64_t one = 1;
        ssize_t w = write(e->event_fd, &one, sizeof(one));
        (void) w; /* EAGAIN: the counter is full, the loop is woken anyway */
}

static uint64_t stale_limit(uint64_t period)
{
        return max_u64(3 * period, JD_STALE_MIN_US);
}

/* A reading finished at FINISHED is too old at NOW for its PERIOD: the
 * one rule for tiers and GPUs alike. */
static bool too_old(uint64_t finished, uint64_t period, uint64_t now)
{
        return now > finished && now - finished > stale_limit(period);
}

static bool is_stale(const jd_reading *r, uint64_t period, uint64_t now)
{
        return r->seq == 0 || too_old(r->finished_us, period, now);
}

void jd_engine_timings(uint64_t fast_us, uint64_t epoch, jd_tier_timing out[JD_TIER_COUNT])
{
        uint64_t fast = max_u64(fast_us, JD_FAST_MIN_PERIOD_US);
        uint64_t period[JD_TIER_COUNT] = {
                [JD_TIER_INDEX_FAST] = fast,
                [JD_TIER_INDEX_MEDIUM] = max_u64(fast, JD_MEDIUM_MIN_PERIOD_US),
                [JD_TIER_INDEX_SLOW] = max_u64(fast, JD_SLOW_MIN_PERIOD_US),
        };
        for (int i = 0; i < JD_TIER_COUNT; i++)
                out[i] = (jd_tier_timing) {
                        .epoch = epoch,
                        .period = period[i],
                        /* Medium and slow read ahead of the fast tick. */
                        .lead = i == JD_TIER_INDEX_FAST ? 0 : min_u64(period[i] / 4, 50000),
                        .extra_period = period[JD_TIER_INDEX_SLOW],
                };
}

static jd_tier_timing timing_of(const jd_sampling_engine *e, int tier)
{
        jd_tier_timing timings[JD_TIER_COUNT];
        jd_engine_timings(e->period[JD_TIER_INDEX_FAST], e->epoch, timings);
        return timings[tier];
}

/* Under mu: the periods the requests ask for, handed to the threads
 * (once they run). */
static void retime(jd_sampling_engine *e)
{
        uint64_t fast = e->sample_interval;
        for (guint i = 0; i < e->captures->len; i++)
                fast = min_u64(fast, jd_capture_interval(g_ptr_array_index(e->captures, i)));
        jd_tier_timing timings[JD_TIER_COUNT];
        jd_engine_timings(fast, e->epoch, timings);
        for (int i = 0; i < JD_TIER_COUNT; i++) {
                e->period[i] = timings[i].period;
                if (e->tiers[i])
                        jd_tier_thread_set_timing(e->tiers[i], &timings[i]);
        }
        if (!e->gpus)
                return;
        jd_gpu_poller_set_period(e->gpus, e->period[JD_TIER_INDEX_MEDIUM]);
        /* A capture of a GPU's energy counter (jetsonctl measure) has it
         * fresh, not as old as the costly values may be. */
        bool energy = false;
        for (guint i = 0; i < e->captures->len && !energy; i++)
                energy = jd_capture_has_column(g_ptr_array_index(e->captures, i), "dgpu.*.energy");
        jd_gpu_poller_set_energy_period(e->gpus, energy ? JD_NVML_ENERGY_EXACT_PERIOD_US : 0);
}

/* The values that combine tiers (ram.shared: meminfo, else the nvmap
 * total of the processes), from the parts that are fresh. */
static void build_derived(jd_values *out, const jd_memory_sample *memory, const jd_process_sample *processes)
{
        jd_sample parts = { .memory = memory, .processes = processes };
        jd_values_begin(out);
        jd_values_add_derived(out, &parts);
        jd_values_end(out);
}

static unsigned answer_events(const jd_reading *r)
{
        return r->seq == 1 || r->requested ? JD_ENGINE_ANSWERED : 0;
}

/* Under mu, on the fast thread: one record per due capture, the medium
 * and slow columns from those tiers' latest readings. */
static unsigned write_captures(jd_sampling_engine *e, jd_reading *fast)
{
        jd_reading *medium = jd_tier_thread_latest(e->tiers[JD_TIER_INDEX_MEDIUM]);
        jd_reading *slow = jd_tier_thread_latest(e->tiers[JD_TIER_INDEX_SLOW]);
        uint64_t now = fast->finished_us;
        bool slow_fresh = !is_stale(slow, e->period[JD_TIER_INDEX_SLOW], now);
        build_derived(&e->capture_derived, fast->part.memory, slow_fresh ? slow->part.processes : NULL);
        jd_capture_source sources[JD_CAPTURE_SOURCES] = {
                [JD_CAPTURE_SOURCE_FAST] = { &fast->values, true, fast->seq, fast->started_ns,
                                             e->period[JD_TIER_INDEX_FAST] },
                [JD_CAPTURE_SOURCE_MEDIUM] = { &medium->values, !is_stale(medium, e->period[JD_TIER_INDEX_MEDIUM], now),
                                               medium->seq, medium->started_ns, e->period[JD_TIER_INDEX_MEDIUM] },
                [JD_CAPTURE_SOURCE_SLOW] = { &slow->values, slow_fresh, slow->seq, slow->started_ns,
                                             e->period[JD_TIER_INDEX_SLOW] },
                [JD_CAPTURE_SOURCE_DERIVED] = { &e->capture_derived, true, fast->seq, fast->started_ns,
                                                e->period[JD_TIER_INDEX_FAST] },
        };
        /* The GPUs' latest readings, each in the slot of its place in
         * NVML's order, which never changes while jetsond runs. A GPU's
         * reading has no number of its own: its time tells a new one. */
        jd_gpu_reading *gpus[JD_MAX_DGPUS];
        size_t n_gpus = e->gpus ? jd_gpu_poller_latest(e->gpus, gpus) : 0;
        uint64_t gpu_period = n_gpus ? jd_gpu_poller_period(e->gpus) : 0;
        for (size_t i = 0; i < n_gpus; i++)
                sources[JD_CAPTURE_TIER_SOURCES + i] = (jd_capture_source) {
                        &gpus[i]->values, !too_old(gpus[i]->finished_us, gpu_period, now), gpus[i]->finished_us,
                        gpus[i]->finished_us * 1000u, gpu_period };
        unsigned events = 0;
        for (guint i = 0; i < e->captures->len; i++) {
                jd_capture *c = g_ptr_array_index(e->captures, i);
                if (jd_capture_take_due(c, fast->deadline_us, fast->started_ns / 1000u))
                        jd_capture_write(c, fast->started_ns, sources);
                if (jd_capture_ended(c))
                        events |= JD_ENGINE_CAPTURE_ENDED;
        }
        for (size_t i = 0; i < n_gpus; i++)
                jd_gpu_reading_unref(gpus[i]);
        jd_reading_unref(medium);
        jd_reading_unref(slow);
        return events;
}

static void on_fast(void *data, jd_tier_thread *t, jd_reading *r)
{
        (void) t;
        jd_sampling_engine *e = data;
        unsigned events = answer_events(r);
        if (r->read_tiers & JD_TIER_SLOW)
                events |= JD_ENGINE_CHANGED;
        if (e->gpus)
                jd_gpu_poller_set_sysfs_load(e->gpus, r->part.gpu && r->part.gpu->has_load);
        pthread_mutex_lock(&e->mu);
        /* A tick within half a fast period of the Sample deadline is the
         * Sample's: it is built from this fresh reading. */
        if (!r->requested && r->deadline_us + e->period[JD_TIER_INDEX_FAST] / 2 >= jd_ticker_next(&e->sample_ticker)) {
                jd_ticker_take(&e->sample_ticker, r->deadline_us);
                events |= JD_ENGINE_SAMPLE;
        }
        if (e->captures->len && !r->requested)
                events |= write_captures(e, r);
        pthread_mutex_unlock(&e->mu);
        /* A slow reading left for this tick (on_slow) wakes the loop now. */
        if (!events && (atomic_load(&e->events) & JD_ENGINE_CHANGED))
                events = JD_ENGINE_CHANGED;
        notify(e, events);
}

static void on_medium(void *data, jd_tier_thread *t, jd_reading *r)
{
        (void) t;
        notify(data, answer_events(r));
}

/* A slow reading may change properties. At a fast period of
 * JD_COALESCE_SLOW_US or less, the fast tier's next tick, at most that far
 * off, takes the news to the main loop with its own wake-up, and the
 * properties change with the first Sample that holds the reading; at 10 ms
 * that is 10 wake-ups a second fewer. Slower, or an answer to a request,
 * wakes the loop at once. */
static void on_slow(void *data, jd_tier_thread *t, jd_reading *r)
{
        (void) t;
        jd_sampling_engine *e = data;
        unsigned answered = answer_events(r);
        pthread_mutex_lock(&e->mu);
        bool soon = e->period[JD_TIER_INDEX_FAST] <= JD_COALESCE_SLOW_US;
        pthread_mutex_unlock(&e->mu);
        if (!answered && soon) {
                atomic_fetch_or(&e->events, JD_ENGINE_CHANGED);
                return;
        }
        notify(e, answered | JD_ENGINE_CHANGED);
}

jd_sampling_engine *jd_engine_new(const jd_sysroot *sr, uint64_t sample_interval_us)
{
        jd_sampling_engine *e = calloc(1, sizeof(*e));
        if (!e)
                return NULL;
        jd_recheck_set_interval(JD_RECHECK_INTERVAL_US);
        e->event_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        atomic_init(&e->events, 0);
        pthread_mutex_init(&e->mu, NULL);
        e->captures = g_ptr_array_new();
        jd_values_init(&e->capture_derived);
        e->start_us = e->epoch = jd_monotonic_us();
        e->sample_interval = sample_interval_us;
        jd_ticker_init(&e->sample_ticker, e->epoch, sample_interval_us, 0, e->epoch);
        if (e->event_fd < 0) {
                jd_engine_free(e);
                return NULL;
        }
        pthread_mutex_lock(&e->mu);
        retime(e);
        pthread_mutex_unlock(&e->mu);
        void (*hooks[JD_TIER_COUNT])(void *, jd_tier_thread *, jd_reading *) = { on_fast, on_medium, on_slow };
        for (int i = 0; i < JD_TIER_COUNT; i++) {
                jd_tier_timing timing = timing_of(e, i);
                e->tiers[i] = jd_tier_thread_start(sr, &specs[i], &timing, (jd_tier_hooks) { hooks[i], e });
                if (!e->tiers[i]) {
                        jd_engine_free(e);
                        return NULL;
                }
        }
        return e;
}

static void on_gpu_message(void *data)
{
        notify(data, JD_ENGINE_MESSAGE);
}

void jd_engine_use_nvml(jd_sampling_engine *e, const char *library)
{
        pthread_mutex_lock(&e->mu);
        e->gpus = jd_gpu_poller_new(library, on_gpu_message, e);
        retime(e);
        pthread_mutex_unlock(&e->mu);
}

bool jd_engine_nvml_status(jd_sampling_engine *e, jd_nvml_status *out)
{
        if (!e->gpus)
                return false;
        jd_gpu_poller_status(e->gpus, out);
        return true;
}

char *jd_engine_take_message(jd_sampling_engine *e)
{
        return e->gpus ? jd_gpu_poller_take_message(e->gpus) : NULL;
}

void jd_engine_free(jd_sampling_engine *e)
{
        if (!e)
                return;
        /* The tiers first: their hooks use the GPU poller (the fast tier
         * tells it whether sysfs has the GPU's load), so it must outlive
         * them. Ask all to stop first, so their waits overlap. */
        bool left_behind = false;
        for (int i = 0; i < JD_TIER_COUNT; i++)
                if (!jd_tier_thread_stop(e->tiers[i], 300000))
                        left_behind = true;
        if (left_behind)
                return; /* a stuck thread may still call our hooks: keep e and the poller */
        jd_gpu_poller_free(e->gpus, 300000);
        for (guint i = 0; i < e->captures->len; i++)
                jd_capture_free(g_ptr_array_index(e->captures, i));
        g_ptr_array_unref(e->captures);
        jd_values_clear(&e->capture_derived);
        pthread_mutex_destroy(&e->mu);
        if (e->event_fd >= 0)
                close(e->event_fd);
        free(e->gpu_users);
        free(e->users_now);
        free(e);
}

int jd_engine_event_fd(const jd_sampling_engine *e)
{
        return e->event_fd;
}

unsigned jd_engine_take_events(jd_sampling_engine *e)
{
        uint64_t count;
        ssize_t r = read(e->event_fd, &count, sizeof(count));
        (void) r;
        return atomic_exchange(&e->events, 0);
}

bool jd_engine_started(jd_sampling_engine *e, uint64_t now_us)
{
        if (now_us >= jd_engine_startup_deadline(e))
                return true;
        for (int i = 0; i < JD_TIER_COUNT; i++) {
                jd_reading *r = jd_tier_thread_latest(e->tiers[i]);
                bool answered = r->seq > 0;
                jd_reading_unref(r);
                if (!answered)
                        return false;
        }
        return true;
}

uint64_t jd_engine_startup_deadline(const jd_sampling_engine *e)
{
        return e->start_us + JD_STARTUP_TIMEOUT_US;
}

void jd_engine_set_sample_interval(jd_sampling_engine *e, uint64_t interval_us)
{
        pthread_mutex_lock(&e->mu);
        if (interval_us != e->sample_interval) {
                e->sample_interval = interval_us;
                jd_ticker_set_period(&e->sample_ticker, e->epoch, interval_us, 0, jd_monotonic_us());
                retime(e);
        }
        pthread_mutex_unlock(&e->mu);
}

uint64_t jd_engine_request(jd_sampling_engine *e)
{
        e->generation++;
        jd_recheck_now();
        for (int i = 0; i < JD_TIER_COUNT; i++)
                jd_tier_thread_request(e->tiers[i], e->generation);
        return e->generation;
}

bool jd_engine_answered(jd_sampling_engine *e, uint64_t generation, uint64_t now_us)
{
        for (int i = 0; i < JD_TIER_COUNT; i++) {
                jd_reading *r = jd_tier_thread_latest(e->tiers[i]);
                bool ok = r->generation >= generation || is_stale(r, jd_engine_tier_period(e, i), now_us);
                jd_reading_unref(r);
                if (!ok)
                        return false;
        }
        return true;
}

void jd_engine_set_fan_service_active(jd_sampling_engine *e, jd_opt_bool active)
{
        jd_tier_thread_set_fan_service_active(e->tiers[JD_TIER_INDEX_SLOW], active);
}

const char *jd_engine_tier_name(const jd_sampling_engine *e, int tier)
{
        return jd_tier_thread_name(e->tiers[tier]);
}

const char *jd_engine_tier_stage(jd_sampling_engine *e, int tier)
{
        return jd_tier_thread_stage(e->tiers[tier]);
}

uint64_t jd_engine_tier_period(jd_sampling_engine *e, int tier)
{
        pthread_mutex_lock(&e->mu);
        uint64_t p = e->period[tier];
        pthread_mutex_unlock(&e->mu);
        return p;
}

void jd_snapshot_init(jd_snapshot *s)
{
        memset(s, 0, sizeof(*s));
        jd_values_init(&s->derived);
}

void jd_snapshot_clear(jd_snapshot *s)
{
        for (int i = 0; i < JD_TIER_COUNT; i++)
                jd_reading_unref(s->tier[i]);
        for (size_t i = 0; i < s->n_gpu; i++)
                jd_gpu_reading_unref(s->gpu[i]);
        jd_values_clear(&s->derived);
        jd_snapshot_init(s);
}

/* What a part reads as before its tier's first reading. */
static const jd_cpu_sample no_cpu;
static const jd_gpu_sample no_gpu;
static const jd_emc_sample no_emc;
static const jd_memory_sample no_memory;
static const jd_power_sample no_power;
static const jd_engines_sample no_engines;
static const jd_thermal_sample no_thermal;
static const jd_throttle_sample no_throttle;
static const jd_fan_sample no_fans;
static const jd_nvpmodel_sample no_nvpmodel;
static const jd_swap_sample no_swap;
static const jd_process_sample no_processes;
static const jd_system_sample no_system;

#define PART(t, name) (s->tier[t]->part.name ? s->tier[t]->part.name : &no_##name)

/* NVML's processes of the fresh GPUs, memory summed over the GPUs, go to
 * the slow tier's process reader (name, user, CPU and RSS from /proc)
 * when they changed. */
static void pass_gpu_users(jd_sampling_engine *e, const jd_snapshot *s)
{
        size_t n = 0;
        for (size_t i = 0; i < s->n_gpu; i++)
                if (!s->gpu_stale[i])
                        n = jd_nvml_add_gpu_users(&e->users_now, &e->cap_users_now, n, &s->gpu[i]->gpu);
        const jd_gpu_user *users = e->users_now;
        bool same = n == e->n_gpu_users;
        for (size_t i = 0; same && i < n; i++)
                same = users[i].pid == e->gpu_users[i].pid && users[i].gpu_kib == e->gpu_users[i].gpu_kib;
        if (same)
                return;
        /* The two lists trade places: the new one is the last given. */
        jd_gpu_user *last = e->gpu_users;
        size_t last_cap = e->cap_gpu_users;
        e->gpu_users = e->users_now;
        e->cap_gpu_users = e->cap_users_now;
        e->users_now = last;
        e->cap_users_now = last_cap;
        e->n_gpu_users = n;
        jd_tier_thread_set_gpu_users(e->tiers[JD_TIER_INDEX_SLOW], e->gpu_users, n);
}

void jd_engine_snapshot(jd_sampling_engine *e, jd_snapshot *s, uint64_t now_us)
{
        for (int i = 0; i < JD_TIER_COUNT; i++) {
                jd_reading *r = jd_tier_thread_latest(e->tiers[i]);
                jd_reading_unref(s->tier[i]);
                s->tier[i] = r;
                s->stale[i] = is_stale(r, jd_engine_tier_period(e, i), now_us);
        }
        jd_sample *x = &s->sample;
        x->cpu = PART(JD_TIER_INDEX_FAST, cpu);
        x->gpu = PART(JD_TIER_INDEX_FAST, gpu);
        x->emc = PART(JD_TIER_INDEX_FAST, emc);
        x->memory = PART(JD_TIER_INDEX_FAST, memory);
        x->jetson_clocks_active = s->tier[JD_TIER_INDEX_FAST]->part.jetson_clocks_active;
        x->power = PART(JD_TIER_INDEX_MEDIUM, power);
        x->engines = PART(JD_TIER_INDEX_MEDIUM, engines);
        x->throttle = PART(JD_TIER_INDEX_MEDIUM, throttle);
        x->thermal = PART(JD_TIER_INDEX_SLOW, thermal);
        x->fans = PART(JD_TIER_INDEX_SLOW, fans);
        x->nvpmodel = PART(JD_TIER_INDEX_SLOW, nvpmodel);
        x->swap = PART(JD_TIER_INDEX_SLOW, swap);
        x->processes = PART(JD_TIER_INDEX_SLOW, processes);
        x->system = PART(JD_TIER_INDEX_SLOW, system);
        /* The newest reading's time among the fresh ones. */
        x->timestamp_us = 0;
        for (int i = 0; i < JD_TIER_COUNT; i++)
                if (!s->stale[i])
                        x->timestamp_us = max_u64(x->timestamp_us, s->tier[i]->part.timestamp_us);
        if (!x->timestamp_us)
                x->timestamp_us = jd_realtime_us();
        build_derived(&s->derived, s->stale[JD_TIER_INDEX_FAST] ? NULL : s->tier[JD_TIER_INDEX_FAST]->part.memory,
                      s->stale[JD_TIER_INDEX_SLOW] ? NULL : s->tier[JD_TIER_INDEX_SLOW]->part.processes);
        for (size_t i = 0; i < s->n_gpu; i++)
                jd_gpu_reading_unref(s->gpu[i]);
        s->n_gpu = e->gpus ? jd_gpu_poller_latest(e->gpus, s->gpu) : 0;
        uint64_t gpu_period = e->gpus ? jd_gpu_poller_period(e->gpus) : 0;
        for (size_t i = 0; i < s->n_gpu; i++)
                s->gpu_stale[i] = too_old(s->gpu[i]->finished_us, gpu_period, now_us);
        pass_gpu_users(e, s);
}

size_t jd_snapshot_lists(const jd_snapshot *s, const jd_values *lists[JD_SNAPSHOT_MAX_LISTS])
{
        size_t n = 0;
        for (int i = 0; i < JD_TIER_COUNT; i++)
                if (s->tier[i] && !s->stale[i])
                        lists[n++] = &s->tier[i]->values;
        lists[n++] = &s->derived;
        for (size_t i = 0; i < s->n_gpu; i++)
                if (!s->gpu_stale[i])
                        lists[n++] = &s->gpu[i]->values;
        return n;
}

int jd_engine_open_capture(jd_sampling_engine *e, const jd_capture_rates *rates, const char *const *columns,
                           const char *const *names, size_t n, int *read_fd, jd_capture **out)
{
        pthread_mutex_lock(&e->mu);
        int r = 0;
        if (e->captures->len >= JD_MAX_CAPTURES) {
                r = -EBUSY;
        } else {
                /* On the fast tier's grid, so its ticks are due at once. */
                uint64_t now = jd_monotonic_us();
                jd_capture *c = jd_capture_new_named(rates->interval_us, now, columns, names, n, read_fd);
                if (!c) {
                        r = -errno;
                } else {
                        jd_capture_set_tier_intervals(c, rates->medium_us, rates->slow_us);
                        g_ptr_array_add(e->captures, c);
                        retime(e);
                        *out = c;
                }
        }
        pthread_mutex_unlock(&e->mu);
        return r;
}

void jd_engine_close_capture(jd_sampling_engine *e, jd_capture *c)
{
        pthread_mutex_lock(&e->mu);
        g_ptr_array_remove(e->captures, c);
        retime(e);
        pthread_mutex_unlock(&e->mu);
        jd_capture_free(c);
}
