/* The Metrics interface on a private bus: snapshot keys and types against
 * the key table of the introspection XML, the default signal rate,
 * Subscribe() raising it and the rate falling back when the subscriber
 * leaves, PropertiesChanged when nvpmodel's status changes behind
 * jetsond's back and the fan's Rpm changes paced, and the bus policy rejecting what it does not list. */
#include <math.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "snapshot.h"
#include "testbus.h"
#include "spacing.h"

/* ---- the documented keys ------------------------------------------- */

typedef struct {
        GRegex *pattern;
        char type;
} key_doc;

/* "cpu.N.load" -> ^cpu\.[0-9]+\.load$; NAME, RAIL, ZONE, TYPE: one segment. */
static GRegex *key_pattern(const char *key)
{
        g_autoptr(GString) re = g_string_new("^");
        char **parts = g_strsplit(key, ".", -1);
        for (char **p = parts; *p; p++) {
                if (p != parts)
                        g_string_append(re, "\\.");
                size_t len = strlen(*p);
                if (strcmp(*p, "N") == 0 || strcmp(*p, "PID") == 0)
                        g_string_append(re, "[0-9]+");
                else if (strcmp(*p, "NAME") == 0 || strcmp(*p, "RAIL") == 0 || strcmp(*p, "ZONE") == 0 ||
                         strcmp(*p, "TYPE") == 0)
                        g_string_append(re, "[^.]+");
                else if (len > 1 && (*p)[len - 1] == 'N' && g_ascii_islower((*p)[len - 2])) {
                        g_autofree char *stem = g_regex_escape_string(*p, (gint) len - 1);
                        g_string_append_printf(re, "%s[0-9]+", stem);
                } else {
                        g_autofree char *lit = g_regex_escape_string(*p, -1);
                        g_string_append(re, lit);
                }
        }
        g_strfreev(parts);
        g_string_append(re, "$");
        return g_regex_new(re->str, 0, 0, NULL);
}

static GArray *documented_keys(void)
{
        g_autofree char *xml = NULL;
        assert_true(g_file_get_contents(SOURCE_DIR "/introspection/org.jetsond.Jetson1.Metrics.xml", &xml, NULL,
                                        NULL));
        GArray *docs = g_array_new(FALSE, FALSE, sizeof(key_doc));
        g_autoptr(GRegex) row = g_regex_new("^\\s*\\|\\s*([A-Za-z0-9_.]+)\\s*\\|\\s*([bdstui])\\s*\\|",
                                            G_REGEX_MULTILINE, 0, NULL);
        GMatchInfo *mi = NULL;
        g_regex_match(row, xml, 0, &mi);
        while (g_match_info_matches(mi)) {
                g_autofree char *key = g_match_info_fetch(mi, 1);
                g_autofree char *type = g_match_info_fetch(mi, 2);
                key_doc d = { key_pattern(key), type[0] };
                assert_non_null(d.pattern);
                g_array_append_val(docs, d);
                g_match_info_next(mi, NULL);
        }
        g_match_info_free(mi);
        assert_true(docs->len > 40);
        return docs;
}

static void free_docs(GArray *docs)
{
        for (guint i = 0; i < docs->len; i++)
                g_regex_unref(g_array_index(docs, key_doc, i).pattern);
        g_array_free(docs, TRUE);
}

static char documented_type(GArray *docs, const char *key)
{
        for (guint i = 0; i < docs->len; i++) {
                const key_doc *d = &g_array_index(docs, key_doc, i);
                if (g_regex_match(d->pattern, key, 0, NULL))
                        return d->type;
        }
        return 0;
}

