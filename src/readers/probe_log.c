#include "probe_log.h"

#include <errno.h>
#include <glib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* Distinct entries met beyond the first JD_PROBE_LOG_MAX that are
 * remembered, so that one met again is not counted again; past them the
 * count is a lower bound. */
#define EXTRA_MAX 1024

/* One list: its entries in order, a set for duplicates, and how many
 * more were met once it was full. */
typedef struct {
        GPtrArray *items;             /* char * (places or paths) */
        GHashTable *seen;             /* the same strings, not owned */
        GHashTable *extra;            /* those beyond the list, owned */
        GArray *errs;                 /* int per item: refusals only */
        size_t more;
} list;

typedef struct {
        const char *reader;
        list found, missed, refused;
} entry;

struct jd_probe_log {
        pthread_mutex_t mu;
        GPtrArray *entries;           /* entry * */
};

static __thread const char *current_reader;
static __thread bool current_tracing;

const char *jd_probe_attribute(const char *reader, bool trace, bool *was_tracing)
{
        const char *before = current_reader;
        if (was_tracing)
                *was_tracing = current_tracing;
        current_reader = reader;
        current_tracing = reader && trace;
        return before;
}

const char *jd_probe_current(bool *tracing)
{
        if (tracing)
                *tracing = current_tracing;
        return current_reader;
}

static void list_init(list *l, bool errs)
{
        l->items = g_ptr_array_new_with_free_func(g_free);
        l->seen = g_hash_table_new(g_str_hash, g_str_equal);
        l->extra = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        l->errs = errs ? g_array_new(FALSE, FALSE, sizeof(int)) : NULL;
        l->more = 0;
}

static void list_clear(list *l)
{
        g_hash_table_unref(l->seen);
        g_hash_table_unref(l->extra);
        g_ptr_array_unref(l->items);
        if (l->errs)
                g_array_unref(l->errs);
}

static void list_add(list *l, const char *text, int err)
{
        if (g_hash_table_contains(l->seen, text) || g_hash_table_contains(l->extra, text))
                return;
        if (l->items->len >= JD_PROBE_LOG_MAX) {
                if (g_hash_table_size(l->extra) < EXTRA_MAX)
                        g_hash_table_add(l->extra, g_strdup(text));
                else if (l->more > EXTRA_MAX)
                        return;         /* a lower bound from here on */
                l->more++;
                return;
        }
        char *copy = g_strdup(text);
        g_ptr_array_add(l->items, copy);
        g_hash_table_add(l->seen, copy);
        if (l->errs)
                g_array_append_val(l->errs, err);
}

static void entry_free(gpointer p)
{
        entry *e = p;
        list_clear(&e->found);
        list_clear(&e->missed);
        list_clear(&e->refused);
        g_free(e);
}

jd_probe_log *jd_probe_log_new(void)
{
        jd_probe_log *log = g_new0(jd_probe_log, 1);
        pthread_mutex_init(&log->mu, NULL);
        log->entries = g_ptr_array_new_with_free_func(entry_free);
        return log;
}

void jd_probe_log_free(jd_probe_log *log)
{
        if (!log)
                return;
        g_ptr_array_unref(log->entries);
        pthread_mutex_destroy(&log->mu);
        g_free(log);
}

/* Under mu. */
static entry *find(jd_probe_log *log, const char *reader, bool create)
{
        for (guint i = 0; i < log->entries->len; i++) {
                entry *e = g_ptr_array_index(log->entries, i);
                if (strcmp(e->reader, reader) == 0)
                        return e;
        }
        if (!create)
                return NULL;
        entry *e = g_new0(entry, 1);
        e->reader = reader;
        list_init(&e->found, false);
        list_init(&e->missed, false);
        list_init(&e->refused, true);
        g_ptr_array_add(log->entries, e);
        return e;
}

