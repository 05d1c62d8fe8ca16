/* Pieces of the text formats shared by /metrics (render.c) and
 * /metrics/dcgm (dcgm_render.c): label values, numbers and HELP text,
 * escaped as Prometheus text 0.0.4 and OpenMetrics 1.0 require. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "exposition.h"

/* ,NAME="VALUE" (or {NAME="VALUE" for the first label: *FIRST). */
void tout_label(GString *out, bool *first, const char *name, const char *value, size_t len);
/* A double with 15 significant digits, NaN and ±Inf spelled as both
 * formats do; never the locale's decimal comma. */
void tout_double(GString *out, double d);
/* V / 10^DIGITS as an exact decimal, trailing zeros trimmed. */
void tout_fixed(GString *out, uint64_t v, unsigned digits);
/* HELP text: OpenMetrics escapes the double quote too. */
void tout_help_text(GString *out, const char *help, exp_format format);
