#include "listen.h"
#include "log.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

gboolean listen_parse(const char *text, char **host, char **port, GError **error)
{
        const char *colon;
        if (text[0] == '[') {
                const char *close = strchr(text, ']');
                if (!close || close[1] != ':') {
                        g_set_error(error, EXPORTER_ERROR, 0,
                                    "\"%s\": an IPv6 address is written [ADDR]:PORT", text);
                        return FALSE;
                }
                *host = g_strndup(text + 1, (gsize)(close - text - 1));
                colon = close + 1;
        } else {
                colon = strrchr(text, ':');
                if (!colon || memchr(text, ':', (size_t)(colon - text))) {
                        g_set_error(error, EXPORTER_ERROR, 0,
                                    "\"%s\" is not ADDR:PORT, [IPv6]:PORT or :PORT", text);
                        return FALSE;
                }
                *host = colon == text ? NULL : g_strndup(text, (gsize)(colon - text));
        }
        char *end = NULL;
        unsigned long p = strtoul(colon + 1, &end, 10);
        if (!g_ascii_isdigit(colon[1]) || *end || p == 0 || p > 65535) {
                g_set_error(error, EXPORTER_ERROR, 0,
                            "\"%s\": the port must be a number from 1 to 65535", text);
                g_clear_pointer(host, g_free);
                return FALSE;
        }
        *port = g_strdup_printf("%lu", p);
        return TRUE;
}

int listen_open(const char *text, GError **error)
{
        g_autofree char *host = NULL, *port = NULL;
        if (!listen_parse(text, &host, &port, error))
                return -1;
        struct addrinfo hints = {
                .ai_family = AF_UNSPEC,
                .ai_socktype = SOCK_STREAM,
                .ai_flags = AI_PASSIVE | AI_NUMERICSERV,
        }, *res = NULL;
        int r = getaddrinfo(host, port, &hints, &res);
        if (r != 0) {
                g_set_error(error, EXPORTER_ERROR, 0, "cannot resolve \"%s\": %s", text,
                            gai_strerror(r));
                return -1;
        }
        int fd = -1, err = 0;
        /* ":PORT" gives the IPv6 wildcard first where there is one, which
         * also takes IPv4 (not V6ONLY); else the IPv4 one. */
        for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
                fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
                if (fd < 0) {
                        err = errno;
                        continue;
                }
                int one = 1, zero = 0;
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
                if (ai->ai_family == AF_INET6 && !host)
                        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
                if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0) {
                        err = errno;
                        close(fd);
                        fd = -1;
                }
        }
        freeaddrinfo(res);
        if (fd < 0)
                g_set_error(error, EXPORTER_ERROR, err, "cannot listen on %s: %s", text,
                            g_strerror(err));
        return fd;
}

int listen_from_systemd(GError **error)
{
        int n = sd_listen_fds(1);
        if (n < 0) {
                g_set_error(error, EXPORTER_ERROR, 0, "the sockets systemd passed are not usable: %s",
                            g_strerror(-n));
                return -2;
        }
        if (n == 0)
                return -1;
        if (n > 1 || sd_is_socket(SD_LISTEN_FDS_START, AF_UNSPEC, SOCK_STREAM, 1) <= 0) {
                g_set_error(error, EXPORTER_ERROR, 0,
                            "systemd passed %d sockets; jetsond-exporter takes one listening stream socket", n);
                return -2;
        }
        return SD_LISTEN_FDS_START;
}
