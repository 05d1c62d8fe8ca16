/* PID namespaces: naming a process the way a caller in another PID
 * namespace (a container) names it, and back.
 *
 * jetsond's PIDs are those of the PID namespace its /proc belongs to
 * (the sysroot's /proc; the host's on a board). /proc/PID/status's
 * NSpid line lists a process's PID in that namespace first, then in
 * each nested namespace down to its own; /proc/PID/ns/pid names its own
 * namespace ("pid:[INODE]"). A process X is visible in a caller's
 * namespace C, of depth d below /proc's, when X's NSpid has an entry at
 * depth d and X's namespace at that depth is C: X's own when it is at
 * depth d (the names compared), else its ancestor found with the
 * NS_GET_PARENT ioctl (real procfs only; where that cannot be asked, a
 * process of a nested namespace is taken as not visible, never guessed).
 * A kernel without NSpid (before 4.1) has one namespace: every PID is
 * the caller's. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sysroot.h"

#define JD_PIDNS_MAX_DEPTH 33   /* the kernel's 32 nested namespaces, plus the first */

typedef struct {
        uint32_t pid;                     /* in /proc's namespace */
        unsigned depth;                   /* 0: /proc's own namespace */
        uint32_t nspid[JD_PIDNS_MAX_DEPTH]; /* [0] = pid ... [depth] = its PID in its own namespace */
        uint64_t ns_inode;                /* its own namespace, 0 if /proc/PID/ns/pid gave none */
} jd_pidns_process;

/* The NSpid line of a /proc/PID/status text into OUT (depth and nspid;
 * one namespace when the kernel has no NSpid line but a Pid line).
 * False for a text with neither, or with more levels than the kernel
 * allows. */
bool jd_parse_nspid(const char *status, jd_pidns_process *out);
/* The inode of a namespace link's text, "pid:[4026531836]". */
bool jd_parse_ns_link(const char *link, uint64_t *inode);

/* Reads PID's entry under SR's /proc. -ENOENT when there is no such
 * process (or it exited meanwhile), -EACCES/-EPERM when /proc hides it
 * (hidepid), else -errno. */
int jd_pidns_read(const jd_sysroot *sr, uint32_t pid, jd_pidns_process *out);

/* X's PID as the namespace of CALLER names it; 0 when that namespace
 * cannot see X. */
uint32_t jd_pidns_to_caller(const jd_sysroot *sr, const jd_pidns_process *caller, const jd_pidns_process *x);

/* Each of the N PIDs of CALLER's namespace in IN, as /proc's namespace
 * names it, into OUT (0 for one no process of that namespace has). One
 * listing of /proc whatever N; a caller in /proc's own namespace is
 * answered from /proc/PID alone. Returns 0 or -errno of the listing. */
int jd_pidns_from_caller(const jd_sysroot *sr, const jd_pidns_process *caller, const uint32_t *in, size_t n,
                         uint32_t *out);
