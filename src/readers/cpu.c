#include "cpu.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

typedef struct {
        jd_file online, cur, min, max, governor;
        jd_file idle_disable[JD_CPU_MAX_IDLE];
        jd_cpu_ticks prev;
        /* The in-root path cpuN/cpufreq leads to. The kernel links every
         * CPU's cpufreq directory to its policy's (policy0, policy4, ...:
         * a cluster on a Jetson), so cores with the same path read the
         * same attributes: only the first online one reads them (LEADER),
         * the others copy its values. On AGX Orin that is 3 reads of the
         * current frequency a fast tick instead of 12. */
        char *policy;
        size_t leader;
} core_files;

struct jd_cpu_reader {
        const jd_sysroot *sr;
        jd_file stat;
        char *stat_buf;
        size_t stat_size;
        jd_cpu_ticks prev_agg;
        jd_cpu_ticks *now_ticks;   /* scratch, one per core */
        core_files *files;
        jd_cpu_sample sample;
};

#define CPU_DIR "/sys/devices/system/cpu"

static bool is_cpu_dir(const char *name, unsigned *id)
{
        if (strncmp(name, "cpu", 3) != 0 || !isdigit((unsigned char) name[3]))
                return false;
        uint64_t v;
        if (!jd_parse_u64(name + 3, &v) || v > 65535)
                return false;
        *id = (unsigned) v;
        return true;
}

static void close_core(core_files *f)
{
        jd_file_close(&f->online);
        jd_file_close(&f->cur);
        jd_file_close(&f->min);
        jd_file_close(&f->max);
        jd_file_close(&f->governor);
        for (size_t i = 0; i < JD_CPU_MAX_IDLE; i++)
                jd_file_close(&f->idle_disable[i]);
        free(f->policy);
        f->policy = NULL;
}

/* Which core each online core's policy attributes are read from: the
 * first online core whose cpufreq directory is the same. Called when the
 * reader starts and whenever a core goes on- or offline. */
static void assign_leaders(jd_cpu_reader *r)
{
        for (size_t i = 0; i < r->sample.n_cores; i++) {
                core_files *f = &r->files[i];
                f->leader = i;
                if (!r->sample.cores[i].online || !f->policy)
                        continue;
                for (size_t j = 0; j < i; j++)
                        if (r->sample.cores[j].online && r->files[j].leader == j && r->files[j].policy &&
                            strcmp(r->files[j].policy, f->policy) == 0) {
                                f->leader = j;
                                break;
                        }
        }
}

/* cpufreq and cpuidle files of an offline core are missing or stale, so
 * they are (re)opened whenever the core comes online. */
static void open_core_freq(jd_cpu_reader *r, size_t i)
{
        core_files *f = &r->files[i];
        jd_cpu_core *c = &r->sample.cores[i];
        unsigned id = c->id;

        jd_file_close(&f->cur);
        jd_file_close(&f->min);
        jd_file_close(&f->max);
        jd_file_close(&f->governor);
        jd_file_open(&f->cur, r->sr, CPU_DIR "/cpu%u/cpufreq/scaling_cur_freq", id);
        jd_file_open(&f->min, r->sr, CPU_DIR "/cpu%u/cpufreq/scaling_min_freq", id);
        jd_file_open(&f->max, r->sr, CPU_DIR "/cpu%u/cpufreq/scaling_max_freq", id);
        jd_file_open(&f->governor, r->sr, CPU_DIR "/cpu%u/cpufreq/scaling_governor", id);
        char dir[64], canonical[PATH_MAX];
        snprintf(dir, sizeof(dir), CPU_DIR "/cpu%u/cpufreq", id);
        free(f->policy);
        f->policy = jd_sysroot_resolve(r->sr, dir, canonical, sizeof(canonical)) == 0 ? strdup(canonical) : NULL;
        c->hw_min_khz.present = jd_read_u64(r->sr, &c->hw_min_khz.value,
                                            CPU_DIR "/cpu%u/cpufreq/cpuinfo_min_freq", id);
        c->hw_max_khz.present = jd_read_u64(r->sr, &c->hw_max_khz.value,
                                            CPU_DIR "/cpu%u/cpufreq/cpuinfo_max_freq", id);
        c->n_idle = 0;
        for (size_t k = 0; k < JD_CPU_MAX_IDLE; k++) {
                jd_file_close(&f->idle_disable[k]);
                char name[16];
                if (!jd_read_str(r->sr, name, sizeof(name), CPU_DIR "/cpu%u/cpuidle/state%zu/name", id, k))
                        break;
                jd_strlcpy(c->idle[k].name, name, sizeof(c->idle[k].name));
                jd_file_open(&f->idle_disable[k], r->sr, CPU_DIR "/cpu%u/cpuidle/state%zu/disable", id, k);
                c->n_idle = k + 1;
        }
}

