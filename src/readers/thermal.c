#include "thermal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "parse.h"

#define OFFLINE_MILLI_C (-256000)
/* More trip points than any board's zone has (Nano's AO-therm: 10). */
#define MAX_TRIPS 64

struct jd_thermal_reader {
        const jd_sysroot *sr;
        jd_file *temp;            /* one per zone, like sample.zones */
        char (*dir)[24];          /* a thermal zone's "thermal_zoneN", "" for hwmon */
        size_t cap_temp, cap_dir, cap_zones;
        uint64_t trips_read_us;   /* CLOCK_MONOTONIC of the last trip reading */
        jd_thermal_sample sample;
};

static uint64_t monotonic_us(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

void jd_thermal_add_trip(jd_thermal_zone *z, const char *type, int64_t milli_c)
{
        jd_opt_dbl *o = strcmp(type, "passive") == 0 ? &z->throttle_trip_c
                        : strcmp(type, "critical") == 0 ? &z->critical_trip_c
                                                          : NULL;
        /* A passive or critical trip at or below 0 °C is one nothing has
         * set (x86_pkg_temp's read 0 until programmed), not a limit. */
        if (!o || milli_c <= 0)
                return;
        double c = (double) milli_c / 1000.0;
        if (!o->present || c < o->value)
                *o = (jd_opt_dbl) { .present = true, .value = c };
}

/* Every trip point of zone I, read afresh: a zone's trips are numbered
 * from 0 without gaps, so the first missing type ends them. A zone's
 * number of trips is fixed by its driver: when not even the first type
 * reads (a failed read), the values it had are kept. */
static void read_trips(jd_thermal_reader *r, size_t i)
{
        jd_thermal_zone fresh = { 0 };
        int n = 0;
        for (; n < MAX_TRIPS; n++) {
                char type[16];
                int64_t milli;
                if (!jd_read_str(r->sr, type, sizeof(type), "/sys/class/thermal/%s/trip_point_%d_type", r->dir[i], n))
                        break;
                if (jd_read_i64(r->sr, &milli, "/sys/class/thermal/%s/trip_point_%d_temp", r->dir[i], n))
                        jd_thermal_add_trip(&fresh, type, milli);
        }
        if (n == 0)
                return;
        r->sample.zones[i].throttle_trip_c = fresh.throttle_trip_c;
        r->sample.zones[i].critical_trip_c = fresh.critical_trip_c;
}

void jd_thermal_key(const char *type, char *out, size_t size)
{
        size_t n = strcspn(type, "-");
        if (type[n] == '\0')
                n = strcspn(type, "_");
        if (n == 0)
                n = strlen(type);
        if (n >= size)
                n = size - 1;
        for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char) type[i];
                out[i] = isalnum(c) ? (char) tolower(c) : '_';
        }
        out[n] = '\0';
}

void jd_thermal_sanitize_key(const char *in, char *out, size_t size)
{
        size_t w = 0;
        for (size_t i = 0; in[i] && w + 1 < size; i++) {
                unsigned char c = (unsigned char) in[i];
                out[w++] = isalnum(c) ? (char) tolower(c) : '_';
        }
        out[w] = '\0';
}

/* Duplicate keys get a numeric suffix so no zone hides another. */
static void unique_key(jd_thermal_reader *r, jd_thermal_zone *z)
{
        char base[40];
        jd_strlcpy(base, z->key, sizeof(base));
        for (unsigned suffix = 1; suffix < 1000; suffix++) {
                bool clash = false;
                for (size_t i = 0; i < r->sample.n; i++)
                        if (&r->sample.zones[i] != z && strcmp(r->sample.zones[i].key, z->key) == 0)
                                clash = true;
                if (!clash)
                        return;
                snprintf(z->key, sizeof(z->key), "%.40s_%u", base, suffix);
        }
}

static jd_thermal_zone *add_zone(jd_thermal_reader *r, const char *type, const char *key)
{
        jd_file *temp = jd_grow(r->temp, &r->cap_temp, r->sample.n + 1, sizeof(*temp));
        if (temp)
                r->temp = temp;
        char (*dir)[24] = jd_grow(r->dir, &r->cap_dir, r->sample.n + 1, sizeof(*dir));
        if (dir)
                r->dir = dir;
        jd_thermal_zone *zones = jd_grow(r->sample.zones, &r->cap_zones, r->sample.n + 1, sizeof(*zones));
        if (zones)
                r->sample.zones = zones;
        if (!temp || !dir || !zones)
                return NULL; /* out of memory */
        jd_thermal_zone *z = &r->sample.zones[r->sample.n];
        memset(z, 0, sizeof(*z));
        r->temp[r->sample.n] = JD_FILE_INIT;
        r->dir[r->sample.n][0] = '\0';
        r->sample.n++;
        jd_strlcpy(z->type, type, sizeof(z->type));
        jd_strlcpy(z->key, key, sizeof(z->key));
        unique_key(r, z);
        return z;
}

