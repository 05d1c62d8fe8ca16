/* jetsonctl record: writes every record of a capture stream
 * (Metrics.OpenCapture) to a file, for a time, until Ctrl-C, or for as
 * long as a command runs. The command gets the write end of a pipe as fd
 * JETSONCTL_MARK_FD: each line it writes there is a sync point, recorded
 * with the time it arrived. The loop is GLib's, so GSubprocess watches
 * the command; the bus connection only has to stay open (closing it
 * would end the capture). */
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "jetsond-dbus.h"
#include "record_writer.h"

#define MARK_FD 3
/* After the command ends, what the engine read until then is still on
 * its way (records leave in batches every 10 ms): wait this long more. */
#define DRAIN_MS 50

int jc_record_interval_ms = 10;
char *jc_record_keys;
char *jc_record_format_name;
char *jc_record_output;
double jc_record_duration_s;

typedef struct {
        uint64_t time_ns;
        char *label;
} mark;

typedef struct {
        jc_capture cap;
        jc_record_writer *writer;
        GMainLoop *loop;
        GQueue marks;
        GString *mark_line;
        int mark_fd;
        guint mark_watch, capture_watch;
        uint64_t start_ns;         /* time 0; with a command, records before it are left out */
        bool have_command;
        GSubprocess *child;
        bool child_running;
        int child_status;          /* as a shell reports it: code, 128+signal */
        bool failed;               /* the recording, not the command */
        bool finishing;
        uint64_t records;
} record_state;

static uint64_t monotonic_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void mark_free(gpointer p)
{
        mark *m = p;
        g_free(m->label);
        g_free(m);
}

static void on_record(void *data, uint64_t time_ns, const double *values)
{
        record_state *st = data;
        if (st->have_command && time_ns < st->start_ns)
                return;
        /* The marks that came before this record and after the last one. */
        GPtrArray *labels = g_ptr_array_new();
        while (!g_queue_is_empty(&st->marks) && ((mark *) g_queue_peek_head(&st->marks))->time_ns <= time_ns) {
                mark *m = g_queue_pop_head(&st->marks);
                g_ptr_array_add(labels, g_steal_pointer(&m->label));
                mark_free(m);
        }
        g_ptr_array_add(labels, NULL);
        jc_record_writer_record(st->writer, time_ns, values, (char *const *) labels->pdata);
        for (guint i = 0; labels->pdata[i]; i++)
                g_free(labels->pdata[i]);
        g_ptr_array_unref(labels);
        st->records++;
        if (jc_record_writer_error(st->writer) && !st->failed) {
                st->failed = true;
                fprintf(stderr, "jetsonctl: writing %s: %s\n", jc_record_output ? jc_record_output : "the output",
                        strerror(jc_record_writer_error(st->writer)));
        }
}

static void finish(record_state *st);

static gboolean on_capture(gint fd, GIOCondition cond, gpointer data)
{
        (void) fd, (void) cond;
        record_state *st = data;
        int r = jc_capture_read(&st->cap, on_record, st);
        if (r > 0 && !st->failed)
                return G_SOURCE_CONTINUE;
        st->capture_watch = 0;
        if (r <= 0 && !st->finishing) {
                fprintf(stderr, "jetsonctl: the capture stream ended%s%s\n", r < 0 ? ": " : " (jetsond left the bus?)",
                        r < 0 ? strerror(-r) : "");
                st->failed = true;
        }
        if (!st->child_running)
                g_main_loop_quit(st->loop);
        return G_SOURCE_REMOVE;
}

static void take_marks(record_state *st, const char *data, size_t len)
{
        uint64_t now = monotonic_ns();
        for (size_t i = 0; i < len; i++) {
                if (data[i] != '\n') {
                        g_string_append_c(st->mark_line, data[i]);
                        continue;
                }
                mark *m = g_new(mark, 1);
                m->time_ns = now;
                m->label = g_strdup(st->mark_line->str);
                g_queue_push_tail(&st->marks, m);
                g_string_truncate(st->mark_line, 0);
        }
}

