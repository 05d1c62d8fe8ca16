/* Swap devices from /proc/swaps, with their type (file, partition, zram)
 * and whether /etc/fstab enables them at boot. */
#pragma once

#include <stdint.h>

#include "sysfile.h"

#define JD_MAX_SWAPS 32

typedef struct {
        char path[256];
        char type[12];          /* "file", "partition", "zram" */
        uint64_t size_bytes;
        uint64_t used_bytes;
        int32_t priority;
        bool on_boot;
} jd_swap;

typedef struct {
        size_t n;
        jd_swap swaps[JD_MAX_SWAPS];
} jd_swap_sample;

typedef struct jd_swap_reader jd_swap_reader;

jd_swap_reader *jd_swap_reader_new(const jd_sysroot *sr);
void jd_swap_reader_free(jd_swap_reader *r);
const jd_swap_sample *jd_swap_reader_sample(jd_swap_reader *r);

/* Parsers, exposed for tests. */
bool jd_parse_proc_swaps(const char *text, jd_swap_sample *out);
/* Specs of the active swap entries of FSTAB, unescaped. */
size_t jd_fstab_swaps(const char *fstab, char paths[][256], size_t max);
/* True if FSTAB has an active (uncommented) swap entry for PATH. */
bool jd_fstab_has_swap(const char *fstab, const char *path);