static const char *const required_keys[] = {
        "cpu.load", "cpu.0.load", "cpu.0.freq", "cpu.0.online", "gpu.load", "gpu.freq", "emc.load",
        "emc.freq", "engine.NVENC.online", "ram.total", "ram.used", "ram.free", "ram.buffers", "ram.cached",
        "ram.shared", "ram.lfb", "swap.total", "swap.used", "swap.cached", "swap.in", "swap.out", "temp.cpu",
        "temp.gpu", "temp_trip.cpu.throttle", "temp_trip.cpu.critical", "temp_trip.cv0.throttle",
        "power.VDD_GPU_SOC.power", "power.VDD_GPU_SOC.voltage", "power.VDD_GPU_SOC.current", "power.total",
        "energy.VDD_GPU_SOC",
        "fan.0.speed", "fan.0.rpm", "nvpmodel.mode", "nvpmodel.name", "jetson_clocks.active", "uptime",
        "disk.read_bytes", "disk.write_bytes", "net.rx_bytes", "net.tx_bytes",
};

static void test_snapshot_keys(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", (const char *[]) { "--interval=100", NULL });
        sd_bus *bus = testbus_connect();
        /* Loads are rates: let the counters move and wait for jetsond's
         * second readings (the rate keys appear then; a few hundred ms on
         * an idle machine, more on a busy one, never 30 s). */
        testbus_start_simulator(tb);
        testbus_snapshot *s = testbus_get_snapshot(bus);
        for (uint64_t end = testbus_now_us() + 30 * G_USEC_PER_SEC;
             !(g_hash_table_contains(s->numbers, "cpu.load") && g_hash_table_contains(s->numbers, "emc.load") &&
               g_hash_table_contains(s->numbers, "energy.VDD_GPU_SOC")) &&
             testbus_now_us() < end;) {
                testbus_snapshot_free(s);
                g_usleep(50000);
                s = testbus_get_snapshot(bus);
        }
        GArray *docs = documented_keys();

        GHashTableIter it;
        gpointer key, type;
        g_hash_table_iter_init(&it, s->types);
        while (g_hash_table_iter_next(&it, &key, &type)) {
                char want = documented_type(docs, key);
                if (!want)
                        fail_msg("key %s is not documented in the Metrics XML", (char *) key);
                if (want != GPOINTER_TO_INT(type))
                        fail_msg("key %s has type %c, documented %c", (char *) key, GPOINTER_TO_INT(type), want);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(required_keys); i++)
                if (!g_hash_table_contains(s->types, required_keys[i]))
                        fail_msg("required key %s is missing", required_keys[i]);

        /* CLOCK_REALTIME µs, fresh. */
        uint64_t now = (uint64_t) g_get_real_time();
        assert_true(s->timestamp <= now && now - s->timestamp < 30 * G_USEC_PER_SEC);
        /* Values from the fixture (agx-orin-jp62.expected.md) that the
         * simulator leaves alone (it moves the rpm with the PWM's noise). */
        assert_true(testbus_number(s, "ram.total") == 64302080.0);
        assert_true(testbus_number(s, "fan.0.pwm") == 102.0);
        assert_true(testbus_number(s, "nvpmodel.mode") == 0.0);
        assert_string_equal(g_hash_table_lookup(s->strings, "nvpmodel.name"), "MAXN");
        /* Trip points (the board's device tree): passive 99 °C, critical
         * 104.5 °C; tj has only the critical one; a power-gated zone
         * (cv0) keeps its limits while its temperature is absent. */
        assert_true(testbus_number(s, "temp_trip.cpu.throttle") == 99.0);
        assert_true(testbus_number(s, "temp_trip.cpu.critical") == 104.5);
        assert_true(testbus_number(s, "temp_trip.cv0.throttle") == 99.0);
        assert_false(g_hash_table_contains(s->types, "temp.cv0"));
        assert_true(testbus_number(s, "temp_trip.tj.critical") == 104.5);
        assert_false(g_hash_table_contains(s->types, "temp_trip.tj.throttle"));
        /* vmstat's pswpin 360, pswpout 1440 pages, in KiB. */
        double page_kib = (double) sysconf(_SC_PAGESIZE) / 1024;
        assert_true(testbus_number(s, "swap.in") == 360 * page_kib);
        assert_true(testbus_number(s, "swap.out") == 1440 * page_kib);
        assert_true(testbus_number(s, "cpu.load") >= 0.0 && testbus_number(s, "cpu.load") <= 100.0);
        /* AGX Orin has no input rail: the total is the sum of the rails. */
        assert_true(testbus_number(s, "power.total_is_sum") == 1.0);
        double sum = testbus_number(s, "power.VDD_GPU_SOC.power") + testbus_number(s, "power.VDD_CPU_CV.power") +
                     testbus_number(s, "power.VIN_SYS_5V0.power") + testbus_number(s, "power.VDDQ_VDD2_1V8AO.power");
        assert_true(testbus_number(s, "power.total") == sum);
        /* A GPU process's parent and start from the board's /proc: stat's
         * ppid, /proc/stat's btime plus stat's starttime in ticks (100 a
         * second): agx-orin-jp62.expected.md's python3. The simulator
         * moves btime to now minus uptime when it starts, so the board's
         * copy says what btime is, and jetsond's next reading has it. */
        g_autofree char *proc_stat = NULL, *pid_stat = NULL;
        g_autofree char *proc_stat_path = g_build_filename(tb->root, "proc", "stat", NULL);
        g_autofree char *pid_stat_path = g_build_filename(tb->root, "proc", "5120", "stat", NULL);
        assert_true(g_file_get_contents(proc_stat_path, &proc_stat, NULL, NULL));
        assert_true(g_file_get_contents(pid_stat_path, &pid_stat, NULL, NULL));
        g_auto(GStrv) fields = g_strsplit(strrchr(pid_stat, ')') + 2, " ", -1);
        double btime = g_ascii_strtod(strstr(proc_stat, "\nbtime ") + 7, NULL);
        double start = btime + g_ascii_strtod(fields[19], NULL) / 100;
        for (uint64_t end = testbus_now_us() + 30 * G_USEC_PER_SEC;
             fabs(testbus_number(s, "process.5120.start_time") - start) > 1e-6 && testbus_now_us() < end;) {
                testbus_snapshot_free(s);
                g_usleep(50000);
                s = testbus_get_snapshot(bus);
        }
        assert_true(testbus_number(s, "process.5120.ppid") == g_ascii_strtod(fields[1], NULL));
        assert_true(testbus_number(s, "process.5120.ppid") == 5109.0);
        assert_float_equal(testbus_number(s, "process.5120.start_time"), start, 1e-6);

        free_docs(docs);
        testbus_snapshot_free(s);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

/* A PC: what Linux offers, nothing Jetson-only, still every key documented. */
static void test_snapshot_pc(void **state)
{
        testbus *tb = testbus_start(state, "x86-pc", NULL);
        sd_bus *bus = testbus_connect();
        testbus_snapshot *s = testbus_get_snapshot(bus);
        GArray *docs = documented_keys();
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, s->types);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
                assert_true(documented_type(docs, key) != 0);
                static const char *const jetson_only[] = { "gpu.", "emc.", "engine.", "nvpmodel.",
                                                           "jetson_clocks.", "fan.", "iram." };
                for (size_t i = 0; i < G_N_ELEMENTS(jetson_only); i++)
                        if (g_str_has_prefix(key, jetson_only[i]))
                                fail_msg("a PC reports %s", (char *) key);
        }
        assert_true(g_hash_table_contains(s->types, "ram.total"));
        assert_true(g_hash_table_contains(s->types, "cpu.0.freq"));
        assert_true(g_hash_table_contains(s->types, "uptime"));
        /* Plain Linux has swap counters and ACPI trip points too: x86-pc's
         * vmstat (5120 and 6144 pages) and acpitz's critical trip; the
         * package sensor's unprogrammed passive trips (0) are none. */
        double page_kib = (double) sysconf(_SC_PAGESIZE) / 1024;
        assert_true(testbus_number(s, "swap.in") == 5120 * page_kib);
        assert_true(testbus_number(s, "swap.out") == 6144 * page_kib);
        assert_true(testbus_number(s, "temp_trip.acpitz.critical") == 128.0);
        assert_false(g_hash_table_contains(s->types, "temp_trip.x86.throttle"));
        free_docs(docs);
        testbus_snapshot_free(s);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

