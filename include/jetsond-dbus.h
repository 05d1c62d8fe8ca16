/* The names of jetsond's D-Bus API: the only thing the daemon and the
 * client (jetsonctl) share. The contract itself is introspection/. */
#pragma once

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
