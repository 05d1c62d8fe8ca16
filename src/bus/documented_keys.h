/* The numeric sample keys introspection/org.jetsond.Jetson1.Metrics.xml
 * documents, from its key table (generated at build time by
 * introspection/metrics-keys.py): OpenCapture takes such a key as a
 * column even while the board lacks it for a moment (a gated GPU, a rail
 * not read yet), and its values are NaN until it is there. */
#pragma once

#include <stdbool.h>

/* KEY is a documented numeric key with its placeholders filled in: N and
 * PID by decimal numbers, RAIL, ZONE, NAME and TYPE by a name without a dot. */
bool jd_documented_numeric_key(const char *key);
