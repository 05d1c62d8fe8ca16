#include "gpu_poller.h"

#include <glib.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sampler.h"

typedef struct gpu_thread gpu_thread;

struct jd_gpu_poller {
        char *library;
        void (*notify)(void *data);   /* a message is waiting */
        void *data;
        pthread_t probe;
        jd_nvml *nvml;                /* set once by the probe thread, then read-only */

        pthread_mutex_t mu;
        pthread_cond_t wake;
        bool stop;
        uint64_t period;
        gpu_thread *gpus[JD_MAX_DGPUS];
        unsigned n_gpus;
        uint64_t energy_period;       /* 0: the costly values' own */
        GQueue messages;
        atomic_bool sysfs_load;       /* jd_gpu_poller_set_sysfs_load */
        jd_nvml_status status;        /* under mu */
};

/* The costly parts of a GPU (nvml.h), each with the time of its latest
 * read, kept by its own thread for the cheap reads to take in. */
enum { COSTLY_ENERGY, COSTLY_PCIE, COSTLY_SM, COSTLY_NVLINK, COSTLY_HEALTH, COSTLY_GPM, COSTLY_MODES, COSTLY_PARTS };
static const unsigned costly_part[COSTLY_PARTS] = { JD_NVML_ENERGY, JD_NVML_PCIE, JD_NVML_PROCESS_SM, JD_NVML_NVLINK,
                                                    JD_NVML_HEALTH, JD_NVML_GPM,  JD_NVML_MODES };

struct gpu_thread {
        jd_gpu_poller *poller;
        unsigned index;
        pthread_t thread;
        jd_values builder;            /* the thread's own; keys spelled only when they change */
        jd_gpu_reading *latest;       /* under poller->mu */
        bool was_lost;                /* the thread's own */
        /* The cheap thread's own: the constants, read with the first
         * full read (again after the GPU was lost). */
        jd_nvml_gpu constants;
        bool have_constants;
        /* The costly thread (off the cheap reads' path: a PCIe read waits
         * ~42 ms) and, under poller->mu, what it read last. */
        pthread_t costly_thread;
        bool costly_started;
        jd_nvml_gpu costly;
        uint64_t costly_at[COSTLY_PARTS]; /* CLOCK_MONOTONIC µs; 0: none */
};

jd_gpu_reading *jd_gpu_reading_ref(jd_gpu_reading *r)
{
        if (r)
                atomic_fetch_add(&r->refs, 1);
        return r;
}

void jd_gpu_reading_unref(jd_gpu_reading *r)
{
        if (r && atomic_fetch_sub(&r->refs, 1) == 1) {
                jd_values_clear(&r->values);
                jd_nvml_gpu_clear(&r->gpu);
                free(r);
        }
}

static void message(jd_gpu_poller *p, char *text)
{
        pthread_mutex_lock(&p->mu);
        g_queue_push_tail(&p->messages, text);
        pthread_mutex_unlock(&p->mu);
        p->notify(p->data);
}

/* Waits on the poller's condition until DEADLINE (CLOCK_MONOTONIC µs) or
 * stop; under mu. */
static void wait_until(jd_gpu_poller *p, uint64_t deadline)
{
        while (!p->stop && jd_monotonic_us() < deadline) {
                struct timespec ts = { .tv_sec = (time_t) (deadline / 1000000u),
                                       .tv_nsec = (long) (deadline % 1000000u) * 1000 };
                pthread_cond_timedwait(&p->wake, &p->mu, &ts);
        }
}

static void publish(gpu_thread *t, const jd_nvml_gpu *g)
{
        jd_gpu_reading *r = calloc(1, sizeof(*r));
        if (!r)
                return;
        atomic_init(&r->refs, 1);
        jd_nvml_gpu_copy(&r->gpu, g); /* out of memory: without processes */
        jd_values_begin(&t->builder);
        jd_values_add_nvml_gpu(&t->builder, g, atomic_load(&t->poller->sysfs_load));
        jd_values_end(&t->builder);
        /* The reading gets a copy; the builder keeps its spelled keys. */
        jd_values_init(&r->values);
        jd_values_copy(&r->values, &t->builder);
        r->finished_us = jd_monotonic_us();
        r->timestamp_us = jd_realtime_us();
        jd_gpu_poller *p = t->poller;
        pthread_mutex_lock(&p->mu);
        jd_gpu_reading *old = t->latest;
        t->latest = r;
        pthread_mutex_unlock(&p->mu);
        jd_gpu_reading_unref(old);
}

