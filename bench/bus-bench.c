/* jetsond-bus-bench: what the service costs on the bus.
 *
 * 1. GetSnapshot round trip: CALLS calls (after 100 warm-up calls), each
 *    timed on CLOCK_MONOTONIC from the call until its whole reply has
 *    been received and read; p50/p90/p99/max, with the reply's size on
 *    the wire, its number of keys (counted once, outside the timing), the
 *    server's CPU per answer (jetsond and dbus-daemon) and the keys and
 *    bytes per key family; then the same for GetValues (the compact
 *    form). -q stops there.
 * 2. The daemon's CPU per sample, over a window of whole sampling
 *    periods (from just after one Sample signal to just after another):
 *    (i) at the default period, with one watcher connection on Sample and
 *    no Subscribe(); (ii) with SUBSCRIBERS connections that each match
 *    SampleAt with arg0 = INTERVAL, call Subscribe(INTERVAL) and read
 *    every value of every SampleAt, all pumped from this one process (all
 *    of them share one signal a period, as clients of one rate do); (iii)
 *    the same with SubscribeValues() and ValuesAt signals (the compact
 *    form). The first listener is the watcher that counts the samples. CPU is read from /proc/PID/stat (utime+stime, in
 *    clock ticks: too coarse for a 1 s period) and from the process CPU
 *    clock (clock_getcpuclockid, ns), for jetsond and, if its PID is
 *    given, for dbus-daemon.
 * 3. jetsond's CPU with a 1 ms capture of every numeric key open
 *    (Metrics.OpenCapture) and read promptly, Samples at the default
 *    period: the fast tier at 1 kHz; records and drops are counted.
 * -S: 2 (ii) and (iii) alone (bench/run-bus-bench.sh's ROUNDS).
 *
 * Usage: jetsond-bus-bench [-q | -S] [-n CALLS] [-w SECONDS] [-s SUBSCRIBERS] [-i INTERVAL_USEC]
 *                          JETSOND_PID [DBUS_DAEMON_PID]
 * on the bus of DBUS_SYSTEM_BUS_ADDRESS (bench/run-bus-bench.sh sets up a
 * private one). Not a timed test: numbers depend on the machine. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "bench-util.h"
#include "jetsond-dbus.h"
#include "message-size.h"
#include "proc-cpu.h"

#define WARMUP_CALLS 100
#define MAX_LISTENERS 64

static uint64_t now_ns(void)
{
        return clock_ns(CLOCK_MONOTONIC);
}

__attribute__((noreturn)) static void die(const char *what, int r, const sd_bus_error *e)
{
        fprintf(stderr, "jetsond-bus-bench: %s: %s\n", what,
                e && sd_bus_error_is_set(e) ? e->message : strerror(r < 0 ? -r : r));
        exit(1);
}

static sd_bus *connect_bus(void)
{
        sd_bus *bus = NULL;
        int r = sd_bus_open_system(&bus);
        if (r < 0)
                die("cannot connect to the system bus", r, NULL);
        return bus;
}

/* ---- reading the values, as a client would ----------------------------- */

/* Reads the timestamp and every value; returns the number of keys. */
static int read_values(sd_bus_message *m)
{
        uint64_t ts;
        int r = sd_bus_message_read(m, "t", &ts);
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "{sv}");
        int n = 0;
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *key, *contents;
                char type;
                union { uint64_t u; double d; const char *s; int b; } v;
                r = sd_bus_message_read_basic(m, 's', &key);
                if (r >= 0)
                        r = sd_bus_message_peek_type(m, &type, &contents);
                if (r >= 0)
                        r = sd_bus_message_enter_container(m, 'v', contents);
                if (r >= 0)
                        r = sd_bus_message_read_basic(m, contents[0], &v);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                n++;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        return r < 0 ? r : n;
}

/* ---- 1. GetSnapshot round trip ------------------------------------------ */

static int compare_u64(const void *a, const void *b)
{
        uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
        return x < y ? -1 : x > y;
}

/* Nearest rank. */
static double percentile_us(const uint64_t *sorted, size_t n, double q)
{
        size_t rank = (size_t) (q * (double) n + 0.999999);
        return (double) sorted[rank ? rank - 1 : 0] / 1000.0;
}

