/* A sample value as a number: the contract's numeric types (d, t, u, i)
 * as a double, for whatever only computes with them (graphs, sorting,
 * statistics). Booleans and strings are not numbers. */
#pragma once

#include <glib.h>
#include <stdbool.h>

bool jc_variant_number(GVariant *v, double *out);
