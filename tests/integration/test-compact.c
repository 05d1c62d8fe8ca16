/* The compact form of the Metrics interface and the streams' messages,
 * on a private bus against a live fake AGX Orin: GetKeys and GetValues
 * agree with GetSnapshot for the same sample; SubscribeValues brings
 * ValuesAt signals at its rate and leaves Sample at the default; every
 * answer is at least as new as the newest signal the client has seen; a
 * process that appears makes a new key list (generation) that the
 * ValuesAt signals follow; with dbus-daemon stopped, sd-bus queues the
 * stream and every message arrives whole and in order. */
#include <math.h>
#include <signal.h>
#include <string.h>
#include <glib/gstdio.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "snapshot.h"
#include "spacing.h"
#include "testbus.h"

typedef struct {
        uint32_t generation;
        GPtrArray *keys;
} key_list;

static key_list get_keys(sd_bus *bus)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        assert_true(sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetKeys", &e, &reply, "") >=
                    0);
        key_list k = { .keys = g_ptr_array_new_with_free_func(g_free) };
        char **keys = NULL;
        assert_true(sd_bus_message_read(reply, "u", &k.generation) > 0);
        assert_true(sd_bus_message_read_strv(reply, &keys) > 0);
        for (char **p = keys; *p; p++)
                g_ptr_array_add(k.keys, *p);
        g_free(keys);
        sd_bus_message_unref(reply);
        assert_true(k.generation != 0);
        return k;
}

typedef struct {
        uint64_t timestamp;
        uint32_t generation;
        GArray *values;               /* double */
} values_msg;

static void read_values(sd_bus_message *m, values_msg *out)
{
        testbus_skip_period(m);
        const void *data;
        size_t size;
        assert_true(sd_bus_message_read(m, "tu", &out->timestamp, &out->generation) > 0);
        assert_true(sd_bus_message_read_array(m, 'd', &data, &size) >= 0);
        if (!out->values)
                out->values = g_array_new(FALSE, FALSE, sizeof(double));
        g_array_set_size(out->values, 0);
        g_array_append_vals(out->values, data, (guint) (size / sizeof(double)));
}

static values_msg get_values(sd_bus *bus)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        assert_true(sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetValues", &e, &reply,
                                       "") >= 0);
        values_msg v = { 0 };
        read_values(reply, &v);
        sd_bus_message_unref(reply);
        return v;
}

static testbus_snapshot *get_snapshot(sd_bus *bus)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        assert_true(sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetSnapshot", &e, &reply,
                                       "") >= 0);
        testbus_snapshot *s = testbus_snapshot_read(reply);
        sd_bus_message_unref(reply);
        return s;
}

