/* Optional values: a sensor that is missing, unreadable or malformed is
 * "absent" (present == false), never a zero that looks like a reading. */
#pragma once

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct { uint64_t value; bool present; } jd_opt_u64;
typedef struct { int64_t value; bool present; } jd_opt_i64;
typedef struct { double value; bool present; } jd_opt_dbl;
typedef struct { bool value; bool present; } jd_opt_bool;

#define JD_SOME(v) { .value = (v), .present = true }
#define JD_SET(opt, v) do { (opt).value = (v); (opt).present = true; } while (0)

/* PART of WHOLE in percent, rounded to 0.01 %: loads are estimates from
 * tick and activity counts, and digits past that are counting noise
 * (33.333333333333336), not information. */
static inline double jd_percent(double part, double whole)
{
        return round(10000.0 * part / whole) / 100.0;
}
