#include "daemon.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "caller_ns.h"
#include "caller_uid.h"
#include "bus_source.h"
#include "config.h"
#include "errors.h"
#include "jetsond-client-bus.h"
#include "jetsond-dbus.h"
#include "log.h"
#include "peer_watch.h"
#include "service.h"
#include "user_mode.h"

typedef struct {
        GMainLoop *loop;
        int exit_code;
        sd_bus *bus;
        const jd_sysroot *sr;
        jd_bus_kind kind;
        const char *address;
        uint64_t interval_us;
        jd_sampling_engine *engine;
        GSource *startup;             /* until the first complete sample */
        jd_board board;
        bool board_read;
        jd_service *svc;
        sd_bus_slot *name_request;
        sd_bus *system_bus;           /* --user: systemd's unit states, read only; NULL without one */
} run_state;

static void quit(run_state *st, int code)
{
        st->exit_code = code;
        g_main_loop_quit(st->loop);
}

static gboolean on_signal(gpointer data)
{
        run_state *st = data;
        jd_log_info("Stopping on signal");
        g_main_loop_quit(st->loop);
        return G_SOURCE_CONTINUE;
}

static void on_disconnect(void *data)
{
        jd_log_error("Lost the connection to the bus, exiting");
        quit(data, EXIT_FAILURE);
}

/* --user: the unit states would go stale without it; a restart
 * (Restart=on-failure) finds the system bus again or goes on without. */
static void on_system_bus_disconnect(void *data)
{
        jd_log_error("Lost the connection to the system bus, exiting");
        quit(data, EXIT_FAILURE);
}

static int open_bus(jd_bus_kind kind, const char *address, sd_bus **out)
{
        /* Not the *_with_description() forms: they are libsystemd 239,
         * and the floor is 237 (Ubuntu 18.04, JetPack 4.6). */
        if (kind == JD_BUS_SYSTEM)
                return sd_bus_open_system(out);
        if (kind == JD_BUS_USER)
                return sd_bus_open_user(out);
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
        return kind == JD_BUS_SYSTEM ? "the system bus" : kind == JD_BUS_USER ? "the session bus" : address;
}

static int on_name(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        run_state *st = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        if (e) {
                int r = sd_bus_message_get_errno(m);
                jd_log_error("Cannot own %s on %s: %s", JD_BUS_NAME, bus_label(st->kind, st->address),
                             r == EEXIST   ? "another instance is running"
                             : r == EACCES ? "the bus policy does not allow it (is org.jetsond.Jetson1.conf installed, and are we root?)"
                                           : e->message);
                quit(st, EXIT_FAILURE);
                return 0;
        }
        uint32_t reply = 0;
        if (sd_bus_message_read(m, "u", &reply) >= 0 && reply != 1 /* PRIMARY_OWNER */ && reply != 4 /* ALREADY_OWNER */) {
                jd_log_error("Cannot own %s on %s: another instance is running", JD_BUS_NAME,
                             bus_label(st->kind, st->address));
                quit(st, EXIT_FAILURE);
                return 0;
        }
        jd_log_info("Serving %s on %s%s, sampling every %" PRIu64 " ms", JD_BUS_NAME, bus_label(st->kind, st->address),
                    st->kind == JD_BUS_USER ? " for this user alone (reads only; changes go to the system service)"
                                            : "",
                    st->interval_us / 1000);
        return 0;
}

/* Once the engine has a complete first sample (every tier answered,
 * rates included) and the board is known: export everything, then ask
 * for the name, so a client's first call already finds every key. */
static void try_start_service(run_state *st)
{
        if (st->svc || !st->board_read || !jd_engine_started(st->engine, (uint64_t) g_get_monotonic_time()))
                return;
        if (st->startup) {
                g_source_destroy(st->startup);
                g_source_unref(st->startup);
                st->startup = NULL;
        }
        g_autoptr(GError) error = NULL;
        st->svc = st->kind == JD_BUS_USER ? jd_service_new_user(st->bus, st->system_bus, st->sr, st->engine,
                                                                &st->board, st->interval_us, &error)
                                          : jd_service_new(st->bus, st->sr, st->engine, &st->board, st->interval_us,
                                                           &error);
        if (!st->svc) {
                jd_log_error("Cannot start the service: %s", error->message);
                quit(st, EXIT_FAILURE);
                return;
        }
        if (st->kind == JD_BUS_USER)
                jd_auth_init_user(st->bus);
        else
                jd_auth_init(st->bus);
        jd_service_start(st->svc);
        int r = sd_bus_request_name_async(st->bus, &st->name_request, JD_BUS_NAME, 0, on_name, st);
        if (r < 0) {
                jd_log_error("Cannot own %s on %s: %s", JD_BUS_NAME, bus_label(st->kind, st->address), strerror(-r));
                quit(st, EXIT_FAILURE);
        }
}

static gboolean on_startup_event(gpointer data)
{
        run_state *st = data;
        jd_engine_take_events(st->engine);
        try_start_service(st);
        return G_SOURCE_CONTINUE;
}

/* The board's identity comes from files (device tree, EEPROM, dpkg's
 * database): read on a worker thread like every other file. */
static void read_board(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        (void) source, (void) data, (void) cancellable;
        jd_board *board = g_new0(jd_board, 1);
        jd_board_read(board, g_task_get_task_data(task));
        g_task_return_pointer(task, board, g_free);
}

static void on_board_read(GObject *source, GAsyncResult *res, gpointer data)
{
        (void) source;
        run_state *st = data;
        g_autofree jd_board *board = g_task_propagate_pointer(G_TASK(res), NULL);
        st->board = *board;
        st->board_read = true;
        try_start_service(st);
}

