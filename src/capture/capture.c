#include "capture.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "board.h"
#include "capture_nvml.h"
#include "capture_redact.h"
#include "capture_series.h"
#include "capture_tar.h"
#include "capture_tree.h"
#include "nvml.h"
#include "once.h"
#include "sampler.h"

/* How long the probe and its two samples may take. A real board's probe
 * takes well under a second (I2C ~0.5 ms a read); past this a read is
 * stuck (a wedged driver, debugfs), and the archive is written with what
 * was read until then instead of hanging the user's terminal. */
#define PROBE_DEADLINE_S 10

/* What the readers asked the sysroot for (under its lock). Which read is
 * stuck is not tracked here (the sampler reads in several threads): the
 * tree's own reads, each with its time limit, find it again. */
typedef struct {
        GHashTable *paths, *listings;
} recorded;

static void record(const char *path, bool listed, void *data)
{
        recorded *r = data;
        GHashTable *set = listed ? r->listings : r->paths;
        if (!g_hash_table_contains(set, path))
                g_hash_table_add(set, g_strdup(path));
}

/* The probe and two samples, in a thread of their own so that a read that
 * never returns cannot keep the capture from finishing. Once abandoned,
 * the thread keeps what it holds (it may still be inside a read) until
 * the process exits. */
typedef struct {
        jd_sysroot *sr;
        const jc_capture_options *o;
        jd_board board;
        jd_sampler *sampler;
        jd_nvml_reading nv;
        const jd_sample *x;
        GMutex lock;
        GCond cond;
        bool done;
} probe_run;

static void sleep_ms(unsigned ms)
{
        struct timespec wait = { .tv_sec = ms / 1000, .tv_nsec = (long) (ms % 1000) * 1000000L };
        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &wait, &wait) != 0)
                ;
}

static void *probe_thread(void *data)
{
        probe_run *p = data;
        jd_board_read(&p->board, p->sr);
        p->sampler = jd_sampler_new(p->sr);
        jd_nvml_reading_read(&p->nv, p->o->nvml_library);
        jd_nvml_reading_pass_users(&p->nv, p->sampler);
        jd_sampler_sample(p->sampler, JD_TIER_ALL);
        sleep_ms(p->o->interval_ms);
        const jd_sample *x = jd_sampler_sample(p->sampler, JD_TIER_ALL);
        g_mutex_lock(&p->lock);
        p->x = x;
        p->done = true;
        g_cond_signal(&p->cond);
        g_mutex_unlock(&p->lock);
        return NULL;
}

/* True if the probe finished within the deadline (then joined). */
static bool run_probe(probe_run *p)
{
        g_mutex_init(&p->lock);
        g_cond_init(&p->cond);
        GThread *t = g_thread_new("capture-probe", probe_thread, p);
        gint64 until = g_get_monotonic_time() + PROBE_DEADLINE_S * G_TIME_SPAN_SECOND;
        g_mutex_lock(&p->lock);
        while (!p->done && g_cond_wait_until(&p->cond, &p->lock, until))
                ;
        bool done = p->done;
        g_mutex_unlock(&p->lock);
        if (done)
                g_thread_join(t);
        else
                g_thread_unref(t);
        return done;
}

/* The readers with nothing to show on this board, for the report. */
static void append_found_nothing(GString *s, const jd_sample *x, unsigned n_gpus)
{
        struct {
                const char *name;
                bool empty;
        } readers[] = {
                { "cpu", x->cpu->n_cores == 0 },       { "gpu (Jetson)", !x->gpu->present },
                { "emc", !x->emc->present },           { "engines", x->engines->n == 0 },
                { "power", x->power->n == 0 },         { "thermal", x->thermal->n == 0 },
                { "fans", x->fans->n == 0 },           { "nvpmodel", !x->nvpmodel->present },
                { "swap", x->swap->n == 0 },           { "processes", x->processes->n == 0 },
                { "nvml", n_gpus == 0 },
        };
        g_string_append(s, "Readers that found nothing:");
        bool any = false;
        for (size_t i = 0; i < G_N_ELEMENTS(readers); i++) {
                if (readers[i].empty) {
                        g_string_append_printf(s, " %s", readers[i].name);
                        any = true;
                }
        }
        g_string_append(s, any ? "\n" : " none\n");
}

