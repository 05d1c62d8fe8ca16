/* jetsonctl measure: runs a command under a capture (capture_run.c) and
 * reports, when it ends, what it cost: energy and power per rail and in
 * all, loads, temperatures and frequencies (measure_stats.c), and what
 * its process tree used (proc_tree.c, getrusage, /proc/self/io), for the
 * whole run and for each phase between the command's sync points. */
#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/bus.h"
#include "common/caller_pids.h"
#include "capture_run.h"
#include "jetsond-dbus.h"
#include "measure_output.h"
#include "proc_tree.h"

#define TICK_MS 100

int jc_measure_interval_ms = 10;

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
        long clk_tck;
        jc_pid_cache tree_pids;   /* the tree's PIDs as jetsond's namespace names them */
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
        g_array_append_val(st->tree_at, zero);
        g_array_append_val(st->tree_peaks, zero);
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

static void update_peak(jc_window_procs *p, const jc_tree_sample *t, bool have_gpu, uint64_t gpu_kib)
{
        p->peak_rss_bytes = MAX(p->peak_rss_bytes, t->rss_bytes);
        p->peak_pss_bytes = MAX(p->peak_pss_bytes, t->pss_bytes);
        if (have_gpu) {
                p->have_gpu_mem = true;
                p->peak_gpu_mem_kib = MAX(p->peak_gpu_mem_kib, gpu_kib);
        }
}

/* GPU memory of the tree's processes, from jetsond's process.PID.gpu_mem
 * keys (false when jetsond has none of them). The tree's PIDs are this
 * namespace's (a container's, perhaps): jetsond's are asked for; where
 * jetsond cannot tell them, the tree has no GPU memory it could name. */
static bool tree_gpu_kib(measure_state *st, const jc_tree_sample *t, uint64_t *kib)
{
        g_autofree uint32_t *mine = g_new(uint32_t, t->n_pids ? t->n_pids : 1);
        for (size_t i = 0; i < t->n_pids; i++)
                mine[i] = (uint32_t) t->pids[i];
        const uint32_t *theirs = NULL;
        if (!jc_pid_cache_from_caller(st->c, &st->tree_pids, mine, t->n_pids, &theirs))
                return false;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;
        g_autoptr(GVariant) reply = jc_call(st->c, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetSnapshot", false, &error, &r, NULL);
        sd_bus_error_free(&error);
        if (!reply)
                return false;
        g_autoptr(GVariant) values = g_variant_get_child_value(reply, 1);
        bool any = false;
        *kib = 0;
        for (size_t i = 0; i < t->n_pids; i++) {
                if (!theirs[i])
                        continue;
                g_autofree char *key = g_strdup_printf("process.%" PRIu32 ".gpu_mem", theirs[i]);
                g_autoptr(GVariant) v = g_variant_lookup_value(values, key, NULL);
                if (v && g_variant_is_of_type(v, G_VARIANT_TYPE_UINT64)) {
                        *kib += g_variant_get_uint64(v);
                        any = true;
                } else if (v && g_variant_is_of_type(v, G_VARIANT_TYPE_UINT32)) {
                        *kib += g_variant_get_uint32(v);
                        any = true;
                }
        }
        return any;
}

static void sample_tree(measure_state *st, jc_tree_sample *t)
{
        if (!st->pid || !jc_proc_tree_sample("/proc", st->pid, t))
                return;
        uint64_t kib = 0;
        bool gpu = tree_gpu_kib(st, t, &kib);
        update_peak(&g_array_index(st->tree_peaks, jc_window_procs, st->tree_phase), t, gpu, kib);
        update_peak(&st->whole_peaks, t, gpu, kib);
}

static void on_tick(void *data)
{
        jc_tree_sample t;
        sample_tree(data, &t);
        jc_tree_sample_clear(&t);
}

static void on_mark(void *data, uint64_t time_ns, const char *label)
{
        measure_state *st = data;
        boundary *b = g_new(boundary, 1);
        b->time_ns = time_ns;
        b->label = g_strdup(label);
        g_queue_push_tail(&st->boundaries, b);
        /* The tree's CPU and I/O so far open the next phase. */
        jc_tree_sample t = { 0 };
        sample_tree(st, &t);
        jc_window_procs at = { .present = true,
                               .user_s = (double) t.user_ticks / (double) st->clk_tck,
                               .system_s = (double) t.system_ticks / (double) st->clk_tck,
                               .read_bytes = t.read_bytes,
                               .write_bytes = t.write_bytes };
        jc_tree_sample_clear(&t);
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

/* Fills in the processes of the whole run and of each phase: the totals
 * come from the kernel once the command was reaped (getrusage, our own
 * I/O counters, which take in every reaped descendant), phases from the
 * tree as sampled at each sync point. */
static void fill_procs(measure_state *st, const struct rusage *ru, uint64_t read_b, uint64_t write_b)
{
        jc_window_procs total = st->whole_peaks;
        total.present = true;
        total.user_s = (double) ru->ru_utime.tv_sec + (double) ru->ru_utime.tv_usec / 1e6;
        total.system_s = (double) ru->ru_stime.tv_sec + (double) ru->ru_stime.tv_usec / 1e6;
        /* A peak shorter than our sampling period still shows in ru_maxrss. */
        total.peak_rss_bytes = MAX(total.peak_rss_bytes, (uint64_t) ru->ru_maxrss * 1024);
        total.read_bytes = read_b;
        total.write_bytes = write_b;
        st->m->whole.procs = total;
        g_array_append_val(st->tree_at, total);
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
}

int jc_cmd_measure(jc_ctx *c, int argc, char **argv)
{
        if (jc_measure_interval_ms < (int) (JD_CAPTURE_INTERVAL_MIN_USEC / 1000) || jc_measure_interval_ms > 3600000)
                return jc_usage_error("measure", "--interval %d is out of range (1 to 3600000 ms)", jc_measure_interval_ms);
        char **command = jc_command_args(argc, argv);
        if (!command[0])
                return jc_usage_error("measure", "which command? jetsonctl measure -- COMMAND [ARG...]");
        uint64_t read0 = 0, write0 = 0, read1 = 0, write1 = 0;
        self_io(&read0, &write0);

        measure_state st = { .c = c, .clk_tck = sysconf(_SC_CLK_TCK) };
        g_queue_init(&st.boundaries);
        st.tree_at = g_array_new(FALSE, TRUE, sizeof(jc_window_procs));
        st.tree_peaks = g_array_new(FALSE, TRUE, sizeof(jc_window_procs));
        char *no_keys[] = { NULL };
        jc_capture_run_spec spec = { .interval_us = (uint64_t) jc_measure_interval_ms * 1000, .keys = no_keys,
                                     .command = command };
        jc_capture_run_hooks hooks = { .begin = on_begin, .record = on_record, .mark = on_mark, .tick = on_tick,
                                       .tick_ms = TICK_MS, .data = &st };
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
                        jc_measure_print(c, st.m, command, result.status);
                ret = result.failed ? JC_EXIT_FAILURE : result.status;
        }
        jc_measure_free(st.m);
        g_queue_foreach(&st.boundaries, (GFunc) (void (*)(void)) boundary_free, NULL);
        g_queue_clear(&st.boundaries);
        g_array_unref(st.tree_at);
        g_array_unref(st.tree_peaks);
        jc_pid_cache_clear(&st.tree_pids);
        return ret;
}
