/* HTTP content negotiation for /metrics: which text format (Accept) and
 * whether to gzip (Accept-Encoding), by the q-values of RFC 9110. Pure
 * functions, unit-tested (tests/exporter/test-negotiate.c). */
#pragma once

#include <stdbool.h>

#include "exposition.h"

/* OpenMetrics when the Accept header ranks application/openmetrics-text
 * above (or, listed first, equal to) text/plain and every wildcard;
 * Prometheus text otherwise, including with no header at all. */
exp_format negotiate_format(const char *accept);

/* True when Accept-Encoding accepts gzip ("gzip", "x-gzip" or "*" with a
 * q-value above 0, and gzip not refused by name). */
bool negotiate_gzip(const char *accept_encoding);