static char *make_summary(const jc_capture_options *o, const jd_board *b, const jd_sample *x, unsigned n_gpus,
                          bool stuck, const jc_tree *t, const jc_series *series, const GPtrArray *redacted)
{
        GString *s = g_string_new(NULL);
        g_string_append_printf(s, "jetsond %s capture: %s\n", JETSOND_VERSION, o->archive);
        g_string_append_printf(s, "Board: %s\nModule: %s\nSoC: %s\nL4T: %s\nJetPack: %s\nKernel: %s (%s)\nDistribution: %s\n",
                               b->model[0] ? b->model : "-", b->module[0] ? b->module : "-", b->soc[0] ? b->soc : "-",
                               b->l4t[0] ? b->l4t : "-", b->jetpack[0] ? b->jetpack : "-",
                               b->kernel_release[0] ? b->kernel_release : "-", b->machine[0] ? b->machine : "-",
                               b->distribution[0] ? b->distribution : "-");
        if (stuck) {
                g_string_append_printf(s, "The probe did not finish: no answer within %d s (what it read until then "
                                          "is in the archive; a file with no answer is named below)\n",
                                       PROBE_DEADLINE_S);
        } else {
                g_string_append_printf(s, "NVIDIA GPUs through NVML: %u\n", n_gpus);
                append_found_nothing(s, x, n_gpus);
        }
        g_string_append_printf(s, "Files, links and directories captured: %u\n", g_hash_table_size(t->entries));
        if (series->steps->len)
                g_string_append_printf(s, "Time series: %u steps of %u ms, %u changed files\n", series->steps->len,
                                       o->interval_ms, jc_series_files(series));
        GList *paths = g_list_sort(g_hash_table_get_keys(t->notes), (GCompareFunc) strcmp);
        g_string_append_printf(s, "Unreadable or left out: %u\n", g_list_length(paths));
        for (GList *l = paths; l; l = l->next)
                g_string_append_printf(s, "  %s: %s\n", (char *) l->data, (char *) g_hash_table_lookup(t->notes, l->data));
        g_list_free(paths);
        if (redacted) {
                g_string_append(s, "Redacted (--no-redact keeps them):\n");
                for (guint i = 0; i < redacted->len; i++)
                        g_string_append_printf(s, "  %s\n", (char *) redacted->pdata[i]);
        } else {
                g_string_append(s, "Not redacted (--no-redact): for your own use only\n");
        }
        return g_string_free(s, FALSE);
}

/* The archive: the tree's entries in order (parents first), then the
 * capture's own files under .capture/. */
static int write_archive(const char *dest, const jc_tree *t, const jc_series *series, const char *summary,
                         const char *nvml_json, GString *skipped, const char **why)
{
        jc_tar *tar = jc_tar_open(dest, why);
        if (!tar)
                return -1;
        guint n;
        g_autofree const char **paths = jc_tree_paths(t, &n);
        for (guint i = 0; i < n; i++) {
                const jc_entry *e = g_hash_table_lookup(t->entries, paths[i]);
                bool ok = e->kind == JC_DIR    ? jc_tar_add_dir(tar, paths[i])
                          : e->kind == JC_LINK ? jc_tar_add_symlink(tar, paths[i], e->target)
                                               : jc_tar_add_file(tar, paths[i], e->data ? e->data->data : NULL,
                                                                 e->data ? e->data->len : 0);
                if (!ok)
                        g_string_append_printf(skipped, "  /%s: its name or link is too long for the archive\n", paths[i]);
        }
        bool ok = jc_tar_add_dir(tar, ".capture") &&
                  jc_tar_add_file(tar, ".capture/summary.txt", summary, strlen(summary)) &&
                  (!nvml_json || jc_tar_add_file(tar, ".capture/nvml.json", nvml_json, strlen(nvml_json))) &&
                  jc_series_write(series, tar);
        if (!ok) {
                jc_tar_abandon(tar);
                *why = "cannot write the archive";
                return -1;
        }
        int r = jc_tar_commit(tar);
        if (r < 0)
                *why = g_strerror(-r);
        return r < 0 ? -1 : 0;
}

