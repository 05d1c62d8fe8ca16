/* jetsonctl measure's report: text for people (J, W, %, °C, MHz, MiB, s)
 * or, with --json, one document with the units in the key names. */
#pragma once

#include "jetsonctl.h"
#include "measure_stats.h"

void jc_measure_print(const jc_ctx *c, const jc_measure *m, char *const *command, int status);
