/* Hardware engines (APE, NVENC, NVDEC, NVJPG, DLA0/1, PVA0, VIC, OFA, SE,
 * CVNAS...) from the clock tree in debugfs, grouped as tegrastats does:
 * nvjpg+nvjpg1 -> NVJPG, dla0_core+dla0_falcon -> DLA0. Root only.
 * Read at the medium tier's rate: two files per clock, enable count and
 * rate (clk_min_rate/clk_max_rate are no sample key, so never read). */
#pragma once

#include "opt.h"
#include "sysfile.h"


typedef struct {
        char name[16];          /* "NVJPG", "DLA0" */
        jd_opt_bool online;     /* any member clock enabled */
        jd_opt_u64 rate_hz;     /* fastest member clock */
} jd_engine;

typedef struct {
        size_t n;
        jd_engine *engines;     /* every group found, by name: grows with the clock tree */
} jd_engines_sample;

typedef struct jd_engines_reader jd_engines_reader;

jd_engines_reader *jd_engines_reader_new(const jd_sysroot *sr);
void jd_engines_reader_free(jd_engines_reader *r);
const jd_engines_sample *jd_engines_reader_sample(jd_engines_reader *r);

/* Group name for a clock directory name, or false if it is no engine. */
bool jd_engine_group(const char *clock, char *group, size_t size);
