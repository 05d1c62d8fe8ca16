#include "capture_pids.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "caller_ns.h"
#include "pidns.h"

typedef struct {
        jd_capture_pids *p;
        uint32_t *host_pids;
        size_t n;
        jd_capture_pids_done_fn done;
        void *data;
} capture_query;

/* The PID of "process.PID.rest" (and where REST starts), else 0. */
static uint32_t process_pid(const char *key, const char **rest)
{
        if (strncmp(key, "process.", 8) != 0)
                return 0;
        char *end = NULL;
        unsigned long long v = strtoull(key + 8, &end, 10);
        if (end == key + 8 || *end != '.' || v == 0 || v > UINT32_MAX || key[8] < '0' || key[8] > '9')
                return 0;
        if (rest)
                *rest = end + 1;
        return (uint32_t) v;
}

bool jd_capture_has_process_columns(const GPtrArray *columns)
{
        for (guint i = 0; i < columns->len; i++)
                if (strncmp(g_ptr_array_index(columns, i), "process.", 8) == 0)
                        return true;
        return false;
}

static void translate(const jd_sysroot *sr, const jd_pidns_process *caller, void *data)
{
        capture_query *q = data;
        jd_capture_pids *p = q->p;
        if (caller->depth == 0)
                return;               /* jetsond's own namespace: nothing to translate */
        p->translate = true;
        for (size_t i = 0; i < q->n; i++) {
                jd_pidns_process x;
                uint32_t mine = jd_pidns_read(sr, q->host_pids[i], &x) == 0 ? jd_pidns_to_caller(sr, caller, &x) : 0;
                g_hash_table_insert(p->to_caller, GUINT_TO_POINTER(q->host_pids[i]), GUINT_TO_POINTER(mine + 1));
        }
        /* The caller's PIDs the patterns name, placed with one listing of
         * /proc for all of them. */
        guint n = g_strv_length(p->patterns);
        g_autofree uint32_t *mine = g_new0(uint32_t, n ? n : 1);
        g_autofree uint32_t *theirs = g_new0(uint32_t, n ? n : 1);
        g_autofree const char **rest = g_new0(const char *, n ? n : 1);
        for (guint i = 0; i < n; i++)
                mine[i] = process_pid(p->patterns[i], &rest[i]);
        if (jd_pidns_from_caller(sr, caller, mine, n, theirs) < 0)
                memset(theirs, 0, n * sizeof(*theirs));
        p->host_patterns = g_new0(char *, n + 1);
        for (guint i = 0; i < n; i++) {
                if (mine[i] && theirs[i]) {
                        p->host_patterns[i] = g_strdup_printf("process.%" PRIu32 ".%s", theirs[i], rest[i]);
                        g_hash_table_insert(p->to_caller, GUINT_TO_POINTER(theirs[i]), GUINT_TO_POINTER(mine[i] + 1));
                        continue;
                }
                if (mine[i] && !p->invalid)
                        p->invalid = g_strdup_printf("\"%s\" names PID %" PRIu32 ", which no process of your PID "
                                                     "namespace has", p->patterns[i], mine[i]);
                p->host_patterns[i] = g_strdup(p->patterns[i]);
        }
}

static void answer(sd_bus_message *m, const char *error, void *data)
{
        (void) error;                 /* not placed: the columns as jetsond names them */
        capture_query *q = data;
        q->done(m, q->p, q->data);
        g_free(q->host_pids);
        g_free(q);
}

int jd_capture_pids_start(sd_bus_message *m, const jd_sysroot *sr, const jd_capture_rates *rates, char **patterns,
                          const uint32_t *host_pids, size_t n, jd_capture_pids_done_fn done, void *data,
                          sd_bus_error *error)
{
        capture_query *q = g_new0(capture_query, 1);
        q->p = g_new0(jd_capture_pids, 1);
        q->p->rates = *rates;
        q->p->patterns = g_strdupv(patterns);
        q->p->to_caller = g_hash_table_new(NULL, NULL);
        q->host_pids = g_new(uint32_t, n ? n : 1);
        if (n)
                memcpy(q->host_pids, host_pids, n * sizeof(uint32_t));
        q->n = n;
        q->done = done;
        q->data = data;
        int r = jd_caller_ns_query(m, sr, translate, answer, q, error);
        if (r < 0) {
                jd_capture_pids_free(q->p);
                g_free(q->host_pids);
                g_free(q);
        }
        return r;
}

char **jd_capture_pids_names(const jd_capture_pids *p, GPtrArray *columns)
{
        GPtrArray *names = g_ptr_array_new();
        for (guint i = 0; i < columns->len;) {
                const char *key = g_ptr_array_index(columns, i), *rest = NULL;
                uint32_t pid = p->translate ? process_pid(key, &rest) : 0;
                if (!pid) {
                        g_ptr_array_add(names, g_strdup(key));
                        i++;
                        continue;
                }
                guint mine = GPOINTER_TO_UINT(g_hash_table_lookup(p->to_caller, GUINT_TO_POINTER(pid)));
                if (mine <= 1) {      /* not visible, or a process new since the sample */
                        g_ptr_array_remove_index(columns, i);
                        continue;
                }
                g_ptr_array_add(names, g_strdup_printf("process.%u.%s", mine - 1, rest));
                i++;
        }
        g_ptr_array_add(names, NULL);
        return (char **) g_ptr_array_free(names, FALSE);
}

void jd_capture_pids_free(jd_capture_pids *p)
{
        if (!p)
                return;
        g_strfreev(p->patterns);
        g_strfreev(p->host_patterns);
        g_hash_table_unref(p->to_caller);
        g_free(p->invalid);
        g_free(p);
}
