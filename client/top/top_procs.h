/* jetsonctl top's process list as nvitop draws it: its columns, a sort
 * by any of them either way, and a filter. Rows are gpu_procs.h's (one
 * per process and GPU) with %MEM from the sample's ram.total. Pure:
 * unit-tested in tests/client/test-top-procs.c. */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "commands/gpu_procs.h"
#include "common/sample.h"

typedef enum {
        JC_COL_GPU, JC_COL_PID, JC_COL_USER, JC_COL_GPU_MEM, JC_COL_SM, JC_COL_CPU, JC_COL_MEM, JC_COL_TIME,
        JC_COL_COMMAND, JC_COL_N
} jc_top_col;

/* nvitop's filters by context (its -c, -C, -g, -G): compute (C or C+G),
 * only compute (C), graphics (G or C+G), only graphics (G). A row whose
 * contexts are unknown (the SoC's GPU) is kept only by none. */
typedef enum {
        JC_TYPE_ANY, JC_TYPE_COMPUTE, JC_TYPE_ONLY_COMPUTE, JC_TYPE_GRAPHICS, JC_TYPE_ONLY_GRAPHICS, JC_TYPE_N
} jc_top_type_filter;

/* "compute" ... for the list's title; "" for JC_TYPE_ANY. */
const char *jc_top_type_filter_name(jc_top_type_filter f);
/* nvitop's "C", "G", "C+G"; "" unknown. */
const char *jc_top_type_name(unsigned type);
/* A running time as nvitop shows it: "M:SS" under an hour, "H:MM:SS"
 * under four days, then "D.D days"; SECONDS below 0 (a clock set back)
 * is 0:00. A new string. */
char *jc_top_format_elapsed(double seconds);

/* The column's title ("GPU-MEM", "%SM", ...). */
const char *jc_top_col_name(jc_top_col col);

typedef struct {
        jc_gpu_process_row row;
        bool has_mem_pct;
        double mem_pct;               /* RSS of ram.total */
        int depth;                    /* in the tree view: ancestors above it */
        bool ancestor;                /* a parent shown for the tree, not in jetsond's list */
} jc_top_proc;

/* The rows of S (jc_top_proc) that FILTER and TYPE keep, sorted by COL:
 * numbers largest first, TIME longest running first, text and PID A to
 * Z (REVERSE turns either round); a row without the value last either
 * way; ties by PID then GPU. FILTER: NULL or "" keeps all, digits keep
 * that PID, anything else keeps rows whose user, name or whole command
 * line contains it (case-insensitive). */
GArray *jc_top_proc_rows(const jc_sample *s, jc_top_col col, bool reverse, const char *filter,
                         jc_top_type_filter type);

/* The parent of PID and its command: PPID and COMM (SIZE bytes). NAME,
 * when not NULL, is what the list calls PID: false if PID is not that
 * here, or is unknown. */
typedef bool (*jc_top_parent_fn)(uint32_t pid, const char *name, uint32_t *ppid, char *comm, size_t size,
                                 void *data);
/* ROWS (jc_top_proc, as jc_top_proc_rows() sorted them) as a tree, as
 * nvitop's tree view: each process under its parent, with the ancestors
 * it has outside the list (up to, not including, PID 1) as rows of their
 * own, but for a nameless one over a single child; siblings and roots
 * keep ROWS' order. A new array. */
GArray *jc_top_proc_tree(GArray *rows, jc_top_parent_fn parent, void *data);
/* jc_top_parent_fn over jetsond's sample (DATA: the jc_sample): PID's
 * process.PID.ppid and process.PID.name. A parent jetsond does not list
 * (it names only the processes on a GPU) is a row with its PID alone, the
 * tree's top. Never this machine's /proc: jetsond's PIDs may be another
 * PID namespace's. */
bool jc_top_sample_parent(uint32_t pid, const char *name, uint32_t *ppid, char *comm, size_t size, void *data);
