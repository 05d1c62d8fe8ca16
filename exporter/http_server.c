#include "http_server.h"

#include <string.h>
#include <unistd.h>
#include <microhttpd.h>

#include "log.h"
#include "negotiate.h"

/* libmicrohttpd 0.9.71 made the handlers' int an enum; Ubuntu 18.04 and
 * 20.04 have older ones. */
#if MHD_VERSION >= 0x00097002
#define MHD_RESULT enum MHD_Result
#else
#define MHD_RESULT int
#endif

/* Two threads answer scrapes: a page is rendered once per sample, so each
 * scrape is a lookup and a send; a second thread keeps one slow client
 * from holding the others up. */
#define THREADS 2
#define CONNECTION_LIMIT 256
#define CONNECTION_TIMEOUT_S 10

#define CT_PROMETHEUS "text/plain; version=0.0.4; charset=utf-8"
#define CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

struct http_server {
        struct MHD_Daemon *daemon;
        page_store *store;
        bool dcgm; /* /metrics/dcgm served (--no-dcgm turns it off) */
};

static const char index_page[] =
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>jetsond-exporter</title></head>\n"
        "<body><h1>jetsond-exporter</h1>\n"
        "<p>Metrics of this NVIDIA Jetson board from jetsond, for Prometheus: "
        "<a href=\"/metrics\">/metrics</a>; its GPUs as NVIDIA's dcgm-exporter names them: "
        "<a href=\"/metrics/dcgm\">/metrics/dcgm</a></p>\n</body></html>\n";

/* The request state between the two calls of a GET: headers read, no
 * body referenced yet (on_completed releases only a body). */
static char headers_seen;

static MHD_RESULT send_static(struct MHD_Connection *c, unsigned status, const char *type, const char *text)
{
        struct MHD_Response *r =
                MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
        if (!r)
                return MHD_NO;
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
        if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
                MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
        MHD_RESULT ret = MHD_queue_response(c, status, r);
        MHD_destroy_response(r);
        return ret;
}

/* The body is a reference to the page's bytes, released when the
 * response is done (on_completed), so no scrape copies it. */
static MHD_RESULT send_metrics(http_server *s, struct MHD_Connection *c, page_kind kind, void **req)
{
        /* /metrics/dcgm has dcgm-exporter's one format: its counters lack
         * the _total OpenMetrics asks for. */
        exp_format format = kind == PAGE_DCGM ? EXP_FORMAT_PROMETHEUS
                                              : negotiate_format(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept"));
        bool gzip = negotiate_gzip(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding"));
        GBytes *body = page_store_get(s->store, kind, format, &gzip);
        gsize len;
        const void *data = g_bytes_get_data(body, &len);
        struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_PERSISTENT);
        if (!r) {
                g_bytes_unref(body);
                return MHD_NO;
        }
        *req = body;
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                                format == EXP_FORMAT_OPENMETRICS ? CT_OPENMETRICS : CT_PROMETHEUS);
        if (gzip)
                MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
        MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
        MHD_RESULT ret = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ret;
}

static MHD_RESULT on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                             const char *version, const char *upload_data, size_t *upload_data_size, void **req)
{
        (void)version;
        (void)upload_data;
        (void)upload_data_size;
        http_server *s = cls;
        /* Answered at the first call, with the headers: libmicrohttpd
         * drops a request body it was not asked to read (and closes the
         * connection, as it should after a refused upload). */
        if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
                return send_static(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain; charset=utf-8",
                                   "Only GET and HEAD are served here.\n");
        /* A GET is answered at the second call, once libmicrohttpd knows
         * the request is whole: a response queued at the first one makes
         * it close the connection ("Connection: close"), and each scrape
         * would pay for a new TCP connection. */
        if (!*req) {
                *req = &headers_seen;
                return MHD_YES;
        }
        if (strcmp(url, "/metrics") == 0)
                return send_metrics(s, c, PAGE_METRICS, req);
        if (strcmp(url, "/metrics/dcgm") == 0)
                return s->dcgm ? send_metrics(s, c, PAGE_DCGM, req)
                               : send_static(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8",
                                             "Not found: /metrics/dcgm is turned off (--no-dcgm); the metrics "
                                             "are at /metrics.\n");
        if (strcmp(url, "/") == 0)
                return send_static(c, MHD_HTTP_OK, "text/html; charset=utf-8", index_page);
        return send_static(c, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8",
                           "Not found: the metrics are at /metrics.\n");
}

static void on_completed(void *cls, struct MHD_Connection *c, void **req, enum MHD_RequestTerminationCode code)
{
        (void)cls;
        (void)c;
        (void)code;
        if (*req && *req != &headers_seen)
                g_bytes_unref(*req);
        *req = NULL;
}

http_server *http_server_start(int fd, page_store *store, bool dcgm, GError **error)
{
        http_server *s = g_new0(http_server, 1);
        s->store = store;
        s->dcgm = dcgm;
        s->daemon = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, s,
                                     MHD_OPTION_LISTEN_SOCKET, fd, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)THREADS,
                                     MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT,
                                     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)CONNECTION_TIMEOUT_S,
                                     MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
        if (!s->daemon) {
                g_set_error(error, EXPORTER_ERROR, 0, "cannot start the HTTP server");
                close(fd);
                g_free(s);
                return NULL;
        }
        return s;
}

void http_server_stop(http_server *s)
{
        if (!s)
                return;
        MHD_stop_daemon(s->daemon);
        g_free(s);
}