static sd_bus_message *call_metrics(sd_bus *bus, const char *method)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, method, &e, &reply, "");
        if (r < 0)
                die(method, r, &e);
        return reply;
}

static sd_bus_message *get_snapshot(sd_bus *bus)
{
        return call_metrics(bus, "GetSnapshot");
}

/* Reads GetValues' answer as a client would: the doubles; returns their
 * number. */
static int read_compact(sd_bus_message *m)
{
        uint64_t ts;
        uint32_t generation;
        const void *data;
        size_t size;
        int r = sd_bus_message_read(m, "tu", &ts, &generation);
        if (r >= 0)
                r = sd_bus_message_read_array(m, 'd', &data, &size);
        double sum = 0;
        for (size_t i = 0; r >= 0 && i < size / sizeof(double); i++)
                sum += ((const double *) data)[i];
        (void) sum;
        return r < 0 ? r : (int) (size / sizeof(double));
}

/* Keys and bytes of the reply per key family (the key up to its first
 * dot): where a bigger reply comes from. The bytes of an entry are its
 * marshalled size: the dict entry padded to 8, the key, the variant's
 * signature and its value. */
#define MAX_FAMILIES 32
static void report_families(sd_bus_message *m)
{
        char names[MAX_FAMILIES][32];
        size_t keys[MAX_FAMILIES] = { 0 }, bytes[MAX_FAMILIES] = { 0 }, n = 0;
        uint64_t ts;
        int r = sd_bus_message_rewind(m, true);
        if (r >= 0)
                r = sd_bus_message_read(m, "t", &ts);
        if (r >= 0)
                r = sd_bus_message_enter_container(m, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *key, *contents;
                char type;
                r = sd_bus_message_read_basic(m, 's', &key);
                if (r >= 0)
                        r = sd_bus_message_peek_type(m, &type, &contents);
                if (r < 0)
                        break;
                size_t off = 4 + strlen(key) + 1 + 3;
                size_t a = type_alignment(contents[0]);
                off = align_to(off, a) + (contents[0] == 'b' ? 4 : a);
                if (contents[0] == 's') {
                        const char *s = NULL;
                        sd_bus_message_read(m, "v", "s", &s);
                        off = align_to(4 + strlen(key) + 1 + 3, 4) + 4 + strlen(s ? s : "") + 1;
                } else {
                        sd_bus_message_skip(m, "v");
                }
                r = sd_bus_message_exit_container(m);
                size_t len = strcspn(key, ".");
                size_t f = 0;
                while (f < n && (strlen(names[f]) != len || strncmp(names[f], key, len) != 0))
                        f++;
                if (f == n && n < MAX_FAMILIES)
                        snprintf(names[n++], sizeof(names[0]), "%.*s", (int) len, key);
                if (f < n) {
                        keys[f]++;
                        bytes[f] += align_to(off, 8);
                }
        }
        printf("  by key family (keys, bytes):");
        for (size_t f = 0; f < n; f++)
                printf(" %s %zu %zu;", names[f], keys[f], bytes[f]);
        printf("\n");
}

static void snapshot_cpu(const cpu_source *daemon, const cpu_source *bus_daemon, size_t calls, bool start);
static double snapshot_cpu_us[2];         /* jetsond's, dbus-daemon's */

/* METHOD (GetSnapshot or GetValues) CALLS times, each answer read as a
 * client would. */
