/* jetsonctl tegrastats: NVIDIA's tegrastats lines from jetsond's samples,
 * for every script that already reads them, with tegrastats' own command
 * line. At any period but jetsond's DefaultInterval it reads the compact
 * ValuesAt stream of that period (Metrics.SubscribeValues): numbers
 * only, 8 bytes a value, the sample the daemon took anyway, so it needs
 * no root and reads no hardware of its own. At DefaultInterval it takes
 * the Sample broadcast that jetsond sends anyway and asks for nothing.
 * Invoked as "tegrastats" (a symbolic link), jetsonctl runs this
 * command. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/bus.h"
#include "common/follow.h"
#include "common/parse.h"
#include "jetsond-dbus.h"
#include "ts_board.h"
#include "ts_format.h"
#include "ts_process.h"

static int opt_interval_ms = 1000;
static char *opt_logfile, *opt_format;
static gboolean opt_start, opt_stop, opt_readall, opt_verbose;

const GOptionEntry jc_tegrastats_entries[] = {
        { "interval", 0, 0, G_OPTION_ARG_INT, &opt_interval_ms,
          "A line every MS milliseconds (default 1000; below 10, every 10, jetsond's fastest)", "MS" },
        { "logfile", 0, 0, G_OPTION_ARG_FILENAME, &opt_logfile, "Append the lines to FILE instead of printing them",
          "FILE" },
        { "start", 0, 0, G_OPTION_ARG_NONE, &opt_start, "Run in the background (with --logfile)", NULL },
        { "stop", 0, 0, G_OPTION_ARG_NONE, &opt_stop, "End every tegrastats of this program that runs (those of --start too)",
          NULL },
        { "format", 0, 0, G_OPTION_ARG_STRING, &opt_format,
          "The line of another L4T release: r32, r35, r36, r38 or r39 (default: the board's)", "RELEASE" },
        { "readall", 0, 0, G_OPTION_ARG_NONE, &opt_readall, "Accepted for tegrastats' scripts: every sample is whole",
          NULL },
        { "verbose", 0, 0, G_OPTION_ARG_NONE, &opt_verbose, "Accepted for tegrastats' scripts", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
};

typedef struct {
        jc_ctx *c;
        ts_board board;
        ts_stats *stats;
        FILE *out;
        uint64_t interval_us;
        uint32_t generation;            /* of KEYS; 0: none yet */
        char **keys;
        GHashTable *index;              /* key -> its position + 1 */
        const double *values;           /* the ValuesAt signal being printed */
        size_t n_values;
        GHashTable *named;              /* or the Sample's: key -> GVariant */
        uint64_t last_printed_us, last_seen_us, gap_us;
        GString *line;
} ts_state;

/* A Sample's value as the compact form carries it (the keys of type d,
 * u, t and b, as doubles), so that both streams make the same line;
 * anything else is absent. */
static double number(GVariant *v)
{
        if (!v)
                return NAN;
        switch (g_variant_classify(v)) {
        case G_VARIANT_CLASS_DOUBLE: return g_variant_get_double(v);
        case G_VARIANT_CLASS_UINT32: return g_variant_get_uint32(v);
        case G_VARIANT_CLASS_UINT64: return (double) g_variant_get_uint64(v);
        case G_VARIANT_CLASS_BOOLEAN: return g_variant_get_boolean(v);
        default: return NAN;
        }
}

static double lookup(void *data, const char *key)
{
        ts_state *s = data;
        if (s->named)
                return number(g_hash_table_lookup(s->named, key));
        guint pos = GPOINTER_TO_UINT(g_hash_table_lookup(s->index, key));
        return pos && pos <= s->n_values ? s->values[pos - 1] : NAN;
}

static int fetch_keys(ts_state *s)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;
        g_autoptr(GVariant) reply = jc_call(s->c, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetKeys", false, &error, &r, NULL);
        if (!reply) {
                int ret = jc_report_error("reading the key list", &error, r, NULL, NULL);
                sd_bus_error_free(&error);
                return ret;
        }
        g_strfreev(s->keys);
        g_variant_get(reply, "(u^as)", &s->generation, &s->keys);
        g_hash_table_remove_all(s->index);
        for (guint i = 0; s->keys[i]; i++)
                g_hash_table_insert(s->index, s->keys[i], GUINT_TO_POINTER(i + 1));
        return JC_EXIT_OK;
}

