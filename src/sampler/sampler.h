/* The sampler owns every hardware reader and runs them in three tiers,
 * as a profiler would: fast (CPU, GPU, EMC, RAM: cheap sysfs reads),
 * medium (power rails, engines and throttling: ~0.5 ms per I2C read on a real board)
 * and slow (thermal, fans, modes, limits, swap, processes, disk).
 * Whoever drives it (the daemon's timers, --once, the benchmark) decides
 * when each tier runs; the sample always holds the latest of each. */
#pragma once

#include <stdint.h>

#include "cpu.h"
#include "emc.h"
#include "engines.h"
#include "fan.h"
#include "gpu.h"
#include "memory.h"
#include "nvpmodel.h"
#include "power.h"
#include "processes.h"
#include "swap.h"
#include "system.h"
#include "thermal.h"
#include "throttle.h"

typedef enum {
        JD_TIER_FAST = 1 << 0,
        JD_TIER_MEDIUM = 1 << 1,
        JD_TIER_SLOW = 1 << 2,
        JD_TIER_ALL = JD_TIER_FAST | JD_TIER_MEDIUM | JD_TIER_SLOW,
} jd_tier;

/* One consistent view: the latest reading of every reader. The pointers
 * stay valid until the next jd_sampler_sample() or jd_sampler_free();
 * a part whose reader the sampler does not own is NULL. */
typedef struct {
        uint64_t timestamp_us;        /* CLOCK_REALTIME of the newest reading */
        const jd_cpu_sample *cpu;
        const jd_gpu_sample *gpu;
        const jd_emc_sample *emc;
        const jd_engines_sample *engines;
        const jd_memory_sample *memory;
        const jd_swap_sample *swap;
        const jd_power_sample *power;
        const jd_thermal_sample *thermal;
        const jd_throttle_sample *throttle;
        const jd_fan_sample *fans;
        const jd_nvpmodel_sample *nvpmodel;
        const jd_process_sample *processes;
        const jd_system_sample *system;
        jd_opt_bool jetson_clocks_active;
} jd_sample;

typedef struct jd_sampler jd_sampler;

/* Every reader, each tier read once. */
jd_sampler *jd_sampler_new(const jd_sysroot *sr);
/* Only the readers of TIERS (jd_tier bits), nothing read yet: one tier
 * thread's share (src/sampler/tier.c). The parts of other tiers stay
 * NULL in its sample. STAGE_SLOT (may be NULL) receives the name of the
 * reader being created or read (a string literal; NULL between
 * readings), so that a stalled read can be named. */
jd_sampler *jd_sampler_new_tiers(const jd_sysroot *sr, unsigned tiers, _Atomic(const char *) *stage_slot);
void jd_sampler_free(jd_sampler *s);
/* Reads the readers of TIERS (a jd_tier mask) that S owns. JD_TIER_SLOW
 * includes the CPU, GPU and EMC limits (scaling bounds, governors, idle
 * states), which change only through tools, and the swap traffic
 * counters of the memory reader, if S owns those readers. */
const jd_sample *jd_sampler_sample(jd_sampler *s, unsigned tiers);
const jd_sample *jd_sampler_current(const jd_sampler *s);
/* What the bus layer learns from systemd about nvfancontrol.service
 * (jd_fan_reader_set_service_active); shows from the next sample. */
void jd_sampler_set_fan_service_active(jd_sampler *s, jd_opt_bool active);
/* The processes NVML lists (jd_process_reader_set_gpu_users). */
void jd_sampler_set_gpu_users(jd_sampler *s, const jd_gpu_user *users, size_t n);

uint64_t jd_monotonic_us(void);
uint64_t jd_realtime_us(void);