/* Under mu: how often the costly parts are read. */
static uint64_t costly_period(const jd_gpu_poller *p, int part)
{
        uint64_t period = p->period > JD_NVML_COSTLY_PERIOD_US ? p->period : JD_NVML_COSTLY_PERIOD_US;
        if (part == COSTLY_ENERGY && p->energy_period && p->energy_period < period)
                period = p->energy_period > p->period ? p->energy_period : p->period;
        return period;
}

/* Under mu: G's PARTS (costly ones) become T's latest, read at AT. */
static void store_costly(gpu_thread *t, const jd_nvml_gpu *g, unsigned parts, uint64_t at)
{
        for (int i = 0; i < COSTLY_PARTS; i++)
                if (parts & costly_part[i])
                        t->costly_at[i] = g->lost ? 0 : at;
        if (g->lost)
                return;
        jd_nvml_gpu_merge(&t->costly, g,
                          parts & (JD_NVML_ENERGY | JD_NVML_PCIE | JD_NVML_HEALTH | JD_NVML_GPM | JD_NVML_MODES));
        /* NVLink's counters: the rates are the means since the read
         * before, whose counters the costly values still hold. */
        if (parts & JD_NVML_NVLINK) {
                jd_nvlink_counters before = t->costly.nvlink;
                t->costly.nvlink = g->nvlink;
                jd_nvml_nvlink_rates(&before, &t->costly.nvlink, &t->costly.nvlink_rate);
        }
        if (parts & JD_NVML_PROCESS_SM) {
                jd_nvml_gpu_clear(&t->costly);
                jd_nvml_gpu copy;
                if (jd_nvml_gpu_copy(&copy, g)) {
                        t->costly.processes = copy.processes;
                        t->costly.n_processes = copy.n_processes;
                        t->costly.cap_processes = copy.cap_processes;
                }
        }
}

/* Under mu: G, a cheap read finished at NOW, takes in the costly parts
 * read recently enough (a costly thread stuck in NVML leaves them out
 * after three of its periods, as a stalled tier's keys). */
static void merge_costly(const gpu_thread *t, jd_nvml_gpu *g, uint64_t now)
{
        for (int i = 0; i < COSTLY_PARTS; i++) {
                uint64_t at = t->costly_at[i];
                if (at && (now < at || now - at <= 3 * costly_period(t->poller, i)))
                        jd_nvml_gpu_merge(g, &t->costly, costly_part[i]);
        }
}

/* Waits on the poller's condition once: until DEADLINE, stop, or a
 * change of the periods (under mu). */
static void wait_once(jd_gpu_poller *p, uint64_t deadline)
{
        if (p->stop || jd_monotonic_us() >= deadline)
                return;
        struct timespec ts = { .tv_sec = (time_t) (deadline / 1000000u), .tv_nsec = (long) (deadline % 1000000u) * 1000 };
        pthread_cond_timedwait(&p->wake, &p->mu, &ts);
}

/* The costly parts of one GPU, each at its own period (the cheap thread's
 * first full read counts as the first of each). */
