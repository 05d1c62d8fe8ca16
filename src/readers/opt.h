/* Optional values: a sensor that is missing, unreadable or malformed is
 * "absent" (present == false), never a zero that looks like a reading. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

typedef struct { uint64_t value; bool present; } jd_opt_u64;
typedef struct { int64_t value; bool present; } jd_opt_i64;
typedef struct { double value; bool present; } jd_opt_dbl;
typedef struct { bool value; bool present; } jd_opt_bool;

#define JD_SOME(v) { .value = (v), .present = true }
#define JD_SET(opt, v) do { (opt).value = (v); (opt).present = true; } while (0)
