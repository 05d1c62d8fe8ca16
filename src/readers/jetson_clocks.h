/* Whether jetson_clocks is in force, derived from sysfs with the rule the
 * tool itself uses: every online CPU has min == max, the GPU has
 * min == max, and the EMC runs at its (capped) maximum. */
#pragma once

#include "cpu.h"
#include "emc.h"
#include "gpu.h"
#include "opt.h"

/* Absent when there is nothing to judge (no cpufreq and no GPU). */
jd_opt_bool jd_jetson_clocks_active(const jd_cpu_sample *cpu, const jd_gpu_sample *gpu, const jd_emc_sample *emc);