static void *run_costly(void *data)
{
        gpu_thread *t = data;
        jd_gpu_poller *p = t->poller;
        jd_nvml_gpu *g = calloc(1, sizeof(*g));
        uint64_t last[COSTLY_PARTS];
        uint64_t now = jd_monotonic_us();
        for (int i = 0; i < COSTLY_PARTS; i++)
                last[i] = now;
        pthread_mutex_lock(&p->mu);
        while (g && !p->stop) {
                now = jd_monotonic_us();
                unsigned parts = 0;
                uint64_t next = UINT64_MAX;
                for (int i = 0; i < COSTLY_PARTS; i++) {
                        uint64_t due = last[i] + costly_period(p, i);
                        if (now >= due) {
                                parts |= costly_part[i];
                                last[i] = now;
                                due = now + costly_period(p, i);
                        }
                        next = due < next ? due : next;
                }
                /* Per-process SM use only while NVML lists a process. */
                if (!t->latest || !t->latest->gpu.n_processes)
                        parts &= ~(unsigned) JD_NVML_PROCESS_SM;
                if (!parts) {
                        wait_once(p, next);
                        continue;
                }
                pthread_mutex_unlock(&p->mu);
                bool there = jd_nvml_read_parts(p->nvml, t->index, parts, g);
                uint64_t done = jd_monotonic_us();
                pthread_mutex_lock(&p->mu);
                if (there)
                        store_costly(t, g, parts, done);
                jd_nvml_gpu_clear(g);
        }
        pthread_mutex_unlock(&p->mu);
        free(g);
        return NULL;
}

/* One read of T's GPU into G: the cheap part, with the constants kept
 * and the costly parts' latest; everything where there is no costly
 * thread, and on the first read (so the first reading has every key). */
static bool read_gpu(gpu_thread *t, jd_nvml_gpu *g)
{
        jd_gpu_poller *p = t->poller;
        bool full = !t->have_constants || !t->costly_started;
        unsigned parts = full ? JD_NVML_ALL : JD_NVML_CHEAP;
        if (!jd_nvml_read_parts(p->nvml, t->index, parts, g))
                return false;
        if (g->lost) {
                t->have_constants = false;
                return true;
        }
        uint64_t now = jd_monotonic_us();
        pthread_mutex_lock(&p->mu);
        if (full) {
                store_costly(t, g,
                             JD_NVML_ENERGY | JD_NVML_PCIE | JD_NVML_PROCESS_SM | JD_NVML_NVLINK | JD_NVML_HEALTH |
                                     JD_NVML_GPM | JD_NVML_MODES,
                             now);
                /* Its NVLink rates: since the last read before it, if any. */
                jd_nvml_gpu_merge(g, &t->costly, JD_NVML_NVLINK);
        } else {
                jd_nvml_gpu_merge(g, &t->constants, JD_NVML_CONSTANTS);
                merge_costly(t, g, now);
        }
        pthread_mutex_unlock(&p->mu);
        if (!t->have_constants) {
                jd_nvml_gpu_merge(&t->constants, g, JD_NVML_CONSTANTS);
                t->have_constants = true;
        }
        return true;
}

static void *run_gpu(void *data)
{
        gpu_thread *t = data;
        jd_gpu_poller *p = t->poller;
        jd_nvml_gpu *g = calloc(1, sizeof(*g));
        pthread_mutex_lock(&p->mu);
        while (g && !p->stop) {
                pthread_mutex_unlock(&p->mu);
                uint64_t start = jd_monotonic_us();
                bool there = read_gpu(t, g);
                if (there && g->lost != t->was_lost) {
                        t->was_lost = g->lost;
                        message(p, g->lost ? g_strdup_printf("GPU %u fell off the bus (NVML: GPU is lost); its "
                                                             "readings leave the sample", t->index)
                                           : g_strdup_printf("GPU %u answers again", t->index));
                }
                if (there)
                        publish(t, g);
                jd_nvml_gpu_clear(g);
                pthread_mutex_lock(&p->mu);
                /* A shorter period (a capture opened) counts at once. */
                while (!p->stop && jd_monotonic_us() < start + p->period)
                        wait_once(p, start + p->period);
        }
        pthread_mutex_unlock(&p->mu);
        free(g);
        return NULL;
}

