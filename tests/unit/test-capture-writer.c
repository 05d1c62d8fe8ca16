/* The capture writer (Metrics.OpenCapture's stream): header, whole
 * fixed-size records with values in column order and NaN for what is
 * absent or stale, drops counted in the next record a slow reader gets,
 * records larger than PIPE_BUF never torn, and the end when the reader
 * closes. Value lists are built by hand; no engine, no bus. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "fixture.h"

typedef struct __attribute__((packed)) {
        char magic[8];
        uint32_t version, header_size, columns, record_size;
        uint64_t interval_ns;
        int64_t realtime_offset_ns;
} wire_header;

static void put(jd_values *v, size_t i, const char *key, jd_value_type type, double x)
{
        jd_value *it = &v->items[i];
        memset(it, 0, sizeof(*it));
        g_strlcpy(it->key, key, sizeof(it->key));
        it->type = type;
        switch (type) {
        case JD_VALUE_BOOL: it->b = x != 0; break;
        case JD_VALUE_U32: it->u = (uint32_t) x; break;
        case JD_VALUE_I32: it->i = (int32_t) x; break;
        case JD_VALUE_U64: it->t = (uint64_t) x; break;
        case JD_VALUE_DOUBLE: it->d = x; break;
        case JD_VALUE_STRING: g_strlcpy(it->s, "text", sizeof(it->s)); break;
        }
}

static void values_sized(jd_values *v, size_t n, uint64_t layout)
{
        v->items = g_new0(jd_value, n);
        v->n = v->cap = n;
        v->layout = layout;
}

static void read_exact(int fd, void *buf, size_t len)
{
        size_t got = 0;
        while (got < len) {
                ssize_t n = read(fd, (char *) buf + got, len - got);
                assert_true(n > 0);
                got += (size_t) n;
        }
}

/* The header; returns the column names (a NULL-terminated vector). */
static char **read_header(int fd, wire_header *h)
{
        read_exact(fd, h, sizeof(*h));
        assert_memory_equal(h->magic, JD_CAPTURE_MAGIC, 8);
        assert_int_equal(h->version, JD_CAPTURE_VERSION);
        assert_int_equal(h->header_size % 8, 0);
        assert_int_equal(h->record_size, 16 + 8 * h->columns);
        g_autofree char *names = g_malloc(h->header_size - sizeof(*h));
        read_exact(fd, names, h->header_size - sizeof(*h));
        char **out = g_new0(char *, h->columns + 1);
        const char *p = names;
        for (uint32_t i = 0; i < h->columns; i++) {
                out[i] = g_strdup(p);
                p += strlen(p) + 1;
        }
        return out;
}

#define T0 1000000000u   /* 1 s of CLOCK_MONOTONIC, in ns */

