#include "proc_tree.h"

#include <ctype.h>
#include <dirent.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool jc_parse_pid_stat(const char *text, pid_t *ppid, uint64_t times[4])
{
        /* "pid (comm) state ppid ...": the comm may hold anything, so
         * fields are counted from the last ")". ppid is field 4, utime,
         * stime, cutime, cstime fields 14 to 17. */
        const char *p = strrchr(text, ')');
        if (!p)
                return false;
        g_auto(GStrv) f = g_strsplit_set(p + 2, " \n", 0);
        if (g_strv_length(f) < 15)
                return false;
        char *end;
        long v = strtol(f[1], &end, 10);
        if (*end || v < 0)
                return false;
        *ppid = (pid_t) v;
        for (int i = 0; i < 4; i++) {
                long long t = strtoll(f[11 + i], &end, 10);
                if (*end || t < 0)
                        return false;
                times[i] = (uint64_t) t;
        }
        return true;
}

static char *read_small(const char *proc, pid_t pid, const char *file)
{
        g_autofree char *path = g_strdup_printf("%s/%d/%s", proc, (int) pid, file);
        char *text = NULL;
        return g_file_get_contents(path, &text, NULL, NULL) ? text : NULL;
}

/* FILE of PID, or NULL; *HIDDEN set when the caller may not read it
 * (EACCES, EPERM: another user's process). An empty file, or an error
 * such as ESRCH, is a process that is exiting and has no memory left to
 * show: it hides nothing. */
static char *read_or_hidden(const char *proc, pid_t pid, const char *file, bool *hidden)
{
        g_autofree char *path = g_strdup_printf("%s/%d/%s", proc, (int) pid, file);
        char *text = NULL;
        g_autoptr(GError) error = NULL;
        if (g_file_get_contents(path, &text, NULL, &error) && *text)
                return text;
        g_free(text);
        if (error && (g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_ACCES) ||
                      g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_PERM)))
                *hidden = true;
        return NULL;
}

/* "Key:   123 kB" or "key: 123" lines: the number after KEY, times MULT. */
static uint64_t field_of(const char *text, const char *key, uint64_t mult)
{
        size_t n = strlen(key);
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (strncmp(l, key, n) == 0 && l[n] == ':')
                        return strtoull(l + n + 1, NULL, 10) * mult;
        return 0;
}

typedef struct {
        pid_t pid, ppid;
        uint64_t times[4];
        bool zombie;
} proc_entry;

static bool read_entry(const char *proc, pid_t pid, proc_entry *pe)
{
        g_autofree char *stat = read_small(proc, pid, "stat");
        pe->pid = pid;
        if (!stat || !jc_parse_pid_stat(stat, &pe->ppid, pe->times))
                return false;
        const char *p = strrchr(stat, ')');
        pe->zombie = p[1] && p[2] == 'Z';
        return true;
}

/* The tree from every process's parent: ROOT, then whoever has a parent
 * in it, until no more. Reads all of /proc. */
static GArray *tree_by_parents(const char *proc, pid_t root)
{
        GArray *tree = g_array_new(FALSE, FALSE, sizeof(proc_entry));
        DIR *d = opendir(proc);
        if (!d)
                return tree;
        g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(proc_entry));
        struct dirent *e;
        while ((e = readdir(d))) {
                proc_entry pe;
                if (isdigit((unsigned char) e->d_name[0]) && read_entry(proc, (pid_t) atoi(e->d_name), &pe))
                        g_array_append_val(all, pe);
        }
        closedir(d);
        g_autofree bool *in = g_new0(bool, all->len ? all->len : 1);
        for (guint i = 0; i < all->len; i++)
                if (g_array_index(all, proc_entry, i).pid == root) {
                        in[i] = true;
                        g_array_append_val(tree, g_array_index(all, proc_entry, i));
                }
        for (bool grew = tree->len > 0; grew;) {
                grew = false;
                for (guint i = 0; i < all->len; i++) {
                        proc_entry *pe = &g_array_index(all, proc_entry, i);
                        if (in[i])
                                continue;
                        for (guint k = 0; k < tree->len; k++)
                                if (g_array_index(tree, proc_entry, k).pid == pe->ppid) {
                                        in[i] = grew = true;
                                        g_array_append_val(tree, *pe);
                                        break;
                                }
                }
        }
        return tree;
}