static void start_gpu(jd_gpu_poller *p, unsigned index)
{
        gpu_thread *t = calloc(1, sizeof(*t));
        if (!t)
                return;
        t->poller = p;
        t->index = index;
        jd_values_init(&t->builder);
        /* Both threads begin by taking mu: they see the poller as it is
         * when it is released. */
        pthread_mutex_lock(&p->mu);
        if (pthread_create(&t->thread, NULL, run_gpu, t) != 0) {
                pthread_mutex_unlock(&p->mu);
                jd_values_clear(&t->builder);
                free(t);
                return;
        }
        char name[16];
        snprintf(name, sizeof(name), "jetsond-gpu%u", index);
        pthread_setname_np(t->thread, name);
        /* Without its costly thread, the GPU's own reads everything. */
        t->costly_started = pthread_create(&t->costly_thread, NULL, run_costly, t) == 0;
        if (t->costly_started) {
                snprintf(name, sizeof(name), "jetsond-gpu%u+", index);
                pthread_setname_np(t->costly_thread, name);
        }
        p->gpus[p->n_gpus++] = t;
        pthread_mutex_unlock(&p->mu);
}

static void *run_probe(void *data)
{
        jd_gpu_poller *p = data;
        bool told = false, told_too_many = false;
        for (;;) {
                if (!p->nvml) {
                        char why[256];
                        jd_nvml_failure failure;
                        jd_nvml *n = jd_nvml_open_why(p->library, why, sizeof(why), &failure);
                        pthread_mutex_lock(&p->mu);
                        p->status.tried = true;
                        p->status.failure = failure;
                        g_strlcpy(p->status.why, n ? "" : why, sizeof(p->status.why));
                        if (n) {
                                g_strlcpy(p->status.driver, jd_nvml_driver_version(n), sizeof(p->status.driver));
                                g_strlcpy(p->status.cuda, jd_nvml_cuda_driver_version(n), sizeof(p->status.cuda));
                        }
                        pthread_mutex_unlock(&p->mu);
                        if (n) {
                                unsigned count = jd_nvml_count(n);
                                message(p, g_strdup_printf("NVML: driver %s, %u GPU%s", jd_nvml_driver_version(n),
                                                           count, count == 1 ? "" : "s"));
                                pthread_mutex_lock(&p->mu);
                                p->nvml = n;
                                pthread_mutex_unlock(&p->mu);
                        } else if (!told) {
                                message(p, g_strdup_printf("NVML: %s; no NVIDIA GPU is read through it (looked for "
                                                           "again every %u s)", why, JD_NVML_REPROBE_US / 1000000u));
                                told = true;
                        }
                }
                /* GPUs NVML lists now and no thread reads yet. */
                unsigned count = p->nvml ? jd_nvml_count(p->nvml) : 0;
                pthread_mutex_lock(&p->mu);
                p->status.count = count;
                pthread_mutex_unlock(&p->mu);
                for (unsigned i = p->n_gpus; i < count && i < JD_MAX_DGPUS; i++)
                        start_gpu(p, i);
                if (count > JD_MAX_DGPUS && !told_too_many) {
                        message(p, g_strdup_printf("NVML: too many GPUs: it lists %u, more than the NVIDIA driver "
                                                   "supports (%u); only GPUs 0 to %u are read",
                                                   count, JD_MAX_DGPUS, JD_MAX_DGPUS - 1));
                        told_too_many = true;
                }
                pthread_mutex_lock(&p->mu);
                wait_until(p, jd_monotonic_us() + JD_NVML_REPROBE_US);
                bool stop = p->stop;
                pthread_mutex_unlock(&p->mu);
                if (stop)
                        return NULL;
        }
}

