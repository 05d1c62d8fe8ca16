#include "fan.h"

#include <limits.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "grow.h"
#include "parse.h"

#define NVFANCONTROL_UNIT "/etc/systemd/system/nvfancontrol.service"
#define LEGACY_DIR "/sys/devices/pwm-fan"

typedef struct {
        jd_file pwm, rpm, temp_control;
} fan_files;

struct jd_fan_reader {
        const jd_sysroot *sr;
        fan_files *files;             /* one per fan, as many as the sample's */
        size_t cap_files;
        jd_cached_file conf, status;
        jd_fan_sample sample;
        bool nvfancontrol;
        jd_opt_bool service_active;
};

void jd_fan_reader_set_service_active(jd_fan_reader *r, jd_opt_bool active)
{
        r->service_active = active;
}

uint64_t jd_fan_pwm_from_percent(double pct)
{
        if (!(pct >= 0))
                pct = 0;
        if (pct > 100)
                pct = 100;
        return (uint64_t) (pct * 255.0 / 100.0); /* floor: 20 % -> 51, 50 % -> 127 */
}

double jd_fan_percent_from_pwm(uint64_t pwm)
{
        return (double) pwm * 100.0 / 255.0;
}

void jd_fan_part_choose(jd_fan_part *p, bool (*has)(const char *file, void *data), void *data)
{
        static const char *const pwm_files[] = { "pwm1", "target_pwm" };
        static const char *const rpm_files[] = { "rpm", "rpm_measured", "fan1_input" };
        p->pwm_file[0] = p->rpm_file[0] = '\0';
        for (size_t i = 0; i < sizeof(pwm_files) / sizeof(pwm_files[0]) && !p->pwm_file[0]; i++)
                if (has(pwm_files[i], data))
                        jd_strlcpy(p->pwm_file, pwm_files[i], sizeof(p->pwm_file));
        for (size_t i = 0; i < sizeof(rpm_files) / sizeof(rpm_files[0]) && !p->rpm_file[0]; i++)
                if (has(rpm_files[i], data))
                        jd_strlcpy(p->rpm_file, rpm_files[i], sizeof(p->rpm_file));
}

size_t jd_fan_pair_parts(const jd_fan_part *parts, size_t n, jd_fan_pair *pairs)
{
        size_t n_pwm = 0, n_tach_only = 0;
        long only_tach = -1;
        for (size_t i = 0; i < n; i++) {
                if (parts[i].pwm_file[0]) {
                        n_pwm++;
                } else if (parts[i].rpm_file[0]) {
                        n_tach_only++;
                        only_tach = (long) i;
                }
        }
        bool join = n_pwm == 1 && n_tach_only == 1;
        long claimed = -1;
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
                if (!parts[i].pwm_file[0])
                        continue;
                long tach = parts[i].rpm_file[0] ? (long) i : join ? only_tach : -1;
                if (tach != (long) i)
                        claimed = tach;
                pairs[k++] = (jd_fan_pair) { (long) i, tach };
        }
        for (size_t i = 0; i < n; i++)
                if (!parts[i].pwm_file[0] && parts[i].rpm_file[0] && (long) i != claimed)
                        pairs[k++] = (jd_fan_pair) { -1, (long) i };
        return k;
}

typedef struct {
        const jd_sysroot *sr;
        const char *dir;
} part_dir;

static bool dir_has(const char *file, void *data)
{
        const part_dir *d = data;
        char path[PATH_MAX + 32];
        snprintf(path, sizeof(path), "%s/%s", d->dir, file);
        return jd_sysroot_exists(d->sr, path);
}

static void probe_part(const jd_sysroot *sr, const char *dir, jd_fan_part *p)
{
        memset(p, 0, sizeof(*p));
        if (jd_sysroot_resolve(sr, dir, p->dir, sizeof(p->dir)) < 0)
                return;
        if (!jd_read_str(sr, p->name, sizeof(p->name), "%s/name", p->dir))
                jd_strlcpy(p->name, "pwm-fan", sizeof(p->name));
        jd_fan_part_choose(p, dir_has, &(part_dir) { sr, p->dir });
}

