#include "tree_follow.h"

#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bus.h"
#include "common/caller_pids.h"
#include "jetsond-dbus.h"
#include "proc_tree.h"
#include "tree_gpu.h"

struct jc_tree_follow {
        jc_ctx *c;
        pid_t root;
        long clk_tck;
        int64_t gpu_period_us, gpu_at;  /* g_get_monotonic_time() of the last GetSnapshot */
        jc_pid_cache pids;               /* the tree's PIDs as jetsond names them */
        jc_tree_figures last;
        bool seen;
};

jc_tree_follow *jc_tree_follow_new(jc_ctx *c, pid_t root, unsigned gpu_period_ms)
{
        jc_tree_follow *f = g_new0(jc_tree_follow, 1);
        f->c = c;
        f->root = root;
        f->clk_tck = sysconf(_SC_CLK_TCK);
        f->gpu_period_us = (int64_t) gpu_period_ms * 1000;
        return f;
}

void jc_tree_follow_free(jc_tree_follow *f)
{
        if (!f)
                return;
        jc_pid_cache_clear(&f->pids);
        g_free(f);
}

/* The tree's GPU figures from jetsond's latest sample. */
static void sample_gpu(jc_tree_follow *f, const jc_tree_sample *t, jc_tree_figures *out)
{
        out->have_gpu = out->have_sm = false;
        g_autofree uint32_t *mine = g_new(uint32_t, t->n_pids ? t->n_pids : 1);
        for (size_t i = 0; i < t->n_pids; i++)
                mine[i] = (uint32_t) t->pids[i];
        const uint32_t *theirs = NULL;
        if (!jc_pid_cache_from_caller(f->c, &f->pids, mine, t->n_pids, &theirs))
                return;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r;
        g_autoptr(GVariant) reply = jc_call(f->c, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetSnapshot", false, &error, &r,
                                            NULL);
        sd_bus_error_free(&error);
        if (!reply)
                return;
        g_autoptr(GVariant) values = g_variant_get_child_value(reply, 1);
        jc_tree_gpu_figures(values, theirs, t->n_pids, out);
}

bool jc_tree_follow_sample(jc_tree_follow *f, jc_tree_figures *out)
{
        jc_tree_sample t;
        if (!jc_proc_tree_sample("/proc", f->root, &t)) {
                jc_tree_sample_clear(&t);
                f->last.processes = 0;
                *out = f->last;
                return false;
        }
        jc_tree_figures n = f->last;
        n.processes = (unsigned) t.n_pids;
        n.user_s = MAX(f->last.user_s, (double) t.user_ticks / (double) f->clk_tck);
        n.system_s = MAX(f->last.system_s, (double) t.system_ticks / (double) f->clk_tck);
        n.have_rss = t.have_rss;
        n.have_pss = t.have_pss;
        n.rss_kib = t.rss_bytes / 1024;
        n.pss_kib = t.pss_bytes / 1024;
        n.have_io = t.have_io;
        if (t.have_io) {
                n.read_bytes = MAX(f->last.read_bytes, t.read_bytes);
                n.write_bytes = MAX(f->last.write_bytes, t.write_bytes);
        }
        int64_t now = g_get_monotonic_time();
        if (!f->seen || now - f->gpu_at >= f->gpu_period_us) {
                f->gpu_at = now;
                sample_gpu(f, &t, &n);
        }
        jc_tree_sample_clear(&t);
        f->last = n;
        f->seen = true;
        *out = n;
        return true;
}

const jc_tree_figures *jc_tree_follow_last(const jc_tree_follow *f)
{
        return &f->last;
}

bool jc_tree_follow_seen(const jc_tree_follow *f)
{
        return f->seen;
}

int jc_pid_alive(pid_t pid)
{
        if (pid <= 0 || (kill(pid, 0) < 0 && errno == ESRCH))
                return -ESRCH;
        /* An exited process its parent has not reaped yet is no job to follow. */
        g_autofree char *path = g_strdup_printf("/proc/%d/stat", (int) pid);
        g_autofree char *stat = NULL;
        if (!g_file_get_contents(path, &stat, NULL, NULL))
                return -ESRCH;
        const char *p = strrchr(stat, ')');
        return p && p[1] && p[2] == 'Z' ? -ESRCH : 0;
}

char **jc_pid_cmdline(pid_t pid)
{
        g_autofree char *path = g_strdup_printf("/proc/%d/cmdline", (int) pid);
        g_autofree char *text = NULL;
        gsize len = 0;
        if (!g_file_get_contents(path, &text, &len, NULL))
                return NULL;
        GPtrArray *argv = g_ptr_array_new();
        for (gsize i = 0; i < len; i += strlen(text + i) + 1)
                g_ptr_array_add(argv, g_strdup(text + i));
        if (argv->len == 0) {
                g_autofree char *comm_path = g_strdup_printf("/proc/%d/comm", (int) pid);
                g_autofree char *comm = NULL;
                if (g_file_get_contents(comm_path, &comm, NULL, NULL))
                        g_ptr_array_add(argv, g_strdup_printf("[%s]", g_strchomp(comm)));
                else
                        g_ptr_array_add(argv, g_strdup_printf("%d", (int) pid));
        }
        g_ptr_array_add(argv, NULL);
        return (char **) g_ptr_array_free(argv, FALSE);
}

int jc_follow_pid_parse(const char *cmd, const char *text, pid_t *pid)
{
        char *end = NULL;
        errno = 0;
        long long v = g_ascii_strtoll(text, &end, 10);
        if (!*text || *end || errno || v <= 0 || v > INT32_MAX || !g_ascii_isdigit(*text))
                return jc_usage_error(cmd, "--pid must be a process ID (a positive number), not \"%s\"", text);
        *pid = (pid_t) v;
        if (jc_pid_alive(*pid) < 0) {
                fprintf(stderr, "jetsonctl: no process %lld to follow (it does not exist or has exited)\n", v);
                return JC_EXIT_FAILURE;
        }
        return JC_EXIT_OK;
}
