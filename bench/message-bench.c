/* jetsond-message-bench: what it costs jetsond to put one sample into a
 * message, key family by key family (the key up to its first dot), and
 * the ways of answering many times from one sample:
 * - sd-bus: the a{sv} appended through sd-bus's container calls (what
 *   every GetSnapshot answer and Sample or SampleAt signal costs);
 * - sd_bus_message_copy() of such a message into a new one (what reusing
 *   a built message would cost: more than building anew);
 * - compact: the numeric values in GetKeys() order as "tuad" (GetValues,
 *   ValuesAt).
 *
 * Usage: jetsond-message-bench [SYSROOT] [ITERATIONS]
 * (default: the AGX Orin fake board, 20000). Prints `figure:` lines, CPU
 * time per message (the best of 5 runs of ITERATIONS, so a neighbour on
 * a shared machine does not inflate it). Not a timed test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "compact_keys.h"
#include "engine.h"
#include "sampler.h"
#include "sysroot.h"
#include "values.h"
#include "values_message.h"

#include "bench-util.h"

#define RUNS 5

typedef void (*job)(void *data);

/* CPU time of one call of FN, the best of RUNS runs of ITERATIONS. */
static double per_call_us(job fn, void *data, int iterations)
{
        double best = 1e9;
        for (int run = 0; run < RUNS; run++) {
                double t0 = cpu_seconds();
                for (int i = 0; i < iterations; i++)
                        fn(data);
                double t = (cpu_seconds() - t0) / iterations;
                if (t < best)
                        best = t;
        }
        return best * 1e6;
}

typedef struct {
        sd_bus *bus;
        const jd_values *lists[1];
        sd_bus_message *built;        /* for the copy */
        jd_compact compact;
        size_t compact_bytes;
} state;

static sd_bus_message *new_signal(sd_bus *bus)
{
        sd_bus_message *m = NULL;
        if (sd_bus_message_new_signal(bus, &m, "/org/jetsond/Jetson1", "org.jetsond.Jetson1.Metrics", "Sample") < 0)
                abort();
        return m;
}

static void build_sd_bus(void *data)
{
        state *s = data;
        sd_bus_message *m = new_signal(s->bus);
        uint64_t ts = 1;
        if (sd_bus_message_append_basic(m, 't', &ts) < 0 || jd_append_values(m, s->lists, 1) < 0)
                abort();
        sd_bus_message_unref(m);
}

static void copy_built(void *data)
{
        state *s = data;
        sd_bus_message *m = new_signal(s->bus);
        if (sd_bus_message_rewind(s->built, true) < 0 || sd_bus_message_copy(m, s->built, true) < 0)
                abort();
        sd_bus_message_unref(m);
}

static void build_compact(void *data)
{
        state *s = data;
        jd_compact_update(&s->compact, s->lists, 1);
        sd_bus_message *m = new_signal(s->bus);
        if (sd_bus_message_append(m, "tu", (uint64_t) 1, s->compact.generation) < 0 ||
            sd_bus_message_append_array(m, 'd', s->compact.values->data, s->compact.values->len * sizeof(double)) < 0)
                abort();
        s->compact_bytes = s->compact.values->len * sizeof(double) + 16;
        sd_bus_message_unref(m);
}

int main(int argc, char **argv)
{
        const char *dir = argc > 1 ? argv[1] : BENCH_DEFAULT_SYSROOT;
        int iterations = argc > 2 ? atoi(argv[2]) : 20000;
        const char *why;
        jd_sysroot *sr = jd_sysroot_new(dir, &why);
        if (!sr || iterations <= 0) {
                fprintf(stderr, "jetsond-message-bench: %s: %s\n", dir, sr ? "bad iteration count" : why);
                return 2;
        }
        jd_recheck_set_interval(JD_RECHECK_INTERVAL_US);
        jd_sampler *sampler = jd_sampler_new(sr);
        jd_sampler_sample(sampler, JD_TIER_ALL);
        jd_sampler_sample(sampler, JD_TIER_ALL);     /* rates need two */
        jd_values all;
        jd_values_init(&all);
        jd_values_from_sample(&all, jd_sampler_current(sampler));

        state s = { 0 };
        jd_compact_init(&s.compact);
        /* A message needs a started connection (for its byte order and
         * cookie), not a peer: one end of a socket pair will do. */
        int fds[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0 || sd_bus_new(&s.bus) < 0 ||
            sd_bus_set_fd(s.bus, fds[0], fds[0]) < 0 || sd_bus_start(s.bus) < 0)
                abort();

        printf("sysroot: %s, %zu keys, CPU time per message (best of %d runs of %d)\n", dir, all.n, RUNS, iterations);
        /* Family by family: each family's keys (wherever they are in the
         * sample: power and energy alternate rail by rail) as a list of
         * their own. */
        double sum_sd = 0;
        GHashTable *done = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        GArray *items = g_array_new(FALSE, FALSE, sizeof(jd_value));
        for (size_t i = 0; i < all.n; i++) {
                size_t len = strcspn(all.items[i].key, ".");
                char *name = g_strndup(all.items[i].key, len);
                if (!g_hash_table_add(done, name))
                        continue;
                g_array_set_size(items, 0);
                for (size_t k = i; k < all.n; k++)
                        if (strncmp(all.items[k].key, name, len) == 0 && all.items[k].key[len] == all.items[i].key[len])
                                g_array_append_val(items, all.items[k]);
                jd_values part = { .items = (jd_value *) (void *) items->data, .n = items->len, .cap = items->len };
                s.lists[0] = &part;
                double sd = per_call_us(build_sd_bus, &s, iterations);
                sum_sd += sd;
                printf("figure: family %-14s %3u keys: sd-bus %6.2f us\n", name, items->len, sd);
        }
        g_array_unref(items);
        g_hash_table_unref(done);
        printf("figure: families summed: sd-bus %.1f us\n", sum_sd);

        s.lists[0] = &all;
        s.built = new_signal(s.bus);
        uint64_t ts = 1;
        if (sd_bus_message_append_basic(s.built, 't', &ts) < 0 || jd_append_values(s.built, s.lists, 1) < 0 ||
            sd_bus_message_seal(s.built, 1, 0) < 0)
                abort();
        double sd = per_call_us(build_sd_bus, &s, iterations);
        double copy = per_call_us(copy_built, &s, iterations / 4);
        double compact = per_call_us(build_compact, &s, iterations);
        printf("figure: whole sample through sd-bus: %.1f us per message (every answer)\n", sd);
        printf("figure: sd_bus_message_copy of a built one: %.1f us per message\n", copy);
        printf("figure: compact message through sd-bus (%u keys, %zu bytes of body): %.1f us per message\n",
               s.compact.keys->len, s.compact_bytes, compact);

        sd_bus_message_unref(s.built);
        sd_bus_close_unref(s.bus);
        close(fds[1]);
        jd_compact_clear(&s.compact);
        jd_values_clear(&all);
        jd_sampler_free(sampler);
        jd_sysroot_free(sr);
        return 0;
}
