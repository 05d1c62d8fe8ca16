/* jetsonctl watch: samples stream at the asked interval, filters apply,
 * and the Subscribe() request is released when watch ends, by --count,
 * Ctrl-C (SIGINT) or SIGTERM: jetsond's Interval is back to its default
 * right after jetsonctl exits. watch takes what it shows and no faster:
 * its SampleAt stream for another --interval leaves every other
 * listener's Sample at DefaultInterval, and at DefaultInterval it asks
 * for nothing. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jctest.h"
#include "jetsond-dbus.h"

#define DEFAULT_INTERVAL 1000000ULL

static uint64_t interval_now(void)
{
        sd_bus *bus = testbus_connect();
        uint64_t v = testbus_get_u64(bus, JD_OBJECT_PATH, JD_IFACE_METRICS, "Interval");
        sd_bus_flush_close_unref(bus);
        return v;
}

static void test_count_and_interval(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        assert_int_equal(interval_now(), DEFAULT_INTERVAL);

        jc_result r = jc_run("watch", "--count", "3", "--interval", "50", NULL);
        uint64_t after = interval_now();
        if (r.status != 0)
                fail_msg("exit %d: %s", r.status, r.err);
        assert_string_equal(r.err, "");
        /* Three samples at 50 ms, not at the default 1 s: the samples'
         * own timestamps say so in test_json_lines_and_globs; the wall
         * time is this machine's figure. */
        print_message("figure: watch --count 3 --interval 50 took %" G_GUINT64_FORMAT " ms\n", r.usec / 1000);
        g_auto(GStrv) lines = g_strsplit(r.out, "\n", -1);
        assert_int_equal(g_strv_length(lines), 4); /* 3 lines and "" after the last newline */
        jc_check_golden("agx-orin-jp62.watch", r.out);
        assert_int_equal(after, DEFAULT_INTERVAL);
        jc_result_clear(&r);
}

static void test_json_lines_and_globs(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        jc_result r = jc_run("watch", "--json", "-n", "3", "-i", "50", "temp.*", "power.total", NULL);
        assert_int_equal(r.status, 0);
        g_auto(GStrv) lines = g_strsplit(r.out, "\n", -1);
        assert_int_equal(g_strv_length(lines), 4);
        gint64 prev = 0;
        for (int i = 0; i < 3; i++) {
                g_autoptr(JsonNode) j = jc_parse_json(lines[i]);
                JsonObject *values = json_node_get_object(jc_json_at(j, "values"));
                /* Exactly the matching keys, in the sample's order. */
                g_autoptr(GList) keys = json_object_get_members(values);
                GString *joined = g_string_new(NULL);
                for (GList *k = keys; k; k = k->next)
                        g_string_append_printf(joined, "%s ", (const char *) k->data);
                assert_string_equal(joined->str, "power.total temp.cpu temp.gpu temp.soc0 temp.soc1 temp.soc2 temp.tj ");
                g_string_free(joined, TRUE);
                jc_assert_json_double(j, "values|temp.soc0", 44.125);
                jc_assert_json_int(j, "values|power.total", 7113);
                /* Samples arrive at the subscribed period, far below 1 s. */
                gint64 stamp = json_node_get_int(jc_json_at(j, "timestamp_usec"));
                if (prev && (stamp <= prev || stamp - prev > 500000))
                        fail_msg("samples %" G_GINT64_FORMAT " µs apart", stamp - prev);
                prev = stamp;
        }
        jc_result_clear(&r);

        r = jc_run("watch", "-n", "1", "-i", "50", "power.*.power", "fan.0.rpm", NULL);
        assert_int_equal(r.status, 0);
        jc_check_golden("agx-orin-jp62.watch-globs", r.out);
        jc_result_clear(&r);

        /* --timestamps=iso: the date, the time and the UTC offset; a value
         * with a blank is quoted. */
        r = jc_run("watch", "-n", "1", "-i", "50", "--timestamps=iso", "process.5377.name", NULL);
        assert_int_equal(r.status, 0);
        g_autoptr(GRegex) iso = g_regex_new("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}[+-]\\d\\d:\\d\\d "
                                            "process\\.5377\\.name=\"\\(my\\) app\"\n$", 0, 0, NULL);
        if (!g_regex_match(iso, r.out, 0, NULL))
                fail_msg("not an ISO 8601 line: %s", r.out);
        jc_result_clear(&r);
        assert_int_equal(interval_now(), DEFAULT_INTERVAL);
}

