/* jetsonctl measure: runs a command under a capture (capture_run.c), or
 * follows a running process (--pid), and reports, when it ends, what it
 * cost: energy and power per rail and in all, loads, temperatures and
 * frequencies (measure_stats.c), and what its process tree used
 * (tree_follow.c; for a command also getrusage and /proc/self/io), for
 * the whole run and for each phase between the command's sync points. */
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "capture_run.h"
#include "jetsond-dbus.h"
#include "measure_output.h"
#include "tree_follow.h"

/* A command's tree is sampled this often: its CPU time and I/O come from
 * the kernel at its end, the samples give peaks and phases. */
#define TICK_MS 100
/* A followed process's totals are its tree's last sample before it
 * exits: sampled at the record interval, within these bounds. */
#define FOLLOW_TICK_MIN_MS 10
#define FOLLOW_TICK_MAX_MS 100

int jc_measure_interval_ms = 10;
char *jc_measure_pid;

typedef struct {
        uint64_t time_ns;
        char *label;
} boundary;

typedef struct {
        jc_ctx *c;
        jc_measure *m;
        size_t n_columns;
        pid_t pid;
        GQueue boundaries;        /* marks not yet reached by a record */
        /* The process tree at each phase's start (index = phase), and the
         * peaks within the phase the clock is in now. */
        GArray *tree_at;          /* jc_window_procs: CPU and I/O so far */
        size_t tree_phase;
        GArray *tree_peaks;       /* jc_window_procs: peaks per phase */
        jc_window_procs whole_peaks;
        jc_tree_follow *tree;
        bool following;           /* --pid: a process not ours */
        bool rss_hidden, pss_hidden, io_hidden;  /* some sample of the tree lacked them */
} measure_state;

static void boundary_free(gpointer p)
{
        boundary *b = p;
        g_free(b->label);
        g_free(b);
}

static bool on_begin(void *data, const jc_capture *cap, uint64_t start_ns, pid_t pid)
{
        measure_state *st = data;
        st->m = jc_measure_new(cap->columns, cap->n_columns, start_ns);
        st->m->realtime_offset_ns = cap->realtime_offset_ns;
        st->n_columns = cap->n_columns;
        st->pid = pid;
        jc_window_procs zero = { .present = true };
        if (pid > 0)
                st->tree = jc_tree_follow_new(st->c, pid, TICK_MS);
        jc_tree_figures f;
        if (st->following && jc_tree_follow_sample(st->tree, &f)) {
                /* What the process had used before is not this run's. */
                zero.user_s = f.user_s;
                zero.system_s = f.system_s;
                zero.read_bytes = f.read_bytes;
                zero.write_bytes = f.write_bytes;
        }
        g_array_append_val(st->tree_at, zero);
        g_array_append_val(st->tree_peaks, (jc_window_procs) { .present = true });
        return true;
}

static bool on_record(void *data, uint64_t time_ns, const double *values, char *const *marks)
{
        (void) marks; /* the boundaries carry their times */
        measure_state *st = data;
        while (!g_queue_is_empty(&st->boundaries) && ((boundary *) g_queue_peek_head(&st->boundaries))->time_ns <= time_ns) {
                boundary *b = g_queue_pop_head(&st->boundaries);
                jc_measure_phase(st->m, b->time_ns, b->label);
                boundary_free(b);
        }
        /* A record with no values only carries marks. */
        for (size_t i = 0; i < st->n_columns; i++)
                if (!isnan(values[i])) {
                        jc_measure_record(st->m, time_ns, values);
                        break;
                }
        return true;
}

static void update_peak(jc_window_procs *p, const jc_tree_figures *f)
{
        p->peak_rss_bytes = MAX(p->peak_rss_bytes, f->rss_kib * 1024);
        p->peak_pss_bytes = MAX(p->peak_pss_bytes, f->pss_kib * 1024);
        if (f->have_gpu) {
                p->have_gpu_mem = true;
                p->peak_gpu_mem_kib = MAX(p->peak_gpu_mem_kib, f->gpu_mem_kib);
        }
}

/* Samples the tree into F (the last figures once it is gone). */
static void sample_tree(measure_state *st, jc_tree_figures *f)
{
        memset(f, 0, sizeof(*f));
        if (!st->tree)
                return;
        if (!jc_tree_follow_sample(st->tree, f))
                return;
        st->rss_hidden |= !f->have_rss;
        st->pss_hidden |= !f->have_pss;
        st->io_hidden |= !f->have_io;
        update_peak(&g_array_index(st->tree_peaks, jc_window_procs, st->tree_phase), f);
        update_peak(&st->whole_peaks, f);
}

