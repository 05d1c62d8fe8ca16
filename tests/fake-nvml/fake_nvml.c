/* A fake libnvidia-ml.so.1 for the tests: the NVML entry points jetsond
 * uses (src/readers/nvml_api.h), answering from the JSON file named by
 * FAKE_NVML_CONFIG, which is read again whenever it changes, so a test can
 * change a GPU while jetsond runs. The format is in README.md beside this
 * file. A field left out answers NVML_ERROR_NOT_SUPPORTED; "lost": true
 * answers NVML_ERROR_GPU_IS_LOST to every call on the device; "delay_ms"
 * makes every call on the device sleep that long (a hung driver). Every
 * entry point is counted and costs what the config says (costs.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <json-glib/json-glib.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "costs.h"
#include "fake_nvml.h"
#include "nvml_api.h"

#define EXPORT __attribute__((visibility("default")))

/* The entry points, declared through nvml_api.h's types, so the fake and
 * jetsond agree on every signature. */
nvml_init_fn nvmlInit_v2;
nvml_shutdown_fn nvmlShutdown;
nvml_error_string_fn nvmlErrorString;
nvml_get_string_fn nvmlSystemGetDriverVersion;
nvml_count_fn nvmlDeviceGetCount_v2;
nvml_handle_fn nvmlDeviceGetHandleByIndex_v2;
nvml_device_string_fn nvmlDeviceGetName, nvmlDeviceGetUUID;
nvml_device_uint_fn nvmlDeviceGetMinorNumber;
nvml_pci_fn nvmlDeviceGetPciInfo_v3;
nvml_utilization_fn nvmlDeviceGetUtilizationRates;
nvml_memory_fn nvmlDeviceGetMemoryInfo;
nvml_memory_v2_fn nvmlDeviceGetMemoryInfo_v2;
nvml_temperature_fn nvmlDeviceGetTemperature;
nvml_device_uint_fn nvmlDeviceGetPowerUsage, nvmlDeviceGetEnforcedPowerLimit, nvmlDeviceGetFanSpeed;
nvml_device_ull_fn nvmlDeviceGetTotalEnergyConsumption, nvmlDeviceGetCurrentClocksEventReasons;
nvml_device_int_fn nvmlDeviceGetPerformanceState;
nvml_clock_fn nvmlDeviceGetClockInfo, nvmlDeviceGetMaxClockInfo;
nvml_codec_fn nvmlDeviceGetEncoderUtilization, nvmlDeviceGetDecoderUtilization;
nvml_pcie_fn nvmlDeviceGetPcieThroughput;
nvml_processes_fn nvmlDeviceGetComputeRunningProcesses_v3, nvmlDeviceGetGraphicsRunningProcesses_v3;
nvml_process_util_fn nvmlDeviceGetProcessUtilization;
nvml_field_values_fn nvmlDeviceGetFieldValues;
nvml_mig_mode_fn nvmlDeviceGetMigMode;
nvml_mig_handle_fn nvmlDeviceGetMigDeviceHandleByIndex;
nvml_device_uint_fn nvmlDeviceGetMaxMigDeviceCount, nvmlDeviceGetGpuInstanceId, nvmlDeviceGetComputeInstanceId;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static JsonParser *parser;            /* the file as last read; NULL: no file */
static struct stat loaded;            /* its identity when read */
static int initialized;               /* nvmlInit count */

/* Reads the file again if it changed (or appeared, or went away). Under
 * the lock. */
static void reload(void)
{
        const char *path = getenv("FAKE_NVML_CONFIG");
        struct stat st;
        if (!path || stat(path, &st) != 0) {
                g_clear_object(&parser);
                fake_load_profile(NULL, NULL);
                memset(&loaded, 0, sizeof(loaded));
                return;
        }
        if (parser && st.st_ino == loaded.st_ino && st.st_size == loaded.st_size &&
            st.st_mtim.tv_sec == loaded.st_mtim.tv_sec && st.st_mtim.tv_nsec == loaded.st_mtim.tv_nsec)
                return;
        JsonParser *p = json_parser_new();
        if (!json_parser_load_from_file(p, path, NULL)) {
                /* Half written: keep what was there, try again next call. */
                g_object_unref(p);
                return;
        }
        g_clear_object(&parser);
        parser = p;
        loaded = st;
        fake_load_profile(parser, path);
}