/* Starts `jetsonctl watch --interval 50`, waits for two lines. */
static GPid start_watch(int *out_fd)
{
        const char *argv[] = { JETSONCTL_PATH, "watch", "--interval", "50", NULL };
        GPid pid = 0;
        GError *error = NULL;
        if (!g_spawn_async_with_pipes(NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL,
                                      out_fd, NULL, &error))
                fail_msg("cannot run jetsonctl: %s", error->message);
        return pid;
}

/* Reads until at least N whole lines came (or 30 s passed: only a stall
 * takes that long) and returns how many came: under load one read() may
 * hold more than N samples. */
static int read_lines(int fd, int n)
{
        int seen = 0;
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        while (seen < n && testbus_now_us() < deadline) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, 100) <= 0)
                        continue;
                char buf[4096];
                ssize_t len = read(fd, buf, sizeof(buf));
                if (len <= 0)
                        break;
                for (ssize_t i = 0; i < len; i++)
                        seen += buf[i] == '\n';
        }
        return seen;
}

/* Waits for PID with a 30 s limit; its exit status (128+N for a signal). */
static int wait_exit(GPid pid)
{
        int status = 0;
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        while (waitpid(pid, &status, WNOHANG) == 0) {
                if (testbus_now_us() > deadline) {
                        kill(pid, SIGKILL);
                        waitpid(pid, &status, 0);
                        fail_msg("jetsonctl watch did not end within 30 s");
                }
                g_usleep(10000);
        }
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void stop_by_signal(void **state, int sig)
{
        jc_start(state, "agx-orin-jp62", NULL);
        int fd = -1;
        GPid pid = start_watch(&fd);
        int lines = read_lines(fd, 2);
        uint64_t during = interval_now();
        kill(pid, sig);
        int status = wait_exit(pid);
        uint64_t after = interval_now();
        close(fd);
        assert_true(lines >= 2);
        assert_int_equal(during, 50000);
        assert_int_equal(status, 0);
        assert_int_equal(after, DEFAULT_INTERVAL);
}

static void test_ctrl_c(void **state)
{
        stop_by_signal(state, SIGINT);
}

static void test_sigterm(void **state)
{
        stop_by_signal(state, SIGTERM);
}

/* jetsond stops while watching: a clear line and exit status 1. */
static void test_jetsond_leaves(void **state)
{
        testbus *tb = jc_start(state, "agx-orin-jp62", NULL);
        int fd = -1;
        const char *argv[] = { JETSONCTL_PATH, "watch", "--interval", "50", NULL };
        GPid pid = 0;
        int err_fd = -1;
        GError *error = NULL;
        if (!g_spawn_async_with_pipes(NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL,
                                      &fd, &err_fd, &error))
                fail_msg("cannot run jetsonctl: %s", error->message);
        int lines = read_lines(fd, 1);
        testbus_stop_cleanly(tb);
        int status = wait_exit(pid);
        char err[512] = "";
        ssize_t n = read(err_fd, err, sizeof(err) - 1);
        err[n > 0 ? n : 0] = '\0';
        close(fd);
        close(err_fd);
        assert_true(lines >= 1);
        assert_int_equal(status, 1);
        assert_string_equal(err, "jetsonctl: jetsond left the bus\n");
}

/* What a passive listener hears of jetsond's Metrics signals. */
typedef struct {
        GArray *stamps;         /* uint64_t timestamp_usec of each signal */
        GPtrArray *periods;     /* SampleAt's first argument, each */
} heard;

static int on_heard(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        heard *h = userdata;
        const char *period;
        uint64_t stamp;
        if (strcmp(sd_bus_message_get_member(m), "Sample") != 0) {
                if (sd_bus_message_read(m, "s", &period) < 0)
                        return 0;
                g_ptr_array_add(h->periods, g_strdup(period));
        }
        if (sd_bus_message_read(m, "t", &stamp) >= 0)
                g_array_append_val(h->stamps, stamp);
        return 0;
}

/* A connection of its own that hears MEMBER ("Sample", or every SampleAt
 * whatever its period) without asking jetsond for anything. */
static sd_bus *listen_to(const char *member, heard *h, sd_bus_slot **slot)
{
        *h = (heard) { g_array_new(FALSE, FALSE, sizeof(uint64_t)), g_ptr_array_new_with_free_func(g_free) };
        sd_bus *bus = testbus_connect();
        g_autofree char *rule = g_strdup_printf("type='signal',sender='" JD_BUS_NAME "',interface='" JD_IFACE_METRICS
                                                "',member='%s'", member);
        assert_true(sd_bus_add_match(bus, slot, rule, on_heard, h) >= 0);
        return bus;
}

static void heard_clear(heard *h)
{
        g_array_unref(h->stamps);
        g_ptr_array_unref(h->periods);
}

static int cmp_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* The gaps between consecutive STAMPS, sorted (µs). */
static GArray *gaps(GArray *stamps)
{
        GArray *g = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        for (guint i = 1; i < stamps->len; i++) {
                uint64_t d = g_array_index(stamps, uint64_t, i) - g_array_index(stamps, uint64_t, i - 1);
                g_array_append_val(g, d);
        }
        g_array_sort(g, cmp_u64);
        return g;
}

/* `jetsonctl watch --json ARGS... ram.total` for SECONDS while BUS is
 * pumped (its listener hears meanwhile), then Ctrl-C: the timestamps of
 * the lines it printed. */
static GArray *watch_while_listening(sd_bus *bus, const char *interval_ms, double seconds)
{
        const char *argv[] = { JETSONCTL_PATH, "watch", "--json", "--interval", interval_ms, "ram.total", NULL };
        GPid pid = 0;
        int fd = -1;
        GError *error = NULL;
        if (!g_spawn_async_with_pipes(NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL,
                                      &fd, NULL, &error))
                fail_msg("cannot run jetsonctl: %s", error->message);
        g_autoptr(GString) out = g_string_new(NULL);
        uint64_t end = testbus_now_us() + (uint64_t) (seconds * G_USEC_PER_SEC);
        bool more = true;
        /* Both at once: the listener's socket and watch's pipe, which
         * must not fill while the bus is pumped. */
        while (testbus_now_us() < end) {
                testbus_pump(bus, 20000, NULL);
                struct pollfd p = { .fd = fd, .events = POLLIN };
                while (more && poll(&p, 1, 0) > 0) {
                        char buf[4096];
                        ssize_t len = read(fd, buf, sizeof(buf));
                        if (len <= 0)
                                more = false;
                        else
                                g_string_append_len(out, buf, len);
                }
        }
        kill(pid, SIGINT);
        int status = wait_exit(pid);
        char buf[4096];
        ssize_t len;
        while (more && (len = read(fd, buf, sizeof(buf))) > 0)
                g_string_append_len(out, buf, len);
        close(fd);
        assert_int_equal(status, 0);
        GArray *stamps = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        g_auto(GStrv) lines = g_strsplit(out->str, "\n", -1);
        for (guint i = 0; lines[i] && *lines[i]; i++) {
                g_autoptr(JsonNode) j = jc_parse_json(lines[i]);
                uint64_t stamp = (uint64_t) json_node_get_int(jc_json_at(j, "timestamp_usec"));
                g_array_append_val(stamps, stamp);
        }
        return stamps;
}

/* watch --interval 100 gets its own SampleAt stream: it prints every
 * 100 ms by the samples' own clock, while a listener that only matches
 * Sample (and asks for nothing) keeps hearing it every DefaultInterval.
 * Before SampleAt, watch's Subscribe() made every listener's Sample
 * come every 100 ms. */
static void test_others_keep_default_rate(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        heard h;
        sd_bus_slot *slot = NULL;
        sd_bus *bus = listen_to("Sample", &h, &slot);
        g_autoptr(GArray) lines = watch_while_listening(bus, "100", 3.6);
        testbus_pump(bus, 100000, NULL);
        g_autoptr(GArray) line_gaps = gaps(lines);
        g_autoptr(GArray) sample_gaps = gaps(h.stamps);
        g_autoptr(GString) apart = g_string_new(NULL);
        for (guint i = 1; i < h.stamps->len; i++)
                g_string_append_printf(apart, " %" G_GUINT64_FORMAT,
                                       (g_array_index(h.stamps, uint64_t, i) - g_array_index(h.stamps, uint64_t, i - 1)) / 1000);
        print_message("figure: watch --interval 100 printed %u lines in 3.6 s; a passive listener heard %u Samples, "
                      "ms apart:%s\n", lines->len, h.stamps->len, apart->str);
        if (lines->len < 15)
                fail_msg("watch --interval 100 printed %u lines in 3.6 s", lines->len);
        /* The median gap: one line may wait for a busy machine, and
         * SampleAt comes on the sampling tick nearest its due time. */
        uint64_t median = g_array_index(line_gaps, uint64_t, line_gaps->len / 2);
        if (median < 60000 || median > 160000)
                fail_msg("watch --interval 100: lines %" G_GUINT64_FORMAT " µs apart (median)", median);
        /* While watch printed (by the samples' clock), Samples every
         * DefaultInterval (1 s): about one a second, never one a line. A
         * Sample goes out on the sampling tick nearest its due time, so
         * under load one gap may be short and the next long: the count
         * and the median gap judge, not the shortest gap. */
        uint64_t first = g_array_index(lines, uint64_t, 0), last = g_array_index(lines, uint64_t, lines->len - 1);
        guint during = 0;
        for (guint i = 0; i < h.stamps->len; i++) {
                uint64_t stamp = g_array_index(h.stamps, uint64_t, i);
                during += stamp + 100000 >= first && stamp <= last + 100000;
        }
        guint most = (guint) ((last - first) / DEFAULT_INTERVAL) + 2;
        if (during < 2 || during > most)
                fail_msg("a passive listener heard %u Samples in the %" G_GUINT64_FORMAT " ms watch --interval 100 "
                         "printed (want 2 to %u)", during, (last - first) / 1000, most);
        uint64_t sample_median = g_array_index(sample_gaps, uint64_t, sample_gaps->len / 2);
        if (sample_median < 600000)
                fail_msg("Samples came %" G_GUINT64_FORMAT " µs apart (median) while watch --interval 100 ran",
                         sample_median);
        assert_int_equal(h.periods->len, 0);
        sd_bus_slot_unref(slot);
        sd_bus_flush_close_unref(bus);
        heard_clear(&h);
        assert_int_equal(interval_now(), DEFAULT_INTERVAL);
}

/* At jetsond's DefaultInterval (here 200 ms) watch takes Sample and asks
 * for nothing: no SampleAt of any period is sent while it prints. */
static void test_default_interval_asks_nothing(void **state)
{
        jc_start(state, "agx-orin-jp62", (const char *[]) { "--interval=200", NULL });
        heard h;
        sd_bus_slot *slot = NULL;
        sd_bus *bus = listen_to("SampleAt", &h, &slot);
        g_autoptr(GArray) lines = watch_while_listening(bus, "200", 2.5);
        testbus_pump(bus, 300000, NULL);
        if (lines->len < 5)
                fail_msg("watch --interval 200 printed %u lines in 2.5 s", lines->len);
        g_autoptr(GArray) line_gaps = gaps(lines);
        uint64_t median = g_array_index(line_gaps, uint64_t, line_gaps->len / 2);
        if (median < 120000 || median > 300000)
                fail_msg("watch --interval 200: lines %" G_GUINT64_FORMAT " µs apart (median)", median);
        if (h.periods->len)
                fail_msg("%u SampleAt signals (the first for \"%s\") while watch took the default rate",
                         h.periods->len, (const char *) h.periods->pdata[0]);
        sd_bus_slot_unref(slot);
        sd_bus_flush_close_unref(bus);
        heard_clear(&h);
}

static void test_bad_options(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        static const char *const bad[][3] = { { "--interval", "5", NULL }, { "--interval", "3600001", NULL },
                                              { "--count", "-1", NULL }, { "--interval", "fast", NULL },
                                              { "--interval", "0", NULL }, { "--interval", "-10", NULL } };
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                jc_result r = jc_run("watch", bad[i][0], bad[i][1], NULL);
                if (r.status != 2)
                        fail_msg("watch %s %s: exit %d", bad[i][0], bad[i][1], r.status);
                assert_true(g_str_has_prefix(r.err, "jetsonctl: "));
                jc_result_clear(&r);
        }
        jc_result r = jc_run("watch", "--interval", "5", NULL);
        assert_string_equal(r.err, "jetsonctl: --interval 5 is out of range (10 to 3600000 ms)\n"
                                   "Try 'jetsonctl watch --help'.\n");
        jc_result_clear(&r);
        r = jc_run("watch", "--timestamps=utc", NULL);
        assert_int_equal(r.status, 2);
        assert_string_equal(r.err, "jetsonctl: --timestamps must be time or iso, not \"utc\"\n"
                                   "Try 'jetsonctl watch --help'.\n");
        jc_result_clear(&r);
        /* 0 is out of range too, not "the default". */
        r = jc_run("watch", "--interval", "0", NULL);
        assert_string_equal(r.err, "jetsonctl: --interval 0 is out of range (10 to 3600000 ms)\n"
                                   "Try 'jetsonctl watch --help'.\n");
        jc_result_clear(&r);
        assert_int_equal(interval_now(), DEFAULT_INTERVAL);
}

