/* The files a reading reads, for the benchmarks' floors: which files a
 * tier reads is recorded by interposing pread() and read() in the bench
 * program (the readers' library calls resolve to file-set.c's), then
 * they are opened as the readers open them and read with no parsing. */
#pragma once

#include <stddef.h>

#include "sampler.h"

#define MAX_FILES 4096

typedef struct {
        char *paths[MAX_FILES];
        int fds[MAX_FILES];
        size_t n;
} file_set;

/* Records the files one jd_sampler_sample(SAMPLER, TIERS) reads into SET
 * and opens them. */
void file_set_record(file_set *set, jd_sampler *sampler, unsigned tiers);
/* One pread of every file into BUF, as the floor of a reading. */
void file_set_pread(const file_set *set, char *buf, size_t size);
void file_set_free(file_set *set);
