/* jetsonctl watch --stats: the mean, minimum and maximum of every
 * numeric key over the samples seen so far (as nvitop's collector keeps
 * them for GPUs), printed when watch ends. */
#pragma once

#include <glib.h>
#include <stdbool.h>

typedef struct jc_key_stats jc_key_stats;

jc_key_stats *jc_key_stats_new(void);
void jc_key_stats_free(jc_key_stats *s);
/* One sample's value of KEY; strings and booleans are not counted. */
void jc_key_stats_add(jc_key_stats *s, const char *key, GVariant *value);
void jc_key_stats_sample_done(jc_key_stats *s);
/* A table, or with JSON one document {"samples": N, "stats": {KEY: {...}}}. */
void jc_key_stats_print(const jc_key_stats *s, bool json);
