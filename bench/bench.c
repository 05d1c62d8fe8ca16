/* jetsond-bench: where does sampling time go?
 *
 * Reports the CPU time of one fast-tier sample and one full sample on a
 * board tree, next to the floor: pread-ing the very files the readers keep
 * open, with no parsing at all. Usage: jetsond-bench [SYSROOT] [ITERATIONS]
 * Not a timed test: numbers depend on the machine; compare the ratios. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "emc.h"
#include "gpu.h"
#include "memory.h"
#include "sampler.h"
#include "values.h"

#define MAX_FILES 4096

typedef struct {
        char *paths[MAX_FILES];
        int fds[MAX_FILES];
        size_t n;
} file_set;

static double cpu_seconds(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* Paths of the regular files this process has open, other than those in BEFORE. */
static void open_files(file_set *out, const file_set *before)
{
        DIR *d = opendir("/proc/self/fd");
        struct dirent *e;
        out->n = 0;
        while (d && (e = readdir(d)) && out->n < MAX_FILES) {
                char link[64], target[PATH_MAX];
                int fd = atoi(e->d_name);
                if (e->d_name[0] == '.' || fd == dirfd(d))
                        continue;
                snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
                ssize_t n = readlink(link, target, sizeof(target) - 1);
                if (n <= 0)
                        continue;
                target[n] = '\0';
                if (target[0] != '/')
                        continue;
                bool seen = false;
                for (size_t i = 0; before && i < before->n; i++)
                        seen |= strcmp(before->paths[i], target) == 0;
                if (!seen)
                        out->paths[out->n++] = strdup(target);
        }
        if (d)
                closedir(d);
}

static void open_set(file_set *s)
{
        for (size_t i = 0; i < s->n; i++)
                s->fds[i] = open(s->paths[i], O_RDONLY | O_CLOEXEC);
}

static void pread_set(const file_set *s, char *buf, size_t size)
{
        for (size_t i = 0; i < s->n; i++)
                if (s->fds[i] >= 0 && pread(s->fds[i], buf, size, 0) < 0)
                        perror("pread");
}

static void free_set(file_set *s)
{
        for (size_t i = 0; i < s->n; i++) {
                if (s->fds[i] >= 0)
                        close(s->fds[i]);
                free(s->paths[i]);
        }
        s->n = 0;
}

int main(int argc, char **argv)
{
        const char *dir = argc > 1 ? argv[1] : BENCH_DEFAULT_SYSROOT;
        int iterations = argc > 2 ? atoi(argv[2]) : 2000;
        const char *why;
        jd_sysroot *sr = jd_sysroot_new(dir, &why);
        if (!sr || iterations <= 0) {
                fprintf(stderr, "jetsond-bench: %s: %s\n", dir, sr ? "bad iteration count" : why);
                return 2;
        }
        static file_set base, fast, all;
        static char buf[65536];
        open_files(&base, NULL);

        /* The fast tier's files: those its four readers open. */
        jd_cpu_reader *cpu = jd_cpu_reader_new(sr);
        jd_gpu_reader *gpu = jd_gpu_reader_new(sr);
        jd_emc_reader *emc = jd_emc_reader_new(sr);
        jd_memory_reader *mem = jd_memory_reader_new(sr);
        open_files(&fast, &base);
        jd_cpu_reader_free(cpu);
        jd_gpu_reader_free(gpu);
        jd_emc_reader_free(emc);
        jd_memory_reader_free(mem);

        jd_sampler *sampler = jd_sampler_new(sr);
        open_files(&all, &base);
        open_set(&fast);
        open_set(&all);
        jd_values values;
        jd_values_init(&values);

        double t0 = cpu_seconds();
        for (int i = 0; i < iterations; i++)
                pread_set(&fast, buf, sizeof(buf));
        double floor_fast = (cpu_seconds() - t0) / iterations;

        t0 = cpu_seconds();
        for (int i = 0; i < iterations; i++)
                jd_values_from_sample(&values, jd_sampler_sample(sampler, JD_TIER_FAST));
        double fast_sample = (cpu_seconds() - t0) / iterations;

        t0 = cpu_seconds();
        for (int i = 0; i < iterations; i++)
                pread_set(&all, buf, sizeof(buf));
        double floor_all = (cpu_seconds() - t0) / iterations;

        t0 = cpu_seconds();
        for (int i = 0; i < iterations; i++)
                jd_values_from_sample(&values, jd_sampler_sample(sampler, JD_TIER_ALL));
        double full_sample = (cpu_seconds() - t0) / iterations;

        printf("sysroot: %s (%d iterations, CPU time per sample)\n", dir, iterations);
        printf("%-34s %6zu files %9.1f us\n", "floor: pread of the fast tier's", fast.n, floor_fast * 1e6);
        printf("%-34s %18.1f us  (%.2fx floor)\n", "fast tier sample + values", fast_sample * 1e6,
               fast_sample / floor_fast);
        printf("%-34s %6zu files %9.1f us\n", "floor: pread of every open file", all.n, floor_all * 1e6);
        printf("%-34s %18.1f us  (%.2fx floor)\n", "full sample + values", full_sample * 1e6,
               full_sample / floor_all);
        printf("values per sample: %zu\n", values.n);

        jd_values_clear(&values);
        jd_sampler_free(sampler);
        free_set(&fast);
        free_set(&all);
        free_set(&base);
        jd_sysroot_free(sr);
        return 0;
}
