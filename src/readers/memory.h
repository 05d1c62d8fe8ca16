/* RAM, swap totals, GPU-shared memory, largest free blocks and IRAM from
 * /proc/meminfo, /proc/buddyinfo and nvmap debugfs; swap traffic from
 * /proc/vmstat. All sizes in KiB. */
#pragma once

#include "opt.h"
#include "sysfile.h"

typedef struct {
        jd_opt_u64 total, free, available, buffers, cached, used;
        jd_opt_u64 shared;          /* GPU-shared: NvMapMemUsed on L4T */
        jd_opt_u64 swap_total, swap_free, swap_used, swap_cached;
        jd_opt_u64 lfb;             /* count of free 4 MiB blocks (buddyinfo's last column) */
        jd_opt_u64 lfb_size;        /* size of the largest free blocks (KiB): 4096, or less when fragmented */
        jd_opt_u64 lfb_count;       /* how many free blocks of that size */
        jd_opt_u64 iram_total, iram_used;   /* t210 only */
        jd_opt_u64 swap_in, swap_out;       /* swapped in/out since boot (pswpin/pswpout pages) */
} jd_memory_sample;

typedef struct jd_memory_reader jd_memory_reader;

jd_memory_reader *jd_memory_reader_new(const jd_sysroot *sr);
void jd_memory_reader_free(jd_memory_reader *r);
const jd_memory_sample *jd_memory_reader_sample(jd_memory_reader *r);
/* Reads /proc/vmstat's swap counters into the sample, which keeps them
 * until the next call: a file of ~170 lines for two numbers, so the
 * sampler reads it at the slow tier's rate, not with meminfo. */
void jd_memory_reader_sample_swap_traffic(jd_memory_reader *r);

/* Parsers, exposed for tests. */
bool jd_parse_meminfo(const char *text, jd_memory_sample *out);
typedef struct {
        uint64_t lfb;               /* free 4 MiB blocks, all zones */
        uint64_t largest_kib, largest_count;   /* the largest size with a free block; 0, 0 if none */
} jd_buddy_free;
bool jd_parse_buddyinfo_free(const char *text, jd_buddy_free *out);
/* pswpin and pswpout of /proc/vmstat (pages); false unless both are there. */
bool jd_parse_vmstat_swap(const char *text, uint64_t *pages_in, uint64_t *pages_out);
/* "total 0K" line of an nvmap clients/maps table, in KiB. */
bool jd_parse_nvmap_total(const char *text, uint64_t *kib);
