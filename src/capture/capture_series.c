#include "capture_series.h"

#include <ctype.h>
#include <string.h>
#include <time.h>

typedef struct {
        unsigned offset_ms;
        GHashTable *files;   /* in-root path without "/" -> GByteArray */
} jc_step;

static void free_step(gpointer p)
{
        jc_step *st = p;
        g_hash_table_unref(st->files);
        g_free(st);
}

void jc_series_init(jc_series *s)
{
        s->steps = g_ptr_array_new_with_free_func(free_step);
}

void jc_series_clear(jc_series *s)
{
        g_ptr_array_unref(s->steps);
}

/* "proc/1234/...": a process's, which may be gone the next step. */
static bool of_a_process(const char *path)
{
        return g_str_has_prefix(path, "proc/") && isdigit((unsigned char) path[5]);
}

static bool same(const GByteArray *a, const GByteArray *b)
{
        return a->len == b->len && memcmp(a->data, b->data, a->len) == 0;
}

void jc_series_record(jc_series *s, const jc_tree *t, unsigned interval_ms, unsigned duration_ms)
{
        /* The last version of each file, as read (not yet redacted). */
        g_autoptr(GHashTable) last = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
                                                           (GDestroyNotify) g_byte_array_unref);
        GHashTableIter it;
        gpointer key, value;
        g_hash_table_iter_init(&it, t->entries);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                const jc_entry *e = value;
                if (e->kind == JC_FILE && e->data && !of_a_process(key))
                        g_hash_table_insert(last, key, g_byte_array_ref(e->data));
        }
        /* The tree's data is redacted later, in place: keep copies. */
        g_hash_table_iter_init(&it, last);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                GByteArray *copy = g_byte_array_sized_new(((GByteArray *) value)->len);
                g_byte_array_append(copy, ((GByteArray *) value)->data, ((GByteArray *) value)->len);
                g_hash_table_iter_replace(&it, copy);
        }
        struct timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        for (unsigned offset = interval_ms; offset <= duration_ms; offset += interval_ms) {
                struct timespec at = start;
                at.tv_sec += offset / 1000;
                at.tv_nsec += (long) (offset % 1000) * 1000000L;
                if (at.tv_nsec >= 1000000000L) {
                        at.tv_sec++;
                        at.tv_nsec -= 1000000000L;
                }
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0)
                        ;
                jc_step *st = g_new0(jc_step, 1);
                st->offset_ms = offset;
                st->files = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify) g_byte_array_unref);
                g_hash_table_iter_init(&it, last);
                while (g_hash_table_iter_next(&it, &key, &value)) {
                        g_autofree char *host = g_strconcat(t->root, "/", (char *) key, NULL);
                        g_autofree char *why = NULL;
                        GByteArray *now = jc_read_regular(host, t->max_file, &why);
                        if (!now || same(now, value)) {
                                if (now)
                                        g_byte_array_unref(now);
                                continue;
                        }
                        g_hash_table_insert(st->files, key, g_byte_array_ref(now));
                        g_hash_table_iter_replace(&it, now);
                }
                g_ptr_array_add(s->steps, st);
        }
}

void jc_series_redact(jc_series *s, const jc_redaction *r)
{
        for (guint i = 0; i < s->steps->len; i++) {
                const jc_step *st = s->steps->pdata[i];
                GHashTableIter it;
                gpointer key, value;
                g_hash_table_iter_init(&it, st->files);
                while (g_hash_table_iter_next(&it, &key, &value))
                        jc_redaction_apply(r, key, value);
        }
}

unsigned jc_series_files(const jc_series *s)
{
        unsigned n = 0;
        for (guint i = 0; i < s->steps->len; i++)
                n += g_hash_table_size(((const jc_step *) s->steps->pdata[i])->files);
        return n;
}

bool jc_series_write(const jc_series *s, jc_tar *tar)
{
        if (s->steps->len == 0)
                return true;
        g_autoptr(GString) index = g_string_new("# step offset_ms (after the first reading)\n");
        bool ok = jc_tar_add_dir(tar, ".capture/series");
        for (guint i = 0; ok && i < s->steps->len; i++) {
                const jc_step *st = s->steps->pdata[i];
                g_string_append_printf(index, "%04u %u\n", i + 1, st->offset_ms);
                guint n;
                g_autofree const char **paths = (const char **) g_hash_table_get_keys_as_array(st->files, &n);
                jc_sort_paths(paths, n);
                for (guint k = 0; ok && k < n; k++) {
                        const GByteArray *d = g_hash_table_lookup(st->files, paths[k]);
                        g_autofree char *name = g_strdup_printf(".capture/series/%04u/%s", i + 1, paths[k]);
                        ok = jc_tar_add_file(tar, name, d->data, d->len);
                }
        }
        return ok && jc_tar_add_file(tar, ".capture/series/index", index->str, index->len);
}
