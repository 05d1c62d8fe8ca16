/* What /proc says of a process that jetsond never sends over the bus: its
 * environment (top's environment screen) and its whole command line
 * (every process list). Read by the client with the caller's own rights,
 * so a caller sees exactly what ps would show it: another user's
 * environment is refused by the kernel, a process hidden by hidepid has no
 * /proc directory at all, and the list falls back to jetsond's name. */
#pragma once

#include <glib.h>
#include <stdint.h>

#include "common/sample.h"

/* The NUL-separated strings of PROC_DIR/PID/FILE (PROC_DIR: "/proc"; FILE:
 * "environ" or "cmdline"), in the kernel's order, each with control bytes
 * as '?'; empty strings are left out. NULL with *ERR = errno when it
 * cannot be read: EACCES or EPERM for a file the caller may not read,
 * ENOENT for a process that has gone or that hidepid hides. */
GPtrArray *jc_proc_read_strings(const char *proc_dir, unsigned pid, const char *file, int *err);

/* PID's whole command line as ps's args column shows it: the arguments
 * joined by single spaces. COMM, when not NULL or "", is the name jetsond
 * gave PID (its comm), and START_TIME, when >= 0, when jetsond says it
 * started (process.PID.start_time, seconds since the Unix epoch): a
 * /proc/PID that is another process (the PID reused since, or another
 * machine's: a simulated board's PIDs) gives NULL. NULL also when the
 * command line is empty (a kernel thread, a zombie) or cannot be read. */
char *jc_proc_command_line(const char *proc_dir, unsigned pid, const char *comm, double start_time);

/* Reads the whole command line of every process S lists (its
 * process.PID.name keys, PIDs as this namespace names them: after
 * jc_sample_to_caller) into S->commands; a process whose command line
 * cannot be read keeps its name alone. PREV (or NULL), the sample before:
 * a process it lists with the same name and start time keeps the line
 * read then, so a view following samples reads /proc only for new
 * processes. */
void jc_sample_read_commands(jc_sample *s, const char *proc_dir, const jc_sample *prev);
/* The command line jc_sample_read_commands() read for PID, or NULL. */
const char *jc_sample_command(const jc_sample *s, uint32_t pid);
