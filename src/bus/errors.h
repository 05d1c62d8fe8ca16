/* jetsond's D-Bus errors (introspection/errors.md), mapped to errno values
 * so handlers can return -errno or fill an sd_bus_error by name. */
#pragma once

#include <systemd/sd-bus.h>

/* Registers the map with sd-bus; call once before serving. */
int jd_errors_register(void);
/* For a call answered after an asynchronous step, where no handler's
 * return value can carry the error: when R < 0, replies to M with ERROR,
 * or with R as an errno where ERROR is not set. Frees ERROR either way. */
void jd_reply_deferred_error(sd_bus_message *m, int r, sd_bus_error *error);
