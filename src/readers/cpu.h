/* CPU: per-core online state, frequencies, governor, idle states, and
 * usage from /proc/stat counter deltas (aggregate and per core). */
#pragma once

#include <stddef.h>

#include "opt.h"
#include "sysfile.h"

/* A real bound, not a cap: the kernel's CPUIDLE_STATE_MAX, so no core can
 * list more idle states (state0..state9). */
#define JD_CPU_MAX_IDLE 10

typedef struct {
        char name[16];         /* "WFI", "c7" */
        jd_opt_bool disabled;  /* jetson_clocks writes 1 */
} jd_cpu_idle_state;

/* Where the time of an interval went, in % of it: USER and NICE
 * (user-mode time, nice the part at a positive nice value), SYSTEM (kernel
 * time: system plus irq and softirq) and IDLE (idle plus iowait). The four
 * add up to 100, and IDLE is 100 - load. */
typedef struct {
        double user, nice, system, idle;
        bool present;
} jd_cpu_times;

typedef struct {
        unsigned id;
        bool online;
        jd_opt_u64 cur_khz;
        jd_opt_dbl load;       /* %, over the last interval */
        jd_cpu_times times;    /* the same interval's split */
        /* slow tier */
        jd_opt_u64 min_khz, max_khz;        /* scaling limits (nvpmodel, jetson_clocks) */
        jd_opt_u64 hw_min_khz, hw_max_khz;  /* cpuinfo limits */
        char governor[24];
        jd_cpu_idle_state idle[JD_CPU_MAX_IDLE];
        size_t n_idle;
} jd_cpu_core;

typedef struct {
        jd_opt_dbl load;       /* %, from the aggregate "cpu" line's own deltas */
        jd_cpu_times times;    /* the same interval's split */
        size_t n_cores;
        jd_cpu_core *cores;    /* owned by the reader */
} jd_cpu_sample;

typedef struct jd_cpu_reader jd_cpu_reader;

jd_cpu_reader *jd_cpu_reader_new(const jd_sysroot *sr);
void jd_cpu_reader_free(jd_cpu_reader *r);
/* Fast tier: online, current frequency, loads. */
const jd_cpu_sample *jd_cpu_reader_sample(jd_cpu_reader *r);
/* Slow tier: limits, governor, idle states (changed only by tools). */
void jd_cpu_reader_sample_limits(jd_cpu_reader *r);
const jd_cpu_sample *jd_cpu_reader_last(const jd_cpu_reader *r);

/* /proc/stat counters of one line; exposed for tests. */
typedef struct {
        uint64_t busy, total;  /* total = user..softirq (7 fields) */
        uint64_t user, nice, system, idle;  /* system with irq+softirq, idle with iowait */
        bool valid;
} jd_cpu_ticks;

/* Parses /proc/stat text: AGG gets the "cpu" line, PER_CORE[id] the "cpuN"
 * lines for id < n (entries not seen are marked invalid). */
bool jd_parse_proc_stat(const char *text, jd_cpu_ticks *agg, jd_cpu_ticks *per_core, size_t n);
/* 100 * Δbusy / Δtotal, absent if the counters did not advance or went back. */
jd_opt_dbl jd_cpu_load(const jd_cpu_ticks *prev, const jd_cpu_ticks *now);
/* The split of the same interval; absent where jd_cpu_load is, or where
 * one of the four went back. */
jd_cpu_times jd_cpu_split(const jd_cpu_ticks *prev, const jd_cpu_ticks *now);