/* NULL only when out of memory. */
static jd_fan *add_fan(jd_fan_reader *r, const jd_fan_part *pwm, const jd_fan_part *tach)
{
        size_t i = r->sample.n;
        jd_fan *fans = jd_grow(r->sample.fans, &r->sample.cap, i + 1, sizeof(*fans));
        if (!fans)
                return NULL;
        r->sample.fans = fans;
        fan_files *files = jd_grow(r->files, &r->cap_files, i + 1, sizeof(*files));
        if (!files)
                return NULL;
        r->files = files;
        r->sample.n++;
        jd_fan *fan = &r->sample.fans[i];
        fan_files *f = &r->files[i];
        memset(fan, 0, sizeof(*fan));
        f->pwm = f->rpm = f->temp_control = JD_FILE_INIT;
        jd_strlcpy(fan->name, pwm ? pwm->name : tach->name, sizeof(fan->name));
        if (pwm) {
                snprintf(fan->pwm_path, sizeof(fan->pwm_path), "%.200s/%s", pwm->dir, pwm->pwm_file);
                jd_file_open(&f->pwm, r->sr, "%s", fan->pwm_path);
        }
        if (tach)
                jd_file_open(&f->rpm, r->sr, "%s/%s", tach->dir, tach->rpm_file);
        return fan;
}

static void read_profiles(jd_fan_reader *r, const char *conf)
{
        for (size_t i = 0; i < r->sample.n; i++) {
                jd_fan *fan = &r->sample.fans[i];
                if (fan->controller != JD_FAN_CONTROL_NVFANCONTROL)
                        continue;
                fan->n_profiles = conf ? jd_parse_nvfancontrol_profiles(conf, &fan->profiles, &fan->cap_profiles,
                                                                       fan->default_profile,
                                                                       sizeof(fan->default_profile))
                                       : 0;
                /* "manual" = nvfancontrol stopped, the PWM left as written
                 * (unless the conf names a profile so). */
                bool listed = false;
                for (size_t k = 0; k < fan->n_profiles; k++)
                        listed |= strcmp(fan->profiles[k], "manual") == 0;
                jd_fan_profile *room = listed ? fan->profiles
                                              : jd_grow(fan->profiles, &fan->cap_profiles, fan->n_profiles + 1,
                                                        sizeof(*room));
                if (!room)
                        continue; /* out of memory: no "manual" this time */
                fan->profiles = room;
                if (!listed)
                        jd_strlcpy(fan->profiles[fan->n_profiles++], "manual", sizeof(fan->profiles[0]));
        }
}

