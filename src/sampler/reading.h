/* One tier's finished reading: copies of its readers' samples and its
 * values, immutable once published and shared by reference between the
 * tier thread that made it, the main loop and the capture writer (each
 * holds a reference for as long as it looks at it; the last one out
 * frees it, or the tier thread, once its own reference is the only one
 * left, makes its next reading in the same memory). Nothing here reads
 * hardware or locks. */
#pragma once

#include <stdatomic.h>
#include <stdint.h>

#include "sampler.h"
#include "values.h"

typedef struct {
        atomic_uint refs;
        unsigned tier;            /* one jd_tier bit */
        uint64_t seq;             /* 1, 2, ... per tier; 0 = nothing read yet */
        uint64_t generation;      /* the resample request it answers (jd_engine) */
        bool requested;           /* read on request (a resample), not on a tick */
        unsigned read_tiers;      /* the jd_tier bits read (the fast tier adds its limits) */
        uint64_t started_ns;      /* CLOCK_MONOTONIC when the reading began */
        uint64_t started_us;
        uint64_t finished_us;     /* ... and when it was done */
        uint64_t deadline_us;     /* the tick it was taken for */
        jd_sample part;           /* this tier's parts (pointers into the copies below), others NULL */
        jd_values values;         /* this tier's values, layout as the tier's builder had it */
        /* The copies. Only cpu holds a pointer (its cores). */
        jd_cpu_sample cpu;
        jd_gpu_sample gpu;
        jd_emc_sample emc;
        jd_memory_sample memory;
        jd_power_sample power;
        jd_engines_sample engines;
        jd_thermal_sample thermal;
        jd_throttle_sample throttle;
        jd_fan_sample fans;
        jd_nvpmodel_sample nvpmodel;
        jd_swap_sample swap;
        jd_process_sample processes;
        jd_system_sample system;
} jd_reading;

/* A reading with no parts and no values: what a tier shows before its
 * first reading (and forever, if it never answers). */
jd_reading *jd_reading_new_empty(unsigned tier);
/* Copies SAMPLE's parts and VALUES' items into a new reading. NULL when
 * out of memory. */
jd_reading *jd_reading_new(unsigned tier, const jd_sample *sample, const jd_values *values);
/* R (a reading no one else holds: jd_reading_unshared) made anew from
 * SAMPLE and VALUES in the same memory, with its one reference; NULL
 * (R released) when out of memory. */
jd_reading *jd_reading_renew(jd_reading *r, unsigned tier, const jd_sample *sample, const jd_values *values);
/* True when the caller's reference is R's only one: no other thread can
 * see it, nor get it (a reading is handed out by those who hold it). */
bool jd_reading_unshared(jd_reading *r);
jd_reading *jd_reading_ref(jd_reading *r);
void jd_reading_unref(jd_reading *r);
