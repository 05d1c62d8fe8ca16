/* The metric families: which D-Bus sample key becomes which metric, in
 * which base unit, with which labels. Internal to exposition. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef enum { FAM_GAUGE, FAM_COUNTER, FAM_INFO, FAM_LABEL_ONLY } fam_kind;

/* Conversions from jetsond's units to Prometheus' base units. */
typedef enum {
        SCALE_NONE,
        SCALE_KILO,    /* kHz -> Hz */
        SCALE_KIBI,    /* KiB -> bytes */
        SCALE_MILLI,   /* mW, mV, mA, mJ -> W, V, A, J */
        SCALE_PERCENT, /* % -> ratio 0-1 */
} fam_scale;

typedef struct {
        const char *key;   /* key pattern: "*" is a whole segment, "gpc*" a segment with a prefix */
        const char *name;  /* OpenMetrics family name: no _total, no _info */
        fam_kind kind;
        const char *unit;  /* OpenMetrics UNIT, the name's last word, or NULL */
        const char *label; /* label for the pattern's "*", or NULL */
        fam_scale scale;
        const char *value_label; /* FAM_INFO from a string key: the label holding it */
        /* Labels whose values are other string keys of the same sample:
         * the sibling field EXTRA_KEY of this key (process.PID.gpu_mem
         * takes "name" from process.PID.name). */
        const char *extra_label[2];
        const char *extra_key[2];
        const char *help;
        const char *label2; /* label for a second "*" (process.PID.dgpu.N.mem: "gpu"), or NULL */
} fam_family;

extern const fam_family fam_table[];
extern const size_t fam_table_len;

/* What the "*" of a pattern stood for in a key: up to two instances
 * (the label's and label2's), [start, start + len). */
typedef struct {
        const char *start[2];
        size_t len[2];
        size_t n;
} fam_instances;

/* The index of the first family whose pattern matches KEY, or -1. */
int fam_match(const char *key, fam_instances *inst);

/* The families that do not come from sample keys (KEY names the source). */
extern const fam_family fam_up, fam_board, fam_default_mode, fam_timestamp;

/* The discrete GPUs' families from their DiscreteGpu properties, in this
 * order: the info (identity and versions), BAR1's size, then one per
 * mode (1 enabled, 0 disabled), the compute mode as an info. */
enum {
        FAM_DGPU_INFO,
        FAM_DGPU_BAR1_TOTAL,
        FAM_DGPU_PERSISTENCE,
        FAM_DGPU_ECC,
        FAM_DGPU_ECC_PENDING,
        FAM_DGPU_DISPLAY_MODE,
        FAM_DGPU_DISPLAY_ACTIVE,
        FAM_DGPU_COMPUTE_MODE,
        FAM_DGPU_PROPS,
};
extern const fam_family fam_dgpu_props[FAM_DGPU_PROPS];
/* Their labels, as --list-metrics lists them. */
extern const char *const fam_dgpu_props_labels[FAM_DGPU_PROPS];

/* OpenMetrics' type of a family: "counter", "info" or "gauge". */
const char *fam_type_name(fam_kind kind);
/* "_total" for counters, "_info" for info families, else "". */
const char *fam_sample_suffix(fam_kind kind);