/* Every entry point starts here: FN is counted and costs what the config
 * says (costs.c), paid without the lock. */
static void call_cost(const char *fn)
{
        pthread_mutex_lock(&lock);
        reload();
        fake_count_call(fn);
        fake_cost cost = fake_cost_of(parser, fn);
        pthread_mutex_unlock(&lock);
        fake_spend(cost);
}

#define COST() call_cost(__func__)

static JsonArray *devices(void)
{
        JsonNode *root = parser ? json_parser_get_root(parser) : NULL;
        if (!root || !JSON_NODE_HOLDS_OBJECT(root))
                return NULL;
        JsonObject *o = json_node_get_object(root);
        JsonNode *d = json_object_get_member(o, "devices");
        return d && JSON_NODE_HOLDS_ARRAY(d) ? json_node_get_array(d) : NULL;
}

static unsigned n_devices(void)
{
        JsonArray *a = devices();
        return a ? json_array_get_length(a) : 0;
}

/* Member PATH ("memory.total") of device object DEV, or NULL. */
static JsonNode *field(JsonObject *dev, const char *path)
{
        g_auto(GStrv) parts = g_strsplit(path, ".", -1);
        JsonObject *o = dev;
        JsonNode *n = NULL;
        for (char **p = parts; *p; p++) {
                if (!o || !json_object_has_member(o, *p))
                        return NULL;
                n = json_object_get_member(o, *p);
                o = JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
        }
        return n && !JSON_NODE_HOLDS_NULL(n) ? n : NULL;
}

