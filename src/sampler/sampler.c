#include "sampler.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "jetson_clocks.h"
#include "probe_log.h"

struct jd_sampler {
        jd_cpu_reader *cpu;
        jd_gpu_reader *gpu;
        jd_emc_reader *emc;
        jd_engines_reader *engines;
        jd_memory_reader *memory;
        jd_swap_reader *swap;
        jd_power_reader *power;
        jd_thermal_reader *thermal;
        jd_throttle_reader *throttle;
        jd_fan_reader *fans;
        jd_nvpmodel_reader *nvpmodel;
        jd_process_reader *processes;
        jd_system_reader *system;
        unsigned tiers;               /* the jd_tier bits whose readers it owns */
        _Atomic(const char *) *stage; /* what it is reading now, for stall reports */
        /* The files its readers find, miss and are refused are noted
         * for Manager.Diagnose (probe_log.h) by reader: found and missed
         * ones while they are created and read for the first time. */
        bool tracing;
        jd_sample sample;
};

/* The reader whose files the sysroot notes (probe_log.h). */
static void attribute(jd_sampler *s, const char *reader)
{
        jd_probe_attribute(reader, s->tracing, NULL);
}

static void stage(jd_sampler *s, const char *what)
{
        if (s->stage)
                atomic_store_explicit(s->stage, what, memory_order_relaxed);
        attribute(s, what);
}


static uint64_t clock_us(clockid_t id)
{
        struct timespec ts;
        clock_gettime(id, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

uint64_t jd_monotonic_us(void) { return clock_us(CLOCK_MONOTONIC); }
uint64_t jd_realtime_us(void) { return clock_us(CLOCK_REALTIME); }

jd_sampler *jd_sampler_new(const jd_sysroot *sr)
{
        jd_sampler *s = jd_sampler_new_tiers(sr, JD_TIER_ALL, NULL);
        /* Every part of the sample is set from the start; loads and energy
         * stay absent until a second reading gives them an interval. */
        if (s)
                jd_sampler_sample(s, JD_TIER_ALL);
        return s;
}

#define NEW_READER(field, ctor)                 \
        do {                                    \
                stage(s, #field);               \
                s->field = ctor(sr);            \
                ok = ok && s->field;            \
        } while (0)

jd_sampler *jd_sampler_new_tiers(const jd_sysroot *sr, unsigned tiers, _Atomic(const char *) *stage_slot)
{
        jd_sampler *s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        s->tiers = tiers;
        s->stage = stage_slot;
        s->tracing = true;
        bool ok = true;
        if (tiers & JD_TIER_FAST) {
                NEW_READER(cpu, jd_cpu_reader_new);
                NEW_READER(gpu, jd_gpu_reader_new);
                NEW_READER(emc, jd_emc_reader_new);
                NEW_READER(memory, jd_memory_reader_new);
        }
        if (tiers & JD_TIER_MEDIUM) {
                NEW_READER(power, jd_power_reader_new);
                NEW_READER(engines, jd_engines_reader_new);
                NEW_READER(throttle, jd_throttle_reader_new);
        }
        if (tiers & JD_TIER_SLOW) {
                NEW_READER(swap, jd_swap_reader_new);
                NEW_READER(thermal, jd_thermal_reader_new);
                NEW_READER(fans, jd_fan_reader_new);
                NEW_READER(nvpmodel, jd_nvpmodel_reader_new);
                NEW_READER(processes, jd_process_reader_new);
                NEW_READER(system, jd_system_reader_new);
        }
        stage(s, NULL);
        if (!ok) {
                jd_sampler_free(s);
                return NULL;
        }
        return s;
}

void jd_sampler_free(jd_sampler *s)
{
        if (!s)
                return;
        jd_cpu_reader_free(s->cpu);
        jd_gpu_reader_free(s->gpu);
        jd_emc_reader_free(s->emc);
        jd_engines_reader_free(s->engines);
        jd_memory_reader_free(s->memory);
        jd_swap_reader_free(s->swap);
        jd_power_reader_free(s->power);
        jd_thermal_reader_free(s->thermal);
        jd_throttle_reader_free(s->throttle);
        jd_fan_reader_free(s->fans);
        jd_nvpmodel_reader_free(s->nvpmodel);
        jd_process_reader_free(s->processes);
        jd_system_reader_free(s->system);
        free(s);
}

#define READ(field, call)                       \
        do {                                    \
                if (s->field) {                 \
                        stage(s, #field);       \
                        out->field = call;      \
                }                               \
        } while (0)

const jd_sample *jd_sampler_sample(jd_sampler *s, unsigned tiers)
{
        jd_sample *out = &s->sample;
        uint64_t now = jd_monotonic_us();

        if (tiers & JD_TIER_FAST) {
                READ(cpu, jd_cpu_reader_sample(s->cpu));
                READ(gpu, jd_gpu_reader_sample(s->gpu));
                READ(emc, jd_emc_reader_sample(s->emc));
                READ(memory, jd_memory_reader_sample(s->memory));
        }
        if (tiers & JD_TIER_MEDIUM) {
                READ(power, jd_power_reader_sample(s->power, now));
                READ(engines, jd_engines_reader_sample(s->engines));
                READ(throttle, jd_throttle_reader_sample(s->throttle));
        }
        if (tiers & JD_TIER_SLOW) {
                /* The fast readers' limits change only through tools. */
                if (s->cpu) {
                        stage(s, "limits");
                        attribute(s, "cpu");
                        jd_cpu_reader_sample_limits(s->cpu);
                        attribute(s, "gpu");
                        jd_gpu_reader_sample_limits(s->gpu);
                        attribute(s, "emc");
                        jd_emc_reader_sample_limits(s->emc);
                }
                /* Swap traffic: counters since boot, as slow as the limits. */
                if (s->memory) {
                        stage(s, "memory");
                        jd_memory_reader_sample_swap_traffic(s->memory);
                }
                READ(thermal, jd_thermal_reader_sample(s->thermal));
                READ(fans, jd_fan_reader_sample(s->fans));
                READ(nvpmodel, jd_nvpmodel_reader_sample(s->nvpmodel));
                READ(swap, jd_swap_reader_sample(s->swap));
                READ(processes, jd_process_reader_sample(s->processes, now));
                READ(system, jd_system_reader_sample(s->system));
        }
        stage(s, NULL);
        /* Found and missed files are noted for the first reading only:
         * a 1 kHz tier pays nothing for them afterwards. */
        s->tracing = false;
        /* Judged from the limits (slow) and the current EMC rate (fast). */
        if (s->cpu && out->cpu)
                out->jetson_clocks_active = jd_jetson_clocks_active(out->cpu, out->gpu, out->emc);
        out->timestamp_us = jd_realtime_us();
        return out;
}

void jd_sampler_set_fan_service_active(jd_sampler *s, jd_opt_bool active)
{
        if (s->fans)
                jd_fan_reader_set_service_active(s->fans, active);
}

void jd_sampler_set_gpu_users(jd_sampler *s, const jd_gpu_user *users, size_t n)
{
        if (s->processes)
                jd_process_reader_set_gpu_users(s->processes, users, n);
}

const jd_sample *jd_sampler_current(const jd_sampler *s)
{
        return &s->sample;
}
