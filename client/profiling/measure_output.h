/* jetsonctl measure's report: text for people (J, W, %, °C, MHz, MiB, s)
 * or, with --json, one document with the units in the key names. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "jetsonctl.h"
#include "measure_stats.h"

/* COMMAND ran and exited with STATUS; or, PID > 0, the running process
 * PID (whose command line COMMAND is) was followed: until it exited when
 * EXITED, else until Ctrl-C or SIGTERM. */
void jc_measure_print(const jc_ctx *c, const jc_measure *m, char *const *command, int status, pid_t pid,
                      bool exited);
