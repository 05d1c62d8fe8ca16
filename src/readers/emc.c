#include "emc.h"

#include <stdlib.h>
#include <string.h>

enum { F_RATE, F_MIN, F_MAX, F_LOCK, F_CAP, F_ACTIVITY, N_FILES };

struct jd_emc_reader {
        jd_file files[N_FILES];
        jd_emc_sample sample;
};

/* One layout per SoC generation; the first whose rate file opens wins. */
static const struct layout {
        const char *rate, *min, *max, *lock;
} layouts[] = {
        { "/sys/kernel/debug/bpmp/debug/clk/emc/rate", "/sys/kernel/debug/bpmp/debug/clk/emc/min_rate",
          "/sys/kernel/debug/bpmp/debug/clk/emc/max_rate", "/sys/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked" },
        { "/sys/kernel/debug/clk/override.emc/clk_rate", "/sys/kernel/debug/tegra_bwmgr/emc_min_rate",
          "/sys/kernel/debug/tegra_bwmgr/emc_max_rate", "/sys/kernel/debug/clk/override.emc/clk_state" },
        { "/sys/class/devfreq/bwmgr/cur_freq", "/sys/class/devfreq/bwmgr/min_freq",
          "/sys/class/devfreq/bwmgr/max_freq", NULL },
};

static const char *const activity_files[] = {
        "/sys/kernel/debug/cactmon/mc_all",                       /* JP6 */
        "/sys/kernel/actmon_avg_activity/mc_all",                 /* JP4, JP5 */
        "/sys/kernel/debug/bpmp/debug/actmon/mc_all_avg_activity", /* Thor */
};

jd_emc_reader *jd_emc_reader_new(const jd_sysroot *sr)
{
        jd_emc_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        for (size_t i = 0; i < N_FILES; i++)
                r->files[i] = JD_FILE_INIT;
        for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
                const struct layout *l = &layouts[i];
                if (!jd_file_open(&r->files[F_RATE], sr, "%s", l->rate))
                        continue;
                jd_file_open(&r->files[F_MIN], sr, "%s", l->min);
                jd_file_open(&r->files[F_MAX], sr, "%s", l->max);
                if (l->lock)
                        jd_file_open(&r->files[F_LOCK], sr, "%s", l->lock);
                break;
        }
        jd_file_open(&r->files[F_CAP], sr, "/sys/kernel/nvpmodel_emc_cap/emc_iso_cap");
        for (size_t i = 0; i < sizeof(activity_files) / sizeof(activity_files[0]); i++)
                if (jd_file_open(&r->files[F_ACTIVITY], sr, "%s", activity_files[i]))
                        break;
        r->sample.present = jd_file_present(&r->files[F_RATE]) || jd_file_present(&r->files[F_ACTIVITY]);
        jd_emc_reader_sample_limits(r);
        return r;
}

void jd_emc_reader_free(jd_emc_reader *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < N_FILES; i++)
                jd_file_close(&r->files[i]);
        free(r);
}

static void read_opt(jd_file *f, jd_opt_u64 *o)
{
        o->present = jd_file_u64(f, &o->value);
}

const jd_emc_sample *jd_emc_reader_sample(jd_emc_reader *r)
{
        jd_emc_sample *s = &r->sample;
        if (!s->present)
                return s;
        read_opt(&r->files[F_RATE], &s->cur_hz);
        read_opt(&r->files[F_ACTIVITY], &s->mc_all);
        /* mc_all counts busy cycles in kHz: its share of the rate in kHz is the
         * load. The rate can read 0: then there is no load, not 0 %. */
        s->load.present = s->mc_all.present && s->cur_hz.present && s->cur_hz.value >= 1000;
        if (s->load.present) {
                double load = jd_percent((double) s->mc_all.value, (double) s->cur_hz.value / 1000.0);
                s->load.value = load > 100.0 ? 100.0 : load;
        }
        return s;
}

void jd_emc_reader_sample_limits(jd_emc_reader *r)
{
        jd_emc_sample *s = &r->sample;
        if (!s->present)
                return;
        read_opt(&r->files[F_MIN], &s->min_hz);
        read_opt(&r->files[F_MAX], &s->max_hz);
        read_opt(&r->files[F_CAP], &s->cap_hz);
        uint64_t lock = 0;
        s->locked.present = jd_file_u64(&r->files[F_LOCK], &lock);
        s->locked.value = lock != 0;
}

const jd_emc_sample *jd_emc_reader_last(const jd_emc_reader *r)
{
        return &r->sample;
}

jd_opt_u64 jd_emc_effective_max(const jd_emc_sample *s)
{
        jd_opt_u64 m = s->max_hz;
        if (m.present && s->cap_hz.present && s->cap_hz.value > 0 && s->cap_hz.value < m.value)
                m.value = s->cap_hz.value;
        return m;
}