static void bench_calls(sd_bus *bus, const char *method, size_t calls, const cpu_source *daemon,
                        const cpu_source *bus_daemon)
{
        bool compact = strcmp(method, "GetValues") == 0;
        uint64_t *t = calloc(calls, sizeof(*t));
        if (!t)
                die("out of memory", ENOMEM, NULL);
        for (int i = 0; i < WARMUP_CALLS; i++)
                sd_bus_message_unref(call_metrics(bus, method));
        snapshot_cpu(daemon, bus_daemon, calls, true);
        for (size_t i = 0; i < calls; i++) {
                uint64_t t0 = now_ns();
                sd_bus_message *reply = call_metrics(bus, method);
                if (compact)
                        read_compact(reply);
                else
                        read_values(reply);
                t[i] = now_ns() - t0;
                sd_bus_message_unref(reply);
        }
        snapshot_cpu(daemon, bus_daemon, calls, false);
        qsort(t, calls, sizeof(*t), compare_u64);

        sd_bus_message *reply = call_metrics(bus, method);
        size_t bytes = wire_size(reply);
        sd_bus_message_rewind(reply, true);
        int keys = compact ? read_compact(reply) : read_values(reply);
        sd_bus_message_unref(reply);

        printf("%s: %zu calls after %d warm-up, reply %zu bytes on the wire, %d %s\n", method, calls, WARMUP_CALLS,
               bytes, keys, compact ? "values" : "keys");
        printf("  round trip: p50 %.1f us  p90 %.1f us  p99 %.1f us  max %.1f us\n", percentile_us(t, calls, 0.50),
               percentile_us(t, calls, 0.90), percentile_us(t, calls, 0.99), (double) t[calls - 1] / 1000.0);
        printf("  server CPU per answer: jetsond %.1f us, dbus-daemon %.1f us, together %.1f us\n",
               snapshot_cpu_us[0], snapshot_cpu_us[1], snapshot_cpu_us[0] + snapshot_cpu_us[1]);
        printf("figure: %s p50 %.1f us, p99 %.1f us, server CPU %.1f us per answer (jetsond %.1f, dbus-daemon %.1f)\n",
               method, percentile_us(t, calls, 0.50), percentile_us(t, calls, 0.99),
               snapshot_cpu_us[0] + snapshot_cpu_us[1], snapshot_cpu_us[0], snapshot_cpu_us[1]);
        if (!compact) {
                reply = get_snapshot(bus);
                report_families(reply);
                sd_bus_message_unref(reply);
        }
        free(t);
}

/* ---- 2. CPU per sample ------------------------------------------------ */

/* The server's CPU per answer over the timed calls: jetsond's and
 * dbus-daemon's process CPU clocks before (START) and after. */
static void snapshot_cpu(const cpu_source *daemon, const cpu_source *bus_daemon, size_t calls, bool start)
{
        static cpu_reading d0, b0;
        cpu_reading d = read_cpu(daemon), b = bus_daemon ? read_cpu(bus_daemon) : (cpu_reading) { 0 };
        if (start) {
                d0 = d, b0 = b;
                return;
        }
        snapshot_cpu_us[0] = (double) (d.clock_ns - d0.clock_ns) / 1e3 / (double) calls;
        snapshot_cpu_us[1] = (double) (b.clock_ns - b0.clock_ns) / 1e3 / (double) calls;
}

typedef struct {
        sd_bus *bus;
        sd_bus_slot *match;
        uint64_t samples;
        int keys;
        bool compact;                 /* ValuesAt signals (SubscribeValues), not SampleAt */
        bool at_period;               /* SampleAt/ValuesAt: the period comes first */
} listener;

static int on_sample(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        listener *l = userdata;
        const char *period;
        if (l->at_period && sd_bus_message_read(m, "s", &period) < 0)
                return 0;
        l->keys = l->compact ? read_compact(m) : read_values(m);
        l->samples++;
        return 0;
}

/* Without SUBSCRIBE_USEC, Sample at the default period; with it, the
 * match for that period's SampleAt (ValuesAt with COMPACT), added before
 * the request so that no signal is missed. */
static void listener_open(listener *l, uint64_t subscribe_usec, bool compact)
{
        *l = (listener) { .bus = connect_bus(), .compact = compact, .at_period = subscribe_usec != 0 };
        char rule[320];
        if (subscribe_usec)
                snprintf(rule, sizeof(rule),
                         "type='signal',sender='" JD_BUS_NAME "',path='" JD_OBJECT_PATH "',interface='" JD_IFACE_METRICS
                         "',member='%s',arg0='%llu'",
                         compact ? "ValuesAt" : "SampleAt", (unsigned long long) subscribe_usec);
        else
                snprintf(rule, sizeof(rule),
                         "type='signal',sender='" JD_BUS_NAME "',path='" JD_OBJECT_PATH "',interface='" JD_IFACE_METRICS
                         "',member='Sample'");
        int r = sd_bus_add_match(l->bus, &l->match, rule, on_sample, l);
        if (r < 0)
                die("AddMatch", r, NULL);
        if (subscribe_usec) {
                sd_bus_error e = SD_BUS_ERROR_NULL;
                r = sd_bus_call_method(l->bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS,
                                       compact ? "SubscribeValues" : "Subscribe", &e, NULL, "t", subscribe_usec);
                if (r < 0)
                        die("Subscribe", r, &e);
        }
}

