#include "proc-cpu.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

__attribute__((noreturn)) static void fail(const char *what, int err)
{
        fprintf(stderr, "jetsond-bus-bench: %s: %s\n", what, strerror(err));
        exit(1);
}

cpu_source cpu_source_new(pid_t pid)
{
        cpu_source s = { .pid = pid };
        s.has_clock = clock_getcpuclockid(pid, &s.clock) == 0;
        return s;
}

cpu_reading read_cpu(const cpu_source *s)
{
        cpu_reading c = { 0 };
        char path[64], buf[1024];
        snprintf(path, sizeof(path), "/proc/%d/stat", (int) s->pid);
        FILE *f = fopen(path, "re");
        if (!f)
                fail(path, errno);
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        /* After "(comm)": state ppid pgrp session tty_nr tpgid flags
         * minflt cminflt majflt cmajflt utime stime */
        const char *p = strrchr(buf, ')');
        unsigned long ut = 0, st = 0;
        if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
                fail(path, EINVAL);
        c.ticks = ut + st;
        struct timespec ts;
        if (s->has_clock && clock_gettime(s->clock, &ts) == 0)
                c.clock_ns = (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
        return c;
}

thread_times read_threads(pid_t pid)
{
        thread_times t = { 0 };
        char path[320];
        snprintf(path, sizeof(path), "/proc/%d/task", (int) pid);
        DIR *d = opendir(path);
        for (struct dirent *e; d && (e = readdir(d)) && t.n < MAX_THREADS;) {
                if (e->d_name[0] == '.')
                        continue;
                unsigned long long ns = 0;
                snprintf(path, sizeof(path), "/proc/%d/task/%s/schedstat", (int) pid, e->d_name);
                FILE *f = fopen(path, "re");
                bool ok = f && fscanf(f, "%llu", &ns) == 1;
                if (f)
                        fclose(f);
                snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int) pid, e->d_name);
                f = fopen(path, "re");
                ok = ok && f && fgets(t.comm[t.n], sizeof(t.comm[t.n]), f);
                if (f)
                        fclose(f);
                if (!ok)
                        continue;
                t.comm[t.n][strcspn(t.comm[t.n], "\n")] = '\0';
                t.ns[t.n++] = ns;
        }
        if (d)
                closedir(d);
        return t;
}

void report_threads(const thread_times *a, const thread_times *b, uint64_t samples)
{
        printf("  by thread, us per sample:");
        for (size_t i = 0; i < b->n; i++) {
                uint64_t before = 0;
                for (size_t k = 0; k < a->n; k++)
                        if (strcmp(a->comm[k], b->comm[i]) == 0)
                                before = a->ns[k];
                printf(" %s %.1f", b->comm[i], (double) (b->ns[i] - before) / 1e3 / (double) samples);
        }
        printf("\n");
}

void report_cpu(const char *who, const cpu_reading *a, const cpu_reading *b, double wall_s,
                       uint64_t samples, bool has_clock)
{
        static long tck;
        if (!tck)
                tck = sysconf(_SC_CLK_TCK);
        double stat_s = (double) (b->ticks - a->ticks) / (double) tck;
        printf("  %-11s", who);
        if (has_clock) {
                double cpu_s = (double) (b->clock_ns - a->clock_ns) / 1e9;
                printf(" %6.3f %% of one core, %7.1f us per sample;", 100.0 * cpu_s / wall_s,
                       cpu_s * 1e6 / (double) samples);
        }
        printf(" /proc stat: %llu ticks = %.3f %%, %.1f us per sample\n", (unsigned long long) (b->ticks - a->ticks),
               100.0 * stat_s / wall_s, stat_s * 1e6 / (double) samples);
}
