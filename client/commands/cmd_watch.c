/* jetsonctl watch: streams samples at --interval and no faster. At
 * jetsond's DefaultInterval (and without --interval) it takes the Sample
 * broadcast and asks for nothing; at any other period it matches
 * SampleAt for that period, then calls Subscribe() (common/follow.h), so
 * no sample is missed. SIGINT/SIGTERM end the sd-event loop cleanly, and
 * the request is dropped explicitly with Unsubscribe() before leaving
 * (jetsond would also drop it when the connection closes, through
 * sd_bus_track). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <systemd/sd-event.h>

#include "common/bus.h"
#include "common/follow.h"
#include "common/gpu_filter.h"
#include "common/json_out.h"
#include "jetsond-dbus.h"
#include "common/parse.h"
#include "common/sample.h"
#include "profiling/watch_stats.h"

typedef struct {
        jc_ctx *c;
        char **globs;
        int n_globs;
        int seen;
        jc_key_stats *stats;      /* --stats */
        jc_gpu_filter filter;     /* --only, --only-visible */
} watch_state;

char *jc_watch_timestamps;       /* --timestamps: "time" (default) or "iso" */

/* The local time of a CLOCK_REALTIME µs timestamp: "HH:MM:SS.mmm", or
 * with --timestamps=iso "YYYY-MM-DDTHH:MM:SS.mmm+HH:MM" (ISO 8601). */
static void append_time(GString *out, uint64_t usec)
{
        bool iso = jc_watch_timestamps && strcmp(jc_watch_timestamps, "iso") == 0;
        time_t secs = (time_t) (usec / 1000000);
        struct tm tm;
        char buf[32] = "??:??:??", zone[8] = "";
        if (localtime_r(&secs, &tm)) {
                strftime(buf, sizeof(buf), iso ? "%Y-%m-%dT%H:%M:%S" : "%H:%M:%S", &tm);
                strftime(zone, sizeof(zone), "%z", &tm);
        }
        g_string_append_printf(out, "%s.%03u", buf, (unsigned) (usec / 1000 % 1000));
        if (iso && strlen(zone) == 5)   /* "+0100" -> "+01:00" */
                g_string_append_printf(out, "%.3s:%s", zone, zone + 3);
}

static void append_pct_at(GString *out, const jc_sample *s, const char *load_key, const char *freq_key)
{
        double load;
        uint64_t f;
        if (jc_sample_double(s, load_key, &load))
                g_string_append_printf(out, "%.0f%%", load);
        else
                g_string_append_c(out, '-');
        if (jc_sample_uint(s, freq_key, &f))
                g_string_append_printf(out, "@%" G_GUINT64_FORMAT, f / 1000);
}

/* One tegrastats-like line: RAM, SWAP, CPU [load@MHz,...], EMC, GPU,
 * engines that are on, temperatures, power. */
static void compact_line(GString *out, const jc_sample *s)
{
        uint64_t a, b, v;
        if (jc_sample_uint(s, "ram.used", &a) && jc_sample_uint(s, "ram.total", &b)) {
                g_string_append_printf(out, " RAM %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "MB", a / 1024, b / 1024);
                if (jc_sample_uint(s, "ram.lfb", &v))
                        g_string_append_printf(out, " (lfb %" G_GUINT64_FORMAT "x4MB)", v);
        }
        if (jc_sample_uint(s, "swap.used", &a) && jc_sample_uint(s, "swap.total", &b)) {
                g_string_append_printf(out, " SWAP %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "MB", a / 1024, b / 1024);
                if (jc_sample_uint(s, "swap.cached", &v))
                        g_string_append_printf(out, " (cached %" G_GUINT64_FORMAT "MB)", v / 1024);
        }
        g_autoptr(GString) cpus = g_string_new(NULL);
        for (unsigned n = 0; n < 1024; n++) {
                bool online;
                g_autofree char *online_key = g_strdup_printf("cpu.%u.online", n);
                if (!jc_sample_bool(s, online_key, &online))
                        break;
                if (cpus->len)
                        g_string_append_c(cpus, ',');
                if (!online) {
                        g_string_append(cpus, "off");
                        continue;
                }
                g_autofree char *lk = g_strdup_printf("cpu.%u.load", n), *fk = g_strdup_printf("cpu.%u.freq", n);
                append_pct_at(cpus, s, lk, fk);
        }
        if (cpus->len)
                g_string_append_printf(out, " CPU [%s]", cpus->str);
        double load;
        if (jc_sample_uint(s, "emc.freq", &v) || jc_sample_double(s, "emc.load", &load)) {
                g_string_append(out, " EMC_FREQ ");
                append_pct_at(out, s, "emc.load", "emc.freq");
        }
        if (jc_sample_uint(s, "gpu.freq", &v) || jc_sample_double(s, "gpu.load", &load)) {
                g_string_append(out, " GR3D_FREQ ");
                append_pct_at(out, s, "gpu.load", "gpu.freq");
        }
        GVariantIter it;
        const char *key;
        GVariant *val;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &val)) {
                if (g_str_has_prefix(key, "engine.") && g_str_has_suffix(key, ".freq") &&
                    g_variant_is_of_type(val, G_VARIANT_TYPE_UINT32) && g_variant_get_uint32(val))
                        g_string_append_printf(out, " %.*s %u", (int) (strlen(key) - 12), key + 7,
                                               g_variant_get_uint32(val) / 1000);
                else if (g_str_has_prefix(key, "temp.") && g_variant_is_of_type(val, G_VARIANT_TYPE_DOUBLE))
                        g_string_append_printf(out, " %s@%.1fC", key + 5, g_variant_get_double(val));
                else if (g_str_has_prefix(key, "power.") && g_str_has_suffix(key, ".power") &&
                         g_variant_is_of_type(val, G_VARIANT_TYPE_UINT32))
                        g_string_append_printf(out, " %.*s %umW", (int) (strlen(key) - 12), key + 6,
                                               g_variant_get_uint32(val));
                g_variant_unref(val);
        }
        if (jc_sample_uint(s, "power.total", &v))
                g_string_append_printf(out, " total %" G_GUINT64_FORMAT "mW", v);
}

