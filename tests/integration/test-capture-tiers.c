/* Metrics.OpenCaptureWithOptions on a private bus: a capture's own
 * medium and slow rates, told by the tier time columns
 * (capture.tier_times), with another capture at the default rates beside
 * it unchanged; the tier time columns from plain OpenCapture; and the
 * options' errors (introspection/capture.md). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "capture_stream.h"
#include "jetsond-dbus.h"
#include "spacing.h"
#include "testbus.h"

static capture open_ok(sd_bus *bus, uint64_t interval, const char *const *keys, const capture_option *options)
{
        capture c = { .fd = -1 };
        g_autofree char *err = capture_open_error(bus, interval, keys, options, &c);
        if (err[0])
                fail_msg("opening a capture: %s", err);
        return c;
}

/* The distinct times of the medium and slow time columns over RECORDS
 * records, each checked against its record's own time. */
typedef struct {
        GArray *medium, *slow; /* uint64_t ns */
} tier_times;

static void collect(const capture *c, unsigned records, tier_times *t)
{
        int mcol = capture_column(c, "capture.time.medium"), scol = capture_column(c, "capture.time.slow");
        g_autofree unsigned char *buf = g_malloc(c->record_size);
        t->medium = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        t->slow = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        uint64_t prev[2] = { 0, 0 };
        for (unsigned i = 0; i < records; i++) {
                assert_true(capture_read_exactly(c->fd, buf, c->record_size));
                uint64_t time_ns;
                double v[2];
                memcpy(&time_ns, buf, 8);
                memcpy(&v[0], buf + 16 + 8 * (size_t) mcol, 8);
                memcpy(&v[1], buf + 16 + 8 * (size_t) scol, 8);
                GArray *arrays[2] = { t->medium, t->slow };
                for (int k = 0; k < 2; k++) {
                        if (isnan(v[k]))
                                fail_msg("record %u: no time for tier %d", i, k);
                        uint64_t at = (uint64_t) v[k];
                        /* The tiers read in parallel: a tier's reading may
                         * begin while the fast one runs, but it finished
                         * before that one did, so before the next record's. */
                        if (i && prev[k] >= time_ns)
                                fail_msg("record %u: tier %d read at %" PRIu64 ", not before the next record %" PRIu64,
                                         i - 1, k, prev[k], time_ns);
                        prev[k] = at;
                        GArray *a = arrays[k];
                        uint64_t last = a->len ? g_array_index(a, uint64_t, a->len - 1) : 0;
                        if (at < last)
                                fail_msg("record %u: tier %d's time went back", i, k);
                        if (at != last)
                                g_array_append_val(a, at);
                }
        }
}

static void tier_times_free(tier_times *t)
{
        g_array_unref(t->medium);
        g_array_unref(t->slow);
}

/* PERIOD_NS between distinct readings: by the median and, for a rate of
 * the capture's OWN (it never takes a reading before its time is due), no
 * interval shorter than half of it; the engine's own readings jitter. */
static void assert_spacing(const char *what, GArray *times, uint64_t period_ns, bool own)
{
        testbus_spacing s = testbus_spacing_of((const uint64_t *) (void *) times->data, times->len);
        print_message("figure: %s: %u readings, spacing median %.1f ms, min %.1f ms\n", what, times->len,
                      s.median_us / 1e6, s.min_us / 1e6);
        if (own && s.min_us < period_ns / 2)
                fail_msg("%s: two readings %.1f ms apart", what, s.min_us / 1e6);
        testbus_assert_period(what, s, period_ns, 20);
}

/* A capture at 1 ms with its own rates (medium every 50 ms, slow every
 * 500 ms) and one beside it at the default rates (10 ms and 100 ms at
 * 1 kHz): each gets its own, and the Sample period does not change. */
static void test_tier_rates(void **state)
{
        testbus_start(state, "agx-orin-jp62", NULL);
        sd_bus *bus = testbus_connect();
        const char *keys[] = { "ram.total", "power.total", "temp.cpu", JD_CAPTURE_TIER_TIMES, NULL };
        const capture_option rates[] = { { JD_CAPTURE_OPTION_MEDIUM, 't', 50000 }, { JD_CAPTURE_OPTION_SLOW, 't', 500000 },
                                 { NULL, 0, 0 } };
        capture own = open_ok(bus, 1000, keys, rates);
        const char *want[] = { "ram.total", "power.total", "temp.cpu", "capture.time.medium", "capture.time.slow" };
        assert_int_equal(own.n, G_N_ELEMENTS(want));
        for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
                assert_string_equal(own.names[i], want[i]);
        /* The old call, the time columns asked for the same way. */
        capture plain = open_ok(bus, 1000, keys, NULL);
        assert_int_equal(plain.n, G_N_ELEMENTS(want));

        tier_times t_own, t_plain;
        collect(&own, 2500, &t_own);
        collect(&plain, 2500, &t_plain);
        assert_spacing("medium at 50 ms", t_own.medium, 50000000, true);
        assert_spacing("slow at 500 ms", t_own.slow, 500000000, true);
        assert_spacing("medium by default at 1 ms", t_plain.medium, 10000000, false);
        assert_spacing("slow by default at 1 ms", t_plain.slow, 100000000, false);
        tier_times_free(&t_own);
        tier_times_free(&t_plain);
        assert_int_equal(testbus_get_u64(bus, JD_OBJECT_PATH, JD_IFACE_METRICS, "Interval"), 1000000);
        capture_close(&own);
        capture_close(&plain);
        sd_bus_flush_close_unref(bus);
}

