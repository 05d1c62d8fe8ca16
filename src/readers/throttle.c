#include "throttle.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "parse.h"

/* The files of one OC channel or cooling device, beside its sample entry. */
typedef struct {
        jd_file value, other;   /* ocN_event_cnt and ocN_throt_en; cur_state and max_state */
} file_pair;

struct jd_throttle_reader {
        const jd_sysroot *sr;
        file_pair *oc_files, *cap_files;
        size_t cap_oc, cap_oc_files, cap_caps, cap_cap_files;
        /* ocN_throt_en and max_state are settings: read again at most once
         * a second (each OC file read is a BPMP request on the board). */
        jd_recheck settings;
        /* The soctherm_oc hwmon as found ("/sys/class/hwmon/hwmonN"). Its
         * number is not stable: a driver reload can bring it back as
         * another hwmonN, so while its files are gone it is looked for
         * again by name (oc_gone), on every RELOOK_EVERY-th settings tick. */
        char oc_dir[64];
        /* The counter's file name after "ocN_": "event_cnt" (Orin, Thor:
         * tegra234-oc-event) or "irq_cnt" (Xavier: tegra19x_oc_event,
         * which has no throt_en either). */
        const char *oc_counter;
        bool oc_gone;
        /* The host path of the counter still_there() compares with its
         * open file, resolved once per opening: a settings tick then costs
         * one stat(2), not a walk of every component of the path. */
        char *oc_probe;
        size_t oc_probe_index;
        /* Nano/TX1 (tegra210) have no OC hwmon: their soctherm counts the
         * over-current interrupts of every pin on the "soctherm_edp" line
         * of /proc/interrupts, read as channel 0 on settings ticks (a
         * listing of every interrupt: too long to read each sample). */
        bool edp;
        jd_file interrupts;
        char *interrupts_buf;
        size_t interrupts_size;
        unsigned relook_ticks;
        jd_throttle_sample sample;
};

static void find_edp(jd_throttle_reader *r, const jd_sysroot *sr);

/* Settings ticks (a second each in the daemon) between two listings of
 * /sys/class/hwmon while the OC device is gone: a listing opens each
 * hwmon's name, cheap but not free, and a device may stay away for good. */
#define RELOOK_EVERY 5u

/* ARR (of CAP elements) with room for NEED: false without memory (ARR
 * is then unchanged and still the caller's). */
#define GROW(arr, cap, need)                                                    \
        ({                                                                      \
                void *p_ = jd_grow((arr), &(cap), (need), sizeof(*(arr)));      \
                if (p_)                                                         \
                        (arr) = p_;                                             \
                p_ != NULL;                                                     \
        })

