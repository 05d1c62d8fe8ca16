/* The compact form of a sample (Metrics.GetKeys, GetValues and the
 * Values signal): the numeric keys once, as a list with a generation
 * number, then each sample's values as doubles in the list's order, NaN
 * for a key of the list that the sample lacks. The list follows the
 * sample: a numeric key that is not in it, or more than a quarter of it
 * absent, makes a new list (the sample's numeric keys in the sample's
 * order) and a new generation. Strings are not in it (GetSnapshot has
 * them). Pure bookkeeping: no D-Bus. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "values.h"

/* What a key was spelled from (jd_value's fmt, num and str_hash). */
typedef struct {
        const char *fmt;
        uint64_t num, str_hash;
} jd_compact_ident;

typedef struct {
        GPtrArray *keys;              /* char *, owned, in value order */
        GArray *idents;               /* jd_compact_ident, one per key */
        GHashTable *index;            /* key -> GUINT_TO_POINTER(position + 1) */
        uint32_t generation;          /* 0 before the first list */
        GArray *values;               /* double, one per key */
} jd_compact;

void jd_compact_init(jd_compact *c);
void jd_compact_clear(jd_compact *c);
/* The values of the sample made of LISTS; returns true when that took a
 * new key list (the generation changed). */
bool jd_compact_update(jd_compact *c, const jd_values *const *lists, size_t n_lists);
