/* jetsond-exporter: jetsond's samples as Prometheus / OpenMetrics text.
 * The main thread runs sd-event for the bus (jetsond_link.c); the HTTP
 * threads (http_server.c) answer scrapes from the page store (page.c). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "dcgm.h"
#include "exposition.h"
#include "jetsond-client-bus.h"
#include "http_server.h"
#include "jetsond_link.h"
#include "listen.h"
#include "log.h"
#include "page.h"

typedef struct {
        char *listen;
        char *address;
        gboolean session;
        gboolean version;
        gboolean list_metrics;
        gboolean no_dcgm;
        gboolean list_dcgm;
} options;

static gboolean parse_options(options *o, int *argc, char ***argv)
{
        const GOptionEntry entries[] = {
                { "listen", 'l', 0, G_OPTION_ARG_STRING, &o->listen,
                  "Serve on ADDR:PORT, [IPv6]:PORT or :PORT (every address); default " EXPORTER_DEFAULT_LISTEN
                  ". A socket passed by systemd wins.",
                  "ADDR:PORT" },
                { "address", 0, 0, G_OPTION_ARG_STRING, &o->address, "Connect to the D-Bus bus at ADDRESS",
                  "ADDRESS" },
                { "user", 0, 0, G_OPTION_ARG_NONE, &o->session,
                  "Serve your own jetsond, on the session bus (jetsond --user)", NULL },
                { "session", 0, 0, G_OPTION_ARG_NONE, &o->session, "The same as --user", NULL },
                { "no-dcgm", 0, 0, G_OPTION_ARG_NONE, &o->no_dcgm,
                  "Do not serve /metrics/dcgm (the GPUs as NVIDIA's dcgm-exporter names them)", NULL },
                { "list-metrics", 0, 0, G_OPTION_ARG_NONE, &o->list_metrics,
                  "Print every metric family (name, type, labels, D-Bus source, help) and exit", NULL },
                { "list-dcgm-fields", 0, 0, G_OPTION_ARG_NONE, &o->list_dcgm,
                  "Print every field of /metrics/dcgm (name, type, discrete GPU source, Jetson GPU source, help) "
                  "and exit",
                  NULL },
                { "version", 0, 0, G_OPTION_ARG_NONE, &o->version, "Print the version and exit", NULL },
                { NULL, 0, 0, 0, NULL, NULL, NULL },
        };
        g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
        g_option_context_set_summary(ctx, "Serves jetsond's board metrics to Prometheus at /metrics.");
        g_option_context_add_main_entries(ctx, entries, NULL);
        g_autoptr(GError) error = NULL;
        if (!g_option_context_parse(ctx, argc, argv, &error)) {
                fprintf(stderr, "jetsond-exporter: %s\n", error->message);
                return FALSE;
        }
        if (*argc > 1) {
                fprintf(stderr, "jetsond-exporter: unexpected argument \"%s\"\n", (*argv)[1]);
                return FALSE;
        }
        return TRUE;
}

static int open_bus(const options *o, sd_bus **bus)
{
        int r = jd_client_bus_open(o->address, o->session, bus);
        const char *why = r < 0 && o->session && !o->address ? jd_session_bus_error(r) : NULL;
        if (r < 0)
                xlog(SD_ERR, "cannot connect to %s: %s",
                     o->address ? o->address : o->session ? "the session bus" : "the system bus",
                     why ? why : strerror(-r));
        return r;
}

/* The socket systemd passed, else --listen's. */
static int open_socket(const options *o)
{
        g_autoptr(GError) error = NULL;
        int fd = listen_from_systemd(&error);
        if (fd >= 0) {
                if (o->listen)
                        xlog(SD_NOTICE, "serving on the socket systemd passed; --listen %s is not used", o->listen);
                return fd;
        }
        if (fd == -1)
                fd = listen_open(o->listen ? o->listen : EXPORTER_DEFAULT_LISTEN, &error);
        if (fd < 0)
                xlog(SD_ERR, "%s", error->message);
        return fd;
}

static int run(const options *o)
{
        /* Blocked before any thread starts, so only sd-event sees them. */
        sigset_t mask;
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigprocmask(SIG_BLOCK, &mask, NULL);
        signal(SIGPIPE, SIG_IGN);

        int fd = open_socket(o);
        if (fd < 0)
                return 1;
        sd_event *event = NULL;
        sd_bus *bus = NULL;
        int r = sd_event_default(&event);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
        if (r >= 0)
                r = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
        if (r < 0) {
                xlog(SD_ERR, "cannot set up the event loop: %s", strerror(-r));
                return 1;
        }
        int status = 1;
        page_store *store = page_store_new();
        jetsond_link *link = NULL;
        http_server *server = NULL;
        g_autoptr(GError) error = NULL;
        if (open_bus(o, &bus) < 0 || sd_bus_attach_event(bus, event, SD_EVENT_PRIORITY_NORMAL) < 0)
                goto out;
        link = jetsond_link_new(bus, event, store);
        if (!link)
                goto out;
        server = http_server_start(fd, store, !o->no_dcgm, &error);
        fd = -1;
        if (!server) {
                xlog(SD_ERR, "%s", error->message);
                goto out;
        }
        sd_notify(0, o->no_dcgm ? "READY=1\nSTATUS=Serving /metrics" : "READY=1\nSTATUS=Serving /metrics and /metrics/dcgm");
        r = sd_event_loop(event);
        status = r < 0 ? 1 : r;
        sd_notify(0, "STOPPING=1");
out:
        if (fd >= 0)
                close(fd);
        http_server_stop(server);
        jetsond_link_free(link);
        sd_bus_flush_close_unref(bus);
        page_store_free(store);
        sd_event_unref(event);
        return status;
}

int main(int argc, char **argv)
{
        options o = { 0 };
        if (!parse_options(&o, &argc, &argv))
                return 2;
        int status = 0;
        if (o.version) {
                printf("jetsond-exporter %s\n", EXPORTER_VERSION);
        } else if (o.list_metrics) {
                GString *list = exp_list_families();
                fputs(list->str, stdout);
                g_string_free(list, TRUE);
        } else if (o.list_dcgm) {
                GString *list = dcgm_list_fields();
                fputs(list->str, stdout);
                g_string_free(list, TRUE);
        } else {
                status = run(&o);
        }
        g_free(o.listen);
        g_free(o.address);
        return status;
}
