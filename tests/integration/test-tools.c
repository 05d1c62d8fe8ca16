/* jetsond as people and programs outside this project see it, through
 * the stock clients, each on its own private bus with the AGX Orin board
 * sampled every 200 ms: a person with busctl, a script with gdbus, and a
 * GNOME Shell extension with gjs (tests/integration/watch-sample.js).
 * Each reads a property and receives a Metrics.Sample signal and the
 * values are checked, not only the exit status.
 *
 * Every tool runs under coreutils timeout(1) so a hang cannot block the
 * suite; the monitors are stopped as soon as the first Sample is read.
 * Nothing in this file asserts while a tool is running, so a failing
 * check never leaves one behind. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jetsond-dbus.h"
#include "testbus.h"

#define BOARD "agx-orin-jp62"
#define MODEL "NVIDIA Jetson AGX Orin Developer Kit"
#define TOOL_TIMEOUT "10"      /* seconds, for tools that exit by themselves */
#define MONITOR_TIMEOUT 5      /* seconds, for a monitor to show one Sample */

/* ---- harness ------------------------------------------------------------ */

static testbus *start(void **state)
{
        return testbus_start(state, BOARD, (const char *[]) { "--interval=200", NULL });
}

/* The unique name that owns org.jetsond.Jetson1, to compare with the
 * sender the tools report. */
static char *daemon_owner(void)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        const char *owner = NULL;
        if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "GetNameOwner", &e, &reply, "s", JD_BUS_NAME) < 0)
                fail_msg("GetNameOwner: %s", e.message);
        assert_true(sd_bus_message_read(reply, "s", &owner) > 0);
        char *copy = g_strdup(owner);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return copy;
}

/* Runs `timeout TOOL_TIMEOUT ARGV...`; its exit status, stdout in *OUT. */
static int run_tool(const char *const *argv, char **out)
{
        g_autoptr(GPtrArray) full = g_ptr_array_new();
        g_ptr_array_add(full, (gpointer) "timeout");
        g_ptr_array_add(full, (gpointer) "-k2");
        g_ptr_array_add(full, (gpointer) TOOL_TIMEOUT);
        for (size_t i = 0; argv[i]; i++)
                g_ptr_array_add(full, (gpointer) argv[i]);
        g_ptr_array_add(full, NULL);
        return testbus_run((const char *const *) full->pdata, out);
}

/* Runs the monitor ARGV under `timeout MONITOR_TIMEOUT` and returns the
 * first complete line of its stdout that contains NEEDLE, or NULL if it
 * ended (or the time ran out) without one. The monitor is stopped and
 * reaped before this returns; *ALL gets everything it printed (g_free),
 * for the failure message and the lines before the match. */
static char *first_line_with(const char *const *argv, const char *needle, char **all)
{
        g_autoptr(GPtrArray) full = g_ptr_array_new();
        g_autofree char *secs = g_strdup_printf("%d", MONITOR_TIMEOUT);
        g_ptr_array_add(full, (gpointer) "timeout");
        g_ptr_array_add(full, (gpointer) "-k2");
        g_ptr_array_add(full, secs);
        for (size_t i = 0; argv[i]; i++)
                g_ptr_array_add(full, (gpointer) argv[i]);
        g_ptr_array_add(full, NULL);

        GPid pid = 0;
        int out_fd = -1;
        GError *error = NULL;
        if (!g_spawn_async_with_pipes(NULL, (char **) full->pdata, NULL,
                                      G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, NULL, NULL, &pid, NULL,
                                      &out_fd, NULL, &error))
                fail_msg("cannot run %s: %s", argv[0], error->message);

        GString *buf = g_string_new(NULL);
        char *found = NULL;
        size_t scanned = 0;   /* lines before this offset are complete and checked */
        /* timeout(1) ends it; this is only the backstop if that fails. */
        uint64_t deadline = testbus_now_us() + (MONITOR_TIMEOUT + 3) * G_USEC_PER_SEC;
        while (!found) {
                uint64_t now = testbus_now_us();
                if (now >= deadline)
                        break;
                struct pollfd pfd = { .fd = out_fd, .events = POLLIN };
                int r = poll(&pfd, 1, (int) ((deadline - now + 999) / 1000));
                if (r < 0 && errno == EINTR)
                        continue;
                if (r <= 0)
                        break;
                char chunk[65536];
                ssize_t n = read(out_fd, chunk, sizeof(chunk));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;  /* EOF: the monitor ended */
                g_string_append_len(buf, chunk, n);
                char *nl;
                while (!found && (nl = memchr(buf->str + scanned, '\n', buf->len - scanned))) {
                        g_autofree char *line = g_strndup(buf->str + scanned, (size_t) (nl - buf->str) - scanned);
                        scanned = (size_t) (nl - buf->str) + 1;
                        if (strstr(line, needle))
                                found = g_steal_pointer(&line);
                }
        }
        close(out_fd);
        /* SIGTERM to timeout(1) is passed on to the monitor (SIGKILL after
         * 2 s more); the backstop kills timeout itself. */
        kill(pid, SIGTERM);
        if (testbus_now_us() >= deadline)
                kill(-pid, SIGKILL); /* timeout(1) leads its own process group */
        waitpid(pid, NULL, 0);
        g_spawn_close_pid(pid);
        *all = g_string_free(buf, FALSE);
        return found;
}

