/* Connecting a client of jetsond (jetsonctl, jetsond-exporter) the way
 * their --address and --session options say; the daemon does not use it. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

/* The bus at ADDRESS if not NULL, else the session bus if SESSION, else
 * the system bus. A negative errno on failure. */
static inline int jd_client_bus_open(const char *address, bool session, sd_bus **bus)
{
        if (!address)
                return session ? sd_bus_open_user(bus) : sd_bus_open_system(bus);
        int r = sd_bus_new(bus);
        if (r >= 0)
                r = sd_bus_set_address(*bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(*bus, 1);
        if (r >= 0)
                r = sd_bus_start(*bus);
        if (r < 0)
                *bus = sd_bus_unref(*bus);
        return r;
}