static JsonObject *device_object(unsigned index)
{
        JsonArray *a = devices();
        if (!a || index >= json_array_get_length(a))
                return NULL;
        JsonNode *n = json_array_get_element(a, index);
        return JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static long long int_field(JsonObject *dev, const char *path, long long fallback)
{
        JsonNode *n = field(dev, path);
        return n && JSON_NODE_HOLDS_VALUE(n) ? json_node_get_int(n) : fallback;
}

static void sleep_ms(long long ms)
{
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
                ;
}

/* Takes the lock and finds DEVICE's object in the current file, after
 * its delay_ms (slept without the lock, so other devices answer). On
 * success the lock stays held: end() releases it. */
/* A handle is the GPU's index + 1 in its low 16 bits and, for a MIG
 * device, its slot + 1 above them. */
#define MIG_SHIFT 16

/* The object of HANDLE in the current file: the GPU's, or that of its
 * MIG device in "mig": {"devices": [{"slot": S, ...}]}. Under the lock. */
static JsonObject *handle_object(uintptr_t handle)
{
        JsonObject *dev = device_object((unsigned) ((handle & 0xffffu) - 1));
        unsigned slot = (unsigned) (handle >> MIG_SHIFT);
        if (!dev || !slot)
                return dev;
        JsonNode *list = field(dev, "mig");
        list = list && JSON_NODE_HOLDS_OBJECT(list) ? json_object_get_member(json_node_get_object(list), "devices")
                                                     : NULL;
        JsonArray *a = list && JSON_NODE_HOLDS_ARRAY(list) ? json_node_get_array(list) : NULL;
        for (guint i = 0; a && i < json_array_get_length(a); i++) {
                JsonObject *m = json_array_get_object_element(a, i);
                if (m && int_field(m, "slot", -1) == (long long) slot - 1)
                        return m;
        }
        return NULL;
}

static nvmlReturn_t begin(nvmlDevice_t device, JsonObject **dev)
{
        uintptr_t handle = (uintptr_t) device;
        unsigned index = (unsigned) ((handle & 0xffffu) - 1);
        pthread_mutex_lock(&lock);
        if (!initialized) {
                pthread_mutex_unlock(&lock);
                return NVML_ERROR_UNINITIALIZED;
        }
        reload();
        *dev = device_object(index);
        long long delay = *dev ? int_field(*dev, "delay_ms", 0) : 0;
        if (delay > 0) {
                pthread_mutex_unlock(&lock);
                sleep_ms(delay);
                pthread_mutex_lock(&lock);
                reload();
                *dev = device_object(index);
        }
        /* A device that left the file has fallen off the bus. */
        if (!*dev || (field(*dev, "lost") && json_node_get_boolean(field(*dev, "lost")))) {
                pthread_mutex_unlock(&lock);
                return NVML_ERROR_GPU_IS_LOST;
        }
        *dev = handle_object(handle);
        if (!*dev) { /* a MIG device that is no more */
                pthread_mutex_unlock(&lock);
                return NVML_ERROR_GPU_IS_LOST;
        }
        return NVML_SUCCESS;
}

static void end(void)
{
        pthread_mutex_unlock(&lock);
}

/* For the other files of the fake (fake_nvml.h). */
nvmlReturn_t fake_begin(nvmlDevice_t device, JsonObject **dev)
{
        return begin(device, dev);
}

void fake_end(void)
{
        end();
}

JsonNode *fake_field(JsonObject *dev, const char *path)
{
        return field(dev, path);
}

JsonObject *fake_root(void)
{
        pthread_mutex_lock(&lock);
        reload();
        JsonNode *root = parser ? json_parser_get_root(parser) : NULL;
        return root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
}

void fake_root_end(void)
{
        pthread_mutex_unlock(&lock);
}

void fake_call_cost(const char *fn)
{
        call_cost(fn);
}

/* One number of the device (PATH), or NOT_SUPPORTED. */
static nvmlReturn_t get_number(nvmlDevice_t device, const char *path, unsigned long long *out)
{
        JsonObject *dev;
        nvmlReturn_t r = begin(device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        JsonNode *n = field(dev, path);
        if (n && JSON_NODE_HOLDS_VALUE(n))
                *out = (unsigned long long) json_node_get_int(n);
        else
                r = NVML_ERROR_NOT_SUPPORTED;
        end();
        return r;
}

static nvmlReturn_t get_uint(nvmlDevice_t device, const char *path, unsigned int *out)
{
        if (!out)
                return NVML_ERROR_INVALID_ARGUMENT;
        unsigned long long v = 0;
        nvmlReturn_t r = get_number(device, path, &v);
        if (r == NVML_SUCCESS)
                *out = (unsigned int) v;
        return r;
}

static nvmlReturn_t get_string(nvmlDevice_t device, const char *path, char *buf, unsigned int length)
{
        if (!buf)
                return NVML_ERROR_INVALID_ARGUMENT;
        JsonObject *dev;
        nvmlReturn_t r = begin(device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        JsonNode *n = field(dev, path);
        const char *s = n && JSON_NODE_HOLDS_VALUE(n) ? json_node_get_string(n) : NULL;
        if (!s)
                r = NVML_ERROR_NOT_SUPPORTED;
        else if (strlen(s) >= length)
                r = NVML_ERROR_INSUFFICIENT_SIZE;
        else
                strcpy(buf, s);
        end();
        return r;
}

/* ---- device nodes ------------------------------------------------------
 * With "device_nodes": "DIR" in the file, the fake opens the driver's
 * character devices as libnvidia-ml does: DIR/nvidiactl (read-write) in
 * nvmlInit, DIR/nvidiaN when a handle of GPU N is first asked for, all
 * kept open until the last nvmlShutdown. A sandbox that hides or denies
 * them (PrivateDevices=, DeviceAllow=) then fails the calls as it would
 * fail the real library. Without the field nothing is opened. */

#define MAX_NODES 64
static int ctl_fd = -1;
static int node_fds[MAX_NODES] = { [0 ... MAX_NODES - 1] = -1 };

/* The "device_nodes" directory of the current file, or NULL. */
static const char *device_nodes_dir(void)
{
        JsonNode *root = parser ? json_parser_get_root(parser) : NULL;
        if (!root || !JSON_NODE_HOLDS_OBJECT(root))
                return NULL;
        JsonNode *d = json_object_get_member(json_node_get_object(root), "device_nodes");
        return d && JSON_NODE_HOLDS_VALUE(d) ? json_node_get_string(d) : NULL;
}

/* "device_nodes_without_driver": true: a node that the sandbox let through
 * but that has no driver behind it (ENXIO, ENODEV: a VM with a real char
 * device of major 195 and no NVIDIA module) counts as opened, so a test can
 * tell the sandbox's refusal (EPERM from the device cgroup, ENOENT from a
 * private /dev) from the missing driver. */
static bool without_driver_ok(int err)
{
        if (err != ENXIO && err != ENODEV)
                return false;
        JsonNode *root = parser ? json_parser_get_root(parser) : NULL;
        JsonNode *f = root && JSON_NODE_HOLDS_OBJECT(root)
                              ? json_object_get_member(json_node_get_object(root), "device_nodes_without_driver")
                              : NULL;
        return f && JSON_NODE_HOLDS_VALUE(f) && json_node_get_boolean(f);
}

/* What NVML answers when a node cannot be opened: a permission problem
 * (file mode, a device cgroup, an LSM) is NO_PERMISSION; a node that is
 * not there or has no driver behind it (ENOENT, ENXIO, ENODEV) means the
 * driver is not loaded for nvidiactl, and an unusable GPU for nvidiaN. */
static nvmlReturn_t node_error(int err, bool control)
{
        if (err == EACCES || err == EPERM)
                return NVML_ERROR_NO_PERMISSION;
        return control ? NVML_ERROR_DRIVER_NOT_LOADED : NVML_ERROR_UNKNOWN;
}

static int open_node(const char *dir, const char *name)
{
        g_autofree char *path = g_build_filename(dir, name, NULL);
        return open(path, O_RDWR | O_CLOEXEC | O_NOCTTY);
}

/* At the first nvmlInit, under the lock. */
static nvmlReturn_t open_control_node(void)
{
        const char *dir = device_nodes_dir();
        if (!dir || ctl_fd >= 0)
                return NVML_SUCCESS;
        ctl_fd = open_node(dir, "nvidiactl");
        return ctl_fd < 0 && !without_driver_ok(errno) ? node_error(errno, true) : NVML_SUCCESS;
}

/* For a handle of GPU INDEX, under the lock. */
static nvmlReturn_t open_device_node(unsigned index)
{
        const char *dir = device_nodes_dir();
        if (!dir || index >= MAX_NODES || node_fds[index] >= 0)
                return NVML_SUCCESS;
        g_autofree char *name = g_strdup_printf("nvidia%u", index);
        node_fds[index] = open_node(dir, name);
        return node_fds[index] < 0 && !without_driver_ok(errno) ? node_error(errno, false) : NVML_SUCCESS;
}

/* At the last nvmlShutdown, under the lock. */
static void close_device_nodes(void)
{
        if (ctl_fd >= 0)
                close(ctl_fd);
        ctl_fd = -1;
        for (unsigned i = 0; i < MAX_NODES; i++) {
                if (node_fds[i] >= 0)
                        close(node_fds[i]);
                node_fds[i] = -1;
        }
}

/* ---- the library ------------------------------------------------------ */

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
        COST();
        pthread_mutex_lock(&lock);
        reload();
        nvmlReturn_t r = initialized ? NVML_SUCCESS : open_control_node();
        if (r == NVML_SUCCESS)
                initialized++;
        pthread_mutex_unlock(&lock);
        return r;
}

EXPORT nvmlReturn_t nvmlShutdown(void)
{
        COST();
        pthread_mutex_lock(&lock);
        nvmlReturn_t r = initialized ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
        if (initialized && --initialized == 0) {
                g_clear_object(&parser);
                close_device_nodes();
        }
        pthread_mutex_unlock(&lock);
        return r;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
        switch (result) {
        case NVML_SUCCESS: return "Success";
        case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
        case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
        case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
        case NVML_ERROR_NOT_FOUND: return "Not Found";
        case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
        case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
        case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
        case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
        default: return "Unknown Error";
        }
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int length)
{
        COST();
        static const char version[] = "595.78 (fake)";
        if (!buf || length < sizeof(version))
                return NVML_ERROR_INSUFFICIENT_SIZE;
        strcpy(buf, version);
        return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
        COST();
        if (!count)
                return NVML_ERROR_INVALID_ARGUMENT;
        pthread_mutex_lock(&lock);
        nvmlReturn_t r = initialized ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
        reload();
        *count = n_devices();
        pthread_mutex_unlock(&lock);
        return r;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
        COST();
        if (!device)
                return NVML_ERROR_INVALID_ARGUMENT;
        pthread_mutex_lock(&lock);
        reload();
        nvmlReturn_t r = !initialized ? NVML_ERROR_UNINITIALIZED
                         : index < n_devices() ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
        if (r == NVML_SUCCESS)
                r = open_device_node(index);
        pthread_mutex_unlock(&lock);
        if (r == NVML_SUCCESS)
                *device = (nvmlDevice_t) (uintptr_t) (index + 1);
        return r;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
        COST();
        return get_string(device, "name", name, length);
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
        COST();
        return get_string(device, "uuid", uuid, length);
}

/* "minor_number": the N of /dev/nvidiaN; NOT_SUPPORTED without. */
EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minor)
{
        COST();
        return get_uint(device, "minor_number", minor);
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
        COST();
        if (!pci)
                return NVML_ERROR_INVALID_ARGUMENT;
        memset(pci, 0, sizeof(*pci));
        nvmlReturn_t r = get_string(device, "pci_bus_id", pci->busId, sizeof(pci->busId));
        if (r == NVML_SUCCESS)
                sscanf(pci->busId, "%x:%x:%x", &pci->domain, &pci->bus, &pci->device);
        return r;
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *util)
{
        COST();
        if (!util)
                return NVML_ERROR_INVALID_ARGUMENT;
        nvmlReturn_t r = get_uint(device, "utilization.gpu", &util->gpu);
        return r == NVML_SUCCESS ? get_uint(device, "utilization.memory", &util->memory) : r;
}

/* memory.reserved, 0 when the file leaves it out. */
static nvmlReturn_t get_reserved(nvmlDevice_t device, unsigned long long *reserved)
{
        *reserved = 0;
        nvmlReturn_t r = get_number(device, "memory.reserved", reserved);
        return r == NVML_ERROR_NOT_SUPPORTED ? NVML_SUCCESS : r;
}

/* The "memory" fields, as v2 gives them (used without the reservation). */
static nvmlReturn_t get_memory(nvmlDevice_t device, unsigned long long *total, unsigned long long *used,
                               unsigned long long *free, unsigned long long *reserved)
{
        nvmlReturn_t r = get_number(device, "memory.total", total);
        if (r == NVML_SUCCESS)
                r = get_number(device, "memory.used", used);
        if (r == NVML_SUCCESS)
                r = get_number(device, "memory.free", free);
        if (r == NVML_SUCCESS)
                r = get_reserved(device, reserved);
        return r;
}

/* v1: used counts the driver's reservation, as real NVML's v1 does. */
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
        COST();
        if (!memory)
                return NVML_ERROR_INVALID_ARGUMENT;
        unsigned long long reserved = 0;
        nvmlReturn_t r = get_memory(device, &memory->total, &memory->used, &memory->free, &reserved);
        memory->used += reserved;
        return r;
}

