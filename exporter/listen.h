/* The listening socket: the one systemd passes (socket activation), else
 * one bound to --listen ADDR:PORT. */
#pragma once

#include <glib.h>

#define EXPORTER_DEFAULT_LISTEN "127.0.0.1:9837"

/* Splits "ADDR:PORT", "[IPv6]:PORT" or ":PORT" (every address). False
 * with *ERROR set for anything else. */
gboolean listen_parse(const char *text, char **host, char **port, GError **error);

/* A listening TCP socket for TEXT; -1 with *ERROR set. */
int listen_open(const char *text, GError **error);

/* The socket systemd passed (exactly one stream socket), -1 if none, -2
 * (with *ERROR) if what was passed is not usable. */
int listen_from_systemd(GError **error);
