/* The names of jetsond's D-Bus API, and the capture stream's tier table:
 * the only things the daemon and the client (jetsonctl) share. The
 * contract itself is introspection/. */
#pragma once

#include <string.h>

#define JD_BUS_NAME "org.jetsond.Jetson1"
#define JD_OBJECT_PATH "/org/jetsond/Jetson1"
#define JD_FAN_PATH_PREFIX "/org/jetsond/Jetson1/fan/"
#define JD_DGPU_PATH_PREFIX "/org/jetsond/Jetson1/dgpu/"

#define JD_IFACE_BOARD "org.jetsond.Jetson1.Board"
#define JD_IFACE_METRICS "org.jetsond.Jetson1.Metrics"
#define JD_IFACE_NVPMODEL "org.jetsond.Jetson1.NVPModel"
#define JD_IFACE_JETSON_CLOCKS "org.jetsond.Jetson1.JetsonClocks"
#define JD_IFACE_MEMORY "org.jetsond.Jetson1.Memory"
#define JD_IFACE_FAN "org.jetsond.Jetson1.Fan"
#define JD_IFACE_DISCRETE_GPU "org.jetsond.Jetson1.DiscreteGpu"
#define JD_IFACE_GPU "org.jetsond.Jetson1.Gpu"
#define JD_IFACE_MANAGER "org.jetsond.Jetson1.Manager"

/* introspection/errors.md */
#define JD_ERROR_NOT_SUPPORTED "org.jetsond.Jetson1.Error.NotSupported"
#define JD_ERROR_BUSY "org.jetsond.Jetson1.Error.Busy"
#define JD_ERROR_FAILED "org.jetsond.Jetson1.Error.Failed"
#define JD_ERROR_TIMEOUT "org.jetsond.Jetson1.Error.Timeout"
#define JD_ERROR_REBOOT_REQUIRED "org.jetsond.Jetson1.Error.RebootRequired"
#define JD_ERROR_READ_ONLY "org.jetsond.Jetson1.Error.ReadOnly"
#define JD_ERROR_UNKNOWN_PROCESS "org.jetsond.Jetson1.Error.UnknownProcess"

/* polkit actions (polkit/org.jetsond.Jetson1.policy) */
#define JD_ACTION_READ_SERIAL "org.jetsond.Jetson1.read-serial"
#define JD_ACTION_SET_FAN "org.jetsond.Jetson1.set-fan"
#define JD_ACTION_SET_NVPMODEL "org.jetsond.Jetson1.set-nvpmodel"
#define JD_ACTION_SET_JETSON_CLOCKS "org.jetsond.Jetson1.set-jetson-clocks"
#define JD_ACTION_MANAGE_SWAP "org.jetsond.Jetson1.manage-swap"
#define JD_ACTION_DROP_CACHES "org.jetsond.Jetson1.drop-caches"
#define JD_ACTION_SET_GPU "org.jetsond.Jetson1.set-gpu"

/* Metrics.Subscribe() bounds, µs (the upper one also bounds OpenCapture) */
#define JD_INTERVAL_MIN_USEC 10000ULL
#define JD_INTERVAL_MAX_USEC 3600000000ULL
/* Metrics.OpenCapture(): 1 kHz at most */
#define JD_CAPTURE_INTERVAL_MIN_USEC 1000ULL
/* The column a capture has when asked for it by this name (not a sample
 * key): ticks of the capture the engine missed just before the record
 * (introspection/capture.md). */
#define JD_CAPTURE_MISSED_TICKS "capture.missed_ticks"
/* Asked for by this name, a capture has a time column per tier it has
 * columns of (below): when the value of that tier's columns in the record
 * was read, CLOCK_MONOTONIC ns, so a repeated value can be told from a new
 * one (introspection/capture.md). */
#define JD_CAPTURE_TIER_TIMES "capture.tier_times"
#define JD_CAPTURE_TIME_PREFIX "capture.time."
/* Metrics.OpenCaptureWithOptions() options: how often the capture takes a
 * new reading of the medium and slow tiers, µs (at most
 * JD_INTERVAL_MAX_USEC). */
#define JD_CAPTURE_OPTION_MEDIUM "medium_interval_usec"
#define JD_CAPTURE_OPTION_SLOW "slow_interval_usec"
#define JD_CAPTURE_MEDIUM_MIN_USEC 10000ULL
#define JD_CAPTURE_SLOW_MIN_USEC 100000ULL

/* The tier that reads a sample key, as capture.md's table has it: writes
 * its time column's name ("capture.time.medium", "capture.time.dgpu.0")
 * to OUT and returns 1, or returns 0 for a fast-tier key (read for every
 * record: the record's own time_ns is its time). Part of the contract, so
 * that the daemon and its clients agree on it. */
static inline int jd_capture_time_column(const char *key, char *out, size_t size)
{
        static const char *const medium[] = { "power", "energy", "engine", "throttle", 0 };
        static const char *const slow[] = { "temp", "temp_trip", "fan", "nvpmodel", "process",
                                            "uptime", "disk", "net", 0 };
        /* process.PID.dgpu.N.*: that GPU's, not the slow tier's. */
        if (strncmp(key, "process.", 8) == 0) {
                const char *p = key + 8;
                while (*p >= '0' && *p <= '9')
                        p++;
                if (p > key + 8 && strncmp(p, ".dgpu.", 6) == 0)
                        key = p + 1;
        }
        size_t len = 0;
        while (key[len] && key[len] != '.')
                len++;
        const char *tier = 0;
        for (int i = 0; medium[i] && !tier; i++)
                if (strlen(medium[i]) == len && memcmp(key, medium[i], len) == 0)
                        tier = "medium";
        for (int i = 0; slow[i] && !tier; i++)
                if (strlen(slow[i]) == len && memcmp(key, slow[i], len) == 0)
                        tier = "slow";
        /* dgpu.N.*: each NVIDIA GPU is read by a thread of its own. */
        size_t digits = 0;
        if (!tier && len == 4 && memcmp(key, "dgpu", 4) == 0) {
                while (key[5 + digits] >= '0' && key[5 + digits] <= '9')
                        digits++;
                if (!digits || key[5 + digits] != '.')
                        return 0;
        }
        if (!tier && !digits)
                return 0;
        size_t prefix = sizeof(JD_CAPTURE_TIME_PREFIX) - 1;
        size_t name = tier ? strlen(tier) : 5 + digits;
        if (prefix + name + 1 > size)
                return 0;
        memcpy(out, JD_CAPTURE_TIME_PREFIX, prefix);
        memcpy(out + prefix, tier ? tier : key, name);
        out[prefix + name] = 0;
        return 1;
}
