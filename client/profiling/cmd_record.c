/* jetsonctl record: every record of a capture stream to a file, in csv,
 * jsonl or a Chrome trace (record_writer.c), for a time, until Ctrl-C,
 * while a command runs or while a running process does (capture_run.c);
 * with a command or a process, the tree.* columns of its process tree
 * (tree_follow.c) after the stream's. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture_run.h"
#include "jetsond-dbus.h"
#include "record_writer.h"
#include "tree_follow.h"

/* The process tree is read from /proc at the record interval, but not
 * more often than this: a walk of a small tree costs about 0.2 ms, and
 * each process's smaps_rollup more as its mappings grow. */
#define TREE_MIN_PERIOD_MS 10
/* jetsond refreshes process.PID.* every 100 ms at best. */
#define TREE_GPU_PERIOD_MS 100

int jc_record_interval_ms = 10;
int jc_record_medium_ms, jc_record_slow_ms; /* 0: jetsond's rates */
char *jc_record_keys;
char *jc_record_format_name;
char *jc_record_time_name;
char *jc_record_output;
double jc_record_duration_s;
char *jc_record_pid;

/* The tree's columns, after the stream's, in this order. */
enum { T_PROCESSES, T_USER, T_SYSTEM, T_RSS, T_PSS, T_READ, T_WRITE, T_GPU_MEM, T_SM, T_GPUS, T_COLUMNS };
static const char *const tree_columns[T_COLUMNS] = {
        "tree.processes", "tree.cpu_user_s", "tree.cpu_system_s", "tree.rss_kib",        "tree.pss_kib",
        "tree.read_bytes", "tree.write_bytes", "tree.gpu_mem_kib", "tree.gpu_sm_percent", "tree.gpus_busy",
};

typedef struct {
        FILE *out;
        jc_record_format format;
        jc_record_time time;
        jc_record_writer *writer;
        jc_ctx *c;
        size_t n_stream;            /* the stream's columns; the tree's follow */
        double *row;                /* the stream's values, then the tree's */
        jc_tree_follow *tree;       /* NULL: no process tree */
        uint64_t tree_period_ns, tree_next_ns, interval_ns;
} record_state;

static const char *output_name(void)
{
        return jc_record_output ? jc_record_output : "the output";
}

static bool on_begin(void *data, const jc_capture *cap, uint64_t start_ns, pid_t pid)
{
        record_state *st = data;
        st->n_stream = cap->n_columns;
        g_autoptr(GPtrArray) columns = g_ptr_array_new();
        for (size_t i = 0; i < cap->n_columns; i++)
                g_ptr_array_add(columns, cap->columns[i]);
        if (pid > 0) {
                st->tree = jc_tree_follow_new(st->c, pid, TREE_GPU_PERIOD_MS);
                for (size_t i = 0; i < T_COLUMNS; i++)
                        g_ptr_array_add(columns, (char *) tree_columns[i]);
        }
        st->row = g_new(double, columns->len + 1);
        st->writer = jc_record_writer_new(st->out, st->format, st->time, (char *const *) columns->pdata, columns->len,
                                          start_ns, cap->realtime_offset_ns);
        return true;
}

/* The tree's figures into ROW, NaN where unknown; all NaN once it is gone. */
static void tree_row(record_state *st, double *row)
{
        for (size_t i = 0; i < T_COLUMNS; i++)
                row[i] = NAN;
        jc_tree_figures f;
        if (!jc_tree_follow_sample(st->tree, &f))
                return;
        row[T_PROCESSES] = f.processes;
        row[T_USER] = f.user_s;
        row[T_SYSTEM] = f.system_s;
        if (f.have_rss)
                row[T_RSS] = (double) f.rss_kib;
        if (f.have_pss)
                row[T_PSS] = (double) f.pss_kib;
        if (f.have_io) {
                row[T_READ] = (double) f.read_bytes;
                row[T_WRITE] = (double) f.write_bytes;
        }
        if (f.have_gpu) {
                row[T_GPU_MEM] = (double) f.gpu_mem_kib;
                row[T_GPUS] = f.gpus_busy;
        }
        if (f.have_sm)
                row[T_SM] = f.sm_percent;
}

static bool on_record(void *data, uint64_t time_ns, const double *values, char *const *marks)
{
        record_state *st = data;
        memcpy(st->row, values, st->n_stream * sizeof(double));
        if (st->tree) {
                /* Read as the record arrives (records come in batches
                 * every 10 ms): at most one /proc walk per period, the
                 * records in between with the tree's columns empty. */
                double *tree = st->row + st->n_stream;
                if (time_ns >= st->tree_next_ns) {
                        tree_row(st, tree);
                        /* Less half a record: records jitter around their
                         * ticks, and one a little early still gets it. */
                        st->tree_next_ns = time_ns + st->tree_period_ns - st->interval_ns / 2;
                } else {
                        for (size_t i = 0; i < T_COLUMNS; i++)
                                tree[i] = NAN;
                }
        }
        jc_record_writer_record(st->writer, time_ns, st->row, marks);
        int e = jc_record_writer_error(st->writer);
        if (e)
                fprintf(stderr, "jetsonctl: writing %s: %s\n", output_name(), strerror(e));
        return e == 0;
}

