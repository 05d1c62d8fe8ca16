/* /metrics/dcgm: jetsond's readings as NVIDIA dcgm-exporter's series
 * (DCGM_FI_*), with its names, types, units and labels, so NVIDIA's GPU
 * dashboard and the queries written for dcgm-exporter work unchanged on a
 * Jetson's GPU and on the NVML GPUs of a PC. Pure C over the exporter's
 * model (no D-Bus, no HTTP): tested on every fake board in tests/exporter/test-dcgm.py. */
#pragma once

#include <glib.h>

#include "exposition.h"

/* The page in the Prometheus text format 0.0.4, dcgm-exporter's own (its
 * counters have no _total, which OpenMetrics would refuse). SAMPLE NULL
 * (jetsond gone or its samples stale): an empty page, never old values. */
GString *dcgm_render(const exp_sample *sample, const exp_board *board);

/* Every field and where it comes from, one line each:
 * "NAME<TAB>TYPE<TAB>DISCRETE GPU SOURCE<TAB>JETSON GPU SOURCE<TAB>HELP"
 * ("-" where there is no true source), for --list-metrics and the docs. */
GString *dcgm_list_fields(void);
