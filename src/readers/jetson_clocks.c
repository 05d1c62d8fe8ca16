#include "jetson_clocks.h"

jd_opt_bool jd_jetson_clocks_active(const jd_cpu_sample *cpu, const jd_gpu_sample *gpu, const jd_emc_sample *emc)
{
        jd_opt_bool out = { 0 };
        bool judged = false, pinned = true;

        for (size_t i = 0; i < cpu->n_cores; i++) {
                const jd_cpu_core *c = &cpu->cores[i];
                if (!c->online || !c->min_khz.present || !c->max_khz.present)
                        continue;
                judged = true;
                pinned &= c->min_khz.value == c->max_khz.value;
        }
        if (gpu->present && gpu->min_hz.present && gpu->max_hz.present) {
                judged = true;
                pinned &= gpu->min_hz.value == gpu->max_hz.value;
        }
        /* Skipped when the maximum is unknown (fact sheet §9). */
        jd_opt_u64 emc_max = jd_emc_effective_max(emc);
        if (emc->present && emc->cur_hz.present && emc_max.present) {
                judged = true;
                pinned &= emc->cur_hz.value >= emc_max.value;
        }
        /* jetson_clocks needs a GPU: a plain PC with performance cpufreq is no Jetson at max. */
        if (!judged || !gpu->present)
                return out;
        JD_SET(out, pinned);
        return out;
}
