#include "compact_keys.h"

#include <math.h>
#include <string.h>

void jd_compact_init(jd_compact *c)
{
        c->keys = g_ptr_array_new_with_free_func(g_free);
        c->index = g_hash_table_new(g_str_hash, g_str_equal);
        c->generation = 0;
        c->values = g_array_new(FALSE, FALSE, sizeof(double));
}

void jd_compact_clear(jd_compact *c)
{
        if (!c->keys)
                return;
        g_hash_table_unref(c->index);
        g_ptr_array_unref(c->keys);
        g_array_unref(c->values);
        c->keys = NULL;
}

static bool is_numeric(const jd_value *v)
{
        return v->type != JD_VALUE_STRING;
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
                }
        c->generation++;
        if (c->generation == 0)      /* 0 means "no list yet" */
                c->generation = 1;
}

/* Fills the values in the list's order; false when a key is not in the
 * list. Keys mostly come in the list's order, so the next position is
 * tried before the hash table. */
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
                        if (next < n && strcmp(g_ptr_array_index(c->keys, next), v->key) == 0) {
                                pos = next;
                        } else {
                                guint found = GPOINTER_TO_UINT(g_hash_table_lookup(c->index, v->key));
                                if (!found)
                                        return false;
                                pos = found - 1;
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
