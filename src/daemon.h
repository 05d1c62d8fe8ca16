/* The resident service: connects to the bus, exports the interfaces,
 * owns the name and runs the main loop until SIGTERM/SIGINT (exit 0) or
 * until the bus goes away (exit 1, so systemd's Restart=on-failure acts). */
#pragma once

#include <stdint.h>

#include "sysroot.h"

typedef enum {
        JD_BUS_SYSTEM,
        JD_BUS_USER,      /* jetsond --user: the session bus, reads only (src/bus/user_mode.h) */
        JD_BUS_ADDRESS,
} jd_bus_kind;

/* NVML_LIBRARY: the NVML library to load, NULL for none. */
int jd_run_daemon(const jd_sysroot *sr, jd_bus_kind kind, const char *address, uint64_t interval_us,
                  const char *nvml_library);