static void listener_close(listener *l)
{
        sd_bus_slot_unref(l->match);
        sd_bus_flush_close_unref(l->bus);
}

/* Processes every connection until UNTIL_NS, or until the first
 * listener's sample count reaches STOP_AT (if nonzero). */
static void pump(listener *ls, size_t n, uint64_t until_ns, uint64_t stop_at)
{
        struct pollfd fds[MAX_LISTENERS];
        for (;;) {
                bool busy = false;
                for (size_t i = 0; i < n; i++) {
                        int r;
                        while ((r = sd_bus_process(ls[i].bus, NULL)) > 0) {
                                busy = true;
                                if (i == 0 && stop_at && ls[0].samples >= stop_at)
                                        return;
                        }
                        if (r < 0)
                                die("sd_bus_process", r, NULL);
                }
                uint64_t now = now_ns();
                if (now >= until_ns)
                        return;
                if (busy)
                        continue;
                int timeout_ms = (int) ((until_ns - now + 999999) / 1000000);
                for (size_t i = 0; i < n; i++) {
                        uint64_t t;
                        fds[i] = (struct pollfd) { .fd = sd_bus_get_fd(ls[i].bus),
                                                   .events = (short) sd_bus_get_events(ls[i].bus) };
                        if (sd_bus_get_timeout(ls[i].bus, &t) >= 0 && t != UINT64_MAX) {
                                uint64_t now_us = now / 1000;
                                int ms = t <= now_us ? 0 : (int) ((t - now_us + 999) / 1000);
                                if (ms < timeout_ms)
                                        timeout_ms = ms;
                        }
                }
                if (poll(fds, n, timeout_ms) < 0 && errno != EINTR)
                        die("poll", errno, NULL);
        }
}

static void bench_cpu(const char *title, const cpu_source *daemon, const cpu_source *bus_daemon, size_t n,
                      uint64_t subscribe_usec, bool compact, double window_s)
{
        listener ls[MAX_LISTENERS];
        for (size_t i = 0; i < n; i++)
                listener_open(&ls[i], subscribe_usec, compact);
        uint64_t period = 0;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = sd_bus_get_property_trivial(ls[0].bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "Interval", &e,
                                            't', &period);
        if (r < 0)
                die("Get Interval", r, &e);
        /* Let the new rate settle, then start just after a sample. */
        pump(ls, n, now_ns() + 1000000000u, 0);
        pump(ls, n, now_ns() + 5000000000u, ls[0].samples + 1);

        uint64_t first = ls[0].samples, others0 = n > 1 ? ls[n - 1].samples : 0;
        cpu_reading d0 = read_cpu(daemon), b0 = bus_daemon ? read_cpu(bus_daemon) : (cpu_reading) { 0 };
        thread_times th0 = read_threads(daemon->pid);
        uint64_t self0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID), t0 = now_ns();
        pump(ls, n, t0 + (uint64_t) (window_s * 1e9), 0);
        pump(ls, n, now_ns() + 5000000000u, ls[0].samples + 1);
        cpu_reading d1 = read_cpu(daemon), b1 = bus_daemon ? read_cpu(bus_daemon) : (cpu_reading) { 0 };
        thread_times th1 = read_threads(daemon->pid);
        uint64_t self_ns = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - self0;
        double wall = (double) (now_ns() - t0) / 1e9;
        uint64_t samples = ls[0].samples - first;

        printf("%s (Interval %llu us): %zu listener%s%s, %llu samples in %.2f s (%.1f/s), the last with %d keys",
               title, (unsigned long long) period, n, n > 1 ? "s" : "",
               subscribe_usec ? (compact ? " with SubscribeValues()" : " with Subscribe()") : ", no Subscribe()", (unsigned long long) samples, wall,
               (double) samples / wall, ls[0].keys);
        if (n > 1)
                printf("; last listener got %llu", (unsigned long long) (ls[n - 1].samples - others0));
        printf("\n");
        if (samples == 0) {
                printf("  no %s signal received\n", subscribe_usec ? (compact ? "ValuesAt" : "SampleAt") : "Sample");
        } else {
                report_cpu("jetsond", &d0, &d1, wall, samples, daemon->has_clock);
                report_threads(&th0, &th1, samples);
                if (bus_daemon)
                        report_cpu("dbus-daemon", &b0, &b1, wall, samples, bus_daemon->has_clock);
                printf("  this bench  %6.3f %% of one core (its listeners, competing for the same CPUs)\n",
                       100.0 * (double) self_ns / 1e9 / wall);
        }
        for (size_t i = 0; i < n; i++)
                listener_close(&ls[i]);
}

