#include "capture_run.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib-unix.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MARK_FD 3
/* After the command ends, what the engine read until then is still on
 * its way (records leave in batches every 10 ms): wait this long more. */
#define DRAIN_MS 50
/* Where pidfd_open() is missing (Linux before 5.3, a seccomp filter),
 * whether the followed process still runs is asked this often. */
#define FOLLOW_POLL_MS 20

typedef struct {
        uint64_t time_ns;
        char *label;
} mark;

typedef struct {
        const jc_capture_run_hooks *hooks;
        jc_capture cap;
        GMainLoop *loop;
        GQueue marks;
        GString *mark_line;
        int mark_fd;
        guint mark_watch, capture_watch, tick_watch;
        GSubprocess *child;
        bool have_command, child_running, finishing;
        pid_t follow_pid;
        int pidfd;
        guint follow_watch;
        jc_capture_run_result *result;
} run_state;

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
        run_state *st = data;
        /* From the command's start to its end (or the recording's). */
        if (st->result->failed || (st->have_command && time_ns < st->result->start_ns) ||
            (st->finishing && time_ns > st->result->end_ns))
                return;
        /* The marks that came before this record and after the last one. */
        GPtrArray *labels = g_ptr_array_new_with_free_func(g_free);
        while (!g_queue_is_empty(&st->marks) && ((mark *) g_queue_peek_head(&st->marks))->time_ns <= time_ns) {
                mark *m = g_queue_pop_head(&st->marks);
                g_ptr_array_add(labels, g_steal_pointer(&m->label));
                mark_free(m);
        }
        g_ptr_array_add(labels, NULL);
        if (!st->hooks->record(st->hooks->data, time_ns, values, (char *const *) labels->pdata))
                st->result->failed = true;
        g_ptr_array_unref(labels);
}

static gboolean on_capture(gint fd, GIOCondition cond, gpointer data)
{
        (void) fd, (void) cond;
        run_state *st = data;
        int r = jc_capture_read(&st->cap, on_record, st);
        if (r > 0 && !st->result->failed)
                return G_SOURCE_CONTINUE;
        st->capture_watch = 0;
        if (r <= 0 && !st->finishing) {
                fprintf(stderr, "jetsonctl: the capture stream ended%s%s\n", r < 0 ? ": " : " (jetsond left the bus?)",
                        r < 0 ? strerror(-r) : "");
                st->result->failed = true;
        }
        if (!st->child_running)
                g_main_loop_quit(st->loop);
        return G_SOURCE_REMOVE;
}

static void take_marks(run_state *st, const char *data, size_t len)
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
                if (st->hooks->mark)
                        st->hooks->mark(st->hooks->data, now, m->label);
                g_queue_push_tail(&st->marks, m);
                g_string_truncate(st->mark_line, 0);
        }
}

