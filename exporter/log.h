/* The exporter's log: one line per event on stderr, which systemd puts in
 * the journal with the priority the "<N>" prefix gives (sd-daemon(3)). */
#pragma once

#include <glib.h>
#include <systemd/sd-daemon.h>

void xlog(const char *priority, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* The domain of the exporter's GErrors: they are only ever shown. */
#define EXPORTER_ERROR g_quark_from_static_string("jetsond-exporter-error")