char **jc_split_keys(const char *list)
{
        char **keys = g_strsplit(list ? list : "", ",", -1);
        /* "a,,b" and a trailing comma leave empty globs: dropped. */
        size_t n = 0;
        for (size_t i = 0; keys[i]; i++)
                if (*keys[i])
                        keys[n++] = keys[i];
                else
                        g_free(keys[i]);
        keys[n] = NULL;
        return keys;
}

char **jc_command_args(int argc, char **argv)
{
        /* What follows "--" (GOption may leave it in place). */
        char **command = argv + 1;
        if (argc > 1 && strcmp(command[0], "--") == 0)
                command++;
        return command;
}

int jc_cmd_record(jc_ctx *c, int argc, char **argv)
{
        record_state st = { .out = stdout, .format = JC_RECORD_CSV, .time = JC_RECORD_TIME_UNIX, .c = c };
        if (jc_record_format_name && !jc_record_format_parse(jc_record_format_name, &st.format))
                return jc_usage_error("record", "--format must be csv, jsonl or trace, not \"%s\"", jc_record_format_name);
        if (jc_record_time_name && !jc_record_time_parse(jc_record_time_name, &st.time))
                return jc_usage_error("record", "--time must be unix, iso or relative, not \"%s\"",
                                      jc_record_time_name);
        if (jc_record_interval_ms < (int) (JD_CAPTURE_INTERVAL_MIN_USEC / 1000) || jc_record_interval_ms > 3600000)
                return jc_usage_error("record", "--interval %d is out of range (1 to 3600000 ms)", jc_record_interval_ms);
        if (jc_record_medium_ms && (jc_record_medium_ms < (int) (JD_CAPTURE_MEDIUM_MIN_USEC / 1000) ||
                                    jc_record_medium_ms > 3600000))
                return jc_usage_error("record", "--medium %d is out of range (10 to 3600000 ms)", jc_record_medium_ms);
        if (jc_record_slow_ms && (jc_record_slow_ms < (int) (JD_CAPTURE_SLOW_MIN_USEC / 1000) ||
                                  jc_record_slow_ms > 3600000))
                return jc_usage_error("record", "--slow %d is out of range (100 to 3600000 ms)", jc_record_slow_ms);
        if (jc_record_duration_s < 0 || jc_record_duration_s > 1e9)
                return jc_usage_error("record", "--duration must be a positive number of seconds");
        char **command = jc_command_args(argc, argv);
        if (command[0] && jc_record_duration_s > 0)
                return jc_usage_error("record", "give either --duration or a command, not both");
        pid_t pid = 0;
        if (jc_record_pid && command[0])
                return jc_usage_error("record", "give either --pid or a command, not both");
        if (jc_record_pid) {
                int r = jc_follow_pid_parse("record", jc_record_pid, &pid);
                if (r != JC_EXIT_OK)
                        return r;
        }
        if (jc_record_output && strcmp(jc_record_output, "-") != 0 && !(st.out = fopen(jc_record_output, "we"))) {
                fprintf(stderr, "jetsonctl: cannot write %s: %s\n", jc_record_output, strerror(errno));
                return JC_EXIT_FAILURE;
        }

        g_auto(GStrv) keys = jc_split_keys(jc_record_keys);
        jc_capture_run_spec spec = { .interval_us = (uint64_t) jc_record_interval_ms * 1000,
                                     .medium_us = (uint64_t) jc_record_medium_ms * 1000,
                                     .slow_us = (uint64_t) jc_record_slow_ms * 1000, .keys = keys,
                                     .duration_s = jc_record_duration_s, .command = command, .follow_pid = pid };
        st.tree_period_ns = (uint64_t) MAX(jc_record_interval_ms, TREE_MIN_PERIOD_MS) * 1000000u;
        st.interval_ns = (uint64_t) jc_record_interval_ms * 1000000u;
        jc_capture_run_hooks hooks = { .begin = on_begin, .record = on_record, .data = &st };
        jc_capture_run_result result;
        int ret = jc_capture_run(c, &spec, &hooks, &result);
        if (ret == JC_EXIT_OK)
                ret = command[0] ? result.status : JC_EXIT_OK;
        if (st.writer && !jc_record_writer_finish(st.writer) && !result.failed) {
                fprintf(stderr, "jetsonctl: writing %s: %s\n", output_name(), strerror(errno));
                result.failed = true;
        }
        if (result.dropped)
                fprintf(stderr, "jetsonctl: jetsond dropped %" G_GUINT64_FORMAT " records: the output could not keep up\n",
                        result.dropped);
        /* For the person at the terminal: why time_s has gaps. A script
         * sees them in time_s itself, and its stderr stays its own. */
        if (result.missed && isatty(STDERR_FILENO))
                fprintf(stderr, "jetsonctl: jetsond missed %" G_GUINT64_FORMAT " ticks (a busy machine): time_s has "
                                "gaps there\n",
                        result.missed);
        if (result.failed && ret == JC_EXIT_OK)
                ret = JC_EXIT_FAILURE;
        jc_record_writer_free(st.writer);
        jc_tree_follow_free(st.tree);
        g_free(st.row);
        if (st.out != stdout && fclose(st.out) != 0 && ret == JC_EXIT_OK) {
                fprintf(stderr, "jetsonctl: writing %s: %s\n", jc_record_output, strerror(errno));
                ret = JC_EXIT_FAILURE;
        }
        return ret;
}