/* The top-level "memory_v2": false makes the driver one from before R510:
 * the call is not found (jetsond falls back to v1 as it does when the
 * symbol is missing). */
static bool has_memory_v2(void)
{
        pthread_mutex_lock(&lock);
        reload();
        JsonNode *root = parser ? json_parser_get_root(parser) : NULL;
        JsonNode *flag = root && JSON_NODE_HOLDS_OBJECT(root) ? field(json_node_get_object(root), "memory_v2") : NULL;
        bool has = !flag || !JSON_NODE_HOLDS_VALUE(flag) || json_node_get_boolean(flag);
        pthread_mutex_unlock(&lock);
        return has;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
        COST();
        if (!memory)
                return NVML_ERROR_INVALID_ARGUMENT;
        if (!has_memory_v2())
                return NVML_ERROR_FUNCTION_NOT_FOUND;
        if (memory->version != nvmlMemory_v2)
                return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
        return get_memory(device, &memory->total, &memory->used, &memory->free, &memory->reserved);
}

EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensor, unsigned int *temp)
{
        COST();
        return sensor == NVML_TEMPERATURE_GPU ? get_uint(device, "temperature", temp) : NVML_ERROR_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *mw)
{
        COST();
        return get_uint(device, "power_mw", mw);
}

/* energy_mj, plus energy_rate_mw (mJ per second) times CLOCK_MONOTONIC's
 * seconds where the device has it: a counter that runs, the same in every
 * process, so a test can tell what it read over any span. */
EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *mj)
{
        COST();
        if (!mj)
                return NVML_ERROR_INVALID_ARGUMENT;
        nvmlReturn_t r = get_number(device, "energy_mj", mj);
        unsigned long long rate = 0;
        if (r == NVML_SUCCESS && get_number(device, "energy_rate_mw", &rate) == NVML_SUCCESS)
                *mj += (unsigned long long) ((double) rate * fake_now_s(CLOCK_MONOTONIC));
        return r;
}

EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *mw)
{
        COST();
        return get_uint(device, "power_limit_mw", mw);
}

static const char *clock_name(int type)
{
        return type == NVML_CLOCK_GRAPHICS ? "graphics"
               : type == NVML_CLOCK_SM     ? "sm"
               : type == NVML_CLOCK_MEM    ? "mem"
               : type == NVML_CLOCK_VIDEO  ? "video"
                                           : NULL;
}

EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *mhz)
{
        COST();
        if (!clock_name(type))
                return NVML_ERROR_NOT_SUPPORTED;
        g_autofree char *path = g_strdup_printf("clocks_mhz.%s", clock_name(type));
        return get_uint(device, path, mhz);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, int type, unsigned int *mhz)
{
        COST();
        if (!clock_name(type))
                return NVML_ERROR_NOT_SUPPORTED;
        g_autofree char *path = g_strdup_printf("max_clocks_mhz.%s", clock_name(type));
        return get_uint(device, path, mhz);
}

