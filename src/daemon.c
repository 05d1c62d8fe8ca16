#include "daemon.h"

#include <errno.h>
#include <glib-unix.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "bus_source.h"
#include "errors.h"
#include "jetsond-dbus.h"
#include "log.h"
#include "service.h"

typedef struct {
        GMainLoop *loop;
        int exit_code;
} run_state;

static gboolean on_signal(gpointer data)
{
        run_state *st = data;
        jd_log_info("Stopping on signal");
        g_main_loop_quit(st->loop);
        return G_SOURCE_CONTINUE;
}

static void on_disconnect(void *data)
{
        run_state *st = data;
        jd_log_error("Lost the connection to the bus, exiting");
        st->exit_code = EXIT_FAILURE;
        g_main_loop_quit(st->loop);
}

static int open_bus(jd_bus_kind kind, const char *address, sd_bus **out)
{
        if (kind == JD_BUS_SYSTEM)
                return sd_bus_open_system_with_description(out, "jetsond");
        if (kind == JD_BUS_SESSION)
                return sd_bus_open_user_with_description(out, "jetsond");
        sd_bus *bus = NULL;
        int r = sd_bus_new(&bus);
        if (r >= 0)
                r = sd_bus_set_address(bus, address);
        if (r >= 0)
                r = sd_bus_set_bus_client(bus, 1);
        if (r >= 0)
                r = sd_bus_set_description(bus, "jetsond");
        if (r >= 0)
                r = sd_bus_start(bus);
        if (r < 0) {
                sd_bus_unref(bus);
                return r;
        }
        *out = bus;
        return 0;
}

static const char *bus_label(jd_bus_kind kind, const char *address)
{
        return kind == JD_BUS_SYSTEM ? "the system bus" : kind == JD_BUS_SESSION ? "the session bus" : address;
}

int jd_run_daemon(const jd_sysroot *sr, jd_bus_kind kind, const char *address, uint64_t interval_us)
{
        /* polkit-gobject talks to polkitd over GDBus on "the system bus";
         * with --address that must be the bus the callers are on, or their
         * unique names would mean nothing to polkitd. */
        if (kind == JD_BUS_ADDRESS)
                g_setenv("DBUS_SYSTEM_BUS_ADDRESS", address, TRUE);

        sd_bus *bus = NULL;
        int r = open_bus(kind, address, &bus);
        if (r < 0) {
                jd_log_error("Cannot connect to %s: %s", bus_label(kind, address), strerror(-r));
                return EXIT_FAILURE;
        }
        jd_errors_register();

        g_autoptr(GError) error = NULL;
        jd_service *svc = jd_service_new(bus, sr, interval_us, &error);
        if (!svc) {
                jd_log_error("Cannot start the service: %s", error->message);
                sd_bus_flush_close_unref(bus);
                return EXIT_FAILURE;
        }
        jd_auth_init(bus);

        r = sd_bus_request_name(bus, JD_BUS_NAME, 0);
        if (r < 0) {
                jd_log_error("Cannot own %s on %s: %s", JD_BUS_NAME, bus_label(kind, address),
                             r == -EEXIST   ? "another instance is running"
                             : r == -EACCES ? "the bus policy does not allow it (is org.jetsond.Jetson1.conf installed, and are we root?)"
                                            : strerror(-r));
                jd_auth_shutdown();
                jd_service_free(svc);
                sd_bus_flush_close_unref(bus);
                return EXIT_FAILURE;
        }

        run_state st = { .loop = g_main_loop_new(NULL, FALSE), .exit_code = EXIT_SUCCESS };
        GSource *bus_source = jd_bus_source_new(bus, on_disconnect, &st);
        g_source_attach(bus_source, NULL);
        guint sigterm = g_unix_signal_add(SIGTERM, on_signal, &st);
        guint sigint = g_unix_signal_add(SIGINT, on_signal, &st);
        jd_service_start(svc);
        jd_log_info("Serving %s on %s, sampling every %" PRIu64 " ms", JD_BUS_NAME, bus_label(kind, address),
                    interval_us / 1000);

        g_main_loop_run(st.loop);

        g_source_remove(sigterm);
        g_source_remove(sigint);
        jd_auth_shutdown();
        jd_service_free(svc);
        g_source_destroy(bus_source);
        g_source_unref(bus_source);
        g_main_loop_unref(st.loop);
        sd_bus_flush_close_unref(bus);
        return st.exit_code;
}