/* GetKeys, GetValues and GetSnapshot of one sample say the same. */
static void test_same_sample(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", (const char *[]) { "--interval=200", NULL });
        testbus_start_simulator(tb);
        sd_bus *bus = testbus_connect();
        bool compared = false;
        for (uint64_t end = testbus_now_us() + 30 * G_USEC_PER_SEC; !compared && testbus_now_us() < end;) {
                key_list k = get_keys(bus);
                values_msg v = get_values(bus);
                g_autoptr(testbus_snapshot) s = get_snapshot(bus);
                if (v.timestamp == s->timestamp && v.generation == k.generation) {
                        assert_int_equal(v.values->len, k.keys->len);
                        guint numeric = 0;
                        GHashTableIter it;
                        gpointer key, type;
                        g_hash_table_iter_init(&it, s->types);
                        while (g_hash_table_iter_next(&it, &key, &type))
                                numeric += GPOINTER_TO_INT(type) != 's';
                        guint present = 0;
                        for (guint i = 0; i < k.keys->len; i++) {
                                const char *name = g_ptr_array_index(k.keys, i);
                                double x = g_array_index(v.values, double, i);
                                char t = (char) GPOINTER_TO_INT(g_hash_table_lookup(s->types, name));
                                assert_true(t != 's');
                                if (!t) {
                                        assert_true(isnan(x));
                                        continue;
                                }
                                present++;
                                assert_true(x == testbus_number(s, name));
                        }
                        /* Every numeric key of the snapshot is in the list. */
                        assert_int_equal(present, numeric);
                        assert_true(present > 100);
                        compared = true;
                }
                g_ptr_array_unref(k.keys);
                g_array_unref(v.values);
        }
        assert_true(compared);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

typedef struct {
        sd_bus *bus;                  /* for the answers checked on every signal */
        unsigned values, samples;
        uint64_t last_sample_ts, min_sample_gap;
        values_msg last;
        uint32_t want_generation;     /* stop when a ValuesAt signal has another */
        bool done;
        unsigned stop_after;
} watch;

static int on_values(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        watch *w = userdata;
        read_values(m, &w->last);
        w->values++;
        /* Never stale: an answer is at least as new as this signal. */
        values_msg now = get_values(w->bus);
        assert_true(now.timestamp >= w->last.timestamp);
        g_array_unref(now.values);
        g_autoptr(testbus_snapshot) s = get_snapshot(w->bus);
        assert_true(s->timestamp >= w->last.timestamp);
        if ((w->stop_after && w->values >= w->stop_after) ||
            (w->want_generation && w->last.generation != w->want_generation))
                w->done = true;
        return 0;
}

static int on_sample(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        watch *w = userdata;
        uint64_t ts;
        assert_true(sd_bus_message_read(m, "t", &ts) > 0);
        if (w->last_sample_ts && ts - w->last_sample_ts < w->min_sample_gap)
                w->min_sample_gap = ts - w->last_sample_ts;
        w->last_sample_ts = ts;
        w->samples++;
        return 0;
}

/* Copies process 5377 of the fixture as PID: a new process on the GPU
 * (the fixture's nvmap table lists 6001 without a /proc entry). */
static void add_process(testbus *tb, const char *pid)
{
        static const char *const files[] = { "cmdline", "comm", "loginuid", "stat", "statm", "status" };
        g_autofree char *dir = g_build_filename(tb->root, "proc", pid, NULL);
        assert_int_equal(g_mkdir_with_parents(dir, 0755), 0);
        for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
                g_autofree char *from = g_build_filename(tb->root, "proc", "5377", files[i], NULL);
                g_autofree char *to = g_build_filename(dir, files[i], NULL);
                g_autofree char *text = NULL;
                gsize len;
                assert_true(g_file_get_contents(from, &text, &len, NULL));
                if (strcmp(files[i], "stat") == 0)
                        memcpy(text, pid, 4);  /* both PIDs have four digits */
                assert_true(g_file_set_contents(to, text, (gssize) len, NULL));
        }
}