static bool has_prefix(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

static bool has_suffix(const char *s, const char *x)
{
        size_t n = strlen(s), m = strlen(x);
        return n >= m && strcmp(s + n - m, x) == 0;
}

/* Which reason a cooling device's cap is, or false for one that is no
 * throttle (the fan's pwm-fan, whose state is its speed step).  L4T 32's
 * balanced throttling (Nano, TX1, Xavier) registers `cpu-balanced`,
 * `gpu-balanced`, `emergency-balanced`, `aux-balanced`, `skin-balanced`:
 * state N caps CPU and GPU clocks at row N of its table, 0 none; named
 * by the zone that drives it, so cpu-/gpu- as the alerts, the rest SoC.
 * soctherm's throttle-cfg devices (`heavy`, `oc1`...) are left out: each
 * reads 1 while any hardware throttle is on, over-current included, so
 * none of them names a reason (docs/throttling.md, "Per generation"). */
static bool cap_reason(const char *type, jd_throttle_reason *out)
{
        bool cpufreq = has_prefix(type, "cpufreq-"), devfreq = has_prefix(type, "devfreq-");
        if (!cpufreq && !devfreq && !has_suffix(type, "-alert") && !has_suffix(type, "-balanced"))
                return false;
        if (cpufreq || has_prefix(type, "cpu-"))
                *out = JD_THROTTLE_THERMAL_CPU;
        else if (strstr(type, "gpu"))
                *out = JD_THROTTLE_THERMAL_GPU;
        else
                *out = JD_THROTTLE_THERMAL_SOC;
        return true;
}

static int compare_unsigned(const void *a, const void *b)
{
        unsigned x = *(const unsigned *) a, y = *(const unsigned *) b;
        return x < y ? -1 : x > y;
}

/* The channels DIR lists (ocN_COUNTER), in order: the tegra234-oc-event
 * driver has oc1..oc3, Xavier's oc1..oc6, and a later SoC's fourth must
 * not be left out. */
static size_t oc_channels(const jd_sysroot *sr, const char *dir, const char *counter, unsigned **out)
{
        char **names;
        size_t n = jd_sysroot_list(sr, dir, &names), found = 0, cap = 0;
        unsigned *channels = NULL;
        for (size_t i = 0; i < n; i++) {
                unsigned ch;
                char tail[16];
                if (sscanf(names[i], "oc%u_%15s", &ch, tail) != 2 || strcmp(tail, counter) != 0)
                        continue;
                unsigned *grown = jd_grow(channels, &cap, found + 1, sizeof(*channels));
                if (!grown)
                        break;
                channels = grown;
                channels[found++] = ch;
        }
        jd_names_free(names, n);
        if (found)
                qsort(channels, found, sizeof(*channels), compare_unsigned);
        *out = channels;
        return found;
}

/* Opens channel CH's counter and setting under DIR into F (the counter
 * closed and "gone" when it is not there). */
static bool open_channel(file_pair *f, const jd_sysroot *sr, const char *dir, const char *counter, unsigned ch)
{
        f->other = JD_FILE_INIT;
        if (!jd_file_open(&f->value, sr, "%s/oc%u_%s", dir, ch, counter)) {
                f->value.gone = true;
                return false;
        }
        jd_file_open(&f->other, sr, "%s/oc%u_throt_en", dir, ch);
        return true;
}

static void add_oc(jd_throttle_reader *r, const jd_sysroot *sr, const char *dir)
{
        unsigned *channels;
        r->oc_counter = "event_cnt";
        size_t n = oc_channels(sr, dir, r->oc_counter, &channels);
        if (!n) {
                free(channels);
                r->oc_counter = "irq_cnt";
                n = oc_channels(sr, dir, r->oc_counter, &channels);
        }
        for (size_t k = 0; k < n; k++) {
                unsigned ch = channels[k];
                file_pair opened;
                if (!open_channel(&opened, sr, dir, r->oc_counter, ch))
                        continue;
                jd_throttle_sample *s = &r->sample;
                if (!GROW(s->oc, r->cap_oc, s->n_oc + 1) || !GROW(r->oc_files, r->cap_oc_files, s->n_oc + 1)) {
                        jd_file_close(&opened.value);
                        jd_file_close(&opened.other);
                        break;
                }
                memset(&s->oc[s->n_oc], 0, sizeof(*s->oc));
                s->oc[s->n_oc].channel = ch;
                r->oc_files[s->n_oc] = opened;
                s->n_oc++;
        }
        free(channels);
        r->sample.has_reason[JD_THROTTLE_OVER_CURRENT] = r->sample.n_oc > 0;
}

/* The hwmon named soctherm_oc into DIR ("/sys/class/hwmon/hwmonN"). */
static bool find_oc_dir(const jd_sysroot *sr, char *dir, size_t size)
{
        char **names;
        size_t n = jd_sysroot_list(sr, "/sys/class/hwmon", &names);
        bool found = false;
        for (size_t i = 0; i < n && !found; i++) {
                char hwname[32];
                int len = snprintf(dir, size, "/sys/class/hwmon/%s", names[i]);
                found = len > 0 && (size_t) len < size &&
                        jd_read_str(sr, hwname, sizeof(hwname), "%s/name", dir) && strcmp(hwname, "soctherm_oc") == 0;
        }
        jd_names_free(names, n);
        if (!found)
                dir[0] = '\0';
        return found;
}

static void find_oc(jd_throttle_reader *r, const jd_sysroot *sr)
{
        if (find_oc_dir(sr, r->oc_dir, sizeof(r->oc_dir)))
                add_oc(r, sr, r->oc_dir);
}

static void close_oc_files(jd_throttle_reader *r)
{
        for (size_t i = 0; i < r->sample.n_oc; i++) {
                jd_file_close(&r->oc_files[i].value);
                jd_file_close(&r->oc_files[i].other);
                r->oc_files[i].value.gone = true; /* read as "vanished" until found again */
        }
        free(r->oc_probe);
        r->oc_probe = NULL;
}

/* Whether channel I's open counter is still the file at its path: after an
 * unbind the path is gone or (the number reused) another file. A real
 * sysfs also fails the read with ENODEV; a file kept open on an ordinary
 * file system (a fake board) reads on, so the path is what tells. */
static bool still_there(jd_throttle_reader *r, size_t i)
{
        const jd_file *f = &r->oc_files[i].value;
        if (!r->oc_probe || r->oc_probe_index != i) {
                char path[96], host[PATH_MAX];
                snprintf(path, sizeof(path), "%s/oc%u_%s", r->oc_dir, r->sample.oc[i].channel, r->oc_counter);
                free(r->oc_probe);
                r->oc_probe = NULL;
                if (jd_sysroot_host_path(r->sr, path, host, sizeof(host)) < 0)
                        return false;
                r->oc_probe = strdup(host);
                r->oc_probe_index = i;
                if (!r->oc_probe)
                        return true; /* out of memory: asked again next tick */
        }
        /* The resolved path has no links left: a reload that renumbers the
         * hwmon removes it, one that reuses the number makes a new inode. */
        struct stat open_st, path_st;
        return stat(r->oc_probe, &path_st) == 0 && fstat(f->fd, &open_st) == 0 && open_st.st_dev == path_st.st_dev &&
               open_st.st_ino == path_st.st_ino;
}

/* Notices that the OC device left (a read said so, or on a settings tick
 * its first open counter is no longer at its path) and looks for it again
 * by name: found, each channel it had reopens there by number, and
 * read_oc takes the counter as after any gap: lower than before (a reload
 * restarted it) is a reset, higher is the difference. */
static void follow_oc_device(jd_throttle_reader *r, bool settings)
{
        jd_throttle_sample *s = &r->sample;
        if (!s->n_oc || r->edp)
                return; /* never had one (or /proc's): nothing to follow */
        if (!r->oc_gone) {
                /* A channel the device came back without stays closed (and
                 * vanished) until the device leaves again. */
                for (size_t i = 0; i < s->n_oc && !r->oc_gone; i++)
                        r->oc_gone = jd_file_present(&r->oc_files[i].value) && r->oc_files[i].value.gone;
                if (!r->oc_gone && settings) {
                        size_t i = 0;
                        while (i < s->n_oc && !jd_file_present(&r->oc_files[i].value))
                                i++;
                        r->oc_gone = i < s->n_oc && !still_there(r, i);
                }
                if (!r->oc_gone)
                        return;
                close_oc_files(r);
                r->relook_ticks = 0;
        }
        if (!settings || r->relook_ticks++ % RELOOK_EVERY != 0)
                return;
        if (!find_oc_dir(r->sr, r->oc_dir, sizeof(r->oc_dir)))
                return;
        for (size_t i = 0; i < s->n_oc; i++)
                open_channel(&r->oc_files[i], r->sr, r->oc_dir, r->oc_counter, s->oc[i].channel);
        r->oc_gone = false;
}

static void find_caps(jd_throttle_reader *r, const jd_sysroot *sr)
{
        char **names;
        size_t n = jd_sysroot_list(sr, "/sys/class/thermal", &names);
        jd_throttle_sample *s = &r->sample;
        for (size_t i = 0; i < n; i++) {
                char dir[128], type[48];
                jd_throttle_reason reason;
                if (!has_prefix(names[i], "cooling_device"))
                        continue;
                snprintf(dir, sizeof(dir), "/sys/class/thermal/%s", names[i]);
                if (!jd_read_str(sr, type, sizeof(type), "%s/type", dir) || !cap_reason(type, &reason))
                        continue;
                jd_file state = JD_FILE_INIT;
                if (!jd_file_open(&state, sr, "%s/cur_state", dir))
                        continue;
                if (!GROW(s->caps, r->cap_caps, s->n_caps + 1) ||
                    !GROW(r->cap_files, r->cap_cap_files, s->n_caps + 1)) {
                        jd_file_close(&state);
                        break;
                }
                jd_cooling_cap *c = &s->caps[s->n_caps];
                memset(c, 0, sizeof(*c));
                /* A key's parts are split at dots: devfreq-17000000.gpu is
                 * devfreq-17000000_gpu in throttle.cap.TYPE.* (Metrics.xml). */
                for (char *p = type; *p; p++)
                        if (*p == '.')
                                *p = '_';
                jd_strlcpy(c->type, type, sizeof(c->type));
                c->reason = reason;
                file_pair *f = &r->cap_files[s->n_caps];
                f->value = state;
                f->other = JD_FILE_INIT;
                jd_file_open(&f->other, sr, "%s/max_state", dir);
                s->has_reason[reason] = true;
                s->n_caps++;
        }
        jd_names_free(names, n);
}

jd_throttle_reader *jd_throttle_reader_new(const jd_sysroot *sr)
{
        jd_throttle_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->sr = sr;
        find_oc(r, sr);
        if (!r->sample.n_oc)
                find_edp(r, sr);
        find_caps(r, sr);
        return r;
}

void jd_throttle_reader_free(jd_throttle_reader *r)
{
        if (!r)
                return;
        close_oc_files(r);
        for (size_t i = 0; i < r->sample.n_caps; i++) {
                jd_file_close(&r->cap_files[i].value);
                jd_file_close(&r->cap_files[i].other);
        }
        jd_file_close(&r->interrupts);
        free(r->interrupts_buf);
        free(r->oc_files);
        free(r->cap_files);
        free(r->sample.oc);
        free(r->sample.caps);
        free(r);
}

/* One counter's reading V (PRESENT false: the read failed; GONE: its file
 * went away): a step forward is that many events; a step back means the
 * counter restarted (a driver reload), so its new value is what happened
 * since; a failed or malformed read adds nothing and says so. Never a
 * difference across a restart or a bad read, which would be huge. */
static void count_oc(jd_oc_channel *oc, bool present, uint64_t v, bool gone)
{
        oc->fired = false;
        oc->events.present = present;
        oc->events.value = v;
        if (!present) {
                oc->state = gone ? JD_OC_COUNTER_VANISHED : JD_OC_COUNTER_UNREADABLE;
                oc->failed_reads++;
                return;
        }
        uint64_t added = 0;
        if (!oc->has_last) {
                oc->state = JD_OC_COUNTER_OK;
        } else if (v >= oc->last) {
                oc->state = JD_OC_COUNTER_OK;
                added = v - oc->last;
        } else {
                oc->state = JD_OC_COUNTER_WENT_BACK;
                oc->resets++;
                added = v;
        }
        oc->counted += added;
        oc->fired = added > 0;
        oc->last = v;
        oc->has_last = true;
}

static void read_oc(jd_oc_channel *oc, jd_file *count, jd_file *armed, bool settings)
{
        uint64_t v = 0, en = 0;
        bool present = jd_file_u64(count, &v);
        if (settings) {
                oc->armed.present = jd_file_u64(armed, &en);
                oc->armed.value = en != 0;
        }
        count_oc(oc, present, v, count->gone);
}

/* Fields of a /proc/interrupts line: its number, a column per CPU (up to
 * NR_CPUS), the controller's words and the name. */
#define INTERRUPT_FIELDS 320

bool jd_interrupts_count(const char *text, const char *name, uint64_t *out)
{
        jd_span f[INTERRUPT_FIELDS];
        for (const char *line = text; *line;) {
                size_t n = jd_line_fields(line, f, INTERRUPT_FIELDS);
                const char *end = jd_line_end(line);
                line = *end ? end + 1 : end;
                /* "84:  0  0  0  0  GICv2  84 Level  soctherm_edp": the
                 * columns after the number, up to the controller's name. */
                if (n < 3 || n == INTERRUPT_FIELDS || !jd_span_eq(f[n - 1], name) || f[0].p[f[0].len - 1] != ':')
                        continue;
                uint64_t sum = 0, v;
                size_t k = 1;
                for (; k < n - 1 && f[k].p[0] >= '0' && f[k].p[0] <= '9'; k++) {
                        if (!jd_span_u64(f[k], &v) || v > UINT64_MAX - sum)
                                return false; /* garbage or overflow: no count at all */
                        sum += v;
                }
                if (k == 1)
                        return false;
                *out = sum;
                return true;
        }
        return false;
}

/* Nano/TX1's channel 0, on settings ticks: the soctherm_edp line. */
static void read_edp(jd_throttle_reader *r, jd_oc_channel *oc, bool settings)
{
        oc->fired = false;
        if (!settings)
                return; /* the last reading stands, nothing new counted */
        uint64_t v = 0;
        ssize_t n = jd_file_read_grow(&r->interrupts, &r->interrupts_buf, &r->interrupts_size, 1u << 20);
        bool present = n > 0 && jd_interrupts_count(r->interrupts_buf, "soctherm_edp", &v);
        count_oc(oc, present, v, r->interrupts.gone);
}

/* Nano/TX1: no OC hwmon, but the soctherm_edp interrupt. */
static void find_edp(jd_throttle_reader *r, const jd_sysroot *sr)
{
        uint64_t v;
        if (!jd_file_open(&r->interrupts, sr, "/proc/interrupts"))
                return;
        ssize_t n = jd_file_read_grow(&r->interrupts, &r->interrupts_buf, &r->interrupts_size, 1u << 20);
        jd_throttle_sample *s = &r->sample;
        if (n <= 0 || !jd_interrupts_count(r->interrupts_buf, "soctherm_edp", &v) ||
            !GROW(s->oc, r->cap_oc, 1) || !GROW(r->oc_files, r->cap_oc_files, 1)) {
                jd_file_close(&r->interrupts);
                return;
        }
        memset(&s->oc[0], 0, sizeof(*s->oc));
        r->oc_files[0] = (file_pair) { JD_FILE_INIT, JD_FILE_INIT };
        s->n_oc = 1;
        r->edp = true;
        s->has_reason[JD_THROTTLE_OVER_CURRENT] = true;
}

const jd_throttle_sample *jd_throttle_reader_sample(jd_throttle_reader *r)
{
        jd_throttle_sample *s = &r->sample;
        memset(s->active, 0, sizeof(s->active));
        s->oc_events_since_boot.present = false;
        s->oc_events_since_boot.value = 0;
        s->oc_events_counted = 0;
        bool settings = jd_recheck_due(&r->settings);
        bool was_gone = r->oc_gone;
        follow_oc_device(r, settings);
        /* Found again: its throt_en is read at once, not a second later. */
        bool oc_settings = settings || (was_gone && !r->oc_gone);
        for (size_t i = 0; i < s->n_oc; i++) {
                jd_oc_channel *oc = &s->oc[i];
                if (r->edp)
                        read_edp(r, oc, settings);
                else
                        read_oc(oc, &r->oc_files[i].value, &r->oc_files[i].other, oc_settings);
                if (oc->events.present) {
                        s->oc_events_since_boot.present = true;
                        s->oc_events_since_boot.value += oc->events.value;
                }
                s->oc_events_counted += oc->counted;
                if (oc->fired)
                        s->active[JD_THROTTLE_OVER_CURRENT] = true;
        }
        for (size_t i = 0; i < s->n_caps; i++) {
                jd_cooling_cap *c = &s->caps[i];
                c->state.present = jd_file_u64(&r->cap_files[i].value, &c->state.value);
                if (settings)
                        c->max_state.present = jd_file_u64(&r->cap_files[i].other, &c->max_state.value);
                if (c->state.present && c->state.value > 0)
                        s->active[c->reason] = true;
        }
        return s;
}

static const char *const reason_names[JD_THROTTLE_REASONS] = {
        "over_current", "thermal_cpu", "thermal_gpu", "thermal_soc",
};

const char *jd_throttle_reason_name(jd_throttle_reason r)
{
        return r < JD_THROTTLE_REASONS ? reason_names[r] : "unknown";
}

const char *jd_oc_counter_state_name(jd_oc_counter_state s)
{
        static const char *const names[] = { "ok", "went_back", "unreadable", "vanished" };
        return (size_t) s < sizeof(names) / sizeof(names[0]) ? names[s] : "unknown";
}

/* Appends NAME to OUT (comma-separated); false when it does not fit. */
static bool append_name(char *out, size_t size, size_t *len, const char *name)
{
        int n = snprintf(out + *len, size - *len, "%s%s", *len ? "," : "", name);
        if (n < 0 || (size_t) n >= size - *len) {
                out[*len] = '\0';
                return false;
        }
        *len += (size_t) n;
        return true;
}

void jd_throttle_reasons_text(const jd_throttle_sample *s, char *out, size_t size)
{
        size_t len = 0;
        out[0] = '\0';
        for (int i = 0; i < JD_THROTTLE_REASONS; i++)
                if (s->active[i] && !append_name(out, size, &len, reason_names[i]))
                        break;
        if (!len)
                jd_strlcpy(out, "none", size);
}

void jd_nvml_clock_reasons_text(uint64_t mask, char *out, size_t size)
{
        /* nvmlClocksEventReason* bits (nvml-notes.md, NVIDIA's nvml.h). */
        static const char *const bits[] = {
                "idle", "app_clocks", "sw_power_cap", "hw_slowdown", "sync_boost",
                "sw_thermal", "hw_thermal", "hw_power_brake", "display_clocks",
        };
        size_t len = 0;
        out[0] = '\0';
        for (unsigned b = 0; b < 64; b++) {
                if (!(mask & ((uint64_t) 1 << b)))
                        continue;
                char other[24];
                snprintf(other, sizeof(other), "0x%llx", (unsigned long long) ((uint64_t) 1 << b));
                if (!append_name(out, size, &len, b < sizeof(bits) / sizeof(bits[0]) ? bits[b] : other)) {
                        /* Too many names for OUT: the mask itself, never a cut list. */
                        snprintf(out, size, "0x%llx", (unsigned long long) mask);
                        return;
                }
        }
        if (!mask)
                jd_strlcpy(out, "none", size);
}
