/* Temperatures: every thermal zone (by its type name, never its number)
 * plus hwmon temperature channels. Power-gated zones (read error or
 * -256000) are offline, not cold; PMIC-Die (a constant 100 °C) is hidden.
 * A thermal zone's trip points (trip_point_N_type/_temp) give where the
 * kernel starts to throttle it and where the board shuts down. */
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
        /* Thermal zones only: the lowest "passive" trip (the kernel
         * throttles from there) and the "critical" one (shutdown). */
        jd_opt_dbl throttle_trip_c, critical_trip_c;
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

/* Trip points change only when root writes one (a writable trip) and
 * cost two reads each: they are read when the reader is made and then at
 * most this often, never on every reading of the temperatures. */
#define JD_THERMAL_TRIP_PERIOD_US 10000000u

/* One trip point (its trip_point_N_type and _temp) into Z's trip values:
 * the lowest passive trip and the lowest critical one win; one at or
 * below 0 °C is unset and ignored. */
void jd_thermal_add_trip(jd_thermal_zone *z, const char *type, int64_t milli_c);

/* Short key of a zone type, lower case, the same on JP5 and JP6:
 * "CPU-therm" and "cpu-thermal" -> "cpu", "Tboard_tegra" -> "tboard". */
void jd_thermal_key(const char *type, char *out, size_t size);
/* A hwmon channel's key: its "<hwmon name> <label>", lower case, anything
 * but letters and digits as '_', cut to SIZE. */
void jd_thermal_sanitize_key(const char *in, char *out, size_t size);
