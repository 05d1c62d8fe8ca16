/* libnvml-timing.so: NVML with each call timed, to see where a real
 * driver's time goes inside jetsond's own calling pattern.
 *
 *   NVML_TIMING_LIBRARY=libnvidia-ml.so.1 jetsond-nvml-bench build/bench/libnvml-timing.so / 100
 *   jetsond --nvml-library build/bench/libnvml-timing.so ...
 *
 * Every entry point jetsond resolves (src/readers/nvml.c) is forwarded to
 * the library NVML_TIMING_LIBRARY names; at exit each one's calls, mean
 * CPU time of the calling thread and mean wall time go to stderr. NVML's
 * entry points take only pointers and integers (a GPM sample is a struct
 * of one pointer, passed as one), so one forwarder of six integer
 * registers serves them all on x86-64 and aarch64 (the ABIs pass
 * both kinds in the same registers). Not for production: a bench tool. */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NVML_ENTRY_POINTS(X)                                                                                     \
        X(nvmlInit) X(nvmlInit_v2) X(nvmlShutdown) X(nvmlSystemGetDriverVersion) X(nvmlDeviceGetCount)            \
        X(nvmlDeviceGetCount_v2) X(nvmlDeviceGetHandleByIndex) X(nvmlDeviceGetHandleByIndex_v2)                  \
        X(nvmlDeviceGetName) X(nvmlDeviceGetUUID) X(nvmlDeviceGetPciInfo_v2) X(nvmlDeviceGetPciInfo_v3)           \
        X(nvmlDeviceGetUtilizationRates) X(nvmlDeviceGetMemoryInfo) X(nvmlDeviceGetMemoryInfo_v2)                 \
        X(nvmlDeviceGetTemperature) X(nvmlDeviceGetPowerUsage) X(nvmlDeviceGetEnforcedPowerLimit)                 \
        X(nvmlDeviceGetFanSpeed) X(nvmlDeviceGetTotalEnergyConsumption) X(nvmlDeviceGetCurrentClocksEventReasons) \
        X(nvmlDeviceGetCurrentClocksThrottleReasons) X(nvmlDeviceGetPerformanceState) X(nvmlDeviceGetClockInfo)   \
        X(nvmlDeviceGetMaxClockInfo) X(nvmlDeviceGetEncoderUtilization) X(nvmlDeviceGetDecoderUtilization)        \
        X(nvmlDeviceGetPcieThroughput) X(nvmlDeviceGetComputeRunningProcesses_v2)                                 \
        X(nvmlDeviceGetComputeRunningProcesses_v3) X(nvmlDeviceGetGraphicsRunningProcesses_v2)                    \
        X(nvmlDeviceGetGraphicsRunningProcesses_v3) X(nvmlDeviceGetProcessUtilization)                            \
        X(nvmlDeviceGetFieldValues) X(nvmlDeviceGetMigMode) X(nvmlDeviceGetMaxMigDeviceCount)                     \
        X(nvmlDeviceGetMigDeviceHandleByIndex) X(nvmlDeviceGetGpuInstanceId) X(nvmlDeviceGetComputeInstanceId)   \
        X(nvmlDeviceGetPcieReplayCounter) X(nvmlEventSetCreate) X(nvmlEventSetFree) X(nvmlDeviceRegisterEvents)   \
        X(nvmlEventSetWait_v2) X(nvmlGpmQueryDeviceSupport) X(nvmlGpmSampleAlloc) X(nvmlGpmSampleFree)             \
        X(nvmlGpmSampleGet) X(nvmlGpmMetricsGet) X(nvmlSystemGetCudaDriverVersion)                                 \
        X(nvmlSystemGetCudaDriverVersion_v2) X(nvmlDeviceGetCudaComputeCapability) X(nvmlDeviceGetBAR1MemoryInfo) \
        X(nvmlDeviceGetEccMode) X(nvmlDeviceGetPersistenceMode) X(nvmlDeviceGetComputeMode)                        \
        X(nvmlDeviceGetDisplayMode) X(nvmlDeviceGetDisplayActive) X(nvmlDeviceGetTotalEccErrors)

typedef int forward_fn(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);

typedef struct {
        const char *name;
        forward_fn *real;
        atomic_ullong calls, cpu_ns, wall_ns;
} entry;

#define NAME_ENTRY(fn) { #fn, NULL, 0, 0, 0 },
static entry entries[] = { NVML_ENTRY_POINTS(NAME_ENTRY) };
#define N_ENTRIES (sizeof(entries) / sizeof(entries[0]))
enum {
#define INDEX(fn) INDEX_##fn,
        NVML_ENTRY_POINTS(INDEX)
};

static void *real_library;
static const char *(*real_error_string)(int);

static unsigned long long now_ns(clockid_t clock)
{
        struct timespec ts;
        clock_gettime(clock, &ts);
        return (unsigned long long) ts.tv_sec * 1000000000ull + (unsigned long long) ts.tv_nsec;
}

__attribute__((constructor)) static void load(void)
{
        const char *path = getenv("NVML_TIMING_LIBRARY");
        real_library = dlopen(path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!real_library) {
                fprintf(stderr, "nvml-timing: %s\n", dlerror());
                return;
        }
        for (size_t i = 0; i < N_ENTRIES; i++)
                entries[i].real = (forward_fn *) dlsym(real_library, entries[i].name);
        real_error_string = (const char *(*)(int)) dlsym(real_library, "nvmlErrorString");
}

__attribute__((destructor)) static void report(void)
{
        fprintf(stderr, "nvml-timing: %-44s %9s %12s %12s\n", "entry point", "calls", "CPU us/call", "wall us/call");
        for (size_t i = 0; i < N_ENTRIES; i++) {
                unsigned long long calls = atomic_load(&entries[i].calls);
                if (calls)
                        fprintf(stderr, "nvml-timing: %-44s %9llu %12.1f %12.1f\n", entries[i].name, calls,
                                (double) atomic_load(&entries[i].cpu_ns) / 1e3 / (double) calls,
                                (double) atomic_load(&entries[i].wall_ns) / 1e3 / (double) calls);
        }
}

static int timed(size_t i, uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d, uintptr_t e, uintptr_t f)
{
        entry *x = &entries[i];
        if (!x->real)
                return 13; /* NVML_ERROR_FUNCTION_NOT_FOUND */
        unsigned long long cpu = now_ns(CLOCK_THREAD_CPUTIME_ID), wall = now_ns(CLOCK_MONOTONIC);
        int r = x->real(a, b, c, d, e, f);
        atomic_fetch_add(&x->wall_ns, now_ns(CLOCK_MONOTONIC) - wall);
        atomic_fetch_add(&x->cpu_ns, now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu);
        atomic_fetch_add(&x->calls, 1);
        return r;
}

#define PROTOTYPE(fn) int fn(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);
NVML_ENTRY_POINTS(PROTOTYPE)
const char *nvmlErrorString(int r);

#define FORWARDER(fn)                                                                                       \
        __attribute__((visibility("default"))) int fn(uintptr_t a, uintptr_t b, uintptr_t c, uintptr_t d,   \
                                                      uintptr_t e, uintptr_t f)                             \
        {                                                                                                   \
                return timed(INDEX_##fn, a, b, c, d, e, f);                                                 \
        }
NVML_ENTRY_POINTS(FORWARDER)

__attribute__((visibility("default"))) const char *nvmlErrorString(int r)
{
        return real_error_string ? real_error_string(r) : "unknown error (nvml-timing)";
}