jd_cpu_reader *jd_cpu_reader_new(const jd_sysroot *sr)
{
        jd_cpu_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->sr = sr;
        r->stat = JD_FILE_INIT;
        jd_file_open(&r->stat, sr, "/proc/stat");

        char **names;
        size_t n = jd_sysroot_list(sr, CPU_DIR, &names);
        r->sample.cores = calloc(n ? n : 1, sizeof(jd_cpu_core));
        r->files = calloc(n ? n : 1, sizeof(core_files));
        for (size_t i = 0; i < n && r->sample.cores && r->files; i++) {
                unsigned id;
                if (!is_cpu_dir(names[i], &id))
                        continue;
                size_t k = r->sample.n_cores++;
                jd_cpu_core *c = &r->sample.cores[k];
                core_files *f = &r->files[k];
                c->id = id;
                f->online = JD_FILE_INIT;
                f->cur = f->min = f->max = f->governor = JD_FILE_INIT;
                for (size_t s = 0; s < JD_CPU_MAX_IDLE; s++)
                        f->idle_disable[s] = JD_FILE_INIT;
                /* cpu0 has no "online" file: it is always online. */
                jd_file_open(&f->online, sr, CPU_DIR "/cpu%u/online", id);
        }
        jd_names_free(names, n);

        unsigned max_id = 0;
        for (size_t i = 0; i < r->sample.n_cores; i++)
                if (r->sample.cores[i].id > max_id)
                        max_id = r->sample.cores[i].id;
        r->now_ticks = calloc(max_id + 1, sizeof(jd_cpu_ticks));
        r->stat_size = 4096 + 160 * (size_t) (max_id + 1);
        r->stat_buf = malloc(r->stat_size);

        for (size_t i = 0; i < r->sample.n_cores; i++) {
                uint64_t on = 1;
                jd_cpu_core *c = &r->sample.cores[i];
                c->online = !jd_file_present(&r->files[i].online) || (jd_file_u64(&r->files[i].online, &on) && on == 1);
                if (c->online)
                        open_core_freq(r, i);
        }
        assign_leaders(r);
        jd_cpu_reader_sample_limits(r);
        return r;
}

void jd_cpu_reader_free(jd_cpu_reader *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->sample.n_cores; i++)
                close_core(&r->files[i]);
        jd_file_close(&r->stat);
        free(r->files);
        free(r->sample.cores);
        free(r->now_ticks);
        free(r->stat_buf);
        free(r);
}

/* Reads one "cpu..." line's first 7 counters; returns the end of the line. */
static const char *parse_ticks(const char *p, jd_cpu_ticks *t)
{
        uint64_t f[7];
        t->valid = false;
        for (int i = 0; i < 7; i++) {
                while (*p == ' ')
                        p++;
                const char *end = jd_parse_digits(p, &f[i]);
                if (!end)
                        return strchrnul(p, '\n');
                p = end;
        }
        t->total = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6];
        t->busy = t->total - f[3] - f[4]; /* minus idle and iowait */
        t->user = f[0];
        t->nice = f[1];
        t->system = f[2] + f[5] + f[6];
        t->idle = f[3] + f[4];
        t->valid = true;
        return strchrnul(p, '\n');
}

