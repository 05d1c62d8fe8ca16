/* A process's environment for jetsonctl top's environment screen, read by
 * the client from /proc/PID/environ with the caller's own rights: jetsond
 * never sends a process's environment over the bus. */
#pragma once

#include <glib.h>

/* The NAME=VALUE strings of PROC_DIR/PID/environ (PROC_DIR: "/proc"), in
 * the kernel's order, each with non-printable bytes as '?'. NULL with
 * *ERR = errno when it cannot be read: EACCES or EPERM for another user's
 * process (not permitted), ENOENT for one that has gone. */
GPtrArray *jc_top_read_environ(const char *proc_dir, unsigned pid, int *err);
