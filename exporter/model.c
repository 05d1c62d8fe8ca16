/* The exporter's copy of a sample and of the board: plain C values, so
 * rendering needs neither D-Bus nor GVariant. */
#include "exposition.h"

static void value_clear(gpointer p)
{
        exp_value *v = p;
        g_free(v->key);
        if (v->type == EXP_STRING)
                g_free(v->v.s);
}

exp_sample *exp_sample_new(uint64_t timestamp_usec)
{
        exp_sample *s = g_new0(exp_sample, 1);
        s->refs = 1;
        s->timestamp_usec = timestamp_usec;
        s->values = g_array_sized_new(FALSE, TRUE, sizeof(exp_value), 128);
        g_array_set_clear_func(s->values, value_clear);
        return s;
}

exp_sample *exp_sample_ref(exp_sample *s)
{
        g_atomic_int_inc(&s->refs);
        return s;
}

void exp_sample_unref(exp_sample *s)
{
        if (!s || !g_atomic_int_dec_and_test(&s->refs))
                return;
        g_array_unref(s->values);
        g_free(s);
}

static exp_value *append(exp_sample *s, const char *key, exp_type type)
{
        exp_value v = { .key = g_strdup(key), .type = type };
        g_array_append_val(s->values, v);
        return &g_array_index(s->values, exp_value, s->values->len - 1);
}

void exp_sample_add_uint(exp_sample *s, const char *key, uint64_t v)
{
        append(s, key, EXP_UINT)->v.u = v;
}

void exp_sample_add_double(exp_sample *s, const char *key, double v)
{
        append(s, key, EXP_DOUBLE)->v.d = v;
}

void exp_sample_add_bool(exp_sample *s, const char *key, bool v)
{
        append(s, key, EXP_BOOL)->v.b = v;
}

void exp_sample_add_string(exp_sample *s, const char *key, const char *v)
{
        append(s, key, EXP_STRING)->v.s = g_strdup(v);
}

void exp_board_clear(exp_board *b)
{
        g_clear_pointer(&b->model, g_free);
        g_clear_pointer(&b->module, g_free);
        g_clear_pointer(&b->soc, g_free);
        g_clear_pointer(&b->l4t, g_free);
        g_clear_pointer(&b->jetpack, g_free);
        g_clear_pointer(&b->cuda_arch, g_free);
        g_clear_pointer(&b->igpu_name, g_free);
        g_clear_pointer(&b->igpu_uuid, g_free);
        g_clear_pointer(&b->igpu_driver, g_free);
        g_clear_pointer(&b->hostname, g_free);
        g_clear_pointer(&b->dgpus, g_ptr_array_unref);
        b->default_mode = -1;
}

void exp_board_copy(exp_board *dst, const exp_board *src)
{
        dst->model = g_strdup(src->model);
        dst->module = g_strdup(src->module);
        dst->soc = g_strdup(src->soc);
        dst->l4t = g_strdup(src->l4t);
        dst->jetpack = g_strdup(src->jetpack);
        dst->cuda_arch = g_strdup(src->cuda_arch);
        dst->default_mode = src->default_mode;
        dst->igpu_name = g_strdup(src->igpu_name);
        dst->igpu_uuid = g_strdup(src->igpu_uuid);
        dst->igpu_driver = g_strdup(src->igpu_driver);
        dst->hostname = g_strdup(src->hostname);
        dst->dgpus = src->dgpus ? g_ptr_array_ref(src->dgpus) : NULL; /* never changed once set */
}

exp_gpu_identity *exp_gpu_identity_new(unsigned index, const char *name, const char *uuid,
                                       const char *pci_bus_id, const char *driver_version, int minor)
{
        exp_gpu_identity *g = g_new0(exp_gpu_identity, 1);
        g->index = index;
        g->name = g_strdup(name ? name : "");
        g->uuid = g_strdup(uuid ? uuid : "");
        g->pci_bus_id = g_strdup(pci_bus_id ? pci_bus_id : "");
        g->driver_version = g_strdup(driver_version ? driver_version : "");
        g->minor = minor;
        char **facts[] = { &g->cuda_driver_version, &g->compute_capability, &g->ecc_mode, &g->ecc_mode_pending,
                           &g->persistence_mode, &g->compute_mode, &g->display_mode, &g->display_active };
        for (size_t i = 0; i < G_N_ELEMENTS(facts); i++)
                *facts[i] = g_strdup("");
        return g;
}

void exp_gpu_identity_free(gpointer p)
{
        exp_gpu_identity *g = p;
        if (!g)
                return;
        g_free(g->name);
        g_free(g->uuid);
        g_free(g->pci_bus_id);
        g_free(g->driver_version);
        g_free(g->cuda_driver_version);
        g_free(g->compute_capability);
        g_free(g->ecc_mode);
        g_free(g->ecc_mode_pending);
        g_free(g->persistence_mode);
        g_free(g->compute_mode);
        g_free(g->display_mode);
        g_free(g->display_active);
        g_free(g);
}

const exp_gpu_identity *exp_board_dgpu(const exp_board *board, unsigned index)
{
        if (!board || !board->dgpus)
                return NULL;
        for (guint i = 0; i < board->dgpus->len; i++) {
                const exp_gpu_identity *g = g_ptr_array_index(board->dgpus, i);
                if (g->index == index)
                        return g;
        }
        return NULL;
}