jd_fan_reader *jd_fan_reader_new(const jd_sysroot *sr)
{
        jd_fan_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->sr = sr;

        char **names;
        size_t n = jd_sysroot_list(sr, "/sys/class/hwmon", &names);
        jd_fan_part *parts = calloc(n + 1, sizeof(*parts));
        jd_fan_pair *pairs = calloc(n + 1, sizeof(*pairs));
        size_t np = 0, n_pwm = 0;
        for (size_t i = 0; parts && pairs && i < n; i++) {
                char dir[64];
                snprintf(dir, sizeof(dir), "/sys/class/hwmon/%.40s", names[i]);
                probe_part(sr, dir, &parts[np]);
                n_pwm += parts[np].pwm_file[0] != 0;
                if (parts[np].pwm_file[0] || parts[np].rpm_file[0])
                        np++;
        }
        jd_names_free(names, n);
        if (parts && pairs && n_pwm == 0) {
                /* JP4 before 32.5: no hwmon view, only the platform device. */
                probe_part(sr, LEGACY_DIR, &parts[np]);
                if (parts[np].pwm_file[0])
                        np++;
        }
        size_t n_fans = parts && pairs ? jd_fan_pair_parts(parts, np, pairs) : 0;
        for (size_t i = 0; i < n_fans; i++) {
                const jd_fan_part *p = pairs[i].pwm >= 0 ? &parts[pairs[i].pwm] : NULL;
                jd_fan *fan = add_fan(r, p, pairs[i].tach >= 0 ? &parts[pairs[i].tach] : NULL);
                if (!fan)
                        break;
                if (!p)
                        continue; /* a tachometer alone: nothing to control */
                char tc[PATH_MAX + 16];
                snprintf(tc, sizeof(tc), "%s/temp_control", p->dir);
                if (jd_file_open(&r->files[r->sample.n - 1].temp_control, sr, "%s", tc)) {
                        fan->controller = JD_FAN_CONTROL_TEMP_CONTROL;
                        jd_strlcpy(fan->temp_control_path, tc, sizeof(fan->temp_control_path));
                        jd_fan_profile *two = jd_grow(fan->profiles, &fan->cap_profiles, 2, sizeof(*two));
                        if (two) {
                                fan->profiles = two;
                                jd_strlcpy(fan->profiles[0], "temp_control", sizeof(fan->profiles[0]));
                                jd_strlcpy(fan->profiles[1], "manual", sizeof(fan->profiles[1]));
                                fan->n_profiles = 2;
                        }
                        jd_strlcpy(fan->default_profile, "temp_control", sizeof(fan->default_profile));
                }
        }
        free(pairs);
        free(parts);

        r->nvfancontrol = jd_sysroot_exists(sr, NVFANCONTROL_UNIT);
        for (size_t i = 0; i < r->sample.n; i++) {
                jd_fan *fan = &r->sample.fans[i];
                if (r->nvfancontrol && fan->pwm_path[0] && fan->controller == JD_FAN_CONTROL_NONE)
                        fan->controller = JD_FAN_CONTROL_NVFANCONTROL;
        }
        jd_cached_file_init(&r->conf, sr, JD_NVFANCONTROL_CONF, 1 << 20);
        jd_cached_file_init(&r->status, sr, JD_NVFANCONTROL_STATUS, 4096);
        jd_fan_reader_sample(r);
        return r;
}

void jd_fan_reader_free(jd_fan_reader *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->sample.n; i++) {
                jd_file_close(&r->files[i].pwm);
                jd_file_close(&r->files[i].rpm);
                jd_file_close(&r->files[i].temp_control);
                free(r->sample.fans[i].profiles);
        }
        free(r->files);
        free(r->sample.fans);
        jd_cached_file_clear(&r->conf);
        jd_cached_file_clear(&r->status);
        free(r);
}

bool jd_fan_profiles_dup(const jd_fan *fan, jd_fan_profile **copy)
{
        bool ok = true;
        *copy = jd_memdup(fan->profiles, fan->n_profiles, sizeof(**copy), &ok);
        return ok;
}

size_t jd_parse_nvfancontrol_profiles(const char *conf, jd_fan_profile **names, size_t *cap, char *def,
                                      size_t def_size)
{
        size_t n = 0;
        /* Names seen, so a conf of thousands of profiles stays linear. */
        GHashTable *seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        def[0] = '\0';
        JD_FOR_EACH_LINE(l, conf) {
                jd_span f[2];
                char value[32];
                if (jd_line_fields(l, f, 2) < 2 || !jd_span_copy(f[1], value, sizeof(value)))
                        continue;
                if (jd_span_eq(f[0], "FAN_PROFILE")) {
                        if (g_hash_table_contains(seen, value))
                                continue;
                        jd_fan_profile *room = jd_grow(*names, cap, n + 1, sizeof(*room));
                        if (!room)
                                break; /* out of memory: those so far */
                        *names = room;
                        jd_strlcpy(room[n++], value, sizeof(room[0]));
                        g_hash_table_add(seen, g_strdup(value));
                } else if (jd_span_eq(f[0], "FAN_DEFAULT_PROFILE")) {
                        jd_strlcpy(def, value, def_size);
                }
        }
        g_hash_table_destroy(seen);
        return n;
}

