/* The GPU processes of a sample as nvitop lists them (jetsonctl status
 * and top): one row per process and GPU, from the process.PID.* keys
 * (name, user, cpu, rss, gpu_mem, ppid, start_time) and the
 * process.PID.dgpu.N.* keys (mem, sm, type) of discrete GPUs. Memory that process.PID.gpu_mem counts beyond its
 * discrete GPUs' is the SoC's own GPU (nvmap on a Jetson). Pure:
 * unit-tested without a bus (tests/client/test-gpu-procs.c). */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/sample.h"

#define JC_GPU_SOC (-1)

/* The contexts a process has on a GPU (process.PID.dgpu.N.type), as
 * nvitop's C, G and C+G; 0 unknown (the SoC's GPU says nothing). */
enum { JC_GPU_COMPUTE = 1, JC_GPU_GRAPHICS = 2 };

typedef struct {
        uint32_t pid;
        int gpu;                      /* NVML index of a discrete GPU, or JC_GPU_SOC */
        char name[64], user[32];      /* "" when absent */
        /* The whole command line where the caller may read it
         * (jc_sample_read_commands), its first 4095 bytes; "" otherwise. */
        char command[4096];
        bool has_mem, has_sm, has_cpu, has_rss;
        uint64_t mem_kib, rss_kib;    /* GPU memory on this GPU; the process's RSS */
        double sm, cpu;               /* %; cpu of one CPU */
        unsigned type;                /* JC_GPU_COMPUTE | JC_GPU_GRAPHICS, 0 unknown */
        uint32_t ppid;                /* 0 unknown */
        bool has_start;
        double start_time;            /* seconds since the Unix epoch */
} jc_gpu_process_row;

typedef enum { JC_TOP_SORT_GPU_MEM, JC_TOP_SORT_CPU, JC_TOP_SORT_RSS, JC_TOP_SORT_PID, JC_TOP_SORT_N } jc_top_sort;

/* The sort's column title, as top shows it. */
const char *jc_top_sort_name(jc_top_sort sort);
/* The command a list shows for R: its whole command line, or its name
 * where that could not be read; "" when neither is known. */
const char *jc_gpu_process_command(const jc_gpu_process_row *r);
/* The rows of S, largest first by SORT (PID: ascending), a row without
 * the sort's value last, then by PID and GPU. */
GArray *jc_gpu_process_rows(const jc_sample *s, jc_top_sort sort);