static void add_thermal_zones(jd_thermal_reader *r, const jd_sysroot *sr)
{
        char **names;
        size_t n = jd_sysroot_list(sr, "/sys/class/thermal", &names);
        for (size_t i = 0; i < n; i++) {
                char type[48], key[48];
                if (strncmp(names[i], "thermal_zone", 12) != 0 ||
                    !jd_read_str(sr, type, sizeof(type), "/sys/class/thermal/%s/type", names[i]))
                        continue;
                if (strcmp(type, "PMIC-Die") == 0)
                        continue; /* reads a constant 100 °C */
                jd_thermal_key(type, key, sizeof(key));
                jd_thermal_zone *z = add_zone(r, type, key);
                if (!z)
                        continue;
                jd_file_open(&r->temp[r->sample.n - 1], sr, "/sys/class/thermal/%s/temp", names[i]);
                jd_strlcpy(r->dir[r->sample.n - 1], names[i], sizeof(r->dir[0]));
                read_trips(r, r->sample.n - 1);
        }
        jd_names_free(names, n);
}

static bool read_milli(const jd_sysroot *sr, jd_opt_dbl *out, const char *dir, int ch, const char *what)
{
        int64_t v;
        out->present = jd_read_i64(sr, &v, "%s/temp%d_%s", dir, ch, what);
        out->value = out->present ? (double) v / 1000.0 : 0;
        return out->present;
}

/* hwmon channels are named "<hwmon name> <label>" ("nvme Composite"). The
 * Jetson's own ina3221/pwmfan devices carry no temperatures. */
static void add_hwmon_temps(jd_thermal_reader *r, const jd_sysroot *sr)
{
        char **names;
        size_t n = jd_sysroot_list(sr, "/sys/class/hwmon", &names);
        for (size_t i = 0; i < n; i++) {
                char dir[128], hwname[32];
                snprintf(dir, sizeof(dir), "/sys/class/hwmon/%s", names[i]);
                if (!jd_read_str(sr, hwname, sizeof(hwname), "%s/name", dir))
                        continue;
                for (int ch = 1; ch <= 32; ch++) {
                        char label[32], type[48], key[48];
                        jd_file f;
                        if (!jd_file_open(&f, sr, "%s/temp%d_input", dir, ch))
                                continue;
                        if (!jd_read_str(sr, label, sizeof(label), "%s/temp%d_label", dir, ch))
                                snprintf(label, sizeof(label), "temp%d", ch);
                        snprintf(type, sizeof(type), "%.20s %.26s", hwname, label);
                        jd_thermal_sanitize_key(type, key, sizeof(key));
                        jd_thermal_zone *z = add_zone(r, type, key);
                        if (!z) {
                                jd_file_close(&f);
                                break;
                        }
                        r->temp[r->sample.n - 1] = f;
                        z->hwmon = true;
                        read_milli(sr, &z->max_c, dir, ch, "max");
                        read_milli(sr, &z->crit_c, dir, ch, "crit");
                }
        }
        jd_names_free(names, n);
}

jd_thermal_reader *jd_thermal_reader_new(const jd_sysroot *sr)
{
        jd_thermal_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->sr = sr;
        add_thermal_zones(r, sr);
        add_hwmon_temps(r, sr);
        r->trips_read_us = monotonic_us();
        return r;
}

void jd_thermal_reader_free(jd_thermal_reader *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->sample.n; i++)
                jd_file_close(&r->temp[i]);
        free(r->temp);
        free(r->dir);
        free(r->sample.zones);
        free(r);
}

const jd_thermal_sample *jd_thermal_reader_sample(jd_thermal_reader *r)
{
        uint64_t now = monotonic_us();
        if (now - r->trips_read_us >= JD_THERMAL_TRIP_PERIOD_US) {
                r->trips_read_us = now;
                for (size_t i = 0; i < r->sample.n; i++)
                        if (r->dir[i][0])
                                read_trips(r, i);
        }
        for (size_t i = 0; i < r->sample.n; i++) {
                jd_thermal_zone *z = &r->sample.zones[i];
                int64_t milli;
                z->online = jd_file_i64(&r->temp[i], &milli) && milli != OFFLINE_MILLI_C;
                z->temp_c.present = z->online;
                z->temp_c.value = z->online ? (double) milli / 1000.0 : 0;
        }
        return &r->sample;
}