EXPORT nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *percent)
{
        COST();
        return get_uint(device, "fan", percent);
}

static nvmlReturn_t codec(nvmlDevice_t device, const char *path, unsigned int *util, unsigned int *period_us)
{
        if (!period_us)
                return NVML_ERROR_INVALID_ARGUMENT;
        *period_us = 167000;
        return get_uint(device, path, util);
}

EXPORT nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int *util, unsigned int *period_us)
{
        COST();
        return codec(device, "encoder", util, period_us);
}

EXPORT nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int *util, unsigned int *period_us)
{
        COST();
        return codec(device, "decoder", util, period_us);
}

EXPORT nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, int *pstate)
{
        COST();
        unsigned int v = 0;
        nvmlReturn_t r = pstate ? get_uint(device, "pstate", &v) : NVML_ERROR_INVALID_ARGUMENT;
        if (r == NVML_SUCCESS)
                *pstate = (int) v;
        return r;
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons)
{
        COST();
        return reasons ? get_number(device, "throttle", reasons) : NVML_ERROR_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, int counter, unsigned int *kbps)
{
        COST();
        return get_uint(device, counter == NVML_PCIE_UTIL_TX_BYTES ? "pcie_kbps.tx" : "pcie_kbps.rx", kbps);
}

/* The processes of TYPE ("compute", "graphics"; "both" is in both lists)
 * with NVML's count protocol: too small a buffer gives the count needed. */
static nvmlReturn_t processes(nvmlDevice_t device, const char *type, unsigned int *count, nvmlProcessInfo_t *infos)
{
        if (!count)
                return NVML_ERROR_INVALID_ARGUMENT;
        JsonObject *dev;
        nvmlReturn_t r = begin(device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        JsonNode *list = field(dev, "processes");
        if (!list || !JSON_NODE_HOLDS_ARRAY(list)) {
                end();
                return NVML_ERROR_NOT_SUPPORTED;
        }
        JsonArray *a = json_node_get_array(list);
        unsigned n = 0;
        for (guint i = 0; i < json_array_get_length(a); i++) {
                JsonObject *p = json_array_get_object_element(a, i);
                JsonNode *t = p ? field(p, "type") : NULL;
                const char *kind = t ? json_node_get_string(t) : "compute";
                if (!kind || (strcmp(kind, type) != 0 && strcmp(kind, "both") != 0))
                        continue;
                if (n < *count && infos) {
                        infos[n].pid = (unsigned) int_field(p, "pid", 0);
                        /* A process in both lists may have grown between the
                         * calls: graphics_used_memory is the graphics list's. */
                        const char *mem = strcmp(type, "graphics") == 0 && field(p, "graphics_used_memory")
                                                  ? "graphics_used_memory"
                                                  : "used_memory";
                        infos[n].usedGpuMemory = field(p, mem) ? (unsigned long long) int_field(p, mem, 0)
                                                               : NVML_VALUE_NOT_AVAILABLE;
                        /* With MIG: the instances the process runs in. */
                        infos[n].gpuInstanceId = (unsigned) int_field(p, "gpu_instance", 0xFFFFFFFFu);
                        infos[n].computeInstanceId = (unsigned) int_field(p, "compute_instance", 0xFFFFFFFFu);
                }
                n++;
        }
        end();
        r = n > *count || (n && !infos) ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
        *count = n;
        return r;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *count,
                                                            nvmlProcessInfo_t *infos)
{
        COST();
        return processes(device, "compute", count, infos);
}

EXPORT nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *count,
                                                             nvmlProcessInfo_t *infos)
{
        COST();
        return processes(device, "graphics", count, infos);
}