static void test_records(void **state)
{
        (void) state;
        const char *columns[] = { "gpu.load", "cpu.load", "power.VDD_IN.power", "fan.0.pwm", "ram.shared" };
        int rfd = -1;
        jd_capture *c = jd_capture_new(1000, 0, columns, G_N_ELEMENTS(columns), &rfd);
        assert_non_null(c);
        assert_true(fcntl(rfd, F_GETFD) & FD_CLOEXEC);
        wire_header h;
        g_auto(GStrv) names = read_header(rfd, &h);
        assert_int_equal(h.columns, 5);
        assert_int_equal(h.interval_ns, 1000000);
        for (size_t i = 0; i < 5; i++)
                assert_string_equal(names[i], columns[i]);
        /* The realtime offset is now's: within a second of the clocks. */
        struct timespec rt, mono;
        clock_gettime(CLOCK_REALTIME, &rt);
        clock_gettime(CLOCK_MONOTONIC, &mono);
        int64_t offset = (rt.tv_sec - mono.tv_sec) * 1000000000LL + (rt.tv_nsec - mono.tv_nsec);
        assert_true(llabs(offset - h.realtime_offset_ns) < 1000000000LL);

        jd_values fast, medium, slow;
        values_sized(&fast, 3, 1);
        put(&fast, 0, "cpu.load", JD_VALUE_DOUBLE, 42.5);
        put(&fast, 1, "cpu.model", JD_VALUE_STRING, 0);  /* not numeric, not a column */
        put(&fast, 2, "gpu.load", JD_VALUE_U32, 17);
        values_sized(&medium, 1, 1);
        put(&medium, 0, "power.VDD_IN.power", JD_VALUE_U64, 5123);
        values_sized(&slow, 1, 1);
        put(&slow, 0, "fan.0.pwm", JD_VALUE_I32, -3);
        jd_capture_source sources[JD_CAPTURE_SOURCES] = { { &fast, true, 1, T0 }, { &medium, true, 1, T0 },
                                                          { &slow, false, 1, T0 } };
        jd_capture_write(c, T0, sources);
        /* The medium list changes its layout: the columns follow names. */
        g_free(medium.items);
        values_sized(&medium, 2, 2);
        put(&medium, 0, "power.VDD_GPU.power", JD_VALUE_U64, 1);
        put(&medium, 1, "power.VDD_IN.power", JD_VALUE_U64, 6000);
        sources[1].seq = 2;
        sources[2].fresh = true;
        jd_capture_write(c, T0 + 10000000, sources);

        double rec[2 + 5];
        read_exact(rfd, rec, sizeof(rec));
        uint64_t t, dropped;
        memcpy(&t, &rec[0], 8);
        memcpy(&dropped, &rec[1], 8);
        assert_int_equal(t, T0);
        assert_int_equal(dropped, 0);
        assert_dbl_equal(rec[2], 17);
        assert_dbl_equal(rec[3], 42.5);
        assert_dbl_equal(rec[4], 5123);
        assert_true(isnan(rec[5]));   /* slow tier stale */
        assert_true(isnan(rec[6]));   /* no source has it */
        read_exact(rfd, rec, sizeof(rec));
        memcpy(&t, &rec[0], 8);
        assert_int_equal(t, T0 + 10000000);
        assert_dbl_equal(rec[4], 6000);
        assert_dbl_equal(rec[5], -3);
        g_free(fast.items);
        g_free(medium.items);
        g_free(slow.items);

        /* The reader closes: the next write ends the capture, no SIGPIPE
         * (the daemon ignores it; so does this test). */
        close(rfd);
        jd_capture_write(c, T0 + 20000000, (jd_capture_source[JD_CAPTURE_SOURCES]) { { 0 } });
        assert_true(jd_capture_ended(c));
        jd_capture_free(c);
}

/* Records of 8016 bytes (1000 columns) are larger than PIPE_BUF, so the
 * pipe can take a batch in part: the writer keeps the rest for the next
 * write, and the reader, however it reads, gets whole records in order
 * with the drops counted. */
static void test_slow_reader_large_records(void **state)
{
        (void) state;
        enum { N = 1000 };
        char **columns = g_new0(char *, N + 1);
        jd_values v;
        values_sized(&v, N, 1);
        for (size_t i = 0; i < N; i++) {
                columns[i] = g_strdup_printf("col.%zu", i);
                put(&v, i, columns[i], JD_VALUE_DOUBLE, (double) i);
        }
        int rfd = -1;
        jd_capture *c = jd_capture_new(1000, 0, (const char *const *) columns, N, &rfd);
        assert_non_null(c);
        /* Small pipe: drops come after a few records. */
        assert_true(fcntl(rfd, F_SETPIPE_SZ, 65536) >= 0);
        wire_header h;
        g_auto(GStrv) names = read_header(rfd, &h);
        assert_int_equal(h.record_size, 16 + 8 * N);
        assert_string_equal(names[N - 1], "col.999");

        jd_capture_source sources[JD_CAPTURE_SOURCES] = { { &v, true, 0, 0 } };
        uint64_t written = 0;
        /* The writer runs ahead; the reader takes odd-sized bites. */
        g_autofree unsigned char *rec = g_malloc(h.record_size);
        size_t have = 0;
        uint64_t expect_time = 1, records = 0, dropped_seen = 0;
        assert_true(fcntl(rfd, F_SETFL, O_NONBLOCK) >= 0);
        for (int round = 0; round < 400; round++) {
                for (int k = 0; k < 5; k++) {
                        sources[0].seq = sources[0].time_ns = ++written;
                        jd_capture_write(c, written, sources);
                }
                size_t bite = 1000 + (size_t) (round * 7919) % 9000;
                for (size_t taken = 0; taken < bite;) {
                        size_t want = h.record_size - have;
                        if (want > bite - taken)
                                want = bite - taken;
                        ssize_t n = read(rfd, rec + have, want);
                        if (n < 0 && errno == EAGAIN)
                                break;
                        assert_true(n > 0);
                        have += (size_t) n;
                        taken += (size_t) n;
                        if (have < h.record_size)
                                continue;
                        have = 0;
                        uint64_t t, dropped;
                        memcpy(&t, rec, 8);
                        memcpy(&dropped, rec + 8, 8);
                        /* Time stamps in order, gaps exactly the drops. */
                        assert_int_equal(t, expect_time + dropped);
                        expect_time = t + 1;
                        dropped_seen += dropped;
                        records++;
                        const double *vals = (const double *) (rec + 16);
                        assert_dbl_equal(vals[0], 0);
                        assert_dbl_equal(vals[N - 1], N - 1);
                }
        }
        print_message("%" PRIu64 " records read, %" PRIu64 " dropped of %" PRIu64 " written\n", records,
                      dropped_seen, written);
        assert_true(dropped_seen > 0);
        assert_true(records > 100);
        assert_true(dropped_seen <= jd_capture_dropped_total(c));
        assert_true(records + jd_capture_dropped_total(c) <= written);
        assert_false(jd_capture_ended(c));
        close(rfd);
        jd_capture_free(c);
        g_free(v.items);
        g_strfreev(columns);
}

