/* The board as jetsonctl tegrastats needs it, from jetsond. */
#pragma once

#include "jetsonctl.h"
#include "ts_format.h"

/* Fills B (its gen from the L4T release) from Board and Metrics.Sensors;
 * KEYS (GetKeys()) stand in for Sensors on a jetsond without it. Prints
 * the error and returns an exit code on failure. */
int ts_board_fetch(jc_ctx *c, ts_board *b, const char *const *keys);
void ts_board_clear(ts_board *b);
