/* The fake NVML's health and activity entry points (README.md): the PCIe
 * replay counter ("pcie_replays"), XID events ("xids") and GPM ("gpm").
 * A device without the field answers NOT_SUPPORTED, as one whose board
 * lacks it. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fake_nvml.h"

#define EXPORT __attribute__((visibility("default")))
#define COST() fake_call_cost(__func__)
#define MAX_DEVICES 64

nvml_device_uint_fn nvmlDeviceGetPcieReplayCounter;
nvml_event_set_create_fn nvmlEventSetCreate;
nvml_event_set_free_fn nvmlEventSetFree;
nvml_register_events_fn nvmlDeviceRegisterEvents;
nvml_event_set_wait_fn nvmlEventSetWait_v2;
nvml_gpm_support_fn nvmlGpmQueryDeviceSupport;
nvml_gpm_sample_alloc_fn nvmlGpmSampleAlloc;
nvml_gpm_sample_free_fn nvmlGpmSampleFree;
nvml_gpm_sample_get_fn nvmlGpmSampleGet;
nvml_gpm_metrics_get_fn nvmlGpmMetricsGet;

static unsigned device_index(nvmlDevice_t device)
{
        return (unsigned) (((uintptr_t) device & 0xffffu) - 1);
}

EXPORT nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value)
{
        COST();
        if (!value)
                return NVML_ERROR_INVALID_ARGUMENT;
        JsonObject *dev;
        nvmlReturn_t r = fake_begin(device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        JsonNode *n = fake_field(dev, "pcie_replays");
        if (n && JSON_NODE_HOLDS_VALUE(n))
                *value = (unsigned) json_node_get_int(n);
        else
                r = NVML_ERROR_NOT_SUPPORTED;
        fake_end();
        return r;
}

/* An event set: for each device registered in it, how many of its
 * "xids" it has delivered. Those listed when the device was registered
 * came before it, as a real set sees only later events; an XID added to
 * the file since is delivered once, in order. */
struct nvmlEventSet_st {
        bool registered[MAX_DEVICES];
        unsigned delivered[MAX_DEVICES];
};

static JsonArray *xids(JsonObject *dev)
{
        JsonNode *n = fake_field(dev, "xids");
        return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
        COST();
        if (!set)
                return NVML_ERROR_INVALID_ARGUMENT;
        *set = calloc(1, sizeof(**set));
        return *set ? NVML_SUCCESS : NVML_ERROR_UNKNOWN;
}

EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
        COST();
        free(set);
        return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long types, nvmlEventSet_t set)
{
        COST();
        unsigned index = device_index(device);
        if (!set || index >= MAX_DEVICES || ((uintptr_t) device >> 16))
                return NVML_ERROR_INVALID_ARGUMENT;
        JsonObject *dev;
        nvmlReturn_t r = fake_begin(device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        JsonArray *list = xids(dev);
        /* Only XID events are known here: any other type asked is not
         * supported, as a real GPU answers for a type it lacks. */
        if (!list || (types & ~nvmlEventTypeXidCriticalError)) {
                r = NVML_ERROR_NOT_SUPPORTED;
        } else {
                set->registered[index] = true;
                set->delivered[index] = json_array_get_length(list);
        }
        fake_end();
        return r;
}

EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeout_ms)
{
        COST();
        (void) timeout_ms; /* nothing comes while waiting: the file changes between calls */
        if (!set || !data)
                return NVML_ERROR_INVALID_ARGUMENT;
        for (unsigned i = 0; i < MAX_DEVICES; i++) {
                if (!set->registered[i])
                        continue;
                nvmlDevice_t device = (nvmlDevice_t) (uintptr_t) (i + 1);
                JsonObject *dev;
                if (fake_begin(device, &dev) != NVML_SUCCESS)
                        continue; /* lost: no event from it */
                JsonArray *list = xids(dev);
                unsigned len = list ? json_array_get_length(list) : 0;
                bool pending = set->delivered[i] < len;
                if (pending) {
                        memset(data, 0, sizeof(*data));
                        data->device = device;
                        data->eventType = nvmlEventTypeXidCriticalError;
                        data->eventData = (unsigned long long) json_array_get_int_element(list, set->delivered[i]++);
                        data->gpuInstanceId = data->computeInstanceId = 0xFFFFFFFFu;
                } else if (set->delivered[i] > len) {
                        set->delivered[i] = len; /* the file's list was cut: later ones are new */
                }
                fake_end();
                if (pending)
                        return NVML_SUCCESS;
        }
        return NVML_ERROR_TIMEOUT;
}

/* GPM: "gpm": {"tensor": %, "graphics": %, "dram": %}, the activities
 * every interval gives; a metric left out answers NOT_SUPPORTED. A
 * device without "gpm" is not a GPM device (before Hopper). */
struct nvmlGpmSample_st {
        nvmlDevice_t device;          /* NULL: never taken */
};

EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *support)
{
        COST();
        if (!support)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (support->version != NVML_GPM_SUPPORT_VERSION)
                return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        JsonObject *dev;
        nvmlReturn_t r = fake_begin(device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        support->isSupportedDevice = fake_field(dev, "gpm") != NULL;
        fake_end();
        return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *sample)
{
        COST();
        if (!sample)
                return NVML_ERROR_INVALID_ARGUMENT;
        sample->handle = calloc(1, sizeof(*sample->handle));
        return sample->handle ? NVML_SUCCESS : NVML_ERROR_UNKNOWN;
}

EXPORT nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample)
{
        COST();
        free(sample.handle);
        return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t sample)
{
        COST();
        if (!sample.handle)
                return NVML_ERROR_INVALID_ARGUMENT;
        JsonObject *dev;
        nvmlReturn_t r = fake_begin(device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        if (fake_field(dev, "gpm"))
                sample.handle->device = device;
        else
                r = NVML_ERROR_NOT_SUPPORTED;
        fake_end();
        return r;
}

EXPORT nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *m)
{
        COST();
        if (!m)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (m->version != NVML_GPM_METRICS_GET_VERSION)
                return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        if (!m->sample1.handle || !m->sample2.handle || !m->sample1.handle->device ||
            m->sample1.handle->device != m->sample2.handle->device || m->numMetrics > NVML_GPM_METRIC_MAX)
                return NVML_ERROR_INVALID_ARGUMENT;
        JsonObject *dev;
        nvmlReturn_t r = fake_begin(m->sample2.handle->device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        for (unsigned i = 0; i < m->numMetrics; i++) {
                nvmlGpmMetric_t *metric = &m->metrics[i];
                const char *name = metric->metricId == NVML_GPM_METRIC_ANY_TENSOR_UTIL ? "gpm.tensor"
                                   : metric->metricId == NVML_GPM_METRIC_GRAPHICS_UTIL ? "gpm.graphics"
                                   : metric->metricId == NVML_GPM_METRIC_DRAM_BW_UTIL  ? "gpm.dram"
                                                                                       : NULL;
                JsonNode *n = name ? fake_field(dev, name) : NULL;
                metric->nvmlReturn = n && JSON_NODE_HOLDS_VALUE(n) ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
                metric->value = metric->nvmlReturn == NVML_SUCCESS ? json_node_get_double(n) : 0;
        }
        fake_end();
        return NVML_SUCCESS;
}
