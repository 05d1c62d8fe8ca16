#include "compact_keys.h"

#include <math.h>
#include <string.h>

void jd_compact_init(jd_compact *c)
{
        c->keys = g_ptr_array_new_with_free_func(g_free);
        c->index = g_hash_table_new(g_str_hash, g_str_equal);
        c->generation = 0;
        c->values = g_array_new(FALSE, FALSE, sizeof(double));
        c->idents = g_array_new(FALSE, TRUE, sizeof(jd_compact_ident));
}

void jd_compact_clear(jd_compact *c)
{
        if (!c->keys)
                return;
        g_hash_table_unref(c->index);
        g_ptr_array_unref(c->keys);
        g_array_unref(c->values);
        g_array_unref(c->idents);
        c->keys = NULL;
}

static bool is_numeric(const jd_value *v)
{
        return v->type != JD_VALUE_STRING;
}

/* What a value's key was spelled from (values.c: a format, its number
 * and its name's hash), which spells one key only: comparing the three
 * words is what matches a value to its position, where a strcmp() of
 * every key of every sample was 3 % of jetsond's CPU with 10 subscribers
 * on Values at 10 ms. A value built by hand (no format) is matched by its
 * key. */
static void learn(jd_compact *c, size_t pos, const jd_value *v)
{
        jd_compact_ident *id = &g_array_index(c->idents, jd_compact_ident, pos);
        *id = (jd_compact_ident) { v->fmt, v->num, v->str_hash };
}

static bool at_position(const jd_compact *c, size_t pos, const jd_value *v)
{
        const jd_compact_ident *id = &g_array_index(c->idents, jd_compact_ident, pos);
        if (v->fmt)
                return id->fmt == v->fmt && id->num == v->num && id->str_hash == v->str_hash;
        return strcmp(g_ptr_array_index(c->keys, pos), v->key) == 0;
}

static void new_list(jd_compact *c, const jd_values *const *lists, size_t n_lists)
{
        g_hash_table_remove_all(c->index);
        g_ptr_array_set_size(c->keys, 0);
        for (size_t l = 0; l < n_lists; l++)
                for (size_t i = 0; i < lists[l]->n; i++) {
                        const jd_value *v = &lists[l]->items[i];
                        if (!is_numeric(v) || g_hash_table_contains(c->index, v->key))
                                continue;
                        char *key = g_strdup(v->key);
                        g_ptr_array_add(c->keys, key);
                        g_hash_table_insert(c->index, key, GUINT_TO_POINTER(c->keys->len));
                        g_array_set_size(c->idents, c->keys->len);
                        learn(c, c->keys->len - 1, v);
                }
        c->generation++;
        if (c->generation == 0)      /* 0 means "no list yet" */
                c->generation = 1;
}

/* Fills the values in the list's order; false when a key is not in the
 * list. Keys mostly come in the list's order, so the next position is
 * tried (by what its key was spelled from) before the hash table. */
static bool fill(jd_compact *c, const jd_values *const *lists, size_t n_lists, size_t *present)
{
        size_t n = c->keys->len, next = 0;
        g_array_set_size(c->values, n);
        double *out = (double *) (void *) c->values->data;
        for (size_t k = 0; k < n; k++)
                out[k] = NAN;
        *present = 0;
        for (size_t l = 0; l < n_lists; l++)
                for (size_t i = 0; i < lists[l]->n; i++) {
                        const jd_value *v = &lists[l]->items[i];
                        if (!is_numeric(v))
                                continue;
                        size_t pos;
                        if (next < n && at_position(c, next, v)) {
                                pos = next;
                        } else {
                                guint found = GPOINTER_TO_UINT(g_hash_table_lookup(c->index, v->key));
                                if (!found)
                                        return false;
                                pos = found - 1;
                                learn(c, pos, v);
                        }
                        ++*present;           /* keys are unique in a sample */
                        out[pos] = jd_value_as_double(v);
                        next = pos + 1;
                }
        return true;
}

bool jd_compact_update(jd_compact *c, const jd_values *const *lists, size_t n_lists)
{
        size_t present;
        if (c->generation && fill(c, lists, n_lists, &present) && (c->keys->len - present) * 4 <= c->keys->len)
                return false;
        new_list(c, lists, n_lists);
        fill(c, lists, n_lists, &present);
        return true;
}
