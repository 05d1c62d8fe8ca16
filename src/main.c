/* jetsond: NVIDIA Jetson board information, metrics and control on D-Bus. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture.h"
#include "daemon.h"
#include "log.h"
#include "once.h"
#include "sysroot.h"

#define EXIT_USAGE 2

/* A file jetsond will not read (jd_sysroot), once per file. */
static void complain_about_file(const char *path, const char *why, void *data)
{
        (void) data;
        /* "PATH is not a regular file...", "PATH: not accessible ..." */
        jd_log_warning("%s%s%s", path, why[0] == ':' ? "" : " ", why);
}

int main(int argc, char **argv)
{
        g_autofree char *sysroot_dir = NULL;
        gint interval_ms = 1000, duration_s = 0;
        gboolean once = FALSE, json = FALSE, system_bus = FALSE, user = FALSE, verbose = FALSE;
        gboolean version = FALSE, no_redact = FALSE;
        g_autofree char *address = NULL, *nvml_library = NULL, *capture = NULL;
        GOptionEntry entries[] = {
                { "sysroot", 0, 0, G_OPTION_ARG_FILENAME, &sysroot_dir,
                  "Resolve every hardware path under DIR (default /)", "DIR" },
                { "interval", 0, 0, G_OPTION_ARG_INT, &interval_ms,
                  "Sampling interval in milliseconds (default 1000)", "MS" },
                { "system", 0, 0, G_OPTION_ARG_NONE, &system_bus, "Serve on the system bus (the default)", NULL },
                { "user", 0, 0, G_OPTION_ARG_NONE, &user,
                  "Serve this user alone on the session bus: reads only, no polkit, no state (docs/user-mode.md)",
                  NULL },
                /* The name it had before --user; the same mode. */
                { "session", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_NONE, &user, "The same as --user", NULL },
                { "address", 0, 0, G_OPTION_ARG_STRING, &address,
                  "Serve on the bus at ADDR (polkit is asked on the same bus)", "ADDR" },
                { "nvml-library", 0, 0, G_OPTION_ARG_FILENAME, &nvml_library,
                  "Read NVIDIA GPUs through this NVML library (default libnvidia-ml.so.1; none with --sysroot)",
                  "PATH" },
                { "verbose", 'v', 0, G_OPTION_ARG_NONE, &verbose, "Log debug messages", NULL },
                { "once", 0, 0, G_OPTION_ARG_NONE, &once, "Print one sample and exit", NULL },
                { "json", 0, 0, G_OPTION_ARG_NONE, &json, "With --once: print JSON", NULL },
                { "capture", 0, 0, G_OPTION_ARG_FILENAME, &capture,
                  "Write the files the probe and two samples read to ARCHIVE (.tar.gz), print a report, exit",
                  "ARCHIVE" },
                { "duration", 0, 0, G_OPTION_ARG_INT, &duration_s,
                  "With --capture: also the files that change, every --interval for SECONDS", "SECONDS" },
                { "no-redact", 0, 0, G_OPTION_ARG_NONE, &no_redact,
                  "With --capture: keep serials, MACs, host and user names (for your own use)", NULL },
                { "version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL },
                { NULL },
        };
        g_autoptr(GOptionContext) ctx = g_option_context_new("- Jetson board service");
        g_autoptr(GError) error = NULL;
        g_option_context_add_main_entries(ctx, entries, NULL);
        if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
                fprintf(stderr, "jetsond: %s\n", error->message);
                return EXIT_USAGE;
        }
        if (version) {
                printf("jetsond %s\n", JETSOND_VERSION);
                return EXIT_SUCCESS;
        }
        if (interval_ms < 10 || interval_ms > 3600000) {
                fprintf(stderr, "jetsond: --interval must be between 10 and 3600000 ms\n");
                return EXIT_USAGE;
        }
        if (duration_s < 0 || duration_s > 3600 || (duration_s && !capture)) {
                fprintf(stderr, "jetsond: --duration goes with --capture, from 0 to 3600 seconds\n");
                return EXIT_USAGE;
        }
        if (system_bus + user + (address != NULL) > 1) {
                fprintf(stderr, "jetsond: --system, --user and --address exclude each other\n");
                return EXIT_USAGE;
        }
        if (verbose)
                jd_log_set_max_priority(LOG_DEBUG);
        const char *why = NULL;
        jd_sysroot *sr = jd_sysroot_new(sysroot_dir ? sysroot_dir : "/", &why);
        if (!sr) {
                fprintf(stderr, "jetsond: %s: %s\n", sysroot_dir ? sysroot_dir : "/", why);
                return EXIT_USAGE;
        }
        jd_sysroot_set_complaints(sr, complain_about_file, NULL);
        /* A fake board's GPUs are the test's: never the host's NVML. */
        const char *nvml = nvml_library ? nvml_library : jd_sysroot_is_host(sr) ? "libnvidia-ml.so.1" : NULL;
        int ret;
        if (capture) {
                jc_capture_options o = { .archive = capture, .interval_ms = (unsigned) interval_ms,
                                         .duration_ms = (unsigned) duration_s * 1000u,
                                         .redact = !no_redact, .nvml_library = nvml };
                ret = jc_run_capture(sr, &o);
        } else if (once) {
                ret = jd_run_once(sr, (unsigned) interval_ms, json, nvml);
        } else {
                jd_bus_kind kind = address ? JD_BUS_ADDRESS : user ? JD_BUS_USER : JD_BUS_SYSTEM;
                ret = jd_run_daemon(sr, kind, address, (uint64_t) interval_ms * 1000u, nvml);
        }
        jd_sysroot_free(sr);
        return ret;
}
