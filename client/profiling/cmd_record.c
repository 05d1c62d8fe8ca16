/* jetsonctl record: every record of a capture stream to a file, in csv,
 * jsonl or a Chrome trace (record_writer.c), for a time, until Ctrl-C or
 * while a command runs (capture_run.c). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "capture_run.h"
#include "jetsond-dbus.h"
#include "record_writer.h"

int jc_record_interval_ms = 10;
int jc_record_medium_ms, jc_record_slow_ms; /* 0: jetsond's rates */
char *jc_record_keys;
char *jc_record_format_name;
char *jc_record_time_name;
char *jc_record_output;
double jc_record_duration_s;

typedef struct {
        FILE *out;
        jc_record_format format;
        jc_record_time time;
        jc_record_writer *writer;
} record_state;

static const char *output_name(void)
{
        return jc_record_output ? jc_record_output : "the output";
}

static bool on_begin(void *data, const jc_capture *cap, uint64_t start_ns, pid_t pid)
{
        (void) pid;
        record_state *st = data;
        st->writer = jc_record_writer_new(st->out, st->format, st->time, cap->columns, cap->n_columns, start_ns,
                                          cap->realtime_offset_ns);
        return true;
}

static bool on_record(void *data, uint64_t time_ns, const double *values, char *const *marks)
{
        record_state *st = data;
        jc_record_writer_record(st->writer, time_ns, values, marks);
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
        record_state st = { .out = stdout, .format = JC_RECORD_CSV, .time = JC_RECORD_TIME_UNIX };
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
        if (jc_record_output && strcmp(jc_record_output, "-") != 0 && !(st.out = fopen(jc_record_output, "we"))) {
                fprintf(stderr, "jetsonctl: cannot write %s: %s\n", jc_record_output, strerror(errno));
                return JC_EXIT_FAILURE;
        }

        g_auto(GStrv) keys = jc_split_keys(jc_record_keys);
        jc_capture_run_spec spec = { .interval_us = (uint64_t) jc_record_interval_ms * 1000,
                                     .medium_us = (uint64_t) jc_record_medium_ms * 1000,
                                     .slow_us = (uint64_t) jc_record_slow_ms * 1000, .keys = keys,
                                     .duration_s = jc_record_duration_s, .command = command };
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
        if (st.out != stdout && fclose(st.out) != 0 && ret == JC_EXIT_OK) {
                fprintf(stderr, "jetsonctl: writing %s: %s\n", jc_record_output, strerror(errno));
                ret = JC_EXIT_FAILURE;
        }
        return ret;
}
