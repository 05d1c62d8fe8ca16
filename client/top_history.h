/* jetsonctl top's history: the numbers of every sample top received, kept
 * per key in a ring of JC_TOP_HISTORY_LEN samples, so the graphs of every
 * page (and the per-process screen) come from the one subscription the
 * view already holds. A key missing from a sample is a gap (NAN), never 0;
 * a key not seen for a whole ring (a process that ended) is dropped. Pure:
 * unit-tested without a bus (tests/client/test-top-history.c). */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sample.h"

/* An hour at the default 1 s; the widest window a graph can ask for. */
#define JC_TOP_HISTORY_LEN 3600

typedef struct jc_top_history jc_top_history;

jc_top_history *jc_top_history_new(void);
void jc_top_history_free(jc_top_history *h);
/* Takes the numeric values (d, u, t; booleans are not graphed) of S as
 * the next sample. */
void jc_top_history_add(jc_top_history *h, const jc_sample *s);
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