static void test_values_stream(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", NULL); /* 1 s */
        testbus_start_simulator(tb);
        sd_bus *bus = testbus_connect(), *answers = testbus_connect();
        watch w = { .bus = answers, .min_sample_gap = UINT64_MAX, .stop_after = 40 };
        sd_bus_slot *s1 = NULL, *s2 = NULL;
        /* Every ValuesAt, whatever its period: only the one asked for
         * may come. */
        assert_true(sd_bus_match_signal(bus, &s1, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "ValuesAt",
                                        on_values, &w) >= 0);
        assert_true(sd_bus_match_signal(bus, &s2, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "Sample", on_sample,
                                        &w) >= 0);
        /* Nobody asked for ValuesAt: two Samples come, no ValuesAt. */
        for (uint64_t end = testbus_now_us() + 60 * G_USEC_PER_SEC; w.samples < 2 && testbus_now_us() < end;)
                testbus_pump(bus, 100000, NULL);
        assert_true(w.samples >= 2);
        assert_int_equal(w.values, 0);
        w.samples = 0, w.last_sample_ts = 0, w.min_sample_gap = UINT64_MAX;

        sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_true(sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "SubscribeValues", &e,
                                       NULL, "t", (uint64_t) 9999) < 0);
        assert_true(sd_bus_error_has_name(&e, SD_BUS_ERROR_INVALID_ARGS));
        sd_bus_error_free(&e);
        assert_true(sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "SubscribeValues", &e,
                                       NULL, "t", (uint64_t) 20000) >= 0);
        assert_int_equal(testbus_get_u64(bus, JD_OBJECT_PATH, JD_IFACE_METRICS, "Interval"), 20000);
        testbus_pump(bus, 60 * G_USEC_PER_SEC, &w.done);
        assert_true(w.done);
        /* ValuesAt at the ticks: 40 of them within the deadline. */
        key_list k = get_keys(answers);
        assert_int_equal(w.last.generation, k.generation);
        assert_int_equal(w.last.values->len, k.keys->len);
        g_ptr_array_unref(k.keys);

        /* Sample stays at the default 1 s: no two Samples a tick apart
         * (half a tick early at most, and the readings' own jitter). */
        w.done = false, w.stop_after = 0;
        uint64_t until = testbus_now_us() + 3 * G_USEC_PER_SEC;
        while (testbus_now_us() < until)
                testbus_pump(bus, until - testbus_now_us(), &w.done);
        assert_true(w.samples >= 2);
        assert_true(w.min_sample_gap >= 900000);

        /* A process appears: a new list, which the signals follow. */
        uint32_t before = w.last.generation;
        w.want_generation = before;
        add_process(tb, "6001");
        testbus_pump(bus, 60 * G_USEC_PER_SEC, &w.done);
        assert_true(w.done);
        k = get_keys(answers);
        assert_true(k.generation != before);
        assert_int_equal(k.generation, w.last.generation);
        bool found = false;
        for (guint i = 0; i < k.keys->len; i++)
                found = found || strcmp(g_ptr_array_index(k.keys, i), "process.6001.rss") == 0;
        assert_true(found);
        g_ptr_array_unref(k.keys);

        /* Subscribe() from the same connection replaces it: SampleAt at
         * 20 ms, no more ValuesAt, Sample still at 1 s. */
        assert_true(sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "Subscribe", &e, NULL, "t",
                                       (uint64_t) 20000) >= 0);
        testbus_pump(bus, 200000, NULL);      /* a ValuesAt already sent */
        unsigned values_before = w.values;
        testbus_assert_period("SampleAt 20 ms after SubscribeValues",
                              testbus_stream_spacing(bus, "SampleAt", 20000, 20, 60 * G_USEC_PER_SEC), 20000, 20);
        assert_int_equal(w.values, values_before);
        assert_true(w.min_sample_gap >= 900000);

        g_array_unref(w.last.values);
        sd_bus_slot_unref(s1);
        sd_bus_slot_unref(s2);
        sd_bus_flush_close_unref(bus);
        sd_bus_flush_close_unref(answers);
        testbus_stop_cleanly(tb);

}

typedef struct {
        unsigned samples;
        uint64_t last_ts;
        bool done;
        unsigned want;
        uint64_t pause_from, pause_to;  /* CLOCK_REALTIME, µs */
        unsigned in_pause;              /* Samples taken while dbus-daemon was stopped */
} sample_count;

