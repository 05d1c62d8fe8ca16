/* Fans: hwmon PWM fans (JP5/JP6 "pwmfan", paired with a separate
 * tachometer hwmon), the JP4 pwm-fan device (sysfs or hwmon
 * "tegra_pwmfan"), and any generic hwmon fan. Profiles come from
 * nvfancontrol (conf + status file) on JP5+, temp_control on JP4. */
#pragma once

#include <limits.h>

#include "opt.h"
#include "sysfile.h"

/* nvfancontrol's files: the profiles and default, and the cached state
 * that wins over the default while it exists (also rewritten by
 * src/control/fan_control.c). */
#define JD_NVFANCONTROL_CONF "/etc/nvfancontrol.conf"
#define JD_NVFANCONTROL_STATUS "/var/lib/nvfancontrol/status"

typedef enum {
        JD_FAN_CONTROL_NONE,          /* PWM only: whatever is written stays */
        JD_FAN_CONTROL_NVFANCONTROL,  /* JP5+: the nvfancontrol service */
        JD_FAN_CONTROL_TEMP_CONTROL,  /* JP4: the kernel's temp_control */
} jd_fan_controller;

typedef char jd_fan_profile[32];

typedef struct {
        char name[32];                /* "pwmfan" */
        char pwm_path[256];           /* in-root path of the PWM file (for writes) */
        char temp_control_path[256];  /* JP4 only */
        jd_fan_controller controller;
        jd_opt_u64 pwm;               /* 0-255 */
        jd_opt_dbl speed;             /* %, pwm * 100 / 255 */
        jd_opt_u64 rpm;
        char profile[32];             /* current, "" if unknown */
        char default_profile[32];
        jd_fan_profile *profiles;     /* every profile of the conf, then "manual" */
        size_t n_profiles, cap_profiles;
        char governor[32];
        char control[32];
} jd_fan;

/* Every fan hwmon shows, however many (issue 31: no silent caps). */
typedef struct {
        size_t n, cap;
        jd_fan *fans;
} jd_fan_sample;

typedef struct jd_fan_reader jd_fan_reader;

jd_fan_reader *jd_fan_reader_new(const jd_sysroot *sr);
void jd_fan_reader_free(jd_fan_reader *r);
const jd_fan_sample *jd_fan_reader_sample(jd_fan_reader *r);
/* Whether nvfancontrol.service runs, as systemd says (absent while
 * unknown): a stopped service means the profile is "manual". */
void jd_fan_reader_set_service_active(jd_fan_reader *r, jd_opt_bool active);

/* PWM <-> percent as the fact sheet rounds them. */
uint64_t jd_fan_pwm_from_percent(double pct);
double jd_fan_percent_from_pwm(uint64_t pwm);

/* nvfancontrol.conf: FAN_PROFILE names (in order, each once) into *NAMES
 * (of *CAP, grown as needed; may start NULL and 0), and
 * FAN_DEFAULT_PROFILE. Grammar: one "KEY VALUE" a line (jd_line_fields:
 * blanks, never across a line end); a value of 32 bytes or more makes
 * the line no entry (never cut); other lines are not ours. */
size_t jd_parse_nvfancontrol_profiles(const char *conf, jd_fan_profile **names, size_t *cap, char *def,
                                      size_t def_size);
/* A copy of FAN's profiles in *COPY (NULL for none); false when out of memory. */
bool jd_fan_profiles_dup(const jd_fan *fan, jd_fan_profile **copy);
/* nvfancontrol status "FAN1:FAN_PROFILE:cool" lines for fan number FAN (1-based).
 * Grammar: "FAN<n>:<KEY>:<value>" a line, the value to the line end (a CR
 * dropped); the first matching line counts; an empty value, or one that
 * does not fit SIZE, is none. */
bool jd_parse_nvfancontrol_status(const char *status, unsigned fan, const char *key, char *out, size_t size);

/* hwmon pairing, apart from the files so that it can be fuzzed
 * (tests/fuzz, target hwmon-pairing). A hwmon device, or the legacy
 * pwm-fan directory, seen as a fan part: */
typedef struct {
        char dir[PATH_MAX];     /* canonical in-root path */
        char name[32];
        char pwm_file[16];      /* "pwm1", "target_pwm"; "" = no PWM */
        char rpm_file[16];      /* "rpm", "rpm_measured", "fan1_input"; "" = no tach */
} jd_fan_part;

/* P's pwm_file and rpm_file from what its directory holds (HAS(FILE,
 * DATA): whether it has FILE): the first of "pwm1", "target_pwm", and
 * the first of "rpm", "rpm_measured", "fan1_input"; "" for none. */
void jd_fan_part_choose(jd_fan_part *p, bool (*has)(const char *file, void *data), void *data);

/* One fan: the indexes of its PWM part and tachometer part, -1 for none
 * (never both). */
typedef struct {
        long pwm, tach;
} jd_fan_pair;

/* The fans N PARTS make, into PAIRS (room for N); returns how many. A
 * part with a PWM is a fan, with its own tachometer, or (JP5/JP6's
 * pwmfan and pwm_tach are separate devices) with the one tachometer-only
 * part when the parts are exactly one of each; a tachometer nobody
 * claimed is a fan of its own, one jetsond does not drive. Parts with
 * neither are no fan. PWM fans come first, each kind in part order. */
size_t jd_fan_pair_parts(const jd_fan_part *parts, size_t n, jd_fan_pair *pairs);