/* A Sample timestamp: CLOCK_REALTIME µs, taken within the last seconds. */
static void assert_fresh(uint64_t stamp)
{
        uint64_t now = (uint64_t) g_get_real_time();
        if (stamp > now || now - stamp > 10 * G_USEC_PER_SEC)
                fail_msg("Sample timestamp %" G_GUINT64_FORMAT " is not recent (now %" G_GUINT64_FORMAT ")", stamp,
                         now);
}

/* ---- busctl ------------------------------------------------------------- */

#define BUSCTL_OBJ "org.jetsond.Jetson1", "/org/jetsond/Jetson1"

static char *busctl_get(const char *iface, const char *prop)
{
        char *out = NULL;
        int status = run_tool((const char *[]) { "busctl", "--system", "get-property", BUSCTL_OBJ, iface, prop, NULL },
                              &out);
        if (status != 0)
                fail_msg("busctl get-property %s %s: exit %d, output \"%s\"", iface, prop, status, out);
        return out;
}

/* One line of `busctl --json=short monitor`: the header fields, then the
 * payload. The output is compact and its field order fixed, so the header
 * is matched as text up to "payload", and the payload entries of a{sv}
 * as "key":{"type":"T","data":V}. */
static void check_busctl_sample(const char *line, const char *owner)
{
        const char *payload = strstr(line, ",\"payload\":");
        if (!payload)
                fail_msg("no payload in: %.300s", line);
        g_autofree char *header = g_strndup(line, (size_t) (payload - line));
        g_autoptr(GRegex) field = g_regex_new("\"(type|sender|destination|path|interface|member)\":\"([^\"]*)\"", 0, 0,
                                              NULL);
        g_autoptr(GHashTable) fields = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        GMatchInfo *mi = NULL;
        g_regex_match(field, header, 0, &mi);
        while (g_match_info_matches(mi)) {
                g_hash_table_insert(fields, g_match_info_fetch(mi, 1), g_match_info_fetch(mi, 2));
                g_match_info_next(mi, NULL);
        }
        g_match_info_free(mi);
        if (!g_str_has_prefix(header, "{\"type\":\"signal\","))
                fail_msg("not a signal: %s", header);
        assert_string_equal(g_hash_table_lookup(fields, "sender"), owner);
        assert_false(g_hash_table_contains(fields, "destination")); /* broadcast */
        assert_string_equal(g_hash_table_lookup(fields, "path"), JD_OBJECT_PATH);
        assert_string_equal(g_hash_table_lookup(fields, "interface"), JD_IFACE_METRICS);
        assert_string_equal(g_hash_table_lookup(fields, "member"), "Sample");

        /* "payload":{"type":"ta{sv}","data":[STAMP,{ENTRIES}]}} */
        g_autoptr(GRegex) body = g_regex_new("^,\"payload\":\\{\"type\":\"ta\\{sv\\}\",\"data\":\\[([0-9]+),\\{(.*)\\}\\]\\}\\}$",
                                             G_REGEX_DOTALL, 0, NULL);
        if (!g_regex_match(body, payload, 0, &mi)) {
                g_match_info_free(mi);
                fail_msg("payload is not (ta{sv}): %.300s", payload);
        }
        g_autofree char *stamp = g_match_info_fetch(mi, 1);
        g_autofree char *entries = g_match_info_fetch(mi, 2);
        g_match_info_free(mi);
        assert_fresh(g_ascii_strtoull(stamp, NULL, 10));

        g_autoptr(GRegex) entry = g_regex_new("\"([^\"]+)\":\\{\"type\":\"([a-z])\",\"data\":", 0, 0, NULL);
        g_autoptr(GHashTable) types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        g_regex_match(entry, entries, 0, &mi);
        while (g_match_info_matches(mi)) {
                g_hash_table_insert(types, g_match_info_fetch(mi, 1), g_match_info_fetch(mi, 2));
                g_match_info_next(mi, NULL);
        }
        g_match_info_free(mi);
        if (g_hash_table_size(types) <= 100)
                fail_msg("only %u keys in the Sample busctl printed", g_hash_table_size(types));
        assert_string_equal(g_hash_table_lookup(types, "nvpmodel.name"), "s");
        assert_non_null(strstr(entries, "\"nvpmodel.name\":{\"type\":\"s\",\"data\":\"MAXN\"}"));
        assert_string_equal(g_hash_table_lookup(types, "cpu.0.freq"), "u");
        assert_non_null(strstr(entries, "\"cpu.0.freq\":{\"type\":\"u\",\"data\":729600}"));
}