static void on_tick(void *data)
{
        jc_tree_figures f;
        sample_tree(data, &f);
}

static void on_mark(void *data, uint64_t time_ns, const char *label)
{
        measure_state *st = data;
        boundary *b = g_new(boundary, 1);
        b->time_ns = time_ns;
        b->label = g_strdup(label);
        g_queue_push_tail(&st->boundaries, b);
        /* The tree's CPU and I/O so far open the next phase. */
        jc_tree_figures f;
        sample_tree(st, &f);
        jc_window_procs at = { .present = true,
                               .user_s = f.user_s,
                               .system_s = f.system_s,
                               .read_bytes = f.read_bytes,
                               .write_bytes = f.write_bytes };
        jc_window_procs zero = { .present = true };
        g_array_append_val(st->tree_at, at);
        g_array_append_val(st->tree_peaks, zero);
        st->tree_phase++;
}

static bool self_io(uint64_t *read_b, uint64_t *write_b)
{
        g_autofree char *text = NULL;
        if (!g_file_get_contents("/proc/self/io", &text, NULL, NULL))
                return false;
        const char *r = strstr(text, "\nread_bytes:"), *w = strstr(text, "\nwrite_bytes:");
        if (!r || !w)
                return false;
        *read_b = g_ascii_strtoull(r + 12, NULL, 10);
        *write_b = g_ascii_strtoull(w + 13, NULL, 10);
        return true;
}

static double clamp0(double v)
{
        return v > 0 ? v : 0;
}

/* Fills in the processes of the whole run and of each phase: a command's
 * totals come from the kernel once it was reaped (getrusage, our own I/O
 * counters, which take in every reaped descendant), a followed process's
 * from its tree's last sample less its first; phases from the tree as
 * sampled at each sync point. */
static void fill_procs(measure_state *st, const struct rusage *ru, uint64_t read_b, uint64_t write_b)
{
        /* The tree's counters at the end, as tree_at holds them at each
         * phase's start. */
        jc_window_procs end = st->whole_peaks;
        end.present = true;
        if (st->following) {
                const jc_tree_figures *last = jc_tree_follow_last(st->tree);
                end.user_s = last->user_s;
                end.system_s = last->system_s;
                end.read_bytes = last->read_bytes;
                end.write_bytes = last->write_bytes;
        } else {
                end.user_s = (double) ru->ru_utime.tv_sec + (double) ru->ru_utime.tv_usec / 1e6;
                end.system_s = (double) ru->ru_stime.tv_sec + (double) ru->ru_stime.tv_usec / 1e6;
                /* A peak shorter than our sampling period still shows in ru_maxrss. */
                end.peak_rss_bytes = MAX(end.peak_rss_bytes, (uint64_t) ru->ru_maxrss * 1024);
                end.read_bytes = read_b;
                end.write_bytes = write_b;
        }
        g_array_append_val(st->tree_at, end);
        /* The whole run: from the first phase's start (0 for a command,
         * what a followed process had used before) to the end. */
        const jc_window_procs *first = &g_array_index(st->tree_at, jc_window_procs, 0);
        jc_window_procs total = end;
        total.user_s = clamp0(end.user_s - first->user_s);
        total.system_s = clamp0(end.system_s - first->system_s);
        total.read_bytes = end.read_bytes > first->read_bytes ? end.read_bytes - first->read_bytes : 0;
        total.write_bytes = end.write_bytes > first->write_bytes ? end.write_bytes - first->write_bytes : 0;
        st->m->whole.procs = total;
        for (size_t i = 0; i < st->m->n_phases && i + 1 < st->tree_at->len; i++) {
                const jc_window_procs *a = &g_array_index(st->tree_at, jc_window_procs, i);
                const jc_window_procs *b = &g_array_index(st->tree_at, jc_window_procs, i + 1);
                jc_window_procs p = i < st->tree_peaks->len ? g_array_index(st->tree_peaks, jc_window_procs, i)
                                                            : (jc_window_procs) { 0 };
                p.present = true;
                p.user_s = clamp0(b->user_s - a->user_s);
                p.system_s = clamp0(b->system_s - a->system_s);
                p.read_bytes = b->read_bytes > a->read_bytes ? b->read_bytes - a->read_bytes : 0;
                p.write_bytes = b->write_bytes > a->write_bytes ? b->write_bytes - a->write_bytes : 0;
                st->m->phases[i]->procs = p;
        }
        /* A command's I/O in all is the kernel's, which hides nothing;
         * the rest comes from the samples. */
        for (size_t i = 0; i <= st->m->n_phases; i++) {
                jc_window_procs *p = i < st->m->n_phases ? &st->m->phases[i]->procs : &st->m->whole.procs;
                p->rss_unknown = st->rss_hidden && (st->following || i < st->m->n_phases);
                p->pss_unknown = st->pss_hidden;
                p->io_unknown = st->io_hidden && (st->following || i < st->m->n_phases);
        }
}