static gboolean on_mark(gint fd, GIOCondition cond, gpointer data)
{
        (void) cond;
        record_state *st = data;
        char buf[4096];
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                take_marks(st, buf, (size_t) n);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return G_SOURCE_CONTINUE;
        /* Every writer closed it: a last line without its newline counts. */
        if (st->mark_line->len)
                take_marks(st, "\n", 1);
        st->mark_watch = 0;
        return G_SOURCE_REMOVE;
}

static gboolean on_drained(gpointer data)
{
        record_state *st = data;
        if (st->capture_watch)
                on_capture(st->cap.fd, G_IO_IN, st);
        g_main_loop_quit(st->loop);
        return G_SOURCE_REMOVE;
}

/* Ends the recording: what is still in the stream is read first. */
static void finish(record_state *st)
{
        if (st->finishing)
                return;
        st->finishing = true;
        if (st->mark_fd >= 0)
                on_mark(st->mark_fd, G_IO_IN, st);
        g_timeout_add(DRAIN_MS + (guint) (st->cap.interval_ns / 1000000u), on_drained, st);
}

static void on_child_done(GObject *source, GAsyncResult *res, gpointer data)
{
        record_state *st = data;
        g_autoptr(GError) error = NULL;
        st->child_running = false;
        if (!g_subprocess_wait_finish(G_SUBPROCESS(source), res, &error))
                st->child_status = 1;
        else if (g_subprocess_get_if_signaled(st->child))
                st->child_status = 128 + g_subprocess_get_term_sig(st->child);
        else
                st->child_status = g_subprocess_get_exit_status(st->child);
        finish(st);
}

static gboolean on_duration(gpointer data)
{
        finish(data);
        return G_SOURCE_REMOVE;
}

static gboolean on_signal(gpointer data)
{
        record_state *st = data;
        /* Ctrl-C reaches the command too (one process group); jetsonctl
         * records until it ends. Without a command, Ctrl-C ends it. */
        if (!st->child_running)
                finish(st);
        return G_SOURCE_CONTINUE;
}

static gboolean on_sigterm(gpointer data)
{
        record_state *st = data;
        if (st->child_running)
                g_subprocess_send_signal(st->child, SIGTERM);
        else
                finish(st);
        return G_SOURCE_CONTINUE;
}

/* Starts ARGV with the marker pipe's write end as fd MARK_FD; as a shell:
 * 127 for a command not found, 126 for one that cannot run. */
static int spawn(record_state *st, char **argv)
{
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0) {
                fprintf(stderr, "jetsonctl: %s\n", strerror(errno));
                return JC_EXIT_FAILURE;
        }
        GSubprocessLauncher *launcher = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_NONE);
        g_subprocess_launcher_take_fd(launcher, p[1], MARK_FD);
        g_autofree char *fd_text = g_strdup_printf("%d", MARK_FD);
        g_subprocess_launcher_setenv(launcher, "JETSONCTL_MARK_FD", fd_text, TRUE);
        g_autoptr(GError) error = NULL;
        st->child = g_subprocess_launcher_spawnv(launcher, (const char *const *) argv, &error);
        g_object_unref(launcher); /* closes our copy of the write end */
        if (!st->child) {
                close(p[0]);
                bool missing = g_error_matches(error, G_SPAWN_ERROR, G_SPAWN_ERROR_NOENT);
                fprintf(stderr, "jetsonctl: %s: %s\n", argv[0], missing ? "command not found" : error->message);
                return missing ? 127 : 126;
        }
        st->mark_fd = p[0];
        fcntl(st->mark_fd, F_SETFL, O_NONBLOCK);
        st->mark_watch = g_unix_fd_add(st->mark_fd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_mark, st);
        st->child_running = true;
        g_subprocess_wait_async(st->child, NULL, on_child_done, st);
        return JC_EXIT_OK;
}