/* Only the tiers that have columns get a time column; a fast-tier
 * capture gets none. */
static void test_time_columns(void **state)
{
        testbus_start(state, "orin-nano-jp62", NULL);
        sd_bus *bus = testbus_connect();
        capture fast = open_ok(bus, 10000, (const char *[]) { JD_CAPTURE_TIER_TIMES, "ram.total", NULL }, NULL);
        assert_int_equal(fast.n, 1);
        assert_string_equal(fast.names[0], "ram.total");
        capture slow = open_ok(bus, 10000, (const char *[]) { "temp.*", JD_CAPTURE_TIER_TIMES, NULL },
                               (const capture_option[]) { { NULL, 0, 0 } });
        assert_string_equal(slow.names[slow.n - 1], "capture.time.slow");
        for (uint32_t i = 0; i + 1 < slow.n; i++)
                assert_true(g_str_has_prefix(slow.names[i], "temp."));
        /* The time columns alone are no capture. */
        capture none = { .fd = -1 };
        g_autofree char *e = capture_open_error(bus, 10000, (const char *[]) { JD_CAPTURE_TIER_TIMES, NULL }, NULL, &none);
        assert_string_equal(e, "org.freedesktop.DBus.Error.InvalidArgs");
        capture_close(&fast);
        capture_close(&slow);
        sd_bus_flush_close_unref(bus);
}

/* A PC's NVIDIA GPU (the fake NVML) has a time column of its own and
 * follows the capture's medium rate: its readings 50 ms apart. */
static void test_gpu_time(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, "x86-pc");
        g_setenv("FAKE_NVML_CONFIG", SOURCE_DIR "/tests/fixtures/x86-pc.nvml.json", TRUE);
        testbus_start_daemon(tb, (const char *[]) { "--nvml-library", FAKE_NVML_PATH, NULL });
        g_unsetenv("FAKE_NVML_CONFIG");
        sd_bus *bus = testbus_connect();
        capture c = open_ok(bus, 1000, (const char *[]) { "dgpu.0.load", JD_CAPTURE_TIER_TIMES, NULL },
                            (const capture_option[]) { { JD_CAPTURE_OPTION_MEDIUM, 't', 50000 }, { NULL, 0, 0 } });
        assert_int_equal(c.n, 2);
        assert_string_equal(c.names[1], "capture.time.dgpu.0");
        g_autofree unsigned char *buf = g_malloc(c.record_size);
        GArray *times = g_array_new(FALSE, FALSE, sizeof(uint64_t));
        /* Until 30 distinct readings (1.5 s), NaN while NVML is probed. */
        for (unsigned i = 0; times->len < 30; i++) {
                if (i > 60000)
                        fail_msg("%u readings of the GPU in 60000 records", times->len);
                assert_true(capture_read_exactly(c.fd, buf, c.record_size));
                double v[2];
                memcpy(v, buf + 16, sizeof(v));
                if (isnan(v[1])) {
                        assert_true(isnan(v[0]));
                        continue;
                }
                uint64_t at = (uint64_t) v[1];
                if (!times->len || at != g_array_index(times, uint64_t, times->len - 1))
                        g_array_append_val(times, at);
        }
        assert_spacing("dgpu.0 at 50 ms", times, 50000000, true);
        g_array_unref(times);
        capture_close(&c);
        sd_bus_flush_close_unref(bus);
}

static void test_option_errors(void **state)
{
        testbus_start(state, "orin-nano-jp62", NULL);
        sd_bus *bus = testbus_connect();
        const char *keys[] = { "ram.total", NULL };
        static const capture_option bad[][2] = {
                { { JD_CAPTURE_OPTION_MEDIUM, 't', 9999 } },
                { { JD_CAPTURE_OPTION_MEDIUM, 't', 3600000001ULL } },
                { { JD_CAPTURE_OPTION_SLOW, 't', 99999 } },
                { { JD_CAPTURE_OPTION_SLOW, 't', 0 } },
                { { JD_CAPTURE_OPTION_SLOW, 'u', 200000 } },   /* a uint32: the wrong type */
                { { "fast_interval_usec", 't', 1000 } },        /* no such option */
        };
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                capture none = { .fd = -1 };
                g_autofree char *e = capture_open_error(bus, 1000, keys, bad[i], &none);
                if (strcmp(e, "org.freedesktop.DBus.Error.InvalidArgs") != 0)
                        fail_msg("option %s=%" PRIu64 ": %s, not InvalidArgs", bad[i][0].name, bad[i][0].value,
                                 e[0] ? e : "a stream");
        }
        /* The interval's own bounds hold as for OpenCapture. */
        capture none = { .fd = -1 };
        g_autofree char *e = capture_open_error(bus, 999, keys, (const capture_option[]) { { NULL, 0, 0 } }, &none);
        assert_string_equal(e, "org.freedesktop.DBus.Error.InvalidArgs");
        /* The bounds themselves are good. */
        capture ok = open_ok(bus, 1000, keys,
                             (const capture_option[]) { { JD_CAPTURE_OPTION_MEDIUM, 't', 10000 },
                                                { JD_CAPTURE_OPTION_SLOW, 't', 3600000000ULL },
                                                { NULL, 0, 0 } });
        capture_close(&ok);
        sd_bus_flush_close_unref(bus);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_tier_rates, testbus_teardown),
                cmocka_unit_test_teardown(test_time_columns, testbus_teardown),
                cmocka_unit_test_teardown(test_gpu_time, testbus_teardown),
                cmocka_unit_test_teardown(test_option_errors, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
