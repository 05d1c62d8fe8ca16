/* jetsond's D-Bus errors (introspection/errors.md), mapped to errno values
 * so handlers can return -errno or fill an sd_bus_error by name. */
#pragma once

#include <systemd/sd-bus.h>

/* Registers the map with sd-bus; call once before serving. */
int jd_errors_register(void);
