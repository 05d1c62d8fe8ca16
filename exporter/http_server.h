/* The HTTP side: libmicrohttpd on its own threads answers GET /metrics
 * and GET /metrics/dcgm from the page store, GET / with a link page, and
 * nothing else. */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "page.h"

typedef struct http_server http_server;

/* Serves on the listening socket FD (taken over); /metrics/dcgm only if
 * DCGM. NULL with *ERROR set if libmicrohttpd cannot start. */
http_server *http_server_start(int fd, page_store *store, bool dcgm, GError **error);
void http_server_stop(http_server *server);
