/* External memory controller: clock (BPMP debugfs on t186+/JP5/JP6,
 * tegra_bwmgr + override.emc on t210/JP4), the nvpmodel cap, and the
 * activity counter that gives the load. */
#pragma once

#include "opt.h"
#include "sysfile.h"

typedef struct {
        bool present;
        jd_opt_u64 cur_hz;
        jd_opt_u64 mc_all;        /* raw activity counter */
        jd_opt_dbl load;          /* %, 100 * mc_all / (rate in kHz) */
        /* slow tier */
        jd_opt_u64 min_hz, max_hz;
        jd_opt_u64 cap_hz;        /* nvpmodel emc_iso_cap; 0 = no cap */
        jd_opt_bool locked;       /* mrq_rate_locked / override clk_state */
} jd_emc_sample;

typedef struct jd_emc_reader jd_emc_reader;

jd_emc_reader *jd_emc_reader_new(const jd_sysroot *sr);
void jd_emc_reader_free(jd_emc_reader *r);
const jd_emc_sample *jd_emc_reader_sample(jd_emc_reader *r);
void jd_emc_reader_sample_limits(jd_emc_reader *r);
const jd_emc_sample *jd_emc_reader_last(const jd_emc_reader *r);

/* The highest rate the EMC may run at now: the cap when 0 < cap < max. */
jd_opt_u64 jd_emc_effective_max(const jd_emc_sample *s);
