/* Attaches an sd-bus connection to a GLib main context, so sd-bus and
 * polkit-gobject (GDBus) share one loop. */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

/* A GSource prepare()'s timeout until AT, from NOW (CLOCK_MONOTONIC µs,
 * g_get_monotonic_time()'s clock): rounded up, so that poll() never
 * returns before AT; 0 once AT has come. */
static inline gint jd_ms_until(uint64_t at_us, uint64_t now_us)
{
        return at_us <= now_us ? 0 : (gint) MIN((at_us - now_us + 999) / 1000, (uint64_t) G_MAXINT);
}

/* ON_DISCONNECT is called once when sd_bus_process() reports that the
 * connection is gone; the source is then destroyed. */
GSource *jd_bus_source_new(sd_bus *bus, void (*on_disconnect)(void *), void *userdata);
