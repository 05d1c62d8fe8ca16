/* jetsonctl top's history: the numbers of every sample top received, kept
 * per key in a ring, so the graphs of every page (and the per-process
 * screen) come from the one subscription the view already holds. The
 * board's keys get JC_TOP_HISTORY_LEN samples; a process's only the keys
 * its screen graphs (cpu, rss, gpu_mem, dgpu.N.sm), in a ring of
 * JC_TOP_PROCESS_HISTORY_LEN that grows to what a graph drawing it asks
 * for (jc_top_history_reserve), so hundreds of GPU processes cost little
 * and only the one on screen keeps a long history. A key missing from a
 * sample is a gap (NAN), never 0; a key not seen for a whole ring (a
 * process that ended) is dropped. Pure: unit-tested without a bus
 * (tests/client/test-top-history.c). */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/sample.h"

/* An hour at the default 1 s; the widest window a graph can ask for. */
#define JC_TOP_HISTORY_LEN 3600
/* A process key's ring until a graph asks for more: two minutes at 1 s. */
#define JC_TOP_PROCESS_HISTORY_LEN 128

typedef struct jc_top_history jc_top_history;

jc_top_history *jc_top_history_new(void);
void jc_top_history_free(jc_top_history *h);
/* Takes the numeric values (d, u, t; booleans are not graphed) of S as
 * the next sample. */
void jc_top_history_add(jc_top_history *h, const jc_sample *s);
/* KEY's ring made room for N samples (at most JC_TOP_HISTORY_LEN), the
 * values it has kept: a graph about to show N of them. */
void jc_top_history_reserve(jc_top_history *h, const char *key, guint n);
/* Bytes the rings hold, and (ALL_FULL) what they would if every numeric
 * key of the latest sample had JC_TOP_HISTORY_LEN: the cost before
 * process rings were short and only the graphed ones kept. */
size_t jc_top_history_bytes(const jc_top_history *h, size_t *all_full);
/* Samples taken so far (not capped by the ring). */
uint64_t jc_top_history_count(const jc_top_history *h);
/* The last N values of KEY, oldest first, into OUT: NAN where the key was
 * absent or before it was first seen. False (OUT untouched) if KEY was
 * never seen or has been dropped. N may exceed the ring: the oldest are
 * NAN then. */
bool jc_top_history_get(const jc_top_history *h, const char *key, guint n, double *out);
/* The mean of each run of PER values of IN (N of them, oldest first) into
 * OUT (N / PER of them, the newest run last and complete); NANs are left
 * out of a mean, a run of NANs is NAN. A graph's window wider than its
 * width. */
void jc_top_history_squash(const double *in, guint n, guint per, double *out);