static void stop(sd_bus_message *m, int exit_code)
{
        sd_event_exit(sd_bus_get_event(sd_bus_message_get_bus(m)), exit_code);
}

/* A line when INTERVAL has passed since the last, by the samples' own
 * clock: half a sample period early at most, so lines keep the interval
 * when a signal comes a sampling tick early or late (jetsond sends each
 * period's signal on the tick nearest its due time), and an extra Sample
 * (jetsond resamples after a write) makes no extra line. */
static bool due(ts_state *s, uint64_t stamp)
{
        if (s->last_seen_us && stamp > s->last_seen_us)
                s->gap_us = stamp - s->last_seen_us;
        s->last_seen_us = stamp;
        if (!s->last_printed_us)
                return true;
        uint64_t slack = MIN(s->gap_us, s->interval_us) / 2;
        return stamp + slack >= s->last_printed_us + s->interval_us;
}

/* The line of the sample at STAMP, whose values lookup() now finds. */
static void print_line(ts_state *s, sd_bus_message *m, uint64_t stamp)
{
        g_string_truncate(s->line, 0);
        ts_format_line(s->line, &s->board, lookup, s, stamp, s->stats);
        g_string_append_c(s->line, '\n');
        s->last_printed_us = stamp;
        /* One line as it comes, also into a pipe or a file being tailed. */
        if (fputs(s->line->str, s->out) == EOF || fflush(s->out) == EOF) {
                fprintf(stderr, "jetsonctl: writing %s: %s\n", opt_logfile ? opt_logfile : "the lines", strerror(errno));
                stop(m, JC_EXIT_FAILURE);
        }
}

/* ValuesAt(s period, t timestamp, u generation, ad values). */
static int on_values(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        ts_state *s = userdata;
        const char *period;
        uint64_t stamp;
        uint32_t generation;
        const void *values;
        size_t size;
        if (sd_bus_message_read(m, "stu", &period, &stamp, &generation) < 0 ||
            sd_bus_message_read_array(m, 'd', &values, &size) < 0)
                return 0;
        if (!due(s, stamp))
                return 0;
        if (generation != s->generation) {
                int ret = fetch_keys(s);
                if (ret != JC_EXIT_OK) {
                        stop(m, ret);
                        return 0;
                }
                if (generation != s->generation)
                        return 0;       /* older than the list: the next one follows it */
        }
        s->values = values;
        s->n_values = size / sizeof(double);
        print_line(s, m, stamp);
        s->values = NULL;
        return 0;
}

/* Sample(t timestamp, a{sv} values), at DefaultInterval: the names come
 * with the values, so the key list is not needed. */
static int on_sample(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        ts_state *s = userdata;
        g_autoptr(GVariant) args = jc_message_to_variant(m);
        if (!args || !g_variant_is_of_type(args, G_VARIANT_TYPE("(ta{sv})")))
                return 0;
        uint64_t stamp;
        g_autoptr(GVariant) dict = NULL;
        g_variant_get(args, "(t@a{sv})", &stamp, &dict);
        if (!due(s, stamp))
                return 0;
        /* The keys point into DICT, which outlives the table. */
        s->named = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_variant_unref);
        GVariantIter it;
        const char *key;
        GVariant *val;
        g_variant_iter_init(&it, dict);
        while (g_variant_iter_next(&it, "{&sv}", &key, &val))
                g_hash_table_replace(s->named, (gpointer) key, val);
        print_line(s, m, stamp);
        g_clear_pointer(&s->named, g_hash_table_unref);
        return 0;
}

static int stream(ts_state *s)
{
        jc_ctx *c = s->c;
        jc_follow follow;
        /* Below jetsond's floor the lines come at the floor. */
        uint64_t ask = MAX(s->interval_us, JD_INTERVAL_MIN_USEC);
        int ret = jc_follow_stream(c, &follow, 0, ask, true, on_sample, on_values, s, "reading samples");
        if (ret == JC_EXIT_OK)
                ret = jc_follow_run(&follow, "reading samples");
        jc_follow_close(c, &follow);
        return ret;
}

