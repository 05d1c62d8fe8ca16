/* PIDs between jetsonctl's PID namespace (a container's) and jetsond's:
 * Metrics.PidsFromCaller() and PidsToCaller(). jetsond names processes
 * (the process.PID keys) by the PIDs of its own namespace; a client in a
 * container knows its processes by its own. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jetsonctl.h"

/* Each of the N PIDs in IN, translated by METHOD ("PidsFromCaller" or
 * "PidsToCaller") into OUT (0: none, or not visible). False when jetsond
 * cannot tell the caller's namespace (UnknownProcess: it reads a
 * --sysroot tree whose /proc is not the bus's), is older than the methods,
 * or the call failed: then nothing in OUT is to be used, and no PID may be
 * taken for the caller's own. */
bool jc_translate_pids(jc_ctx *c, const char *method, const uint32_t *in, size_t n, uint32_t *out);

/* The PIDs of jetsond for a set of the caller's that changes now and
 * then (a command's process tree): asked again only when the set
 * changes (a failure too is kept until then). */
typedef struct {
        uint32_t *asked, *answer;
        size_t n;
        bool valid;
} jc_pid_cache;

/* PIDS (N, the caller's) as jetsond's into *OUT (the cache's array, valid
 * until the next call); false as jc_translate_pids(). */
bool jc_pid_cache_from_caller(jc_ctx *c, jc_pid_cache *cache, const uint32_t *pids, size_t n, const uint32_t **out);
void jc_pid_cache_clear(jc_pid_cache *cache);

/* A sample's processes by the caller's PIDs, as Python's jetsond.pidns
 * does: the process.PID.* keys renamed to the PIDs of jetsonctl's
 * namespace, their ppid values too, and the processes that namespace
 * cannot see (the host's, another container's) left out, so that a PID
 * shown is one this namespace can act on. What jetsond said of each
 * process (its PID and start time) is kept, and asked only for new ones. */
typedef struct jc_caller_names jc_caller_names;
jc_caller_names *jc_caller_names_new(void);
void jc_caller_names_free(jc_caller_names *names);
/* Rewrites *VALUES (an a{sv}, replaced by a new one when something
 * changes). Where jetsond cannot tell the caller's namespace (see
 * jc_translate_pids()) the sample stays as jetsond sent it, and jetsond is
 * asked again 10 s later. */
void jc_sample_values_to_caller(jc_ctx *c, jc_caller_names *names, GVariant **values);
