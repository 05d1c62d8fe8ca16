/* jetsond-nvml-bench: what NVIDIA GPUs add to a sample.
 *
 *   FAKE_NVML_CONFIG=FILE jetsond-nvml-bench LIBRARY [SYSROOT] [ITERATIONS]
 *
 * CPU time of one NVML read of every key of each GPU (jd_nvml_read_gpu:
 * about 30 NVML calls, the library's own cost included) and of its cheap
 * part (JD_NVML_CHEAP, what each sample reads), of turning it
 * into the GPU's keys (jd_values_add_nvml_gpu), and of a full sample of
 * the board (every tier and its keys) next to its floor, pread-ing the
 * files that sample reads with no parsing, as jetsond-bench measures it;
 * and each part of a read (nvml.h) alone, CPU and wall time.
 * With the fake NVML of the tests the library's share is the fake's (a
 * stat() and a JSON lookup per call), not a driver's; the keys' share is
 * jetsond's own. Not a timed test: numbers depend on the machine. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "file-set.h"
#include "nvml.h"
#include "sampler.h"
#include "values.h"

static double cpu_us(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static double wall_us(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

/* Each part of a read on its own (nvml.h), CPU and wall time: with the
 * fake's costs_profile these are the driver's modelled costs, to place a
 * part in the cheap reads or the costly thread (gpu_poller.c). */
static void print_parts(jd_nvml *n, unsigned index, jd_nvml_gpu *g, int iterations)
{
        static const struct {
                unsigned part;
                const char *name;
        } parts[] = { { JD_NVML_CONSTANTS, "constants" }, { JD_NVML_CHEAP, "cheap" },
                      { JD_NVML_ENERGY, "energy" },       { JD_NVML_PCIE, "pcie" },
                      { JD_NVML_NVLINK, "nvlink" },       { JD_NVML_PROCESS_SM, "process_sm" },
                      { JD_NVML_HEALTH, "health" },       { JD_NVML_GPM, "gpm" },
                      { JD_NVML_MODES, "modes" } };
        for (size_t p = 0; p < sizeof(parts) / sizeof(parts[0]); p++) {
                /* The costly parts wait: a tenth of the iterations. */
                int rounds = parts[p].part == JD_NVML_CHEAP ? iterations : iterations / 10 + 1;
                double cpu = cpu_us(), wall = wall_us();
                for (int k = 0; k < rounds; k++) {
                        jd_nvml_gpu_clear(g);
                        jd_nvml_read_parts(n, index, parts[p].part, g);
                }
                printf("figure: GPU %u NVML part %s: %.1f us CPU, %.1f us wall per read\n", index, parts[p].name,
                       (cpu_us() - cpu) / rounds, (wall_us() - wall) / rounds);
        }
}

int main(int argc, char **argv)
{
        if (argc < 2) {
                fprintf(stderr, "usage: FAKE_NVML_CONFIG=FILE %s LIBRARY [SYSROOT] [ITERATIONS]\n", argv[0]);
                return 2;
        }
        const char *sysroot = argc > 2 ? argv[2] : BENCH_DEFAULT_SYSROOT;
        int iterations = argc > 3 ? atoi(argv[3]) : 2000;
        char why[256];
        jd_nvml *n = jd_nvml_open(argv[1], why, sizeof(why));
        if (!n) {
                fprintf(stderr, "NVML: %s\n", why);
                return 1;
        }
        const char *err = NULL;
        jd_sysroot *sr = jd_sysroot_new(sysroot, &err);
        jd_sampler *sampler = sr ? jd_sampler_new(sr) : NULL;
        if (!sampler) {
                fprintf(stderr, "%s: %s\n", sysroot, err ? err : "cannot sample");
                return 1;
        }
        unsigned count = jd_nvml_count(n);
        printf("%u GPU%s through %s (driver %s), %d iterations\n", count, count == 1 ? "" : "s", argv[1],
               jd_nvml_driver_version(n), iterations);

        jd_nvml_gpu *g = calloc(1, sizeof(*g));
        jd_values v;
        jd_values_init(&v);
        double gpus_us = 0;
        for (unsigned i = 0; g && i < count; i++) {
                double start = cpu_us();
                for (int k = 0; k < iterations; k++) {
                        jd_nvml_gpu_clear(g); /* the last read's process list */
                        jd_nvml_read_gpu(n, i, g);
                }
                double read = (cpu_us() - start) / iterations;
                /* What a sample pays since issue 35: the cheap part. */
                start = cpu_us();
                for (int k = 0; k < iterations; k++) {
                        jd_nvml_gpu_clear(g);
                        jd_nvml_read_parts(n, i, JD_NVML_CHEAP, g);
                }
                double cheap = (cpu_us() - start) / iterations;
                print_parts(n, i, g, iterations);
                jd_nvml_gpu_clear(g);
                jd_nvml_read_gpu(n, i, g);
                start = cpu_us();
                for (int k = 0; k < iterations; k++) {
                        jd_values_begin(&v);
                        jd_values_add_nvml_gpu(&v, g, false);
                        jd_values_end(&v);
                }
                double keys = (cpu_us() - start) / iterations;
                gpus_us += read + keys;
                printf("GPU %u (%s): NVML read %.1f us (of which the cheap part, read every sample: %.1f us), its "
                       "%zu keys %.2f us\n", i, g->name, read, cheap, v.n, keys);
        }

        /* The board's full sample and its floor. */
        static file_set set;
        file_set_record(&set, sampler, JD_TIER_ALL);
        static char buf[1 << 20];
        double start = cpu_us();
        for (int k = 0; k < iterations; k++) {
                const jd_sample *s = jd_sampler_sample(sampler, JD_TIER_ALL);
                jd_values_from_sample(&v, s);
        }
        double sample = (cpu_us() - start) / iterations;
        start = cpu_us();
        for (int k = 0; k < iterations; k++)
                file_set_pread(&set, buf, sizeof(buf));
        double floor = (cpu_us() - start) / iterations;
        printf("full sample of %s: %.1f us, floor (pread of its %zu files) %.1f us: %.2fx\n", sysroot, sample,
               set.n, floor, sample / floor);
        printf("with the %u GPU%s: %.1f us, %.2fx the floor\n", count, count == 1 ? "" : "s", sample + gpus_us,
               (sample + gpus_us) / floor);

        file_set_free(&set);
        jd_values_clear(&v);
        if (g)
                jd_nvml_gpu_clear(g);
        free(g);
        jd_sampler_free(sampler);
        jd_sysroot_free(sr);
        jd_nvml_close(n);
        return 0;
}