int jc_cmd_measure(jc_ctx *c, int argc, char **argv)
{
        if (jc_measure_interval_ms < (int) (JD_CAPTURE_INTERVAL_MIN_USEC / 1000) || jc_measure_interval_ms > 3600000)
                return jc_usage_error("measure", "--interval %d is out of range (1 to 3600000 ms)", jc_measure_interval_ms);
        char **command = jc_command_args(argc, argv);
        if (jc_measure_pid && command[0])
                return jc_usage_error("measure", "give either --pid or a command, not both");
        if (!command[0] && !jc_measure_pid)
                return jc_usage_error("measure", "which command? jetsonctl measure -- COMMAND [ARG...] or --pid PID");
        pid_t pid = 0;
        g_auto(GStrv) cmdline = NULL;
        if (jc_measure_pid) {
                int r = jc_follow_pid_parse("measure", jc_measure_pid, &pid);
                if (r != JC_EXIT_OK)
                        return r;
                /* Read now: it may be gone by the report. */
                cmdline = jc_pid_cmdline(pid);
                if (!cmdline)
                        cmdline = g_strsplit(jc_measure_pid, " ", 1);
                command = cmdline;
        }
        uint64_t read0 = 0, write0 = 0, read1 = 0, write1 = 0;
        self_io(&read0, &write0);

        measure_state st = { .c = c, .following = pid > 0 };
        g_queue_init(&st.boundaries);
        st.tree_at = g_array_new(FALSE, TRUE, sizeof(jc_window_procs));
        st.tree_peaks = g_array_new(FALSE, TRUE, sizeof(jc_window_procs));
        char *no_keys[] = { NULL };
        jc_capture_run_spec spec = { .interval_us = (uint64_t) jc_measure_interval_ms * 1000, .keys = no_keys,
                                     .command = pid ? NULL : command, .follow_pid = pid };
        jc_capture_run_hooks hooks = { .begin = on_begin, .record = on_record, .mark = on_mark, .tick = on_tick,
                                       .tick_ms = TICK_MS, .data = &st };
        if (pid)
                hooks.tick_ms = (unsigned) CLAMP(jc_measure_interval_ms, FOLLOW_TICK_MIN_MS, FOLLOW_TICK_MAX_MS);
        jc_capture_run_result result;
        int ret = jc_capture_run(c, &spec, &hooks, &result);
        if (ret == JC_EXIT_OK && st.m) {
                while (!g_queue_is_empty(&st.boundaries)) {
                        boundary *b = g_queue_pop_head(&st.boundaries);
                        jc_measure_phase(st.m, MIN(b->time_ns, result.end_ns), b->label);
                        boundary_free(b);
                }
                jc_measure_finish(st.m, result.end_ns);
                struct rusage ru;
                getrusage(RUSAGE_CHILDREN, &ru);
                if (self_io(&read1, &write1))
                        read1 -= MIN(read0, read1), write1 -= MIN(write0, write1);
                fill_procs(&st, &ru, read1, write1);
                if (result.dropped)
                        fprintf(stderr, "jetsonctl: jetsond dropped %" G_GUINT64_FORMAT " records\n", result.dropped);
                if (!result.failed)
                        jc_measure_print(c, st.m, command, result.status, pid, result.followed_exited);
                ret = result.failed ? JC_EXIT_FAILURE : result.status;
        }
        jc_measure_free(st.m);
        g_queue_foreach(&st.boundaries, (GFunc) (void (*)(void)) boundary_free, NULL);
        g_queue_clear(&st.boundaries);
        g_array_unref(st.tree_at);
        g_array_unref(st.tree_peaks);
        jc_tree_follow_free(st.tree);
        return ret;
}
