/* The sample as a flat list of typed values keyed "group.instance.field":
 * the one place that names the keys. The bus layer turns it into the
 * a{sv} of the Sample signal, --once --json into a JSON object. Keys never
 * change meaning; new keys may be added. Units: frequencies kHz, memory
 * KiB, power mW/mV/mA, energy mJ, temperatures °C, loads and speeds %. */
#pragma once

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvml.h"
#include "sampler.h"

#define JD_VALUE_KEY_MAX 64
#define JD_VALUE_STR_MAX 64

typedef enum {
        JD_VALUE_BOOL = 'b',
        JD_VALUE_U32 = 'u',
        JD_VALUE_I32 = 'i',
        JD_VALUE_U64 = 't',
        JD_VALUE_DOUBLE = 'd',
        JD_VALUE_STRING = 's',
} jd_value_type;

typedef struct {
        char key[JD_VALUE_KEY_MAX];
        jd_value_type type;
        /* What the key was spelled from, so that the next sample can reuse
         * the slot's name without formatting it (values.c). */
        const char *fmt;
        uint64_t num, str_hash;
        union {
                bool b;
                uint32_t u;
                int32_t i;
                uint64_t t;
                double d;
                char s[JD_VALUE_STR_MAX];
        };
} jd_value;

typedef struct {
        jd_value *items;
        size_t n, cap;
        /* Bumped whenever a slot's key changes or the count does: while it
         * stays the same, key i is the same as last time (for mappings
         * from names to positions, such as a capture's columns). */
        uint64_t layout;
} jd_values;

/* A value as a number (booleans 1 and 0), NaN for a string: the form of
 * the capture streams' columns and of the compact Values (inline: the
 * 1 kHz capture calls it for every value). */
static inline double jd_value_as_double(const jd_value *v)
{
        switch (v->type) {
        case JD_VALUE_BOOL:
                return v->b ? 1.0 : 0.0;
        case JD_VALUE_U32:
                return v->u;
        case JD_VALUE_I32:
                return v->i;
        case JD_VALUE_U64:
                return (double) v->t;
        case JD_VALUE_DOUBLE:
                return v->d;
        case JD_VALUE_STRING:
                break;
        }
        return NAN;
}

void jd_values_init(jd_values *v);
void jd_values_clear(jd_values *v);
/* Replaces the contents of OUT with the values of SAMPLE. Reuse one
 * jd_values from sample to sample: keys are spelled only when they change. */
void jd_values_from_sample(jd_values *out, const jd_sample *sample);

/* The same in steps, for a sample made of parts (the engine's tiers):
 * begin, then the values of every part SAMPLE has (NULL parts are
 * skipped), then those that combine parts of different tiers, then end. */
void jd_values_begin(jd_values *v);
void jd_values_add_sample(jd_values *out, const jd_sample *sample);
void jd_values_add_derived(jd_values *out, const jd_sample *sample);
void jd_values_end(jd_values *v);
const jd_value *jd_values_find(const jd_values *v, const char *key);
/* OUT (initialised) becomes a copy of IN, in OUT's own items where they
 * are room enough; false without memory (OUT is then unchanged). */
bool jd_values_copy(jd_values *out, const jd_values *in);
/* The keys of one NVML GPU (a discrete one: dgpu.N.*, and its processes'
 * process.PID.dgpu.N.mem and .sm; the SoC's own: gpu.load unless
 * SYSFS_LOAD, the sysfs reader having a load file, and gpu.temp), for the
 * GPU's own thread. */
void jd_values_add_nvml_gpu(jd_values *v, const jd_nvml_gpu *g, bool sysfs_load);
