/* Swap devices from /proc/swaps, with their type (file, partition, zram)
 * and whether /etc/fstab enables them at boot. */
#pragma once

#include <stdint.h>

#include "sysfile.h"


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
        jd_swap *swaps;         /* every line of /proc/swaps that parses */
        size_t cap;
} jd_swap_sample;
/* Frees S's array (a sample jd_parse_proc_swaps filled); S is empty. */
void jd_swap_sample_clear(jd_swap_sample *s);
/* A copy of SRC's swaps in DST (cleared first); false when out of memory. */
bool jd_swap_sample_copy(jd_swap_sample *dst, const jd_swap_sample *src);

/* The most of /etc/fstab the reader reads: past it the file is
 * malformed (not used), and the editor refuses it. */
#define JD_FSTAB_MAX (1u << 20)

typedef struct jd_swap_reader jd_swap_reader;

jd_swap_reader *jd_swap_reader_new(const jd_sysroot *sr);
void jd_swap_reader_free(jd_swap_reader *r);
const jd_swap_sample *jd_swap_reader_sample(jd_swap_reader *r);

/* Parsers, exposed for tests. */
/* OUT starts zeroed or as a previous call left it (its array is reused). */
bool jd_parse_proc_swaps(const char *text, jd_swap_sample *out);
/* The swap entry on the line at LINE (fstab(5): spec, file, vfstype
 * "swap" on one line; comments and shorter lines are none): its spec,
 * unescaped, in SPEC. False for any other line, or a spec too long. */
bool jd_fstab_swap_line(const char *line, char *spec, size_t size);
/* Specs of every active swap entry of FSTAB (as many as there are),
 * NULL-terminated (NULL when out of memory); free each, then the list. */
char **jd_fstab_swaps(const char *fstab, size_t *n);
/* True if FSTAB has an active (uncommented) swap entry for PATH. */
bool jd_fstab_has_swap(const char *fstab, const char *path);