static int check_options(int argc, ts_gen *gen, bool *gen_given)
{
        if (argc > 1)
                return jc_usage_error("tegrastats", "unexpected argument");
        if (opt_interval_ms <= 0 || (uint64_t) opt_interval_ms > JD_INTERVAL_MAX_USEC / 1000)
                return jc_usage_error("tegrastats", "--interval %d is out of range (1 to %llu ms)", opt_interval_ms,
                                      JD_INTERVAL_MAX_USEC / 1000);
        *gen_given = opt_format != NULL;
        if (opt_format && !ts_gen_parse(opt_format, gen))
                return jc_usage_error("tegrastats", "--format must be r32, r35, r36, r38 or r39, not \"%s\"", opt_format);
        if (opt_start && !opt_logfile)
                return jc_usage_error("tegrastats", "--start writes to a file: give --logfile FILE");
        return JC_EXIT_OK;
}

int jc_cmd_tegrastats(jc_ctx *c, int argc, char **argv)
{
        (void) argv;
        ts_gen gen = TS_R36;
        bool gen_given = false;
        int ret = check_options(argc, &gen, &gen_given);
        if (ret != JC_EXIT_OK)
                return ret;
        if (opt_stop) {
                ts_process_stop_all();
                return JC_EXIT_OK;
        }
        FILE *out = stdout;
        if (opt_logfile) {
                /* Appends, as tegrastats does; the error now, before any
                 * line or background process. */
                out = fopen(opt_logfile, "ae");
                if (!out) {
                        fprintf(stderr, "jetsonctl: cannot open the log file %s: %s\n", opt_logfile, strerror(errno));
                        return JC_EXIT_USAGE;
                }
        }
        if (opt_start) {
                int err;
                if (!ts_process_background(&err)) {
                        fclose(out);
                        if (!err)
                                return JC_EXIT_OK;      /* the parent: the child writes on */
                        fprintf(stderr, "jetsonctl: cannot start in the background: %s\n", strerror(err));
                        return JC_EXIT_FAILURE;
                }
        }
        ts_process_set_name();

        ts_state s = { .c = c, .out = out, .interval_us = (uint64_t) opt_interval_ms * 1000, .line = g_string_new(NULL),
                       .index = g_hash_table_new(g_str_hash, g_str_equal), .stats = ts_stats_new() };
        ret = c->bus ? JC_EXIT_OK : jc_bus_open(c);
        if (ret == JC_EXIT_OK)
                ret = fetch_keys(&s);
        if (ret == JC_EXIT_OK)
                ret = ts_board_fetch(c, &s.board, (const char *const *) s.keys);
        if (ret == JC_EXIT_OK && gen_given)
                s.board.gen = gen;
        if (ret == JC_EXIT_OK)
                ret = stream(&s);
        if (out != stdout && fclose(out) == EOF && ret == JC_EXIT_OK) {
                fprintf(stderr, "jetsonctl: writing %s: %s\n", opt_logfile, strerror(errno));
                ret = JC_EXIT_FAILURE;
        }
        ts_board_clear(&s.board);
        ts_stats_free(s.stats);
        g_hash_table_unref(s.index);
        g_strfreev(s.keys);
        g_string_free(s.line, TRUE);
        g_free(opt_logfile);
        g_free(opt_format);
        return ret;
}

/* Started as "tegrastats": tegrastats' options alone, the system bus. */
int jc_tegrastats_main(int argc, char **argv)
{
        g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
        g_option_context_set_summary(ctx, "tegrastats lines from jetsond (jetsonctl tegrastats; see jetsonctl(1)).");
        g_option_context_add_main_entries(ctx, jc_tegrastats_entries, NULL);
        g_autoptr(GError) error = NULL;
        if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
                g_autofree char *text = jc_option_error_text(error);
                return jc_usage_error("tegrastats", "%s", text);
        }
        jc_ctx c = { 0 };
        int ret = jc_cmd_tegrastats(&c, argc, argv);
        c.bus = sd_bus_flush_close_unref(c.bus);
        return ret;
}