static char **split_keys(void)
{
        if (!jc_record_keys)
                return g_new0(char *, 1);
        char **keys = g_strsplit(jc_record_keys, ",", -1);
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

int jc_cmd_record(jc_ctx *c, int argc, char **argv)
{
        jc_record_format format = JC_RECORD_CSV;
        if (jc_record_format_name && !jc_record_format_parse(jc_record_format_name, &format))
                return jc_usage_error("record", "--format must be csv, jsonl or trace, not \"%s\"", jc_record_format_name);
        if (jc_record_interval_ms < (int) (JD_CAPTURE_INTERVAL_MIN_USEC / 1000) || jc_record_interval_ms > 3600000)
                return jc_usage_error("record", "--interval %d is out of range (1 to 3600000 ms)", jc_record_interval_ms);
        if (jc_record_duration_s < 0 || jc_record_duration_s > 1e9)
                return jc_usage_error("record", "--duration must be a positive number of seconds");
        /* The command: what follows "--" (GOption leaves it or not). */
        char **command = argv + 1;
        int n_command = argc - 1;
        if (n_command > 0 && strcmp(command[0], "--") == 0)
                command++, n_command--;
        if (n_command > 0 && jc_record_duration_s > 0)
                return jc_usage_error("record", "give either --duration or a command, not both");

        FILE *out = stdout;
        if (jc_record_output && strcmp(jc_record_output, "-") != 0 && !(out = fopen(jc_record_output, "we"))) {
                fprintf(stderr, "jetsonctl: cannot write %s: %s\n", jc_record_output, strerror(errno));
                return JC_EXIT_FAILURE;
        }

        record_state st = { .mark_fd = -1, .child_status = 0 };
        g_queue_init(&st.marks);
        st.mark_line = g_string_new(NULL);
        char **keys = split_keys();
        st.start_ns = monotonic_ns();
        int ret = jc_capture_open(c, (uint64_t) jc_record_interval_ms * 1000, keys, &st.cap);
        g_strfreev(keys);
        if (ret != JC_EXIT_OK)
                goto out;
        /* Signals are watched before the command starts, so a Ctrl-C
         * right away is not lost; the stream only once the writer exists. */
        guint signal_watches[2] = {
                g_unix_signal_add(SIGINT, on_signal, &st),
                g_unix_signal_add(SIGTERM, on_sigterm, &st),
        };
        st.have_command = n_command > 0;
        if (st.have_command) {
                st.start_ns = monotonic_ns();
                ret = spawn(&st, command);
        }
        if (ret == JC_EXIT_OK) {
                st.writer = jc_record_writer_new(out, format, st.cap.columns, st.cap.n_columns, st.start_ns);
                st.loop = g_main_loop_new(NULL, FALSE);
                st.capture_watch = g_unix_fd_add(st.cap.fd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_capture, &st);
                if (jc_record_duration_s > 0)
                        g_timeout_add((guint) (jc_record_duration_s * 1000), on_duration, &st);
                g_main_loop_run(st.loop);
                ret = st.have_command ? st.child_status : JC_EXIT_OK;
        }
        for (size_t i = 0; i < G_N_ELEMENTS(signal_watches); i++)
                g_source_remove(signal_watches[i]);
        if (st.capture_watch)
                g_source_remove(st.capture_watch);
        if (st.mark_watch)
                g_source_remove(st.mark_watch);
        if (st.writer && !jc_record_writer_finish(st.writer) && !st.failed) {
                fprintf(stderr, "jetsonctl: writing %s: %s\n", jc_record_output ? jc_record_output : "the output",
                        strerror(errno));
                st.failed = true;
        }
        if (st.cap.dropped)
                fprintf(stderr, "jetsonctl: jetsond dropped %" G_GUINT64_FORMAT " records: the output could not keep up\n",
                        st.cap.dropped);
        if (st.failed && ret == JC_EXIT_OK)
                ret = JC_EXIT_FAILURE;
out:
        jc_record_writer_free(st.writer);
        jc_capture_close(&st.cap);
        if (st.mark_fd >= 0)
                close(st.mark_fd);
        g_clear_object(&st.child);
        g_queue_foreach(&st.marks, (GFunc) (void (*)(void)) mark_free, NULL);
        g_queue_clear(&st.marks);
        g_string_free(st.mark_line, TRUE);
        if (st.loop)
                g_main_loop_unref(st.loop);
        if (out != stdout && fclose(out) != 0 && ret == JC_EXIT_OK) {
                fprintf(stderr, "jetsonctl: writing %s: %s\n", jc_record_output, strerror(errno));
                ret = JC_EXIT_FAILURE;
        }
        return ret;
}
