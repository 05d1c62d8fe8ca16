/* The few NVML types, constants and entry points jetsond uses, declared
 * from NVML's documented API (Debian's main archive has no nvml.h, and
 * jetsond must build and run without the NVIDIA driver): the library is
 * dlopen()ed at run time (nvml.c). Structures are laid out exactly as the
 * API reference gives them. tests/fake-nvml implements the same
 * declarations. */
#pragma once

typedef int nvmlReturn_t;
enum {
        NVML_SUCCESS = 0,
        NVML_ERROR_UNINITIALIZED = 1,
        NVML_ERROR_INVALID_ARGUMENT = 2,
        NVML_ERROR_NOT_SUPPORTED = 3,
        NVML_ERROR_NO_PERMISSION = 4,
        NVML_ERROR_NOT_FOUND = 6,
        NVML_ERROR_INSUFFICIENT_SIZE = 7,
        NVML_ERROR_DRIVER_NOT_LOADED = 9,
        NVML_ERROR_TIMEOUT = 10,
        NVML_ERROR_LIBRARY_NOT_FOUND = 12,
        NVML_ERROR_FUNCTION_NOT_FOUND = 13,
        NVML_ERROR_GPU_IS_LOST = 15,
        NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
        NVML_ERROR_UNKNOWN = 999,
};

typedef struct nvmlDevice_st *nvmlDevice_t;

#define NVML_DEVICE_NAME_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80

typedef struct {
        char busIdLegacy[16];
        unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
        char busId[32]; /* "00000000:01:00.0" */
} nvmlPciInfo_t;

typedef struct {
        unsigned int gpu, memory; /* % */
} nvmlUtilization_t;

typedef struct {
        unsigned long long total, free, used; /* bytes; used counts what the driver reserves */
} nvmlMemory_t;

/* nvmlDeviceGetMemoryInfo_v2's (drivers from R510 on): used leaves the
 * driver's reservation out, as nvidia-smi shows it. The caller sets
 * version; NVML answers NVML_ERROR_ARGUMENT_VERSION_MISMATCH otherwise. */
typedef struct {
        unsigned int version;
        unsigned long long total, reserved, free, used; /* bytes */
} nvmlMemory_v2_t;
#define NVML_STRUCT_VERSION(data, ver) ((unsigned int) (sizeof(nvml##data##_v##ver##_t) | ((ver) << 24U)))
#define nvmlMemory_v2 NVML_STRUCT_VERSION(Memory, 2)

