/* jetsonctl top's numbers that are not drawing, unit-tested on their own
 * (tests/client/test-top-data.c): each rail's average power since top
 * started, from jetsond's energy counters (tegrastats shows cur/avg), and
 * the GPU processes of a sample, sorted. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "sample.h"

/* ---- average power from energy counters -------------------------------- */
typedef struct jc_top_energy jc_top_energy;

jc_top_energy *jc_top_energy_new(void);
void jc_top_energy_free(jc_top_energy *e);
/* Takes the energy.* counters of a sample. The first value of each
 * counter is its baseline; a counter that went back (jetsond restarted)
 * starts a new one. */
void jc_top_energy_add(jc_top_energy *e, const jc_sample *s);
/* Average power in mW of the energy key KEY ("energy.VDD_IN",
 * "energy.total") from its baseline to the latest sample; false until the
 * two are at least 0.5 s apart. */
bool jc_top_energy_average(const jc_top_energy *e, const char *key, double *mw);

/* ---- GPU processes -------------------------------------------------------- */
typedef enum { JC_TOP_SORT_GPU_MEM, JC_TOP_SORT_CPU, JC_TOP_SORT_RSS, JC_TOP_SORT_PID, JC_TOP_SORT_N } jc_top_sort;

typedef struct {
        uint32_t pid;
        char name[64], user[32];      /* "" when absent */
        bool has_cpu, has_rss, has_gpu_mem;
        double cpu;                   /* % of one CPU */
        uint64_t rss_kib, gpu_mem_kib;
} jc_top_process;

/* The sort's column title, as the screen shows it. */
const char *jc_top_sort_name(jc_top_sort sort);
/* The process.PID.* keys of S as jc_top_process, largest first by SORT
 * (PID: ascending); a process without the sort's value comes last. */
GArray *jc_top_processes(const jc_sample *s, jc_top_sort sort);
