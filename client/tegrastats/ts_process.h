/* tegrastats' --start and --stop: a line writer that runs on in the
 * background, and the command that ends every such writer. */
#pragma once

#include <stdbool.h>

/* The name running writers carry (/proc/PID/comm), so --stop, pkill and
 * ps know them, also when started as "jetsonctl tegrastats". */
#define TS_PROCESS_NAME "tegrastats"

void ts_process_set_name(void);
/* Forks; the parent returns false at once (it should exit 0), the child
 * returns true in a new session with standard input, output and error on
 * /dev/null. -1 in *ERRNO_OUT if the fork failed. */
bool ts_process_background(int *errno_out);
/* Sends SIGTERM to every other process of this program running under
 * TS_PROCESS_NAME that this user may signal; returns how many. */
unsigned ts_process_stop_all(void);
