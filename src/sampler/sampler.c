#include "sampler.h"

#include <stdlib.h>
#include <time.h>

#include "jetson_clocks.h"

struct jd_sampler {
        jd_cpu_reader *cpu;
        jd_gpu_reader *gpu;
        jd_emc_reader *emc;
        jd_engines_reader *engines;
        jd_memory_reader *memory;
        jd_swap_reader *swap;
        jd_power_reader *power;
        jd_thermal_reader *thermal;
        jd_fan_reader *fans;
        jd_nvpmodel_reader *nvpmodel;
        jd_process_reader *processes;
        jd_system_reader *system;
        jd_sample sample;
};

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
        jd_sampler *s = calloc(1, sizeof(*s));
        if (!s)
                return NULL;
        s->cpu = jd_cpu_reader_new(sr);
        s->gpu = jd_gpu_reader_new(sr);
        s->emc = jd_emc_reader_new(sr);
        s->engines = jd_engines_reader_new(sr);
        s->memory = jd_memory_reader_new(sr);
        s->swap = jd_swap_reader_new(sr);
        s->power = jd_power_reader_new(sr);
        s->thermal = jd_thermal_reader_new(sr);
        s->fans = jd_fan_reader_new(sr);
        s->nvpmodel = jd_nvpmodel_reader_new(sr);
        s->processes = jd_process_reader_new(sr);
        s->system = jd_system_reader_new(sr);
        if (!s->cpu || !s->gpu || !s->emc || !s->engines || !s->memory || !s->swap || !s->power ||
            !s->thermal || !s->fans || !s->nvpmodel || !s->processes || !s->system) {
                jd_sampler_free(s);
                return NULL;
        }
        /* Every part of the sample is set from the start; loads and energy
         * stay absent until a second reading gives them an interval. */
        jd_sampler_sample(s, JD_TIER_ALL);
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
        jd_fan_reader_free(s->fans);
        jd_nvpmodel_reader_free(s->nvpmodel);
        jd_process_reader_free(s->processes);
        jd_system_reader_free(s->system);
        free(s);
}

const jd_sample *jd_sampler_sample(jd_sampler *s, unsigned tiers)
{
        jd_sample *out = &s->sample;
        uint64_t now = jd_monotonic_us();

        if (tiers & JD_TIER_FAST) {
                out->cpu = jd_cpu_reader_sample(s->cpu);
                out->gpu = jd_gpu_reader_sample(s->gpu);
                out->emc = jd_emc_reader_sample(s->emc);
                out->memory = jd_memory_reader_sample(s->memory);
        }
        if (tiers & JD_TIER_MEDIUM) {
                out->power = jd_power_reader_sample(s->power, now);
                out->engines = jd_engines_reader_sample(s->engines);
        }
        if (tiers & JD_TIER_SLOW) {
                jd_cpu_reader_sample_limits(s->cpu);
                jd_gpu_reader_sample_limits(s->gpu);
                jd_emc_reader_sample_limits(s->emc);
                out->thermal = jd_thermal_reader_sample(s->thermal);
                out->fans = jd_fan_reader_sample(s->fans);
                out->nvpmodel = jd_nvpmodel_reader_sample(s->nvpmodel);
                out->swap = jd_swap_reader_sample(s->swap);
                out->processes = jd_process_reader_sample(s->processes, now);
                out->system = jd_system_reader_sample(s->system);
        }
        /* Derived from the limits (slow) and the current EMC rate (fast). */
        out->jetson_clocks_active = jd_jetson_clocks_active(out->cpu, out->gpu, out->emc);
        out->timestamp_us = jd_realtime_us();
        return out;
}

void jd_sampler_set_fan_service_active(jd_sampler *s, jd_opt_bool active)
{
        jd_fan_reader_set_service_active(s->fans, active);
}

const jd_sample *jd_sampler_current(const jd_sampler *s)
{
        return &s->sample;
}
