/* Metrics samples on the client side: GetSnapshot() and Sample signals
 * become a jc_sample (the a{sv} dictionary as a GVariant, in the order
 * jetsond sent it), with typed lookups that treat a missing key as what
 * the contract says it is: absent, never 0. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "jetsonctl.h"

typedef struct {
        uint64_t timestamp_usec;
        GVariant *values; /* a{sv} */
        /* PID -> whole command line, read by jetsonctl itself with the
         * caller's rights (common/proc_strings.h), never sent by jetsond;
         * NULL until read. */
        GHashTable *commands;
} jc_sample;

void jc_sample_clear(jc_sample *s);
/* From a (ta{sv}) tuple, GetSnapshot()'s reply or a Sample signal, or
 * from a SampleAt signal's (sta{sv}), whose period it leaves out. */
bool jc_sample_from_variant(jc_sample *s, GVariant *tuple);
/* GetSnapshot(); prints the error and returns an exit code on failure.
 * Its processes are named by this namespace's PIDs (jc_sample_to_caller). */
int jc_sample_fetch(jc_ctx *c, jc_sample *s);
/* S's process.PID keys renamed to the PIDs of jetsonctl's PID namespace,
 * those it cannot see left out (common/caller_pids.h): for every sample
 * that shows processes. */
void jc_sample_to_caller(jc_ctx *c, jc_sample *s);

/* The value of KEY (a new reference) or NULL if absent. */
GVariant *jc_sample_lookup(const jc_sample *s, const char *key);
/* Typed lookups: false if KEY is absent or of another type. Integer
 * lookups accept u and t. */
bool jc_sample_double(const jc_sample *s, const char *key, double *v);
bool jc_sample_uint(const jc_sample *s, const char *key, uint64_t *v);
bool jc_sample_bool(const jc_sample *s, const char *key, bool *v);
/* The string value of KEY (owned by the sample), or NULL. */
const char *jc_sample_string(const jc_sample *s, const char *key);
/* printf-style key. */
bool jc_sample_uintf(const jc_sample *s, uint64_t *v, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
bool jc_sample_doublef(const jc_sample *s, double *v, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
bool jc_sample_boolf(const jc_sample *s, bool *v, const char *fmt, ...) G_GNUC_PRINTF(3, 4);

/* The text of one sample value for scripts: numbers as numbers ("34.7",
 * "2100"), booleans "true"/"false", strings unquoted. */
char *jc_value_to_text(GVariant *value);