/* Whose processes keep their command lines: the user who ran sudo, or
 * who runs this. */
static uid_t own_uid(void)
{
        const char *sudo = getuid() == 0 ? g_getenv("SUDO_UID") : NULL;
        return sudo ? (uid_t) strtoul(sudo, NULL, 10) : getuid();
}

int jc_run_capture(jd_sysroot *sr, const jc_capture_options *o)
{
        recorded rec = { g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
                         g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL) };
        jd_sysroot_set_recorder(sr, record, &rec);
        /* static: an abandoned probe thread goes on using it */
        static probe_run probe;
        probe = (probe_run) { .sr = sr, .o = o };
        bool finished = run_probe(&probe);
        /* under the sysroot's lock: no path is added after this */
        jd_sysroot_set_recorder(sr, NULL, NULL);
        if (!finished)
                fprintf(stderr, "jetsond: the probe had no answer within %d s; writing what it read until then\n",
                        PROBE_DEADLINE_S);

        jc_tree tree;
        jc_tree_init(&tree, jd_sysroot_dir(sr));
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, rec.paths);
        while (g_hash_table_iter_next(&it, &key, NULL))
                jc_tree_add_path(&tree, key);
        g_hash_table_iter_init(&it, rec.listings);
        while (g_hash_table_iter_next(&it, &key, NULL))
                jc_tree_add_listing(&tree, key);
        jc_series series;
        jc_series_init(&series);
        if (o->duration_ms)
                jc_series_record(&series, &tree, o->interval_ms, o->duration_ms);
        g_autoptr(GPtrArray) redacted = o->redact ? g_ptr_array_new_with_free_func(g_free) : NULL;
        if (redacted) {
                jc_redaction *r = jc_redact(&tree, own_uid(), redacted);
                jc_series_redact(&series, r);
                jc_redaction_free(r);
        }

        /* a stuck probe's board and NVML readings may be half written */
        g_autofree char *nvml_json = finished && probe.nv.n ? jc_nvml_json(probe.nv.gpus, probe.nv.n, probe.nv.cuda, o->redact) : NULL;
        jd_board none = { 0 };
        g_autofree char *summary = make_summary(o, finished ? &probe.board : &none, probe.x, finished ? probe.nv.n : 0,
                                                !finished, &tree, &series, redacted);
        g_autoptr(GString) skipped = g_string_new(NULL);
        const char *why = NULL;
        int ret = 0;
        if (write_archive(o->archive, &tree, &series, summary, nvml_json, skipped, &why) < 0) {
                fprintf(stderr, "jetsond: %s: %s\n", o->archive, why);
                ret = 1;
        } else {
                struct stat st;
                fputs(summary, stdout);
                fputs(skipped->str, stdout);
                if (stat(o->archive, &st) == 0)
                        printf("Archive: %s (%lld bytes). Attach it to the issue with the lines above.\n", o->archive,
                               (long long) st.st_size);
                ret = finished ? 0 : 2;
        }
        jc_series_clear(&series);
        jc_tree_clear(&tree);
        if (finished) {
                jd_nvml_reading_clear(&probe.nv);
                jd_sampler_free(probe.sampler);
        }
        g_hash_table_unref(rec.paths);
        g_hash_table_unref(rec.listings);
        return ret;
}
