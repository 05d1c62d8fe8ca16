/* The fake NVML's facts and modes (README.md): the CUDA version
 * ("cuda_driver_version", top level), compute capability, BAR1, the ECC,
 * persistence, compute and display modes and the ECC error counts. A
 * device without the field answers NOT_SUPPORTED, as one whose board or
 * driver lacks it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_nvml.h"

#define EXPORT __attribute__((visibility("default")))
#define COST() fake_call_cost(__func__)

nvml_system_int_fn nvmlSystemGetCudaDriverVersion_v2;
nvml_capability_fn nvmlDeviceGetCudaComputeCapability;
nvml_bar1_fn nvmlDeviceGetBAR1MemoryInfo;
nvml_enable_states_fn nvmlDeviceGetEccMode;
nvml_enable_state_fn nvmlDeviceGetPersistenceMode, nvmlDeviceGetDisplayMode, nvmlDeviceGetDisplayActive;
nvml_compute_mode_fn nvmlDeviceGetComputeMode;
nvml_ecc_errors_fn nvmlDeviceGetTotalEccErrors;

/* The numbers at PATHS (N of them) of DEVICE's object, or NOT_SUPPORTED
 * where one is missing. */
static nvmlReturn_t numbers(nvmlDevice_t device, const char *const *paths, long long *out, size_t n)
{
        JsonObject *dev;
        nvmlReturn_t r = fake_begin(device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        for (size_t i = 0; i < n && r == NVML_SUCCESS; i++) {
                JsonNode *f = fake_field(dev, paths[i]);
                if (f && JSON_NODE_HOLDS_VALUE(f))
                        out[i] = json_node_get_int(f);
                else
                        r = NVML_ERROR_NOT_SUPPORTED;
        }
        fake_end();
        return r;
}

static nvmlReturn_t one_int(nvmlDevice_t device, const char *path, int *out)
{
        if (!out)
                return NVML_ERROR_INVALID_ARGUMENT;
        long long v = 0;
        nvmlReturn_t r = numbers(device, &path, &v, 1);
        if (r == NVML_SUCCESS)
                *out = (int) v;
        return r;
}

/* "cuda_driver_version" beside "devices": NVML's number, 12080 for 12.8. */
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *version)
{
        COST();
        if (!version)
                return NVML_ERROR_INVALID_ARGUMENT;
        JsonObject *root = fake_root();
        JsonNode *v = root ? fake_field(root, "cuda_driver_version") : NULL;
        nvmlReturn_t r = v && JSON_NODE_HOLDS_VALUE(v) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
        if (r == NVML_SUCCESS)
                *version = (int) json_node_get_int(v);
        fake_root_end();
        return r;
}

/* "compute_capability": {"major": 9, "minor": 0} */
EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
        COST();
        if (!major || !minor)
                return NVML_ERROR_INVALID_ARGUMENT;
        static const char *const paths[] = { "compute_capability.major", "compute_capability.minor" };
        long long v[2] = { 0 };
        nvmlReturn_t r = numbers(device, paths, v, 2);
        if (r == NVML_SUCCESS) {
                *major = (int) v[0];
                *minor = (int) v[1];
        }
        return r;
}

/* "bar1": {"total": bytes, "used": bytes}; free is the rest. */
EXPORT nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *bar1)
{
        COST();
        if (!bar1)
                return NVML_ERROR_INVALID_ARGUMENT;
        static const char *const paths[] = { "bar1.total", "bar1.used" };
        long long v[2] = { 0 };
        nvmlReturn_t r = numbers(device, paths, v, 2);
        if (r == NVML_SUCCESS) {
                bar1->bar1Total = (unsigned long long) v[0];
                bar1->bar1Used = (unsigned long long) v[1];
                bar1->bar1Free = bar1->bar1Total - bar1->bar1Used;
        }
        return r;
}

/* "ecc_mode": {"current": 0/1, "pending": 0/1} */
EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending)
{
        COST();
        if (!current || !pending)
                return NVML_ERROR_INVALID_ARGUMENT;
        static const char *const paths[] = { "ecc_mode.current", "ecc_mode.pending" };
        long long v[2] = { 0 };
        nvmlReturn_t r = numbers(device, paths, v, 2);
        if (r == NVML_SUCCESS) {
                *current = (nvmlEnableState_t) v[0];
                *pending = (nvmlEnableState_t) v[1];
        }
        return r;
}

EXPORT nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
        COST();
        return one_int(device, "persistence_mode", mode);
}

/* "compute_mode": NVML's number (0 default, 2 prohibited, 3 exclusive process). */
EXPORT nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
        COST();
        return one_int(device, "compute_mode", mode);
}

EXPORT nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
        COST();
        return one_int(device, "display_mode", mode);
}

EXPORT nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t device, nvmlEnableState_t *active)
{
        COST();
        return one_int(device, "display_active", active);
}

/* "ecc_errors": {"volatile_corrected", "volatile_uncorrected",
 * "aggregate_corrected", "aggregate_uncorrected"}; NOT_SUPPORTED unless
 * "ecc_mode.current" is 1, as NVML needs ECC on. */
EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int error_type, int counter_type,
                                                unsigned long long *count)
{
        COST();
        bool type_ok = error_type == NVML_MEMORY_ERROR_TYPE_CORRECTED || error_type == NVML_MEMORY_ERROR_TYPE_UNCORRECTED;
        bool counter_ok = counter_type == NVML_VOLATILE_ECC || counter_type == NVML_AGGREGATE_ECC;
        if (!count || !type_ok || !counter_ok)
                return NVML_ERROR_INVALID_ARGUMENT;
        char path[64];
        snprintf(path, sizeof(path), "ecc_errors.%s_%s", counter_type == NVML_VOLATILE_ECC ? "volatile" : "aggregate",
                 error_type == NVML_MEMORY_ERROR_TYPE_CORRECTED ? "corrected" : "uncorrected");
        const char *paths[] = { "ecc_mode.current", path };
        long long v[2] = { 0 };
        nvmlReturn_t r = numbers(device, paths, v, 2);
        if (r == NVML_SUCCESS && v[0] != NVML_FEATURE_ENABLED)
                r = NVML_ERROR_NOT_SUPPORTED;
        if (r == NVML_SUCCESS)
                *count = (unsigned long long) v[1];
        return r;
}