bool jd_parse_nvfancontrol_status(const char *status, unsigned fan, const char *key, char *out, size_t size)
{
        char prefix[64];
        snprintf(prefix, sizeof(prefix), "FAN%u:%s:", fan, key);
        size_t plen = strlen(prefix);
        JD_FOR_EACH_LINE(l, status) {
                if (strncmp(l, prefix, plen) != 0)
                        continue;
                size_t vlen = strcspn(l + plen, "\r\n");
                if (vlen == 0 || vlen >= size)
                        return false;
                memcpy(out, l + plen, vlen);
                out[vlen] = '\0';
                return true;
        }
        return false;
}

/* Fact sheet §7: the current profile is the service's while it runs and
 * "manual" when it does not. Its cached status says which profile it
 * runs; without one it runs the conf's FAN_DEFAULT_PROFILE. While the
 * service state is unknown (no systemd to ask), the status file is all
 * there is. */
static void read_nvfancontrol_state(const jd_fan_reader *r, jd_fan *fan, unsigned num, const char *status)
{
        if (r->service_active.present && !r->service_active.value) {
                jd_strlcpy(fan->profile, "manual", sizeof(fan->profile));
                jd_strlcpy(fan->control, "manual", sizeof(fan->control));
                return;
        }
        if (status) {
                jd_parse_nvfancontrol_status(status, num, "FAN_PROFILE", fan->profile, sizeof(fan->profile));
                jd_parse_nvfancontrol_status(status, num, "FAN_GOVERNOR", fan->governor, sizeof(fan->governor));
                jd_parse_nvfancontrol_status(status, num, "FAN_CONTROL", fan->control, sizeof(fan->control));
        } else if (r->service_active.present) {
                jd_strlcpy(fan->profile, fan->default_profile, sizeof(fan->profile));
        }
}

const jd_fan_sample *jd_fan_reader_sample(jd_fan_reader *r)
{
        const char *status = NULL;
        if (r->nvfancontrol) {
                bool changed;
                const char *conf = jd_cached_file_get(&r->conf, &changed);
                if (changed)
                        read_profiles(r, conf);
                status = jd_cached_file_get(&r->status, NULL);
        }
        for (size_t i = 0; i < r->sample.n; i++) {
                jd_fan *fan = &r->sample.fans[i];
                fan_files *f = &r->files[i];
                fan->pwm.present = jd_file_u64(&f->pwm, &fan->pwm.value) && fan->pwm.value <= 255;
                fan->speed.present = fan->pwm.present;
                fan->speed.value = fan->pwm.present ? jd_fan_percent_from_pwm(fan->pwm.value) : 0;
                fan->rpm.present = jd_file_u64(&f->rpm, &fan->rpm.value);
                fan->profile[0] = fan->governor[0] = fan->control[0] = '\0';
                if (fan->controller == JD_FAN_CONTROL_NVFANCONTROL) {
                        read_nvfancontrol_state(r, fan, (unsigned) i + 1, status);
                } else if (fan->controller == JD_FAN_CONTROL_TEMP_CONTROL) {
                        uint64_t tc;
                        if (jd_file_u64(&f->temp_control, &tc))
                                jd_strlcpy(fan->profile, tc ? "temp_control" : "manual", sizeof(fan->profile));
                        jd_strlcpy(fan->control, fan->profile, sizeof(fan->control));
                } else if (fan->controller == JD_FAN_CONTROL_NONE && fan->pwm_path[0]) {
                        jd_strlcpy(fan->control, "manual", sizeof(fan->control));
                }
        }
        return &r->sample;
}
