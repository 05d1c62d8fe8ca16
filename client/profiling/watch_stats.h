/* jetsonctl watch --stats: the mean, minimum and maximum of every
 * numeric key over the samples seen so far (as nvitop's collector keeps
 * them for GPUs), printed when watch ends. A medium or slow key
 * (introspection/capture.md's tiers) repeats in the samples between its
 * tier's readings, which a Sample does not time: it is counted at most
 * once per its tier's floor period (10 ms, 100 ms), so that a slow value
 * seen in ten 10 ms samples counts once, as the reading it is. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct jc_key_stats jc_key_stats;

jc_key_stats *jc_key_stats_new(void);
void jc_key_stats_free(jc_key_stats *s);
/* One sample's value of KEY; strings and booleans are not counted. */
void jc_key_stats_add(jc_key_stats *s, const char *key, GVariant *value);
/* The sample the next values come from: its timestamp, µs. */
void jc_key_stats_sample_at(jc_key_stats *s, uint64_t timestamp_usec);
void jc_key_stats_sample_done(jc_key_stats *s);
/* A table, or with JSON one document {"samples": N, "stats": {KEY: {...}}}. */
void jc_key_stats_print(const jc_key_stats *s, bool json);