/* systemd creates /var/lib/jetsond and /run/jetsond (StateDirectory=,
 * RuntimeDirectory=); started any other way (a board without the unit, a
 * test root) jetsond makes them itself, or jetson_clocks --store, the swap
 * file and the note of the running power mode would find no directory.
 * Once, before the main loop runs. */
static void ensure_dir(const jd_sysroot *sr, const char *path)
{
        char host[4096];
        if (jd_sysroot_host_path_to_create(sr, path, host, sizeof host) < 0) {
                jd_log_warning("Cannot resolve %s under the sysroot", path);
                return;
        }
        if (g_file_test(host, G_FILE_TEST_IS_DIR))
                return;
        if (g_mkdir_with_parents(host, 0700) < 0)
                jd_log_warning("Cannot create %s: %s", path, g_strerror(errno));
        else
                jd_log_info("Created %s", path);
}

/* --user: the system bus, only to read the state of the system's units
 * (nvfancontrol.service decides a fan's Profile); any user may. Without
 * one (a container given only the session bus) the state is unknown and
 * the fan reader goes by nvfancontrol's status file, as without systemd. */
static sd_bus *open_system_bus_for_units(void)
{
        sd_bus *bus = NULL;
        int r = sd_bus_open_system(&bus);
        if (r < 0) {
                jd_log_info("No system bus (%s): systemd is not asked whether nvfancontrol.service runs",
                            strerror(-r));
                return NULL;
        }
        return bus;
}

int jd_run_daemon(const jd_sysroot *sr, jd_bus_kind kind, const char *address, uint64_t interval_us,
                  const char *nvml_library)
{
        /* A per-user jetsond writes nothing, so it keeps no state: the
         * system service's directories are neither made nor written. */
        if (kind != JD_BUS_USER) {
                ensure_dir(sr, JD_STATE_DIR);
                ensure_dir(sr, JD_RUNTIME_DIR);
        }

        /* polkit-gobject talks to polkitd over GDBus on "the system bus";
         * with --address that must be the bus the callers are on, or their
         * unique names would mean nothing to polkitd. */
        if (kind == JD_BUS_ADDRESS)
                g_setenv("DBUS_SYSTEM_BUS_ADDRESS", address, TRUE);

        sd_bus *bus = NULL;
        int r = open_bus(kind, address, &bus);
        if (r < 0) {
                const char *why = kind == JD_BUS_USER ? jd_session_bus_error(r) : NULL;
                jd_log_error("Cannot connect to %s: %s", bus_label(kind, address), why ? why : strerror(-r));
                return EXIT_FAILURE;
        }
        jd_errors_register();
        sd_bus_slot *refusal = NULL;
        if (kind == JD_BUS_USER && (r = jd_user_mode_refuse_writes(bus, &refusal)) < 0) {
                jd_log_error("Cannot filter the write methods: %s", strerror(-r));
                sd_bus_flush_close_unref(bus);
                return EXIT_FAILURE;
        }

        run_state st = { .loop = g_main_loop_new(NULL, FALSE), .exit_code = EXIT_SUCCESS, .bus = bus, .sr = sr,
                         .kind = kind, .address = address, .interval_us = interval_us,
                         .system_bus = kind == JD_BUS_USER ? open_system_bus_for_units() : NULL };
        st.engine = jd_engine_new(sr, interval_us);
        if (!st.engine) {
                jd_log_error("Cannot start the sampling threads: %s", strerror(errno));
                g_main_loop_unref(st.loop);
                sd_bus_flush_close_unref(st.system_bus);
                sd_bus_slot_unref(refusal);
                sd_bus_flush_close_unref(bus);
                return EXIT_FAILURE;
        }
        if (nvml_library)
                jd_engine_use_nvml(st.engine, nvml_library);
        GSource *bus_source = jd_bus_source_new(bus, on_disconnect, &st);
        g_source_attach(bus_source, NULL);
        GSource *system_bus_source = NULL;
        if (st.system_bus) {
                system_bus_source = jd_bus_source_new(st.system_bus, on_system_bus_disconnect, &st);
                g_source_attach(system_bus_source, NULL);
        }
        guint sigterm = g_unix_signal_add(SIGTERM, on_signal, &st);
        guint sigint = g_unix_signal_add(SIGINT, on_signal, &st);
        st.startup = jd_engine_source_new(st.engine, "jetsond start-up", on_startup_event, NULL, &st);
        g_source_set_ready_time(st.startup, (gint64) jd_engine_startup_deadline(st.engine));
        g_source_attach(st.startup, NULL);
        g_autoptr(GTask) task = g_task_new(NULL, NULL, on_board_read, &st);
        g_task_set_task_data(task, (gpointer) sr, NULL);
        g_task_run_in_thread(task, read_board);

        g_main_loop_run(st.loop);

        g_source_remove(sigterm);
        g_source_remove(sigint);
        if (st.startup) {
                g_source_destroy(st.startup);
                g_source_unref(st.startup);
        }
        sd_bus_slot_unref(st.name_request);
        if (st.svc) {
                jd_auth_shutdown();
                jd_caller_ns_shutdown();
                jd_caller_uid_shutdown();
        }
        jd_service_free(st.svc);
        jd_peer_watch_shutdown();
        jd_engine_free(st.engine);
        g_source_destroy(bus_source);
        g_source_unref(bus_source);
        if (system_bus_source) {
                g_source_destroy(system_bus_source);
                g_source_unref(system_bus_source);
        }
        g_main_loop_unref(st.loop);
        sd_bus_flush_close_unref(st.system_bus);
        sd_bus_slot_unref(refusal);
        sd_bus_flush_close_unref(bus);
        return st.exit_code;
}