bool jd_parse_proc_stat(const char *text, jd_cpu_ticks *agg, jd_cpu_ticks *per_core, size_t n)
{
        agg->valid = false;
        for (size_t i = 0; i < n; i++)
                per_core[i].valid = false;
        const char *p = text;
        while (strncmp(p, "cpu", 3) == 0) {
                p += 3;
                if (*p == ' ') {
                        p = parse_ticks(p, agg);
                } else if (isdigit((unsigned char) *p)) {
                        uint64_t id;
                        const char *end = jd_parse_digits(p, &id);
                        jd_cpu_ticks scratch;
                        if (!end)
                                break;
                        p = parse_ticks(end, id < n ? &per_core[id] : &scratch);
                } else {
                        break;
                }
                if (*p == '\n')
                        p++;
        }
        return agg->valid;
}

jd_opt_dbl jd_cpu_load(const jd_cpu_ticks *prev, const jd_cpu_ticks *now)
{
        jd_opt_dbl out = { 0 };
        if (!prev->valid || !now->valid || now->total <= prev->total || now->busy < prev->busy)
                return out;
        uint64_t dt = now->total - prev->total, db = now->busy - prev->busy;
        if (db > dt)
                return out;
        JD_SET(out, jd_percent((double) db, (double) dt));
        return out;
}

jd_cpu_times jd_cpu_split(const jd_cpu_ticks *prev, const jd_cpu_ticks *now)
{
        jd_cpu_times out = { 0 };
        jd_opt_dbl load = jd_cpu_load(prev, now);
        if (!load.present || now->user < prev->user || now->nice < prev->nice || now->system < prev->system ||
            now->idle < prev->idle)
                return out;
        double dt = (double) (now->total - prev->total);
        out.user = jd_percent((double) (now->user - prev->user), dt);
        out.nice = jd_percent((double) (now->nice - prev->nice), dt);
        /* Each share rounded on its own would not add up to 100 (nor idle
         * to 100 - load): idle and system take what the others leave. */
        out.idle = 100.0 - load.value;
        out.system = round(100.0 * (load.value - out.user - out.nice)) / 100.0;
        if (out.system < 0)
                out.system = 0;
        out.present = true;
        return out;
}

/* /proc/stat is regenerated on every read; grow the buffer until the cpu
 * lines fit (they come first, the huge "intr" line after them), but no
 * further than PROC_STAT_MAX: the cpu lines of 4096 CPUs take ~400 KiB, so
 * a file that is still going there is no /proc/stat (what was read is
 * parsed as it is). */
#define PROC_STAT_MAX (4u << 20)
static bool read_stat(jd_cpu_reader *r)
{
        for (;;) {
                ssize_t n = jd_file_read(&r->stat, r->stat_buf, r->stat_size);
                if (n <= 0)
                        return false;
                if ((size_t) n < r->stat_size - 1 || strstr(r->stat_buf, "\nintr") ||
                    strstr(r->stat_buf, "\nctxt") || r->stat_size >= PROC_STAT_MAX)
                        return true;
                char *bigger = realloc(r->stat_buf, r->stat_size * 2);
                if (!bigger)
                        return true;
                r->stat_buf = bigger;
                r->stat_size *= 2;
        }
}

/* /proc/stat counts in USER_HZ ticks (10 ms), so two readings taken
 * closer than that often show no movement. A load is computed over the
 * shortest window in which the counters moved: BASE stays put until they
 * do, and LOAD keeps the last such window's value meanwhile, so a 1 kHz
 * reader neither drops the key nor reports a false 0. */
