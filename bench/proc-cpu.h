/* The CPU a process and each of its threads took, as the bus bench reads
 * them: /proc/PID/stat's clock ticks and the process CPU clock
 * (clock_getcpuclockid), and /proc/PID/task/TID/schedstat per thread. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

typedef struct cpu_source {
        pid_t pid;
        clockid_t clock;
        bool has_clock;
} cpu_source;

typedef struct cpu_reading {
        uint64_t ticks;               /* utime + stime of /proc/PID/stat */
        uint64_t clock_ns;            /* the process CPU clock */
} cpu_reading;

/* Run time of each of a process's threads (/proc/PID/task/TID/schedstat,
 * in ns): where the daemon's CPU goes, tier by tier. */
#define MAX_THREADS 16
typedef struct {
        size_t n;
        char comm[MAX_THREADS][20];
        uint64_t ns[MAX_THREADS];
} thread_times;

cpu_source cpu_source_new(pid_t pid);
/* Exits with a message when PID's stat cannot be read. */
cpu_reading read_cpu(const cpu_source *s);
thread_times read_threads(pid_t pid);
/* "by thread, us per sample": each thread's run time from A to B over SAMPLES. */
void report_threads(const thread_times *a, const thread_times *b, uint64_t samples);
/* WHO's CPU from A to B over WALL_S seconds and SAMPLES samples. */
void report_cpu(const char *who, const cpu_reading *a, const cpu_reading *b, double wall_s, uint64_t samples,
                bool has_clock);