/* ---- signals ---------------------------------------------------------- */

static void test_default_rate(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", (const char *[]) { "--interval=100", NULL });
        sd_bus *bus = testbus_connect();
        /* The readings' own times say the period jetsond keeps, however
         * late a busy machine delivers them. */
        testbus_spacing sp = testbus_sample_spacing(bus, 10, 60 * G_USEC_PER_SEC);
        assert_int_equal(sp.n, 10);
        testbus_assert_period("--interval=100", sp, 100000, 20);
        assert_int_equal(testbus_get_u64(bus, JD_OBJECT_PATH, JD_IFACE_METRICS, "Interval"), 100000);
        assert_int_equal(testbus_get_u64(bus, JD_OBJECT_PATH, JD_IFACE_METRICS, "DefaultInterval"), 100000);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

static int call_subscribe(sd_bus *bus, uint64_t interval, sd_bus_error *e)
{
        return sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "Subscribe", e, NULL, "t",
                                  interval);
}

static uint64_t wait_interval(sd_bus *bus, uint64_t want)
{
        /* A disconnection reaches jetsond through the bus daemon: quick,
         * but only a stall takes 20 s. */
        uint64_t v = 0, deadline = testbus_now_us() + 20 * G_USEC_PER_SEC;
        while ((v = testbus_get_u64(bus, JD_OBJECT_PATH, JD_IFACE_METRICS, "Interval")) != want &&
               testbus_now_us() < deadline)
                g_usleep(10000);
        return v;
}