/* Reads a capture stream until UNTIL_NS: records and the drops they report. */
/* Ticks the engine did not make (a reading that overran its period, or
 * started late) show as gaps in time_ns: counted in *MISSED. */
static void drain_capture(int fd, size_t record_size, uint64_t interval_ns, uint64_t until_ns, uint64_t *records,
                          uint64_t *dropped, uint64_t *missed)
{
        static uint64_t last;
        static char buf[1 << 16];
        size_t have = 0;
        for (;;) {
                uint64_t now = now_ns();
                if (now >= until_ns)
                        return;
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, (int) ((until_ns - now) / 1000000) + 1) <= 0)
                        continue;
                ssize_t n = read(fd, buf + have, sizeof(buf) - have);
                if (n <= 0)
                        die("capture read", n < 0 ? errno : EPIPE, NULL);
                have += (size_t) n;
                size_t off = 0;
                for (; have - off >= record_size; off += record_size) {
                        uint64_t d, t;
                        memcpy(&t, buf + off, 8);
                        memcpy(&d, buf + off + 8, 8);
                        *dropped += d;
                        (*records)++;
                        if (last && t - last > interval_ns * 3 / 2)
                                *missed += (t - last + interval_ns / 2) / interval_ns - 1 - d;
                        last = t;
                }
                memmove(buf, buf + off, have - off);
                have -= off;
        }
}

/* The fast tier at 1 kHz for a capture of every numeric key, read
 * promptly; Samples stay at the default period. */