/* The _v2/_v3 process lists' element. */
typedef struct {
        unsigned int pid;
        unsigned long long usedGpuMemory; /* bytes; NVML_VALUE_NOT_AVAILABLE if unknown */
        unsigned int gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;
#define NVML_VALUE_NOT_AVAILABLE 0xFFFFFFFFFFFFFFFFULL

typedef struct {
        unsigned int pid;
        unsigned long long timeStamp; /* µs */
        unsigned int smUtil, memUtil, encUtil, decUtil;
} nvmlProcessUtilizationSample_t;

/* nvmlDeviceGetFieldValues: one request and its answer per element. The
 * caller sets fieldId and scopeId; NVML fills in the rest, with a return
 * code of its own for each field (the call itself succeeds while some
 * fields fail). Layout as nvml.h declares it (fieldId, scopeId,
 * timestamp, latencyUsec, valueType, nvmlReturn, value). */
typedef union {
        double dVal;
        unsigned int uiVal;
        unsigned long ulVal;
        unsigned long long ullVal;
        signed long long sllVal;
        signed int siVal;
        unsigned short usVal;
} nvmlValue_t;
typedef struct {
        unsigned int fieldId;
        unsigned int scopeId;     /* per-link fields: the link; UINT_MAX: all links summed */
        long long timestamp;      /* µs since the Unix epoch, when the driver read it */
        long long latencyUsec;
        int valueType;            /* NVML_VALUE_TYPE_* */
        nvmlReturn_t nvmlReturn;
        nvmlValue_t value;
} nvmlFieldValue_t;
enum {
        NVML_VALUE_TYPE_DOUBLE = 0,
        NVML_VALUE_TYPE_UNSIGNED_INT = 1,
        NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
        NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
        NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
        NVML_VALUE_TYPE_SIGNED_INT = 5,
        NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
};
enum {
        NVML_FI_DEV_MEMORY_TEMP = 82,                 /* °C of the memory (HBM): datacenter GPUs */
        NVML_FI_DEV_NVLINK_LINK_COUNT = 91,           /* links the GPU has */
        NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138,  /* KiB of data sent since the driver loaded */
        NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139,  /* KiB of data received */
};
#define NVML_NVLINK_MAX_LINKS 18
#define NVML_SCOPE_ALL_LINKS 0xFFFFFFFFu

/* Multi-Instance GPU: nvmlDeviceGetMigMode's current mode, and the MIG
 * devices of a parent, by slot (0 to nvmlDeviceGetMaxMigDeviceCount - 1;
 * an empty slot answers NVML_ERROR_NOT_FOUND). A MIG device's handle takes
 * the device calls (UUID, memory; utilization is NOT_SUPPORTED on the
 * drivers so far) and nvmlDeviceGetGpuInstanceId/ComputeInstanceId. */
enum { NVML_DEVICE_MIG_DISABLE = 0, NVML_DEVICE_MIG_ENABLE = 1 };

/* Events: a set per GPU (nvml_events.c), XID errors only. A wait with
 * timeout 0 answers at once: NVML_ERROR_TIMEOUT when none is pending. */
typedef struct nvmlEventSet_st *nvmlEventSet_t;
typedef struct {
        nvmlDevice_t device;
        unsigned long long eventType;
        unsigned long long eventData;         /* the XID; 999: an XID the driver does not know */
        unsigned int gpuInstanceId, computeInstanceId;
} nvmlEventData_t;
#define nvmlEventTypeXidCriticalError 0x0000000000000008ULL

/* GPU Performance Monitoring (Hopper and newer; nvml_gpm.c): a metric is
 * computed from two samples, over the time between them. */
typedef struct {
        struct nvmlGpmSample_st *handle;
} nvmlGpmSample_t;
typedef struct {
        unsigned int metricId;
        nvmlReturn_t nvmlReturn;
        double value;                         /* valid only where nvmlReturn is NVML_SUCCESS */
        struct {
                char *shortName, *longName, *unit;
        } metricInfo;
} nvmlGpmMetric_t;
#define NVML_GPM_METRIC_MAX 98
typedef struct {
        unsigned int version;                 /* NVML_GPM_METRICS_GET_VERSION */
        unsigned int numMetrics;
        nvmlGpmSample_t sample1, sample2;
        nvmlGpmMetric_t metrics[NVML_GPM_METRIC_MAX];
} nvmlGpmMetricsGet_t;
#define NVML_GPM_METRICS_GET_VERSION 1
typedef struct {
        unsigned int version;                 /* NVML_GPM_SUPPORT_VERSION */
        unsigned int isSupportedDevice;
} nvmlGpmSupport_t;
#define NVML_GPM_SUPPORT_VERSION 1
enum {
        NVML_GPM_METRIC_GRAPHICS_UTIL = 1,    /* % of time any graphics or compute engine was active */
        NVML_GPM_METRIC_ANY_TENSOR_UTIL = 5,  /* % of time the SMs ran any tensor instruction */
        NVML_GPM_METRIC_DRAM_BW_UTIL = 10,    /* % of the memory bandwidth's peak used */
};

enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_CLOCK_VIDEO = 3 };

/* The static facts and the rarely changing modes (nvml_facts.c). */
typedef struct {
        unsigned long long bar1Total, bar1Free, bar1Used; /* bytes */
} nvmlBAR1Memory_t;
typedef int nvmlEnableState_t;
enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };
typedef int nvmlComputeMode_t;
enum {
        NVML_COMPUTEMODE_DEFAULT = 0,
        NVML_COMPUTEMODE_EXCLUSIVE_THREAD = 1, /* gone from drivers since CUDA 8 */
        NVML_COMPUTEMODE_PROHIBITED = 2,
        NVML_COMPUTEMODE_EXCLUSIVE_PROCESS = 3,
};
enum { NVML_MEMORY_ERROR_TYPE_CORRECTED = 0, NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1 };
enum { NVML_VOLATILE_ECC = 0, NVML_AGGREGATE_ECC = 1 };
enum { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };
#define NVML_PSTATE_UNKNOWN 32

