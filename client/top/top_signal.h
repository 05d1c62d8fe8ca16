/* Signals from jetsonctl top's process list. The list is jetsond's view
 * (a board's sysroot in the tests, a container's /proc elsewhere), so a
 * PID is only signalled when this machine's /proc shows the same command
 * under it, one's own processes only unless root: a refusal is a
 * sentence for the footer, never a signal to a stranger. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sends SIG to PID if it is COMMAND (the list's name) and USER's may be
 * signalled by this user; TEXT gets the outcome. PROC is "/proc" (tests
 * may point elsewhere). True if the signal was sent. */
bool jc_top_send_signal(const char *proc, uint32_t pid, const char *command, const char *user, int sig, char *text,
                        size_t size);
/* "SIGTERM" */
const char *jc_top_signal_name(int sig);