/* At 1 kHz records leave in batches: none before 10 ms have passed since
 * the last batch, then all of them at once, in order. */
static void test_batches(void **state)
{
        (void) state;
        const char *columns[] = { "cpu.load" };
        int rfd = -1;
        jd_capture *c = jd_capture_new(1000, 0, columns, 1, &rfd);
        assert_non_null(c);
        wire_header h;
        g_auto(GStrv) names = read_header(rfd, &h);
        assert_string_equal(names[0], "cpu.load");
        assert_true(fcntl(rfd, F_SETFL, O_NONBLOCK) >= 0);
        jd_values v;
        values_sized(&v, 1, 1);
        put(&v, 0, "cpu.load", JD_VALUE_DOUBLE, 1);
        const jd_capture_source sources[JD_CAPTURE_SOURCES] = { { &v, true, 1, T0 } };
        double rec[3];
        jd_capture_write(c, T0, sources);           /* the first leaves at once */
        assert_int_equal(read(rfd, rec, sizeof(rec)), sizeof(rec));
        for (uint64_t k = 1; k < 10; k++)
                jd_capture_write(c, T0 + k * 1000000, sources);
        assert_int_equal(read(rfd, rec, sizeof(rec)), -1); /* held back */
        assert_int_equal(errno, EAGAIN);
        jd_capture_write(c, T0 + 10 * 1000000, sources);
        for (uint64_t k = 1; k <= 10; k++) {
                assert_int_equal(read(rfd, rec, sizeof(rec)), sizeof(rec));
                uint64_t t;
                memcpy(&t, &rec[0], 8);
                assert_int_equal(t, T0 + k * 1000000);
        }
        assert_int_equal(read(rfd, rec, sizeof(rec)), -1);
        close(rfd);
        jd_capture_free(c);
        g_free(v.items);
}

/* Due ticks: one record per interval on the fast tier's grid, half a
 * tick of jitter tolerated, and no burst after a stall. */
static void test_due(void **state)
{
        (void) state;
        const char *columns[] = { "cpu.load" };
        int rfd = -1;
        jd_capture *c = jd_capture_new(10000, 100000, columns, 1, &rfd);
        assert_non_null(c);
        assert_false(jd_capture_take_due(c, 90000, 90000));
        assert_true(jd_capture_take_due(c, 96000, 96000));   /* within half a tick */
        assert_false(jd_capture_take_due(c, 101000, 101000));
        assert_true(jd_capture_take_due(c, 110000, 110000));
        /* Stalled until 500 ms: one record, then the grid from there. */
        assert_true(jd_capture_take_due(c, 500000, 500000));
        assert_false(jd_capture_take_due(c, 501000, 501000));
        assert_true(jd_capture_take_due(c, 510000, 510000));
        close(rfd);
        jd_capture_free(c);
}