static void test_busctl(void **state)
{
        testbus *tb = start(state);
        g_autofree char *owner = daemon_owner();

        g_autofree char *model = busctl_get(JD_IFACE_BOARD, "Model");
        assert_string_equal(model, "s \"" MODEL "\"\n");
        g_autofree char *interval = busctl_get(JD_IFACE_METRICS, "Interval");
        assert_string_equal(interval, "t 200000\n");

        g_autofree char *all = NULL;
        g_autofree char *line = first_line_with(
                (const char *[]) { "busctl", "--system", "--json=short", "monitor", "--match",
                                   "type='signal',interface='" JD_IFACE_METRICS "',member='Sample'", NULL },
                "\"member\":\"Sample\"", &all);
        if (!line)
                fail_msg("busctl monitor showed no Sample in %d s; it printed:\n%.2000s", MONITOR_TIMEOUT, all);
        check_busctl_sample(line, owner);

        /* Subscribe works from busctl, and lasts as long as busctl's
         * connection: the Interval is back at 200 ms once it has exited. */
        g_autofree char *out = NULL;
        assert_int_equal(run_tool((const char *[]) { "busctl", "--system", "call", BUSCTL_OBJ, JD_IFACE_METRICS,
                                                     "Subscribe", "t", "50000", NULL },
                                  &out),
                         0);
        assert_string_equal(out, "");
        g_clear_pointer(&out, g_free);
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        for (;;) {
                g_free(interval);
                interval = busctl_get(JD_IFACE_METRICS, "Interval");
                if (strcmp(interval, "t 200000\n") == 0 || testbus_now_us() >= deadline)
                        break;
                g_usleep(20000);
        }
        assert_string_equal(interval, "t 200000\n");
        /* Out of range: refused (busctl shows only the message, on stderr). */
        assert_int_equal(run_tool((const char *[]) { "busctl", "--system", "call", BUSCTL_OBJ, JD_IFACE_METRICS,
                                                     "Subscribe", "t", "5", NULL },
                                  &out),
                         1);
        testbus_stop_cleanly(tb);
}

/* ---- gdbus -------------------------------------------------------------- */

