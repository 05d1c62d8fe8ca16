/* A process tree, as /proc shows it: the processes descended from one
 * pid (children followed as they come and go), summed. What jetsonctl
 * measure and record report of a command's or a followed process's
 * processes (through tree_follow.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct {
        /* CPU time in clock ticks, the reaped children of each process
         * included (cutime, cstime), so a child that ended still counts. */
        uint64_t user_ticks, system_ticks;
        uint64_t rss_bytes, pss_bytes;        /* live processes now */
        uint64_t read_bytes, write_bytes;     /* storage I/O, reaped children included */
        /* Whether every process of the tree let the caller read the
         * field: /proc/PID/statm, smaps_rollup and io need the rights to
         * inspect the process (another user's, a setuid one's). A field
         * some process hid is unknown, not a smaller sum. */
        bool have_rss, have_pss, have_io;
        pid_t *pids;                          /* the tree's pids (g_free) */
        size_t n_pids;
} jc_tree_sample;

/* Samples ROOT and its descendants under PROC ("/proc"). False if ROOT
 * is gone. */
bool jc_proc_tree_sample(const char *proc, pid_t root, jc_tree_sample *out);
void jc_tree_sample_clear(jc_tree_sample *s);
/* The fields of one /proc/PID/stat line: ppid and the four CPU times.
 * Exposed for tests. */
bool jc_parse_pid_stat(const char *text, pid_t *ppid, uint64_t times[4]);