/* --stats: mean, min and max over the samples seen, printed at the end. */
static void test_stats(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        jc_result r = jc_run("watch", "--count", "4", "--interval", "20", "--stats", "temp.cpu", "ram.total", NULL);
        assert_int_equal(r.status, 0);
        const char *table = strstr(r.out, "Over 4 samples:\n");
        if (!table)
                fail_msg("no statistics in:\n%s", r.out);
        double mean, min, max;
        const char *row = strstr(table, "\ntemp.cpu ");
        assert_non_null(row);
        assert_int_equal(sscanf(row + 10, "%lf %lf %lf", &mean, &min, &max), 3);
        assert_true(min <= mean && mean <= max);
        /* A constant: mean = min = max, the fixture's value. */
        row = strstr(table, "\nram.total ");
        assert_non_null(row);
        assert_int_equal(sscanf(row + 11, "%lf %lf %lf", &mean, &min, &max), 3);
        assert_true(mean == min && min == max && max > 0);
        jc_result_clear(&r);

        r = jc_run("watch", "--json", "-n", "3", "-i", "20", "-s", "ram.total", NULL);
        assert_int_equal(r.status, 0);
        g_auto(GStrv) lines = g_strsplit(r.out, "\n", -1);
        assert_int_equal(g_strv_length(lines), 5); /* 3 samples, the statistics, "" */
        g_autoptr(JsonNode) j = jc_parse_json(lines[3]);
        jc_assert_json_int(j, "samples", 3);
        jc_assert_json_int(j, "stats|ram.total|samples", 3);
        double total = json_node_get_double(jc_json_at(j, "stats|ram.total|max"));
        jc_assert_json_double(j, "stats|ram.total|min", total);
        jc_result_clear(&r);

        /* At 10 ms a slow key repeats in ten samples for each reading:
         * counted once per reading (every 100 ms), the fast one in every
         * sample. 20 samples span 190 ms: 2 or 3 readings. */
        r = jc_run("watch", "--json", "-n", "20", "-i", "10", "-s", "ram.total", "temp.cpu", NULL);
        assert_int_equal(r.status, 0);
        g_auto(GStrv) fast = g_strsplit(r.out, "\n", -1);
        g_autoptr(JsonNode) k = jc_parse_json(fast[20]);
        jc_assert_json_int(k, "stats|ram.total|samples", 20);
        gint64 slow = json_node_get_int(jc_json_at(k, "stats|temp.cpu|samples"));
        if (slow < 2 || slow > 3)
                fail_msg("temp.cpu counted in %" G_GINT64_FORMAT " of 20 samples 10 ms apart, want 2 or 3", slow);
        jc_result_clear(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_count_and_interval, testbus_teardown),
                cmocka_unit_test_teardown(test_json_lines_and_globs, testbus_teardown),
                cmocka_unit_test_teardown(test_ctrl_c, testbus_teardown),
                cmocka_unit_test_teardown(test_stats, testbus_teardown),
                cmocka_unit_test_teardown(test_sigterm, testbus_teardown),
                cmocka_unit_test_teardown(test_jetsond_leaves, testbus_teardown),
                cmocka_unit_test_teardown(test_bad_options, testbus_teardown),
                cmocka_unit_test_teardown(test_others_keep_default_rate, testbus_teardown),
                cmocka_unit_test_teardown(test_default_interval_asks_nothing, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
