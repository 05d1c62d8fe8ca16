/* The fuzz targets: every parser jetsond runs on text it did not write,
 * and a round trip through every editor of a file it rewrites. One table
 * for the libFuzzer executables (fuzz-NAME, -Dfuzzing=true with clang)
 * and for the replay test that runs every corpus and regression input
 * through them in every build (suite fuzz). A target aborts when an
 * invariant breaks, so libFuzzer and the replay both see a crash. */
#pragma once

#include <stddef.h>

typedef struct {
        const char *name;
        /* TEXT is NUL-terminated (the bytes given, up to the first NUL). */
        void (*run)(const char *text, size_t len);
} fuzz_target;

extern const fuzz_target fuzz_targets[];
extern const size_t n_fuzz_targets;
const fuzz_target *fuzz_target_find(const char *name);