static void bench_capture(const cpu_source *daemon, uint64_t interval_usec, double window_s)
{
        sd_bus *bus = connect_bus();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "OpenCapture", &e, &reply,
                                   "tas", interval_usec, 0);
        if (r < 0)
                die("OpenCapture", r, &e);
        int fd = -1;
        if (sd_bus_message_read(reply, "h", &fd) < 0 || (fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
                die("OpenCapture reply", EINVAL, NULL);
        sd_bus_message_unref(reply);
        struct __attribute__((packed)) {
                char magic[8];
                uint32_t version, header_size, columns, record_size;
                uint64_t interval_ns;
                int64_t offset_ns;
        } h;
        static char names[1 << 16];
        if (read(fd, &h, sizeof(h)) != (ssize_t) sizeof(h) || memcmp(h.magic, "JDCAPTUR", 8) != 0 ||
            h.header_size - sizeof(h) > sizeof(names) ||
            read(fd, names, h.header_size - sizeof(h)) != (ssize_t) (h.header_size - sizeof(h)))
                die("capture header", EINVAL, NULL);
        uint64_t records = 0, dropped = 0, missed = 0;
        drain_capture(fd, h.record_size, h.interval_ns, now_ns() + 1000000000u, &records, &dropped, &missed);
        records = dropped = missed = 0;
        cpu_reading d0 = read_cpu(daemon);
        thread_times th0 = read_threads(daemon->pid);
        uint64_t t0 = now_ns();
        drain_capture(fd, h.record_size, h.interval_ns, t0 + (uint64_t) (window_s * 1e9), &records, &dropped, &missed);
        cpu_reading d1 = read_cpu(daemon);
        thread_times th1 = read_threads(daemon->pid);
        double wall = (double) (now_ns() - t0) / 1e9;
        printf("capture every %llu us of all %u numeric keys (%u-byte records): %llu records in %.2f s (%.1f/s), "
               "%llu dropped, %llu ticks missed\n",
               (unsigned long long) interval_usec, h.columns, h.record_size, (unsigned long long) records, wall,
               (double) records / wall, (unsigned long long) dropped, (unsigned long long) missed);
        if (records) {
                report_cpu("jetsond", &d0, &d1, wall, records, daemon->has_clock);
                report_threads(&th0, &th1, records);
        }
        close(fd);
        sd_bus_flush_close_unref(bus);
}

static void usage(void)
{
        fprintf(stderr, "usage: jetsond-bus-bench [-q | -S] [-n CALLS] [-w SECONDS] [-s SUBSCRIBERS] "
                        "[-i INTERVAL_USEC] JETSOND_PID [DBUS_DAEMON_PID]\n");
        exit(2);
}

int main(int argc, char **argv)
{
        long calls = 2000, subscribers = 10;
        double window = 10.0;
        unsigned long long interval = JD_INTERVAL_MIN_USEC;
        bool calls_only = false, subscribed_only = false;
        int opt;
        while ((opt = getopt(argc, argv, "qSn:w:s:i:")) != -1) {
                switch (opt) {
                case 'q': calls_only = true; break;
                case 'S': subscribed_only = true; break;
                case 'n': calls = atol(optarg); break;
                case 'w': window = atof(optarg); break;
                case 's': subscribers = atol(optarg); break;
                case 'i': interval = strtoull(optarg, NULL, 10); break;
                default: usage();
                }
        }
        if (optind >= argc || argc - optind > 2 || (calls_only && subscribed_only) || calls <= 0 || window <= 0 ||
            subscribers <= 0 || subscribers > MAX_LISTENERS || interval < JD_INTERVAL_MIN_USEC)
                usage();
        cpu_source daemon = cpu_source_new((pid_t) atoi(argv[optind]));
        cpu_source bus_daemon = { 0 };
        if (argc - optind == 2)
                bus_daemon = cpu_source_new((pid_t) atoi(argv[optind + 1]));
        const cpu_source *busd = bus_daemon.pid > 0 ? &bus_daemon : NULL;
        read_cpu(&daemon);            /* fails early on a wrong PID */

        /* The first sample (at start-up) has no rates yet: wait for a tick. */
        listener first;
        listener_open(&first, 0, false);
        pump(&first, 1, now_ns() + 5000000000u, 1);
        if (!first.samples)
                die("no Sample signal within 5 s", ETIMEDOUT, NULL);
        listener_close(&first);
        if (subscribed_only) {
                /* run-bus-bench.sh's rounds: the subscribed periods alone,
                 * alternated with the engine's floor. */
                bench_cpu("subscribed", &daemon, busd, (size_t) subscribers, interval, false, window);
                bench_cpu("subscribed, compact", &daemon, busd, (size_t) subscribers, interval, true, window);
                return 0;
        }
        sd_bus *bus = connect_bus();
        bench_calls(bus, "GetSnapshot", (size_t) calls, &daemon, busd);
        bench_calls(bus, "GetValues", (size_t) calls, &daemon, busd);
        sd_bus_flush_close_unref(bus);
        if (calls_only)
                return 0;

        printf("CPU per sample (window %.0f s of whole periods, CLK_TCK %ld):\n", window, sysconf(_SC_CLK_TCK));
        bench_cpu("default period", &daemon, busd, 1, 0, false, window);
        bench_cpu("subscribed", &daemon, busd, (size_t) subscribers, interval, false, window);
        bench_cpu("subscribed, compact", &daemon, busd, (size_t) subscribers, interval, true, window);
        bench_capture(&daemon, JD_CAPTURE_INTERVAL_MIN_USEC, window);
        return 0;
}