static void test_gdbus(void **state)
{
        testbus *tb = start(state);
        g_autofree char *owner = daemon_owner();

        g_autofree char *soc = NULL;
        int status = run_tool((const char *[]) { "gdbus", "call", "--system", "--dest", JD_BUS_NAME, "--object-path",
                                                 JD_OBJECT_PATH, "--method", "org.freedesktop.DBus.Properties.Get",
                                                 JD_IFACE_BOARD, "SoC", NULL },
                              &soc);
        assert_int_equal(status, 0);
        assert_string_equal(soc, "(<'tegra234'>,)\n");

        /* gdbus monitor only ends by the timeout; it is stopped after the
         * first Sample. Its lines are the signal in GVariant text format. */
        static const char prefix[] = JD_OBJECT_PATH ": " JD_IFACE_METRICS ".Sample ";
        g_autofree char *all = NULL;
        g_autofree char *line = first_line_with(
                (const char *[]) { "gdbus", "monitor", "--system", "--dest", JD_BUS_NAME, NULL }, prefix, &all);
        if (!line)
                fail_msg("gdbus monitor showed no Sample in %d s; it printed:\n%.2000s", MONITOR_TIMEOUT, all);
        /* It names the owner it follows, then shows what that owner sends. */
        g_autofree char *owned = g_strdup_printf("The name %s is owned by %s\n", JD_BUS_NAME, owner);
        assert_non_null(strstr(all, owned));
        assert_true(g_str_has_prefix(line, prefix));
        assert_true(g_str_has_prefix(line + strlen(prefix), "(uint64 "));
        assert_non_null(strstr(line, "'nvpmodel.name': <'MAXN'>"));

        GError *error = NULL;
        g_autoptr(GVariant) args = g_variant_parse(G_VARIANT_TYPE("(ta{sv})"), line + strlen(prefix), NULL, NULL,
                                                   &error);
        if (!args)
                fail_msg("cannot parse the Sample gdbus printed: %s\n%.300s", error->message, line);
        uint64_t stamp = 0;
        g_autoptr(GVariant) values = NULL;
        g_variant_get(args, "(t@a{sv})", &stamp, &values);
        assert_fresh(stamp);
        if (g_variant_n_children(values) <= 100)
                fail_msg("only %zu keys in the Sample gdbus printed", g_variant_n_children(values));
        g_autoptr(GVariantDict) dict = g_variant_dict_new(values);
        const char *name = NULL;
        assert_true(g_variant_dict_lookup(dict, "nvpmodel.name", "&s", &name));
        assert_string_equal(name, "MAXN");
        uint32_t freq = 0;
        assert_true(g_variant_dict_lookup(dict, "cpu.0.freq", "u", &freq));
        assert_int_equal(freq, 729600);
        testbus_stop_cleanly(tb);
}

/* ---- gjs ---------------------------------------------------------------- */

static void test_gjs(void **state)
{
        testbus *tb = start(state);
        g_autofree char *out = NULL;
        /* The script gives up after 5 s without a Sample. */
        int status = run_tool((const char *[]) { "gjs", SOURCE_DIR "/tests/integration/watch-sample.js", NULL }, &out);
        if (status != 0)
                fail_msg("watch-sample.js: exit %d, stdout:\n%s", status, out);

        char **lines = g_strsplit(out, "\n", -1);
        unsigned n_lines = g_strv_length(lines);
        if (n_lines != 4 || lines[3][0] != '\0')
                fail_msg("watch-sample.js printed %u lines instead of 3:\n%s", n_lines, out);
        assert_string_equal(lines[0], "Model=" MODEL);
        assert_string_equal(lines[1], "JetPack=6.2");
        g_autoptr(GRegex) sample = g_regex_new(
                "^Sample keys=([0-9]+) nvpmodel\\.name=(\\S*) cpu\\.0\\.freq=(\\S*) timestamp=([0-9]+)$", 0, 0, NULL);
        GMatchInfo *mi = NULL;
        if (!g_regex_match(sample, lines[2], 0, &mi)) {
                g_match_info_free(mi);
                fail_msg("unexpected Sample line: %s", lines[2]);
        }
        g_autofree char *keys = g_match_info_fetch(mi, 1);
        g_autofree char *name = g_match_info_fetch(mi, 2);
        g_autofree char *freq = g_match_info_fetch(mi, 3);
        g_autofree char *stamp = g_match_info_fetch(mi, 4);
        g_match_info_free(mi);
        g_strfreev(lines);
        if (atoi(keys) <= 100)
                fail_msg("only %s keys in the Sample gjs received", keys);
        assert_string_equal(name, "MAXN");
        assert_string_equal(freq, "729600");
        assert_fresh(g_ascii_strtoull(stamp, NULL, 10));
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_busctl, testbus_teardown),
                cmocka_unit_test_teardown(test_gdbus, testbus_teardown),
                cmocka_unit_test_teardown(test_gjs, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