/* The tree from each of its threads' children files
 * (/proc/PID/task/TID/children): a few reads per process of the tree
 * instead of one per process of the machine. NULL where the kernel has
 * no such files (CONFIG_PROC_CHILDREN off). */
static GArray *tree_by_children(const char *proc, pid_t root)
{
        g_autofree char *probe = g_strdup_printf("%s/%d/task/%d/children", proc, (int) root, (int) root);
        g_autofree char *root_dir = g_strdup_printf("%s/%d", proc, (int) root);
        if (!g_file_test(probe, G_FILE_TEST_EXISTS) && g_file_test(root_dir, G_FILE_TEST_IS_DIR))
                return NULL;
        GArray *tree = g_array_new(FALSE, FALSE, sizeof(proc_entry));
        g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);
        proc_entry pe;
        if (read_entry(proc, root, &pe)) {
                g_array_append_val(tree, pe);
                g_hash_table_add(seen, GINT_TO_POINTER(root));
        }
        for (guint i = 0; i < tree->len; i++) {
                pid_t pid = g_array_index(tree, proc_entry, i).pid;
                g_autofree char *tasks = g_strdup_printf("%s/%d/task", proc, (int) pid);
                g_autoptr(GDir) d = g_dir_open(tasks, 0, NULL);
                const char *tid;
                while (d && (tid = g_dir_read_name(d))) {
                        g_autofree char *path = g_strdup_printf("%s/%s/children", tasks, tid);
                        g_autofree char *text = NULL;
                        if (!g_file_get_contents(path, &text, NULL, NULL))
                                continue;
                        g_auto(GStrv) kids = g_strsplit_set(text, " \n", -1);
                        for (size_t k = 0; kids[k]; k++) {
                                pid_t kid = (pid_t) atoi(kids[k]);
                                if (kid > 0 && !g_hash_table_contains(seen, GINT_TO_POINTER(kid)) &&
                                    read_entry(proc, kid, &pe)) {
                                        g_hash_table_add(seen, GINT_TO_POINTER(kid));
                                        g_array_append_val(tree, pe);
                                }
                        }
                }
        }
        return tree;
}

bool jc_proc_tree_sample(const char *proc, pid_t root, jc_tree_sample *out)
{
        memset(out, 0, sizeof(*out));
        g_autoptr(GArray) tree = tree_by_children(proc, root);
        if (!tree)
                tree = tree_by_parents(proc, root);
        long page = sysconf(_SC_PAGESIZE);
        bool rss_hidden = false, pss_hidden = false, io_hidden = false;
        out->pids = g_new(pid_t, tree->len + 1);
        for (guint i = 0; i < tree->len; i++) {
                proc_entry *pe = &g_array_index(tree, proc_entry, i);
                out->pids[out->n_pids++] = pe->pid;
                out->user_ticks += pe->times[0] + pe->times[2];
                out->system_ticks += pe->times[1] + pe->times[3];
                /* A zombie has no memory and may answer nothing: it hides
                 * nothing either. */
                if (pe->zombie)
                        continue;
                g_autofree char *statm = read_or_hidden(proc, pe->pid, "statm", &rss_hidden);
                const char *resident = statm ? strchr(statm, ' ') : NULL;
                if (resident)
                        out->rss_bytes += strtoull(resident + 1, NULL, 10) * (uint64_t) page;
                g_autofree char *rollup = read_or_hidden(proc, pe->pid, "smaps_rollup", &pss_hidden);
                if (rollup)
                        out->pss_bytes += field_of(rollup, "Pss", 1024);
                g_autofree char *io = read_or_hidden(proc, pe->pid, "io", &io_hidden);
                if (io) {
                        out->read_bytes += field_of(io, "read_bytes", 1);
                        out->write_bytes += field_of(io, "write_bytes", 1);
                }
        }
        out->have_rss = !rss_hidden;
        out->have_pss = !pss_hidden;
        out->have_io = !io_hidden;
        return out->n_pids > 0;
}

void jc_tree_sample_clear(jc_tree_sample *s)
{
        g_free(s->pids);
        s->pids = NULL;
        s->n_pids = 0;
}
