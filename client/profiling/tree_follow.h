/* A process tree followed while it runs, as record and measure report it:
 * the tree's CPU time, memory and I/O from /proc (proc_tree.c, with the
 * caller's rights), and its GPU memory, SM use and GPUs from jetsond's
 * process.PID.* keys (the tree's PIDs translated into jetsond's namespace
 * with Metrics.PidsFromCaller). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "jetsonctl.h"

typedef struct {
        unsigned processes;          /* in the tree now (0: the root is gone) */
        /* Since each process started, reaped descendants included; never
         * lower than the sample before (a descendant reaped outside the
         * tree takes its share away, which is not taken back). */
        double user_s, system_s;
        bool have_rss, have_pss, have_io;  /* false: some process hid it */
        uint64_t rss_kib, pss_kib;
        uint64_t read_bytes, write_bytes;
        /* From jetsond (false: it cannot name the tree's processes, or it
         * did not answer). SM use needs a discrete GPU whose per-process
         * use NVML has read for every context of the tree. */
        bool have_gpu, have_sm;
        uint64_t gpu_mem_kib;
        double sm_percent;
        unsigned gpus_busy;          /* GPUs where the tree has memory or a context */
} jc_tree_figures;

typedef struct jc_tree_follow jc_tree_follow;

/* Follows ROOT; the GPU keys are asked for at most every GPU_PERIOD_MS
 * (jetsond refreshes them every 100 ms at best) and held in between. */
jc_tree_follow *jc_tree_follow_new(jc_ctx *c, pid_t root, unsigned gpu_period_ms);
void jc_tree_follow_free(jc_tree_follow *f);
/* Samples the tree now into OUT; false when ROOT is gone (OUT then holds
 * the last figures the tree had). */
bool jc_tree_follow_sample(jc_tree_follow *f, jc_tree_figures *out);
/* The last figures sampled (all zero, nothing present, before the first). */
const jc_tree_figures *jc_tree_follow_last(const jc_tree_follow *f);
/* Whether the tree was sampled once at least. */
bool jc_tree_follow_seen(const jc_tree_follow *f);

/* PID as a process this caller can follow: 0 when it exists (another
 * user's too), -ESRCH when no process has it or it has exited (a zombie). */
int jc_pid_alive(pid_t pid);
/* The PID's command line as /proc/PID/cmdline gives it ("[comm]" for a
 * process without one; NULL when it is gone). g_strfreev. */
char **jc_pid_cmdline(pid_t pid);

/* --pid TEXT of command CMD: a positive number naming a process that
 * runs now, into *PID. Returns JC_EXIT_OK, or prints why not and returns
 * the exit status: 2 for what is no PID, 1 for a process that is not
 * there (or has exited). */
int jc_follow_pid_parse(const char *cmd, const char *text, pid_t *pid);
