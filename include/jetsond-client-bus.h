/* Connecting a client of jetsond (jetsonctl, jetsond-exporter) the way
 * their --address and --user (--session) options say; the daemon uses
 * only jd_session_bus_error(), for jetsond --user. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <systemd/sd-bus.h>

/* Why sd_bus_open_user() failed with R, in words, for the errors that
 * mean there is no session bus at all (ssh, su, a cron job, a container);
 * NULL for any other, which strerror() says well enough. */
static inline const char *jd_session_bus_error(int r)
{
        if (r == -ENOMEDIUM) /* sd-bus: neither variable set */
                return "there is none here: neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set "
                       "(a graphical or systemd-logind login session sets them; su and sudo do not)";
        if (r == -ENOENT || r == -ECONNREFUSED)
                return "nothing listens at DBUS_SESSION_BUS_ADDRESS, or without it at $XDG_RUNTIME_DIR/bus "
                       "(is the user's D-Bus session bus running?)";
        return NULL;
}

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