static void advance_load(jd_cpu_ticks *base, const jd_cpu_ticks *now, jd_opt_dbl *load, jd_cpu_times *times)
{
        if (!now->valid) {
                base->valid = false;
                load->present = false;
                times->present = false;
                return;
        }
        if (base->valid && now->total == base->total && now->busy == base->busy)
                return;
        /* Counters that went back (a core restarted) start a new window. */
        *load = jd_cpu_load(base, now);
        *times = jd_cpu_split(base, now);
        *base = *now;
}

const jd_cpu_sample *jd_cpu_reader_sample(jd_cpu_reader *r)
{
        jd_cpu_sample *s = &r->sample;
        bool online_changed = false;

        unsigned max_id = s->n_cores ? s->cores[s->n_cores - 1].id : 0;
        jd_cpu_ticks agg = { 0 };
        bool have_stat = read_stat(r) && jd_parse_proc_stat(r->stat_buf, &agg, r->now_ticks, max_id + 1);
        for (size_t i = 0; i < s->n_cores; i++) {
                jd_cpu_core *c = &s->cores[i];
                core_files *f = &r->files[i];
                /* The kernel lists only online cores in /proc/stat, so a
                 * core found there is online without reading its online
                 * file: one file less per core at up to 1 kHz. A core not
                 * found there (or no /proc/stat) asks its file. */
                uint64_t on = 1;
                bool online = (have_stat && r->now_ticks[c->id].valid) || !jd_file_present(&f->online) ||
                              (jd_file_u64(&f->online, &on) && on == 1);
                if (online != c->online) {
                        online_changed = true;
                        c->online = online;
                        f->prev.valid = false;
                        if (online)
                                open_core_freq(r, i);
                }
        }
        if (online_changed)
                assign_leaders(r);
        for (size_t i = 0; i < s->n_cores; i++) {
                jd_cpu_core *c = &s->cores[i];
                core_files *f = &r->files[i];
                if (f->leader != i)
                        c->cur_khz = s->cores[f->leader].cur_khz;
                else
                        c->cur_khz.present = c->online && jd_file_u64(&f->cur, &c->cur_khz.value);
        }

        /* Counters of a core that went away and came back restart: the
         * aggregate is not comparable across that change either. */
        if (online_changed)
                r->prev_agg.valid = false;
        advance_load(&r->prev_agg, have_stat ? &agg : &(jd_cpu_ticks) { 0 }, &s->load, &s->times);
        for (size_t i = 0; i < s->n_cores; i++) {
                jd_cpu_core *c = &s->cores[i];
                jd_cpu_ticks now = have_stat && c->online ? r->now_ticks[c->id] : (jd_cpu_ticks) { 0 };
                advance_load(&r->files[i].prev, &now, &c->load, &c->times);
        }
        return s;
}

void jd_cpu_reader_sample_limits(jd_cpu_reader *r)
{
        for (size_t i = 0; i < r->sample.n_cores; i++) {
                jd_cpu_core *c = &r->sample.cores[i];
                core_files *f = &r->files[i];
                bool on = c->online;
                if (f->leader != i) {
                        const jd_cpu_core *l = &r->sample.cores[f->leader];
                        c->min_khz = l->min_khz;
                        c->max_khz = l->max_khz;
                        memcpy(c->governor, l->governor, sizeof(c->governor));
                } else {
                        c->min_khz.present = on && jd_file_u64(&f->min, &c->min_khz.value);
                        c->max_khz.present = on && jd_file_u64(&f->max, &c->max_khz.value);
                        if (!on || !jd_file_str(&f->governor, c->governor, sizeof(c->governor)))
                                c->governor[0] = '\0';
                }
                /* Idle states are the core's own (cpuN/cpuidle), never shared. */
                for (size_t k = 0; k < c->n_idle; k++) {
                        uint64_t d = 0;
                        c->idle[k].disabled.present = on && jd_file_u64(&f->idle_disable[k], &d);
                        c->idle[k].disabled.value = d != 0;
                }
        }
}

const jd_cpu_sample *jd_cpu_reader_last(const jd_cpu_reader *r)
{
        return &r->sample;
}