/* The entry points, as function types for dlsym(). */
typedef nvmlReturn_t nvml_init_fn(void);
typedef nvmlReturn_t nvml_shutdown_fn(void);
typedef const char *nvml_error_string_fn(nvmlReturn_t result);
typedef nvmlReturn_t nvml_get_string_fn(char *buf, unsigned int length);
typedef nvmlReturn_t nvml_count_fn(unsigned int *count);
typedef nvmlReturn_t nvml_handle_fn(unsigned int index, nvmlDevice_t *device);
typedef nvmlReturn_t nvml_device_string_fn(nvmlDevice_t device, char *buf, unsigned int length);
typedef nvmlReturn_t nvml_pci_fn(nvmlDevice_t device, nvmlPciInfo_t *pci);
typedef nvmlReturn_t nvml_utilization_fn(nvmlDevice_t device, nvmlUtilization_t *util);
typedef nvmlReturn_t nvml_memory_fn(nvmlDevice_t device, nvmlMemory_t *memory);
typedef nvmlReturn_t nvml_memory_v2_fn(nvmlDevice_t device, nvmlMemory_v2_t *memory);
typedef nvmlReturn_t nvml_temperature_fn(nvmlDevice_t device, int sensor, unsigned int *temp);
typedef nvmlReturn_t nvml_device_uint_fn(nvmlDevice_t device, unsigned int *value);
typedef nvmlReturn_t nvml_device_ull_fn(nvmlDevice_t device, unsigned long long *value);
typedef nvmlReturn_t nvml_device_int_fn(nvmlDevice_t device, int *value);
typedef nvmlReturn_t nvml_clock_fn(nvmlDevice_t device, int type, unsigned int *mhz);
typedef nvmlReturn_t nvml_codec_fn(nvmlDevice_t device, unsigned int *util, unsigned int *period_us);
typedef nvmlReturn_t nvml_pcie_fn(nvmlDevice_t device, int counter, unsigned int *kbps);
typedef nvmlReturn_t nvml_processes_fn(nvmlDevice_t device, unsigned int *count, nvmlProcessInfo_t *infos);
typedef nvmlReturn_t nvml_mig_mode_fn(nvmlDevice_t device, unsigned int *current, unsigned int *pending);
typedef nvmlReturn_t nvml_mig_handle_fn(nvmlDevice_t device, unsigned int index, nvmlDevice_t *mig);
typedef nvmlReturn_t nvml_field_values_fn(nvmlDevice_t device, int count, nvmlFieldValue_t *values);
typedef nvmlReturn_t nvml_process_util_fn(nvmlDevice_t device, nvmlProcessUtilizationSample_t *samples,
                                          unsigned int *count, unsigned long long last_seen_us);
typedef nvmlReturn_t nvml_event_set_create_fn(nvmlEventSet_t *set);
typedef nvmlReturn_t nvml_event_set_free_fn(nvmlEventSet_t set);
typedef nvmlReturn_t nvml_register_events_fn(nvmlDevice_t device, unsigned long long types, nvmlEventSet_t set);
typedef nvmlReturn_t nvml_event_set_wait_fn(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeout_ms);
typedef nvmlReturn_t nvml_gpm_support_fn(nvmlDevice_t device, nvmlGpmSupport_t *support);
typedef nvmlReturn_t nvml_gpm_sample_alloc_fn(nvmlGpmSample_t *sample);
typedef nvmlReturn_t nvml_gpm_sample_free_fn(nvmlGpmSample_t sample);
typedef nvmlReturn_t nvml_gpm_sample_get_fn(nvmlDevice_t device, nvmlGpmSample_t sample);
typedef nvmlReturn_t nvml_gpm_metrics_get_fn(nvmlGpmMetricsGet_t *metrics);
typedef nvmlReturn_t nvml_system_int_fn(int *value);
typedef nvmlReturn_t nvml_capability_fn(nvmlDevice_t device, int *major, int *minor);
typedef nvmlReturn_t nvml_bar1_fn(nvmlDevice_t device, nvmlBAR1Memory_t *bar1);
typedef nvmlReturn_t nvml_enable_state_fn(nvmlDevice_t device, nvmlEnableState_t *state);
typedef nvmlReturn_t nvml_enable_states_fn(nvmlDevice_t device, nvmlEnableState_t *current,
                                           nvmlEnableState_t *pending);
typedef nvmlReturn_t nvml_compute_mode_fn(nvmlDevice_t device, nvmlComputeMode_t *mode);
typedef nvmlReturn_t nvml_ecc_errors_fn(nvmlDevice_t device, int error_type, int counter_type,
                                        unsigned long long *count);