static void print_sample(watch_state *w, const jc_sample *s)
{
        if (w->c->json) {
                JsonBuilder *b = json_builder_new();
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "timestamp_usec");
                json_builder_add_int_value(b, (gint64) s->timestamp_usec);
                json_builder_set_member_name(b, "values");
                json_builder_begin_object(b);
                GVariantIter it;
                const char *key;
                GVariant *val;
                g_variant_iter_init(&it, s->values);
                while (g_variant_iter_next(&it, "{&sv}", &key, &val)) {
                        if (jc_key_matches(key, w->globs, w->n_globs))
                                jc_json_add_variant(b, key, val);
                        g_variant_unref(val);
                }
                json_builder_end_object(b);
                json_builder_end_object(b);
                jc_json_print_builder(b);
                return;
        }
        g_autoptr(GString) out = g_string_new(NULL);
        append_time(out, s->timestamp_usec);
        if (w->n_globs == 0) {
                compact_line(out, s);
        } else {
                GVariantIter it;
                const char *key;
                GVariant *val;
                g_variant_iter_init(&it, s->values);
                while (g_variant_iter_next(&it, "{&sv}", &key, &val)) {
                        if (jc_key_matches(key, w->globs, w->n_globs)) {
                                g_autofree char *text = jc_value_to_text(val);
                                g_autofree char *quoted = jc_quote_value(text);
                                g_string_append_printf(out, " %s=%s", key, quoted);
                        }
                        g_variant_unref(val);
                }
        }
        g_string_append_c(out, '\n');
        fputs(out->str, stdout);
        /* One line per sample as it arrives, also into a pipe. */
        fflush(stdout);
}

static int on_sample(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        watch_state *w = userdata;
        g_autoptr(GVariant) args = jc_message_to_variant(m);
        jc_sample s = { 0 };
        if (!args || !jc_sample_from_variant(&s, args)) {
                fprintf(stderr, "jetsonctl: ignoring a malformed Sample signal\n");
                return 0;
        }
        jc_sample_to_caller(w->c, &s);
        jc_gpu_filter_sample(&w->filter, &s);
        print_sample(w, &s);
        if (w->stats) {
                GVariantIter it;
                const char *key;
                GVariant *val;
                jc_key_stats_sample_at(w->stats, s.timestamp_usec);
                g_variant_iter_init(&it, s.values);
                while (g_variant_iter_next(&it, "{&sv}", &key, &val)) {
                        if (jc_key_matches(key, w->globs, w->n_globs))
                                jc_key_stats_add(w->stats, key, val);
                        g_variant_unref(val);
                }
                jc_key_stats_sample_done(w->stats);
        }
        jc_sample_clear(&s);
        w->seen++;
        if (jc_watch_count > 0 && w->seen >= jc_watch_count)
                sd_event_exit(sd_bus_get_event(sd_bus_message_get_bus(m)), 0);
        return 0;
}

int jc_cmd_watch(jc_ctx *c, int argc, char **argv)
{
        /* --interval 0 is out of range like any other: not "the default". */
        if (jc_watch_interval_ms != -1 &&
            (jc_watch_interval_ms < (int) (JD_INTERVAL_MIN_USEC / 1000) ||
             (uint64_t) jc_watch_interval_ms > JD_INTERVAL_MAX_USEC / 1000))
                return jc_usage_error("watch", "--interval %d is out of range (%llu to %llu ms)", jc_watch_interval_ms,
                                      JD_INTERVAL_MIN_USEC / 1000, JD_INTERVAL_MAX_USEC / 1000);
        if (jc_watch_count < 0)
                return jc_usage_error("watch", "--count must not be negative");
        if (jc_watch_timestamps && strcmp(jc_watch_timestamps, "time") && strcmp(jc_watch_timestamps, "iso"))
                return jc_usage_error("watch", "--timestamps must be time or iso, not \"%s\"", jc_watch_timestamps);

        watch_state w = { .c = c, .globs = argv + 1, .n_globs = argc - 1,
                          .stats = jc_watch_stats ? jc_key_stats_new() : NULL };
        int filtered = jc_gpu_filter_fetch(c, "watch", &w.filter);
        if (filtered != JC_EXIT_OK) {
                jc_key_stats_free(w.stats);
                return filtered;
        }
        jc_follow follow;
        uint64_t period = jc_watch_interval_ms == -1 ? 0 : (uint64_t) jc_watch_interval_ms * 1000;
        int ret = jc_follow_stream(c, &follow, 0, period, false, on_sample, on_sample, &w, "watching");
        if (ret == JC_EXIT_OK)
                ret = jc_follow_run(&follow, "watching");
        if (w.stats && ret == JC_EXIT_OK)
                jc_key_stats_print(w.stats, c->json);
        if (ret == JC_EXIT_OK)
                jc_follow_unsubscribe(c, &follow);
        jc_key_stats_free(w.stats);
        jc_gpu_filter_clear(&w.filter);
        jc_follow_close(c, &follow);
        return ret;
}
