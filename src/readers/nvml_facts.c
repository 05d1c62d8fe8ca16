/* A discrete GPU's facts as nvitop's DeviceSnapshot gives them (nvml.h):
 * the CUDA version of the driver, compute capability and BAR1's size
 * (constants), BAR1 in use and the video clock (cheap), and the modes an
 * administrator changes with nvidia-smi (ECC, persistence, compute,
 * display) with, while ECC is on, its error counts (JD_NVML_MODES). A
 * value NVML answers NOT_SUPPORTED for is absent, never 0. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "nvml_private.h"

void jd_nvml_resolve_facts(jd_nvml *n)
{
        void *l = n->lib;
        n->capability = dlsym(l, "nvmlDeviceGetCudaComputeCapability");
        n->bar1 = dlsym(l, "nvmlDeviceGetBAR1MemoryInfo");
        n->ecc_mode = dlsym(l, "nvmlDeviceGetEccMode");
        n->persistence = dlsym(l, "nvmlDeviceGetPersistenceMode");
        n->display_mode = dlsym(l, "nvmlDeviceGetDisplayMode");
        n->display_active = dlsym(l, "nvmlDeviceGetDisplayActive");
        n->compute_mode = dlsym(l, "nvmlDeviceGetComputeMode");
        n->ecc_errors = dlsym(l, "nvmlDeviceGetTotalEccErrors");
        /* 12080 is CUDA 12.8, as nvidia-smi's header shows it. */
        nvml_system_int_fn *cuda = dlsym(l, "nvmlSystemGetCudaDriverVersion_v2");
        if (!cuda)
                cuda = dlsym(l, "nvmlSystemGetCudaDriverVersion");
        int v = 0;
        n->cuda[0] = '\0';
        if (cuda && cuda(&v) == NVML_SUCCESS && v > 0)
                snprintf(n->cuda, sizeof(n->cuda), "%d.%d", v / 1000, v % 1000 / 10);
}

const char *jd_nvml_cuda_driver_version(const jd_nvml *n)
{
        return n->cuda;
}

const char *jd_nvml_compute_mode_name(unsigned long long mode)
{
        switch (mode) {
        case NVML_COMPUTEMODE_DEFAULT: return "default";
        case NVML_COMPUTEMODE_EXCLUSIVE_THREAD: return "exclusive_thread";
        case NVML_COMPUTEMODE_PROHIBITED: return "prohibited";
        case NVML_COMPUTEMODE_EXCLUSIVE_PROCESS: return "exclusive_process";
        default: return "";
        }
}

void jd_nvml_read_constant_facts(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev)
{
        int major = 0, minor = 0;
        nvmlReturn_t r = CALL(n->capability, dev, &major, &minor);
        if (r == NVML_SUCCESS && major >= 0 && minor >= 0) {
                JD_SET(g->cc_major, (unsigned) major);
                JD_SET(g->cc_minor, (unsigned) minor);
        } else if (r == NVML_ERROR_GPU_IS_LOST) {
                g->lost = true;
                return;
        }
        nvmlBAR1Memory_t bar1 = { 0 };
        r = CALL(n->bar1, dev, &bar1);
        jd_nvml_set_u64(g, r, &g->bar1_total_kib, bar1.bar1Total / 1024);
}

bool jd_nvml_read_cheap_facts(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned *unsupported)
{
        nvmlBAR1Memory_t bar1 = { 0 };
        nvmlReturn_t r = ASK(unsupported, ASK_BAR1, n->bar1, dev, &bar1);
        if (!jd_nvml_set_u64(g, r, &g->bar1_used_kib, bar1.bar1Used / 1024))
                return false;
        unsigned mhz = 0;
        r = ASK(unsupported, ASK_VIDEO_CLOCK, n->clock, dev, NVML_CLOCK_VIDEO, &mhz);
        return jd_nvml_set_u64(g, r, &g->video_freq_khz, (unsigned long long) mhz * 1000);
}

/* One of the 0/1 modes through FN into OUT; false once the GPU is lost. */
static bool read_state(nvml_enable_state_fn *fn, jd_nvml_gpu *g, nvmlDevice_t dev, jd_opt_u64 *out)
{
        nvmlEnableState_t state = 0;
        nvmlReturn_t r = CALL(fn, dev, &state);
        if (r == NVML_SUCCESS && state != NVML_FEATURE_ENABLED && state != NVML_FEATURE_DISABLED)
                return true; /* a state NVML did not document: unknown */
        return jd_nvml_set_u64(g, r, out, (unsigned long long) state);
}

/* The ECC error counts while ECC is on (off: none are counted, and NVML
 * answers the last ones or NOT_SUPPORTED; absent). */
static void read_ecc_errors(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev)
{
        const struct {
                int type, counter;
                jd_opt_u64 *out;
        } counts[] = {
                { NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_VOLATILE_ECC, &g->ecc_volatile_corrected },
                { NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_VOLATILE_ECC, &g->ecc_volatile_uncorrected },
                { NVML_MEMORY_ERROR_TYPE_CORRECTED, NVML_AGGREGATE_ECC, &g->ecc_aggregate_corrected },
                { NVML_MEMORY_ERROR_TYPE_UNCORRECTED, NVML_AGGREGATE_ECC, &g->ecc_aggregate_uncorrected },
        };
        for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
                unsigned long long count = 0;
                nvmlReturn_t r = CALL(n->ecc_errors, dev, counts[i].type, counts[i].counter, &count);
                if (!jd_nvml_set_u64(g, r, counts[i].out, count))
                        return;
        }
}

void jd_nvml_read_modes(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev)
{
        nvmlEnableState_t current = 0, pending = 0;
        nvmlReturn_t r = CALL(n->ecc_mode, dev, &current, &pending);
        if (r == NVML_ERROR_GPU_IS_LOST) {
                g->lost = true;
                return;
        }
        if (r == NVML_SUCCESS) {
                if (current == NVML_FEATURE_ENABLED || current == NVML_FEATURE_DISABLED)
                        JD_SET(g->ecc, (unsigned) current);
                if (pending == NVML_FEATURE_ENABLED || pending == NVML_FEATURE_DISABLED)
                        JD_SET(g->ecc_pending, (unsigned) pending);
        }
        if (!read_state(n->persistence, g, dev, &g->persistence) ||
            !read_state(n->display_mode, g, dev, &g->display_mode) ||
            !read_state(n->display_active, g, dev, &g->display_active))
                return;
        nvmlComputeMode_t mode = 0;
        r = CALL(n->compute_mode, dev, &mode);
        if (r == NVML_SUCCESS && !*jd_nvml_compute_mode_name((unsigned) mode))
                r = NVML_ERROR_NOT_SUPPORTED; /* a mode NVML did not document: unknown */
        if (!jd_nvml_set_u64(g, r, &g->compute_mode, (unsigned) mode))
                return;
        if (g->ecc.present && g->ecc.value == NVML_FEATURE_ENABLED)
                read_ecc_errors(n, g, dev);
        g->modes_read = !g->lost;
}