/* PATH as a place; a DIRECTORY (listed) as itself. */
static void place_of(const char *path, bool directory, char *out, size_t size)
{
        /* A sysfs attribute says little alone: its directory is the part
         * ("/sys/class/thermal/thermal_zoneN"). */
        char buf[4096];
        g_strlcpy(buf, path, sizeof(buf));
        if (!directory && g_str_has_prefix(buf, "/sys/")) {
                char *slash = strrchr(buf, '/');
                if (slash && slash != buf)
                        *slash = '\0';
        }
        /* A number that ends a name is an instance ("cpu12", "hwmon3",
         * "1-0040"); one inside a name is part of it ("i2c", "17000000.gpu"). */
        size_t o = 0;
        for (const char *p = buf; *p && o + 1 < size;) {
                size_t digits = strspn(p, "0123456789");
                if (digits && (p[digits] == '/' || p[digits] == '\0')) {
                        out[o++] = 'N';
                        p += digits;
                } else if (digits) {
                        size_t n = MIN(digits, size - 1 - o);
                        memcpy(out + o, p, n);
                        o += n;
                        p += digits;
                } else {
                        out[o++] = *p++;
                }
        }
        out[o < size ? o : size - 1] = '\0';
}

void jd_probe_place(const char *path, char *out, size_t size)
{
        place_of(path, false, out, size);
}

static bool refusal(int err)
{
        return err == EACCES || err == EPERM || err == EROFS;
}

static bool miss(int err)
{
        return err == ENOENT || err == ENOTDIR || err == EXDEV;
}

void jd_probe_log_note(jd_probe_log *log, const char *path, int err, bool listed)
{
        bool tracing;
        const char *reader = jd_probe_current(&tracing);
        if (!reader || !log)
                return;
        if (!refusal(err) && !(tracing && (err == 0 || miss(err))))
                return;
        /* A listing that worked finds nothing by itself (every hwmon is
         * listed while looking for a fan). */
        if (err == 0 && listed)
                return;
        char place[4096] = "";
        if (!refusal(err))
                place_of(path, listed, place, sizeof(place));
        pthread_mutex_lock(&log->mu);
        entry *e = find(log, reader, true);
        if (refusal(err))
                list_add(&e->refused, path, err);
        else
                list_add(err == 0 ? &e->found : &e->missed, place, 0);
        pthread_mutex_unlock(&log->mu);
}

static char **copy_strings(const list *l, size_t *n)
{
        *n = l->items->len;
        if (!*n)
                return NULL;
        char **out = g_new0(char *, *n);
        for (size_t i = 0; i < *n; i++)
                out[i] = g_strdup(g_ptr_array_index(l->items, i));
        return out;
}

void jd_probe_log_copy(jd_probe_log *log, const char *reader, jd_probe_entry *out)
{
        memset(out, 0, sizeof(*out));
        pthread_mutex_lock(&log->mu);
        entry *e = find(log, reader, false);
        if (e) {
                out->found = copy_strings(&e->found, &out->n_found);
                out->more_found = e->found.more;
                out->missed = copy_strings(&e->missed, &out->n_missed);
                out->more_missed = e->missed.more;
                out->n_refused = e->refused.items->len;
                out->more_refused = e->refused.more;
                if (out->n_refused)
                        out->refused = g_new0(jd_probe_refusal, out->n_refused);
                for (size_t i = 0; i < out->n_refused; i++) {
                        out->refused[i].path = g_strdup(g_ptr_array_index(e->refused.items, i));
                        out->refused[i].err = g_array_index(e->refused.errs, int, i);
                }
        }
        pthread_mutex_unlock(&log->mu);
}

void jd_probe_entry_clear(jd_probe_entry *e)
{
        for (size_t i = 0; i < e->n_found; i++)
                g_free(e->found[i]);
        for (size_t i = 0; i < e->n_missed; i++)
                g_free(e->missed[i]);
        for (size_t i = 0; i < e->n_refused; i++)
                g_free(e->refused[i].path);
        g_free(e->found);
        g_free(e->missed);
        g_free(e->refused);
        memset(e, 0, sizeof(*e));
}