jd_gpu_poller *jd_gpu_poller_new(const char *library, void (*notify)(void *data), void *data)
{
        jd_gpu_poller *p = calloc(1, sizeof(*p));
        if (!p)
                return NULL;
        p->library = library ? strdup(library) : NULL;
        g_strlcpy(p->status.library, library ? library : "libnvidia-ml.so.1", sizeof(p->status.library));
        p->notify = notify;
        p->data = data;
        p->period = JD_NVML_MIN_PERIOD_US;
        atomic_init(&p->sysfs_load, false);
        g_queue_init(&p->messages);
        pthread_mutex_init(&p->mu, NULL);
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_init(&p->wake, &attr);
        pthread_condattr_destroy(&attr);
        /* Signals are the main thread's. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old);
        int r = pthread_create(&p->probe, NULL, run_probe, p);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r != 0) {
                free(p->library);
                free(p);
                return NULL;
        }
        pthread_setname_np(p->probe, "jetsond-nvml");
        return p;
}

static bool join_until(pthread_t thread, uint64_t deadline_us)
{
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        uint64_t now = jd_monotonic_us(), left = deadline_us > now ? deadline_us - now : 0;
        uint64_t ns = (uint64_t) until.tv_nsec + left * 1000u;
        until.tv_sec += (time_t) (ns / 1000000000u);
        until.tv_nsec = (long) (ns % 1000000000u);
        if (pthread_timedjoin_np(thread, NULL, &until) != 0) {
                pthread_detach(thread);
                return false;
        }
        return true;
}

void jd_gpu_poller_free(jd_gpu_poller *p, uint64_t timeout_us)
{
        if (!p)
                return;
        pthread_mutex_lock(&p->mu);
        p->stop = true;
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->mu);
        uint64_t deadline = jd_monotonic_us() + timeout_us;
        bool all = join_until(p->probe, deadline);
        for (unsigned i = 0; i < p->n_gpus; i++) {
                all = join_until(p->gpus[i]->thread, deadline) && all;
                if (p->gpus[i]->costly_started)
                        all = join_until(p->gpus[i]->costly_thread, deadline) && all;
        }
        /* A thread stuck in NVML still uses the library and the poller. */
        if (!all)
                return;
        for (unsigned i = 0; i < p->n_gpus; i++) {
                jd_gpu_reading_unref(p->gpus[i]->latest);
                jd_values_clear(&p->gpus[i]->builder);
                jd_nvml_gpu_clear(&p->gpus[i]->costly);
                free(p->gpus[i]);
        }
        jd_nvml_close(p->nvml);
        char *m;
        while ((m = g_queue_pop_head(&p->messages)))
                g_free(m);
        pthread_cond_destroy(&p->wake);
        pthread_mutex_destroy(&p->mu);
        free(p->library);
        free(p);
}

void jd_gpu_poller_set_period(jd_gpu_poller *p, uint64_t period_us)
{
        pthread_mutex_lock(&p->mu);
        p->period = period_us > JD_NVML_MIN_PERIOD_US ? period_us : JD_NVML_MIN_PERIOD_US;
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->mu);
}

void jd_gpu_poller_set_energy_period(jd_gpu_poller *p, uint64_t period_us)
{
        pthread_mutex_lock(&p->mu);
        p->energy_period = period_us;
        pthread_cond_broadcast(&p->wake);
        pthread_mutex_unlock(&p->mu);
}

uint64_t jd_gpu_poller_period(jd_gpu_poller *p)
{
        pthread_mutex_lock(&p->mu);
        uint64_t period = p->period;
        pthread_mutex_unlock(&p->mu);
        return period;
}

void jd_gpu_poller_set_sysfs_load(jd_gpu_poller *p, bool has_load)
{
        atomic_store(&p->sysfs_load, has_load);
}

size_t jd_gpu_poller_latest(jd_gpu_poller *p, jd_gpu_reading *out[JD_MAX_DGPUS])
{
        size_t n = 0;
        pthread_mutex_lock(&p->mu);
        for (unsigned i = 0; i < p->n_gpus; i++)
                if (p->gpus[i]->latest)
                        out[n++] = jd_gpu_reading_ref(p->gpus[i]->latest);
        pthread_mutex_unlock(&p->mu);
        return n;
}

void jd_gpu_poller_status(jd_gpu_poller *p, jd_nvml_status *out)
{
        pthread_mutex_lock(&p->mu);
        *out = p->status;
        pthread_mutex_unlock(&p->mu);
}

char *jd_gpu_poller_take_message(jd_gpu_poller *p)
{
        pthread_mutex_lock(&p->mu);
        char *m = g_queue_pop_head(&p->messages);
        pthread_mutex_unlock(&p->mu);
        return m;
}