static gboolean on_mark(gint fd, GIOCondition cond, gpointer data)
{
        (void) cond;
        run_state *st = data;
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

/* Marks no record came after (the command wrote them as it ended): each
 * gets a record of its own, at its time, with no values. */
static void flush_marks(run_state *st)
{
        if (g_queue_is_empty(&st->marks) || st->result->failed)
                return;
        double *none = g_new(double, st->cap.n_columns + 1);
        for (size_t i = 0; i < st->cap.n_columns; i++)
                none[i] = NAN;
        /* At the mark's time, which is no later than the end. */
        while (!g_queue_is_empty(&st->marks) && !st->result->failed)
                on_record(st, MIN(((mark *) g_queue_peek_head(&st->marks))->time_ns, st->result->end_ns), none);
        g_free(none);
}

static gboolean on_drained(gpointer data)
{
        run_state *st = data;
        if (st->capture_watch)
                on_capture(st->cap.fd, G_IO_IN, st);
        flush_marks(st);
        g_main_loop_quit(st->loop);
        return G_SOURCE_REMOVE;
}

/* Ends the recording: what is still in the stream is read first. */
static void finish(run_state *st)
{
        if (st->finishing)
                return;
        st->finishing = true;
        st->result->end_ns = monotonic_ns();
        if (st->mark_watch)
                on_mark(st->mark_fd, G_IO_IN, st);
        if (st->tick_watch) {
                g_source_remove(st->tick_watch);
                st->tick_watch = 0;
        }
        g_timeout_add(DRAIN_MS + (guint) (st->cap.interval_ns / 1000000u), on_drained, st);
}

static void on_child_done(GObject *source, GAsyncResult *res, gpointer data)
{
        run_state *st = data;
        g_autoptr(GError) error = NULL;
        st->child_running = false;
        if (!g_subprocess_wait_finish(G_SUBPROCESS(source), res, &error))
                st->result->status = 1;
        else if (g_subprocess_get_if_signaled(st->child))
                st->result->status = 128 + g_subprocess_get_term_sig(st->child);
        else
                st->result->status = g_subprocess_get_exit_status(st->child);
        finish(st);
}

static bool followed_gone(pid_t pid)
{
        if (kill(pid, 0) < 0 && errno == ESRCH)
                return true;
        /* Exited, its parent not having reaped it yet. */
        g_autofree char *path = g_strdup_printf("/proc/%d/stat", (int) pid);
        g_autofree char *stat = NULL;
        if (!g_file_get_contents(path, &stat, NULL, NULL))
                return true;
        const char *p = strrchr(stat, ')');
        return p && p[1] && p[2] == 'Z';
}

static void followed_exited(run_state *st)
{
        st->follow_watch = 0;
        st->result->followed_exited = true;
        finish(st);
}

static gboolean on_pidfd(gint fd, GIOCondition cond, gpointer data)
{
        (void) fd, (void) cond;
        followed_exited(data);
        return G_SOURCE_REMOVE;
}

static gboolean on_follow_poll(gpointer data)
{
        run_state *st = data;
        if (st->finishing || !followed_gone(st->follow_pid))
                return G_SOURCE_CONTINUE;
        followed_exited(st);
        return G_SOURCE_REMOVE;
}

/* Watches the followed process: its pidfd turns readable when it exits
 * (a zombie too), without a timer. */
static void follow(run_state *st, pid_t pid)
{
        st->follow_pid = pid;
        st->pidfd = (int) syscall(SYS_pidfd_open, pid, 0);
        if (st->pidfd >= 0)
                st->follow_watch = g_unix_fd_add(st->pidfd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_pidfd, st);
        else if (errno == ESRCH)
                st->follow_watch = g_idle_add(on_follow_poll, st); /* gone already: a short recording */
        else
                st->follow_watch = g_timeout_add(FOLLOW_POLL_MS, on_follow_poll, st);
}

static gboolean on_duration(gpointer data)
{
        finish(data);
        return G_SOURCE_REMOVE;
}

static gboolean on_tick(gpointer data)
{
        run_state *st = data;
        st->hooks->tick(st->hooks->data);
        return G_SOURCE_CONTINUE;
}

static gboolean on_sigint(gpointer data)
{
        run_state *st = data;
        /* Ctrl-C reaches the command too (one process group): it goes on
         * until the command ends. Without a command, Ctrl-C ends it. */
        if (!st->child_running)
                finish(st);
        return G_SOURCE_CONTINUE;
}

static gboolean on_sigterm(gpointer data)
{
        run_state *st = data;
        if (st->child_running)
                g_subprocess_send_signal(st->child, SIGTERM);
        else
                finish(st);
        return G_SOURCE_CONTINUE;
}

/* Starts ARGV with the marker pipe's write end as fd MARK_FD; as a shell:
 * 127 for a command not found, 126 for one that cannot run. */
static int spawn(run_state *st, char **argv)
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

int jc_capture_run(jc_ctx *c, const jc_capture_run_spec *spec, const jc_capture_run_hooks *hooks,
                   jc_capture_run_result *result)
{
        memset(result, 0, sizeof(*result));
        run_state st = { .hooks = hooks, .mark_fd = -1, .pidfd = -1, .result = result };
        g_queue_init(&st.marks);
        st.mark_line = g_string_new(NULL);
        st.have_command = spec->command && spec->command[0];
        result->start_ns = monotonic_ns();
        int ret = jc_capture_open(c, spec->interval_us, spec->medium_us, spec->slow_us, spec->keys, &st.cap);
        if (ret != JC_EXIT_OK)
                goto out;
        /* Signals are watched before the command starts, so a Ctrl-C
         * right away is not lost. */
        guint signal_watches[2] = { g_unix_signal_add(SIGINT, on_sigint, &st),
                                    g_unix_signal_add(SIGTERM, on_sigterm, &st) };
        if (st.have_command) {
                result->start_ns = monotonic_ns();
                ret = spawn(&st, spec->command);
        }
        const char *id = st.child ? g_subprocess_get_identifier(st.child) : NULL;
        pid_t pid = id ? (pid_t) atoi(id) : 0; /* NULL once it ended */
        if (!st.have_command && spec->follow_pid > 0 && ret == JC_EXIT_OK) {
                pid = spec->follow_pid;
                follow(&st, pid);
        }
        if (ret == JC_EXIT_OK && hooks->begin && !hooks->begin(hooks->data, &st.cap, result->start_ns, pid))
                ret = JC_EXIT_FAILURE;
        if (ret == JC_EXIT_OK) {
                st.loop = g_main_loop_new(NULL, FALSE);
                st.capture_watch = g_unix_fd_add(st.cap.fd, G_IO_IN | G_IO_HUP | G_IO_ERR, on_capture, &st);
                if (spec->duration_s > 0)
                        g_timeout_add((guint) (spec->duration_s * 1000), on_duration, &st);
                if (hooks->tick && hooks->tick_ms)
                        st.tick_watch = g_timeout_add(hooks->tick_ms, on_tick, &st);
                g_main_loop_run(st.loop);
        } else if (st.child) {
                /* begin() failed with the command started: it runs to its end. */
                g_subprocess_wait(st.child, NULL, NULL);
        }
        for (size_t i = 0; i < G_N_ELEMENTS(signal_watches); i++)
                g_source_remove(signal_watches[i]);
        if (st.capture_watch)
                g_source_remove(st.capture_watch);
        if (st.mark_watch)
                g_source_remove(st.mark_watch);
        if (st.tick_watch)
                g_source_remove(st.tick_watch);
        if (st.follow_watch)
                g_source_remove(st.follow_watch);
        if (!result->end_ns)
                result->end_ns = monotonic_ns();
        result->dropped = st.cap.dropped;
        result->missed = st.cap.missed;
out:
        jc_capture_close(&st.cap);
        if (st.mark_fd >= 0)
                close(st.mark_fd);
        if (st.pidfd >= 0)
                close(st.pidfd);
        g_clear_object(&st.child);
        g_queue_foreach(&st.marks, (GFunc) (void (*)(void)) mark_free, NULL);
        g_queue_clear(&st.marks);
        g_string_free(st.mark_line, TRUE);
        if (st.loop)
                g_main_loop_unref(st.loop);
        return ret;
}