static int on_count(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) m, (void) error;
        (*(unsigned *) userdata)++;
        return 0;
}

/* Signals of the SampleAt or ValuesAt stream at PERIOD_US that reach BUS
 * in WAIT_US. */
static unsigned count_stream(sd_bus *bus, const char *member, uint64_t period_us, uint64_t wait_us)
{
        unsigned n = 0;
        sd_bus_slot *slot = NULL;
        assert_true(testbus_match_metrics(bus, &slot, member, period_us, on_count, &n) >= 0);
        uint64_t end = testbus_now_us() + wait_us;
        while (testbus_now_us() < end)
                testbus_pump(bus, 20000, NULL);
        sd_bus_slot_unref(slot);
        return n;
}

static void test_subscribe(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", NULL); /* default 1 s */
        sd_bus *observer = testbus_connect(), *fast = testbus_connect(), *slow = testbus_connect(),
               *medium = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;

        /* Out of range: refused, nothing changes. */
        assert_true(call_subscribe(fast, 9999, &e) < 0);
        assert_true(sd_bus_error_has_name(&e, SD_BUS_ERROR_INVALID_ARGS));
        sd_bus_error_free(&e);
        assert_true(call_subscribe(fast, JD_INTERVAL_MAX_USEC + 1, &e) < 0);
        assert_true(sd_bus_error_has_name(&e, SD_BUS_ERROR_INVALID_ARGS));
        sd_bus_error_free(&e);
        /* Slower than the default: its own stream; the board is still
         * read every second for Sample. (A period that is no multiple of
         * the ticks keeps its mean, not each interval: unit streams.) */
        assert_true(call_subscribe(slow, 2000000, &e) >= 0);
        assert_int_equal(testbus_get_u64(observer, JD_OBJECT_PATH, JD_IFACE_METRICS, "Interval"), 1000000);
        testbus_assert_period("Subscribe(2 s)", testbus_stream_spacing(slow, "SampleAt", 2000000, 2,
                                                                       60 * G_USEC_PER_SEC),
                              2000000, 20);

        assert_true(call_subscribe(fast, 50000, &e) >= 0);
        assert_int_equal(testbus_get_u64(observer, JD_OBJECT_PATH, JD_IFACE_METRICS, "Interval"), 50000);
        testbus_assert_period("Subscribe(50 ms)", testbus_stream_spacing(fast, "SampleAt", 50000, 15,
                                                                         60 * G_USEC_PER_SEC),
                              50000, 20);
        /* A listener that asked for nothing keeps the default rate while
         * the board is read 20 times as often. */
        testbus_assert_period("a passive Sample listener beside Subscribe(50 ms)",
                              testbus_sample_spacing(observer, 3, 60 * G_USEC_PER_SEC), 1000000, 20);
        /* No one asked for 40 ms: no such stream. */
        assert_int_equal(count_stream(observer, "SampleAt", 40000, 300000), 0);
        /* A second request from the same connection replaces the first,
         * and the 50 ms stream ends with its last subscriber. */
        assert_true(call_subscribe(fast, 40000, &e) >= 0);
        assert_int_equal(testbus_get_u64(observer, JD_OBJECT_PATH, JD_IFACE_METRICS, "Interval"), 40000);
        testbus_assert_period("Subscribe(40 ms)", testbus_stream_spacing(observer, "SampleAt", 40000, 10,
                                                                         60 * G_USEC_PER_SEC),
                              40000, 20);
        assert_int_equal(count_stream(observer, "SampleAt", 50000, 300000), 0);
        assert_true(call_subscribe(medium, 200000, &e) >= 0);
        assert_int_equal(testbus_get_u64(observer, JD_OBJECT_PATH, JD_IFACE_METRICS, "Interval"), 40000);

        /* The fast client disconnects without unsubscribing. */
        sd_bus_flush_close_unref(fast);
        assert_int_equal(wait_interval(observer, 200000), 200000);
        /* Unsubscribe drops the medium request: back to the default, the
         * slow stream going on. */
        assert_true(sd_bus_call_method(medium, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "Unsubscribe", &e,
                                       NULL, NULL) >= 0);
        assert_int_equal(wait_interval(observer, 1000000), 1000000);
        /* Unsubscribe without a request is not an error. */
        assert_true(sd_bus_call_method(medium, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "Unsubscribe", &e,
                                       NULL, NULL) >= 0);
        assert_int_equal(count_stream(observer, "SampleAt", 200000, 500000), 0);
        testbus_assert_period("every fast subscriber gone (default 1 s)",
                              testbus_sample_spacing(observer, 3, 60 * G_USEC_PER_SEC), 1000000, 20);

        sd_bus_flush_close_unref(medium);
        sd_bus_flush_close_unref(slow);
        sd_bus_flush_close_unref(observer);
        testbus_stop_cleanly(tb);
}