/* The capture.missed_ticks column: the due ticks the engine missed just
 * before each record, whether the tick's deadline moved on (a long
 * tick) or the reading came late for its deadline (a stalled thread
 * wakes with the deadline it missed); 0 for a reading that is only a
 * little late; no burst and nothing counted twice after. */
static void test_missed_ticks(void **state)
{
        (void) state;
        const char *columns[] = { "cpu.load", JD_CAPTURE_MISSED_COLUMN };
        int rfd = -1;
        jd_capture *c = jd_capture_new(1000, 1000, columns, 2, &rfd);
        assert_non_null(c);
        wire_header h;
        g_auto(GStrv) names = read_header(rfd, &h);
        assert_string_equal(names[1], JD_CAPTURE_MISSED_COLUMN);
        jd_values v;
        values_sized(&v, 1, 1);
        put(&v, 0, "cpu.load", JD_VALUE_DOUBLE, 5);
        const jd_capture_source sources[JD_CAPTURE_SOURCES] = { { &v, true, 1, T0 } };
        static const struct {
                uint64_t deadline_us, started_us;
                bool due;
                double missed;
        } ticks[] = {
                { 1000, 1000, true, 0 },
                { 2000, 2300, true, 0 },         /* 0.3 tick late: jitter */
                { 3000, 203300, true, 200 },     /* the thread stopped 200 ms: woke with its old deadline */
                { 204000, 204000, true, 0 },     /* it stood for the 203 ms slot: 3 to 202 missed */
                { 205000, 205100, true, 0 },
                { 206000, 207200, true, 1 },     /* 1.2 ticks late: the 206 ms slot is missed */
                { 208000, 208000, true, 0 },
                { 212000, 212000, true, 3 },     /* the deadline moved on: 209, 210 and 211 missed */
        };
        uint64_t time_ns = T0;
        for (size_t i = 0; i < G_N_ELEMENTS(ticks); i++) {
                bool due = jd_capture_take_due(c, ticks[i].deadline_us, ticks[i].started_us);
                if (due != ticks[i].due)
                        fail_msg("tick %zu: due %d", i, due);
                if (!due)
                        continue;
                time_ns += 20000000; /* 20 ms apart: every record leaves at once */
                jd_capture_write(c, time_ns, sources);
                double rec[4];
                read_exact(rfd, rec, sizeof(rec));
                assert_true(rec[2] == 5.0);
                if (rec[3] != ticks[i].missed)
                        fail_msg("tick %zu: %g missed, not %g", i, rec[3], ticks[i].missed);
        }
        close(rfd);
        jd_capture_free(c);
        g_free(v.items);
}

/* A capture's own tier rates: medium readings come every 10 ms, the
 * capture takes one every 50 ms and repeats it in between, its time
 * column saying which reading each record holds; the slow tier, at no
 * rate of its own, is taken at each new reading; a stale tier is NaN,
 * time included, and its next reading is taken at once. */