/* Processes with an "sm" field, each with one sample stamped now, with
 * its "mem_util" (memory bandwidth use), "enc" and "dec" (each 0 where
 * left out, as NVML's sample has them all). */
EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *samples,
                                                    unsigned int *count, unsigned long long last_seen_us)
{
        COST();
        (void) last_seen_us;
        if (!count)
                return NVML_ERROR_INVALID_ARGUMENT;
        JsonObject *dev;
        nvmlReturn_t r = begin(device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        JsonNode *list = field(dev, "processes");
        JsonArray *a = list && JSON_NODE_HOLDS_ARRAY(list) ? json_node_get_array(list) : NULL;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        unsigned n = 0;
        for (guint i = 0; a && i < json_array_get_length(a); i++) {
                JsonObject *p = json_array_get_object_element(a, i);
                if (!p || !field(p, "sm"))
                        continue;
                if (n < *count && samples) {
                        samples[n] = (nvmlProcessUtilizationSample_t) {
                                .pid = (unsigned) int_field(p, "pid", 0),
                                .timeStamp = (unsigned long long) now.tv_sec * 1000000ULL +
                                             (unsigned long long) now.tv_nsec / 1000ULL,
                                .smUtil = (unsigned) int_field(p, "sm", 0),
                                .memUtil = (unsigned) int_field(p, "mem_util", 0),
                                .encUtil = (unsigned) int_field(p, "enc", 0),
                                .decUtil = (unsigned) int_field(p, "dec", 0),
                        };
                }
                n++;
        }
        end();
        if (!a)
                return NVML_ERROR_NOT_SUPPORTED;
        r = !n ? NVML_ERROR_NOT_FOUND : n > *count || !samples ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
        *count = n;
        return r;
}

/* One NVLink counter (DIR "rx" or "tx") of link LINK at NOW_US: the
 * file's "<dir>_kib" plus "<dir>_kibps" per second of CLOCK_REALTIME, the
 * clock of NVML's timestamps, so that a rate between two reads is the
 * file's (to a KiB). */
static bool nvlink_counter(JsonObject *link, const char *dir, long long now_us, unsigned long long *out)
{
        char base[16], rate[16];
        snprintf(base, sizeof(base), "%s_kib", dir);
        snprintf(rate, sizeof(rate), "%s_kibps", dir);
        if (!field(link, base))
                return false;
        double kib = (double) int_field(link, base, 0) + (double) int_field(link, rate, 0) * ((double) now_us / 1e6);
        *out = (unsigned long long) kib;
        return true;
}

/* The NVLink fields: "nvlink": [{"rx_kib", "tx_kib", "rx_kibps",
 * "tx_kibps"}, ...], one object per link; each field answers with its own
 * return code, as NVML's do. "nvlink_all_links": false: the all-links
 * scope is NOT_SUPPORTED (an older driver). */
EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int count, nvmlFieldValue_t *values)
{
        COST();
        if (count < 0 || (count && !values))
                return NVML_ERROR_INVALID_ARGUMENT;
        JsonObject *dev;
        nvmlReturn_t r = begin(device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        long long now_us = (long long) ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
        JsonNode *list = field(dev, "nvlink");
        JsonArray *links = list && JSON_NODE_HOLDS_ARRAY(list) ? json_node_get_array(list) : NULL;
        unsigned n_links = links ? json_array_get_length(links) : 0;
        JsonNode *all = field(dev, "nvlink_all_links");
        bool all_scope = !all || !JSON_NODE_HOLDS_VALUE(all) || json_node_get_boolean(all);
        for (int i = 0; i < count; i++) {
                nvmlFieldValue_t *f = &values[i];
                f->timestamp = now_us;
                f->latencyUsec = 0;
                f->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
                f->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
                unsigned long long v = 0;
                /* "memory_temperature": °C, as a datacenter GPU's HBM answers it. */
                if (f->fieldId == NVML_FI_DEV_MEMORY_TEMP) {
                        JsonNode *t = field(dev, "memory_temperature");
                        if (t && JSON_NODE_HOLDS_VALUE(t)) {
                                f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
                                f->value.uiVal = (unsigned) json_node_get_int(t);
                                f->nvmlReturn = NVML_SUCCESS;
                        }
                        continue;
                }
                if (!links)
                        continue;
                if (f->fieldId == NVML_FI_DEV_NVLINK_LINK_COUNT) {
                        f->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
                        f->value.uiVal = n_links;
                        f->nvmlReturn = NVML_SUCCESS;
                        continue;
                }
                const char *dir = f->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX   ? "rx"
                                  : f->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX ? "tx"
                                                                                         : NULL;
                if (!dir)
                        continue;
                bool ok = true;
                if (f->scopeId == NVML_SCOPE_ALL_LINKS) {
                        ok = all_scope;
                        for (unsigned l = 0; ok && l < n_links; l++) {
                                unsigned long long one = 0;
                                ok = nvlink_counter(json_array_get_object_element(links, l), dir, now_us, &one);
                                v += one;
                        }
                } else {
                        ok = f->scopeId < n_links &&
                             nvlink_counter(json_array_get_object_element(links, f->scopeId), dir, now_us, &v);
                }
                if (!ok) {
                        f->nvmlReturn = f->scopeId == NVML_SCOPE_ALL_LINKS || f->scopeId < n_links
                                                ? NVML_ERROR_NOT_SUPPORTED
                                                : NVML_ERROR_INVALID_ARGUMENT;
                        continue;
                }
                f->value.ullVal = v;
                f->nvmlReturn = NVML_SUCCESS;
        }
        end();
        return NVML_SUCCESS;
}

/* MIG: "mig": {"mode": 1, "max_devices": 7, "devices": [{"slot", "uuid",
 * "gpu_instance", "compute_instance", "memory", "utilization", ...}]};
 * a MIG device's handle answers the device calls from its own object. A
 * GPU without "mig" answers NOT_SUPPORTED, as one without MIG. */
EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current, unsigned int *pending)
{
        COST();
        if (!current || !pending)
                return NVML_ERROR_INVALID_ARGUMENT;
        nvmlReturn_t r = get_uint(device, "mig.mode", current);
        *pending = *current;
        return r;
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
        COST();
        return count ? get_uint(device, "mig.max_devices", count) : NVML_ERROR_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *mig)
{
        COST();
        if (!mig || ((uintptr_t) device >> MIG_SHIFT))
                return NVML_ERROR_INVALID_ARGUMENT;
        JsonObject *dev;
        nvmlReturn_t r = begin(device, &dev);
        if (r != NVML_SUCCESS)
                return r;
        uintptr_t handle = (uintptr_t) device | ((uintptr_t) (index + 1) << MIG_SHIFT);
        r = handle_object(handle) ? NVML_SUCCESS : field(dev, "mig") ? NVML_ERROR_NOT_FOUND : NVML_ERROR_NOT_SUPPORTED;
        end();
        if (r == NVML_SUCCESS)
                *mig = (nvmlDevice_t) handle;
        return r;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
        COST();
        return id ? get_uint(device, "gpu_instance", id) : NVML_ERROR_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
        COST();
        return id ? get_uint(device, "compute_instance", id) : NVML_ERROR_INVALID_ARGUMENT;
}