static int on_full_sample(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        sample_count *c = userdata;
        /* Every value readable, no key twice, times in order: no message
         * was cut or interleaved with another. (The same time twice is a
         * watchdog tick of a tier that fell behind.) */
        const char *stream = NULL;
        assert_true(sd_bus_message_peek_type(m, NULL, NULL) > 0);
        assert_true(sd_bus_message_read(m, "s", &stream) > 0);
        assert_string_equal(stream, "10000");
        assert_true(sd_bus_message_rewind(m, true) >= 0);
        g_autoptr(testbus_snapshot) s = testbus_snapshot_read(m);
        assert_true(g_hash_table_size(s->types) > 100);
        assert_true(s->timestamp >= c->last_ts);
        c->last_ts = s->timestamp;
        c->in_pause += s->timestamp > c->pause_from && s->timestamp < c->pause_to;
        /* Until WANT Samples, or once paused: until one taken after the
         * pause, so every one queued meanwhile has arrived before it. */
        c->done = ++c->samples >= c->want && (!c->pause_to || s->timestamp > c->pause_to);
        return 0;
}

/* dbus-daemon stopped for 20 s while jetsond sends 100 SampleAt signals a
 * second (6.5 KiB each): jetsond's socket fills, sd-bus queues the rest
 * and, when dbus-daemon goes on, every message arrives whole and in
 * order, and jetsond kept sampling and answering meanwhile. */
static void test_full_socket(void **state)
{
        /* As root, sd-bus raises its send buffer to 8 MiB past the
         * system's limit (SO_SNDBUFFORCE; the kernel doubles it: 16 MiB);
         * without CAP_NET_ADMIN it gets at most wmem_max, doubled. */
        const char *outer = g_getenv("JETSOND_TEST_WRAPPER");
        g_autofree char *saved = g_strdup(outer);
        g_autofree char *wrapper = g_strdup_printf("setpriv --bounding-set=-net_admin %s", outer ? outer : "");
        g_setenv("JETSOND_TEST_WRAPPER", wrapper, TRUE);
        testbus *tb = testbus_start(state, "agx-orin-jp62", NULL);
        if (saved)
                g_setenv("JETSOND_TEST_WRAPPER", saved, TRUE);
        else
                g_unsetenv("JETSOND_TEST_WRAPPER");
        testbus_start_simulator(tb);
        sd_bus *bus = testbus_connect();
        sample_count c = { .want = 5 };
        sd_bus_slot *slot = NULL;
        assert_true(testbus_match_metrics(bus, &slot, "SampleAt", 10000, on_full_sample, &c) >= 0);
        sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_true(sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "Subscribe", &e, NULL, "t",
                                       (uint64_t) 10000) >= 0);
        testbus_pump(bus, 60 * G_USEC_PER_SEC, &c.done);
        assert_true(c.done);

        c.pause_from = (uint64_t) g_get_real_time();
        assert_int_equal(kill(tb->bus_pid, SIGSTOP), 0);
        g_usleep(20 * G_USEC_PER_SEC);
        assert_int_equal(kill(tb->bus_pid, SIGCONT), 0);
        c.pause_to = (uint64_t) g_get_real_time();
        c.want = c.samples + 1;
        c.done = false;
        testbus_pump(bus, 240 * G_USEC_PER_SEC, &c.done);
        assert_true(c.done);
        g_autoptr(testbus_snapshot) s = get_snapshot(bus);
        assert_true(s->timestamp >= c.last_ts);

        sd_bus_slot_unref(slot);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
        g_autofree char *wmem = NULL;
        assert_true(g_file_get_contents("/proc/sys/net/core/wmem_max", &wmem, NULL, NULL));
        unsigned long long buffer = 2 * MIN(8ull << 20, g_ascii_strtoull(wmem, NULL, 10));
        printf("figure: dbus-daemon stopped 20 s: %u SampleAt signals taken meanwhile, all arrived whole and in "
               "order (send buffer %llu bytes)\n",
               c.in_pause, buffer);
        /* More than the buffer holds (6000 bytes a message at least): the
         * full socket was met, unless the machine was too busy to sample. */
        if (c.in_pause * 6000ull <= buffer)
                print_message("the socket never filled: %u messages in the pause\n", c.in_pause);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_same_sample, testbus_teardown),
                cmocka_unit_test_teardown(test_values_stream, testbus_teardown),
                cmocka_unit_test_teardown(test_full_socket, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