/* ---- PropertiesChanged -------------------------------------------------- */

typedef struct {
        bool seen_mode;
        uint32_t mode;
        char mode_name[64];
} nvpmodel_change;

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        nvpmodel_change *c = userdata;
        const char *iface;
        assert_true(sd_bus_message_read(m, "s", &iface) > 0);
        if (strcmp(iface, JD_IFACE_NVPMODEL) != 0)
                return 0;
        assert_true(sd_bus_message_enter_container(m, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                const char *name;
                assert_true(sd_bus_message_read(m, "s", &name) > 0);
                if (strcmp(name, "Mode") == 0) {
                        assert_true(sd_bus_message_read(m, "v", "u", &c->mode) > 0);
                        c->seen_mode = true;
                } else if (strcmp(name, "ModeName") == 0) {
                        const char *s;
                        assert_true(sd_bus_message_read(m, "v", "s", &s) > 0);
                        g_strlcpy(c->mode_name, s, sizeof(c->mode_name));
                } else {
                        assert_true(sd_bus_message_skip(m, "v") >= 0);
                }
                assert_true(sd_bus_message_exit_container(m) > 0);
        }
        return 0;
}

static void test_nvpmodel_changed_outside(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", (const char *[]) { "--interval=100", NULL });
        sd_bus *bus = testbus_connect();
        nvpmodel_change c = { 0 };
        sd_bus_slot *slot = NULL;
        assert_true(sd_bus_match_signal(bus, &slot, JD_BUS_NAME, JD_OBJECT_PATH, "org.freedesktop.DBus.Properties",
                                        "PropertiesChanged", on_properties_changed, &c) >= 0);
        testbus_pump(bus, 300000, NULL);
        assert_false(c.seen_mode); /* nothing changes by itself */

        /* What `nvpmodel -m 1` run by hand leaves behind. */
        fixture_write_str(tb->root, "var/lib/nvpmodel/status", "pmode:0001 fmode:cool\n");
        testbus_pump(bus, 30 * G_USEC_PER_SEC, &c.seen_mode); /* the next slow reading: 1 s at most when idle */
        assert_true(c.seen_mode);
        assert_int_equal(c.mode, 1);
        assert_string_equal(c.mode_name, "MODE_15W");
        assert_int_equal(testbus_get_u32(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), 1);
        testbus_snapshot *s = testbus_get_snapshot(bus);
        assert_string_equal(g_hash_table_lookup(s->strings, "nvpmodel.name"), "MODE_15W");
        testbus_snapshot_free(s);

        /* At 10 ms, where a slow reading's news rides on the next fast
         * tick (engine.c, on_slow), a change made outside still arrives. */
        sd_bus *fast = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_true(call_subscribe(fast, 10000, &e) >= 0);
        assert_int_equal(wait_interval(bus, 10000), 10000);
        c = (nvpmodel_change) { 0 };
        fixture_write_str(tb->root, "var/lib/nvpmodel/status", "pmode:0000 fmode:cool\n");
        testbus_pump(bus, 30 * G_USEC_PER_SEC, &c.seen_mode);
        assert_true(c.seen_mode);
        assert_int_equal(c.mode, 0);
        assert_string_equal(c.mode_name, "MAXN");
        sd_bus_flush_close_unref(fast);

        sd_bus_slot_unref(slot);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

/* ---- Rpm's changes paced -------------------------------------------------- */

typedef struct {
        unsigned said;                /* PropertiesChanged with Rpm */
        uint32_t rpm;                 /* the last one's value */
        uint64_t first_us, last_us;
        bool want_seen;               /* RPM_FINAL said */
} rpm_changes;

enum { RPM_FINAL = 4321 };

static int on_fan_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        rpm_changes *c = userdata;
        const char *iface;
        assert_true(sd_bus_message_read(m, "s", &iface) > 0);
        assert_true(sd_bus_message_enter_container(m, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                const char *name;
                assert_true(sd_bus_message_read(m, "s", &name) > 0);
                if (strcmp(name, "Rpm") == 0) {
                        assert_true(sd_bus_message_read(m, "v", "u", &c->rpm) > 0);
                        c->last_us = testbus_now_us();
                        if (!c->said++)
                                c->first_us = c->last_us;
                        c->want_seen = c->rpm == RPM_FINAL;
                } else {
                        assert_true(sd_bus_message_skip(m, "v") >= 0);
                }
                assert_true(sd_bus_message_exit_container(m) > 0);
        }
        return 0;
}

/* A client at 10 ms makes the slow tier read the tachometer ten times a
 * second; the fan's Rpm moves on each reading, but other clients hear of
 * it at most once a DefaultInterval (1 s here), and the last value still
 * arrives once the fan settles. */
static void test_rpm_paced(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", NULL);
        const char *tach = "sys/devices/platform/bus@0/39c0000.tachometer/hwmon/hwmon0/rpm";
        sd_bus *bus = testbus_connect();
        sd_bus *fast = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_true(call_subscribe(fast, 10000, &e) >= 0);
        assert_int_equal(wait_interval(bus, 10000), 10000);
        rpm_changes c = { 0 };
        sd_bus_slot *slot = NULL;
        assert_true(sd_bus_match_signal(bus, &slot, JD_BUS_NAME, JD_FAN_PATH_PREFIX "0",
                                        "org.freedesktop.DBus.Properties", "PropertiesChanged", on_fan_changed,
                                        &c) >= 0);
        /* A new speed every 20 ms for 3.5 s: 175 values, some 35 slow readings. */
        uint64_t end = testbus_now_us() + 3500000;
        for (unsigned i = 0; testbus_now_us() < end; i++) {
                char v[16];
                g_snprintf(v, sizeof(v), "%u\n", 2000 + i % 1000);
                fixture_write_str(tb->root, tach, v);
                testbus_pump(bus, 20000, NULL);
        }
        unsigned said = c.said;
        /* One at once, then one a second: 4 in 3.5 s (a fifth if the
         * last reading lands on the edge); more would be one a reading. */
        assert_in_range(said, 3, 5);
        assert_true(c.last_us - c.first_us >= (said - 1) * 900000u);
        fixture_write_str(tb->root, tach, "4321\n");
        testbus_pump(bus, 5 * G_USEC_PER_SEC, &c.want_seen);
        assert_true(c.want_seen);
        assert_int_equal(testbus_get_u32(bus, JD_FAN_PATH_PREFIX "0", JD_IFACE_FAN, "Rpm"), RPM_FINAL);

        sd_bus_slot_unref(slot);
        sd_bus_flush_close_unref(fast);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

/* ---- the bus policy ------------------------------------------------------ */

static void test_policy(void **state)
{
        testbus *tb = testbus_start(state, "orin-nano-jp62", NULL);
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        /* An interface the policy does not list never reaches jetsond. */
        int r = sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, "org.jetsond.Jetson1.Debug", "Anything", &e,
                                   NULL, NULL);
        assert_true(r < 0);
        assert_string_equal(e.name, SD_BUS_ERROR_ACCESS_DENIED);
        assert_non_null(strstr(e.message, "Rejected send message"));
        sd_bus_error_free(&e);
        /* A listed one does (and answers UnknownMethod itself). */
        r = sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_BOARD, "Anything", &e, NULL, NULL);
        assert_true(r < 0);
        assert_string_equal(e.name, SD_BUS_ERROR_UNKNOWN_METHOD);
        sd_bus_error_free(&e);
        sd_bus_flush_close_unref(bus);

        /* Only root may own the name: jetsond started as nobody exits 1. */
        if (geteuid() == 0) {
                g_autofree char *sysroot = g_strdup_printf("--sysroot=%s", tb->root);
                const char *argv[] = { "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                       JETSOND_PATH, sysroot, "--system", NULL };
                assert_int_equal(testbus_stop_daemon(tb), 0);
                g_autofree char *out = NULL;
                assert_int_equal(testbus_run(argv, &out), 1);
        }
}

/* The bus goes away: jetsond exits non-zero so that systemd restarts it. */
static void test_bus_gone(void **state)
{
        testbus *tb = testbus_start(state, "x86-pc", NULL);
        assert_int_equal(kill(tb->bus_pid, SIGTERM), 0);
        tb->bus_pid = 0;
        int status = -1;
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        while (waitpid(tb->daemon_pid, &status, WNOHANG) == 0 && testbus_now_us() < deadline)
                g_usleep(10000);
        if (status == -1)
                fail_msg("jetsond still runs 30 s after its bus went away");
        tb->daemon_pid = 0;
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_snapshot_keys, testbus_teardown),
                cmocka_unit_test_teardown(test_snapshot_pc, testbus_teardown),
                cmocka_unit_test_teardown(test_default_rate, testbus_teardown),
                cmocka_unit_test_teardown(test_subscribe, testbus_teardown),
                cmocka_unit_test_teardown(test_nvpmodel_changed_outside, testbus_teardown),
                cmocka_unit_test_teardown(test_rpm_paced, testbus_teardown),
                cmocka_unit_test_teardown(test_policy, testbus_teardown),
                cmocka_unit_test_teardown(test_bus_gone, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
