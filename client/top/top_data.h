/* jetsonctl top's numbers that are not drawing, unit-tested on their own
 * (tests/client/test-top-data.c): each rail's average power since top
 * started, from jetsond's energy counters (tegrastats shows cur/avg); the
 * GPU processes are gpu_procs.h's. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/sample.h"

/* ---- average power from energy counters -------------------------------- */
typedef struct jc_top_energy jc_top_energy;

jc_top_energy *jc_top_energy_new(void);
void jc_top_energy_free(jc_top_energy *e);
/* Takes the energy.* counters of a sample. The first value of each
 * counter is its baseline; a counter that went back (jetsond restarted)
 * starts a new one. */
void jc_top_energy_add(jc_top_energy *e, const jc_sample *s);
/* Average power in mW of the energy key KEY ("energy.VDD_IN",
 * "energy.total") from its baseline to the latest sample; false until the
 * two are at least 0.5 s apart. */
bool jc_top_energy_average(const jc_top_energy *e, const char *key, double *mw);