static void test_tier_rates(void **state)
{
        (void) state;
        const char *columns[] = { "cpu.load", "power.in", "temp.cpu", "capture.time.medium", "capture.time.slow" };
        int rfd = -1;
        jd_capture *c = jd_capture_new(1000, 0, columns, G_N_ELEMENTS(columns), &rfd);
        assert_non_null(c);
        jd_capture_set_tier_intervals(c, 50000, 0);
        wire_header h;
        g_auto(GStrv) names = read_header(rfd, &h);
        assert_int_equal(h.columns, 5);
        assert_string_equal(names[3], "capture.time.medium");
        jd_values fast, medium, slow;
        values_sized(&fast, 1, 1);
        values_sized(&medium, 1, 1);
        values_sized(&slow, 1, 1);
        jd_capture_source sources[JD_CAPTURE_SOURCES] = { { &fast, true, 0, 0, 1000 }, { &medium, true, 0, 0, 10000 },
                                                          { &slow, true, 0, 0, 100000 } };
        double last_medium_time = -1;
        unsigned medium_changes = 0;
        for (uint64_t k = 0; k < 200; k++) {
                uint64_t t = T0 + k * 1000000;              /* 1 kHz records */
                put(&fast, 0, "cpu.load", JD_VALUE_DOUBLE, (double) k);
                sources[0].seq = k + 1;
                sources[0].time_ns = t;
                /* Medium every 10 ms, a little late now and then. */
                uint64_t m = k / 10;
                put(&medium, 0, "power.in", JD_VALUE_U64, (double) (1000 + m));
                sources[1].seq = m + 1;
                sources[1].time_ns = T0 + m * 10000000 + (m % 3 == 1 ? 300000 : 0);
                uint64_t sl = k / 100;
                put(&slow, 0, "temp.cpu", JD_VALUE_DOUBLE, (double) (40 + sl));
                sources[2].seq = sl + 1;
                sources[2].time_ns = T0 + sl * 100000000;
                /* The slow tier is stale from 150 ms to 160 ms. */
                sources[2].fresh = k < 150 || k >= 160;
                jd_capture_write(c, t, sources);
        }
        jd_capture_write(c, T0 + 1000000000, (jd_capture_source[JD_CAPTURE_SOURCES]) { { &fast, true, 999, 0 } });
        for (uint64_t k = 0; k < 200; k++) {
                double rec[2 + 5];
                read_exact(rfd, rec, sizeof(rec));
                assert_dbl_equal(rec[2], (double) k);
                double mtime = rec[5], stime = rec[6];
                /* The medium value is the one read at its time column's time. */
                uint64_t m = (uint64_t) ((mtime - T0) / 10000000.0);
                assert_dbl_equal(rec[3], (double) (1000 + m));
                if (mtime != last_medium_time) {
                        medium_changes++;
                        assert_int_equal(m % 5, 0);          /* 0, 50, 100, 150 ms */
                        last_medium_time = mtime;
                }
                if (k >= 150 && k < 160) {
                        assert_true(isnan(rec[4]));
                        assert_true(isnan(stime));
                } else {
                        assert_dbl_equal(stime, (double) (T0 + k / 100 * 100000000));
                        assert_dbl_equal(rec[4], (double) (40 + k / 100));
                }
        }
        assert_int_equal(medium_changes, 4);
        close(rfd);
        jd_capture_free(c);
        g_free(fast.items);
        g_free(medium.items);
        g_free(slow.items);
}

/* A reading taken late (the tier stalled) does not bring the next one
 * closer: medium every 50 ms, readings every 10 ms but none from 50 to
 * 86 ms; the one of 86 ms is taken, the ones of 90 to 120 ms are not. */
static void test_late_reading(void **state)
{
        (void) state;
        const char *columns[] = { "power.in", "capture.time.medium" };
        int rfd = -1;
        jd_capture *c = jd_capture_new(10000, 0, columns, 2, &rfd);
        assert_non_null(c);
        jd_capture_set_tier_intervals(c, 50000, 0);
        wire_header h;
        g_auto(GStrv) names = read_header(rfd, &h);
        assert_string_equal(names[1], "capture.time.medium");
        jd_values medium;
        values_sized(&medium, 1, 1);
        static const uint64_t read_ms[] = { 0, 10, 20, 30, 40, 86, 90, 100, 110, 120, 130, 140, 150 };
        static const bool taken[] = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0 };
        double last = -1;
        for (size_t k = 0; k < G_N_ELEMENTS(read_ms); k++) {
                put(&medium, 0, "power.in", JD_VALUE_U64, (double) k);
                jd_capture_source sources[JD_CAPTURE_SOURCES] = {
                        [JD_CAPTURE_SOURCE_MEDIUM] = { &medium, true, k + 1, read_ms[k] * 1000000, 10000 },
                };
                /* Records 20 ms apart: each leaves at once. */
                jd_capture_write(c, T0 + k * 20000000, sources);
                double rec[4];
                read_exact(rfd, rec, sizeof(rec));
                bool fresh = rec[3] != last;
                if (fresh != taken[k])
                        fail_msg("the reading of %" PRIu64 " ms: %s", read_ms[k], fresh ? "taken" : "not taken");
                last = rec[3];
        }
        close(rfd);
        jd_capture_free(c);
        g_free(medium.items);
}

int main(void)
{
        signal(SIGPIPE, SIG_IGN);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_records),
                cmocka_unit_test(test_slow_reader_large_records),
                cmocka_unit_test(test_batches),
                cmocka_unit_test(test_due),
                cmocka_unit_test(test_missed_ticks),
                cmocka_unit_test(test_tier_rates),
                cmocka_unit_test(test_late_reading),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
