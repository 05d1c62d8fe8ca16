/* A tier thread: owns one tier's readers (discovered on the thread, so
 * even a stalled discovery blocks only it), reads them on its ticker's
 * deadlines or when asked, and publishes each finished reading as an
 * immutable jd_reading. It holds its lock only to trade pointers and
 * settings, never during I/O, so the main loop and the other tiers never
 * wait for its sensors. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "opt.h"
#include "reading.h"
#include "sysroot.h"

typedef struct jd_tier_thread jd_tier_thread;

typedef struct {
        /* Runs on the tier thread after each publication, no lock held. */
        void (*published)(void *data, jd_tier_thread *t, jd_reading *r);
        void *data;
} jd_tier_hooks;

typedef struct {
        unsigned tier;            /* JD_TIER_FAST, _MEDIUM or _SLOW */
        const char *name;         /* for logs and the thread's name */
        /* jd_tier bits read at every EXTRA_PERIOD (the fast tier's limits:
         * JD_TIER_SLOW), on the tick due then. */
        unsigned extra_tiers;
        /* Before its first publication the tier reads again until its
         * rates exist (JD_TIER_FAST: CPU load) or once more after
         * SECOND_READING_US (JD_TIER_SLOW: process CPU %), so the first
         * sample has every key. */
        uint64_t second_reading_us;
} jd_tier_spec;

typedef struct {
        uint64_t epoch, period, lead, extra_period;
} jd_tier_timing;

jd_tier_thread *jd_tier_thread_start(const jd_sysroot *sr, const jd_tier_spec *spec, const jd_tier_timing *timing,
                                     jd_tier_hooks hooks);
/* Stops the thread; false if it did not end within TIMEOUT_US (stuck in
 * a read): it is then left to the kernel and its memory is not freed. */
bool jd_tier_thread_stop(jd_tier_thread *t, uint64_t timeout_us);

void jd_tier_thread_set_timing(jd_tier_thread *t, const jd_tier_timing *timing);
/* Reads every reader of the tier (extras included) as soon as possible;
 * the reading published then carries GENERATION. */
void jd_tier_thread_request(jd_tier_thread *t, uint64_t generation);
/* The latest reading (a reference: jd_reading_unref() it); an empty one
 * (seq 0) before the first. */
jd_reading *jd_tier_thread_latest(jd_tier_thread *t);
/* The reader it is in now ("power", "limits", ...), NULL between readings. */
const char *jd_tier_thread_stage(jd_tier_thread *t);
uint64_t jd_tier_thread_period(jd_tier_thread *t);
const char *jd_tier_thread_name(const jd_tier_thread *t);
/* For the slow tier: what systemd says of nvfancontrol.service, applied
 * before its next reading. */
void jd_tier_thread_set_fan_service_active(jd_tier_thread *t, jd_opt_bool active);
/* NVML's processes for the slow tier's process reader, from its next reading. */
void jd_tier_thread_set_gpu_users(jd_tier_thread *t, const jd_gpu_user *users, size_t n);
