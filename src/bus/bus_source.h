/* Attaches an sd-bus connection to a GLib main context, so sd-bus and
 * polkit-gobject (GDBus) share one loop. */
#pragma once

#include <glib.h>
#include <systemd/sd-bus.h>

/* ON_DISCONNECT is called once when sd_bus_process() reports that the
 * connection is gone; the source is then destroyed. */
GSource *jd_bus_source_new(sd_bus *bus, void (*on_disconnect)(void *), void *userdata);
