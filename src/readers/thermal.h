/* Temperatures: every thermal zone (by its type name, never its number)
 * plus hwmon temperature channels. Power-gated zones (read error or
 * -256000) are offline, not cold; PMIC-Die (a constant 100 °C) is hidden. */
#pragma once

#include "opt.h"
#include "sysfile.h"


typedef struct {
        char type[48];          /* "cpu-thermal", "coretemp Package id 0" */
        char key[48];           /* stable short name: "cpu", "cv0", "coretemp_package_id_0" */
        bool hwmon;             /* an hwmon channel, not a thermal zone */
        bool online;
        jd_opt_dbl temp_c;
        jd_opt_dbl max_c, crit_c;   /* hwmon limits where given */
} jd_thermal_zone;

/* Every zone the board has: the array grows with the sysfs directory. */
typedef struct {
        size_t n;
        jd_thermal_zone *zones;
} jd_thermal_sample;

typedef struct jd_thermal_reader jd_thermal_reader;

jd_thermal_reader *jd_thermal_reader_new(const jd_sysroot *sr);
void jd_thermal_reader_free(jd_thermal_reader *r);
const jd_thermal_sample *jd_thermal_reader_sample(jd_thermal_reader *r);

/* Short key of a zone type, lower case, the same on JP5 and JP6:
 * "CPU-therm" and "cpu-thermal" -> "cpu", "Tboard_tegra" -> "tboard". */
void jd_thermal_key(const char *type, char *out, size_t size);
/* A hwmon channel's key: its "<hwmon name> <label>", lower case, anything
 * but letters and digits as '_', cut to SIZE. */
void jd_thermal_sanitize_key(const char *in, char *out, size_t size);
