/* jetsonctl select: NVIDIA GPUs that meet the constraints, printed for
 * CUDA_VISIBLE_DEVICES, as nvitop's nvisel (docs/nvidia-gpus.md says where
 * it differs). Reads only the latest sample and the DiscreteGpu objects, so
 * any user may run it. The same rules as the Python package's select_from
 * (python/jetsond/select.py): a GPU with MIG on is offered as its MIG
 * devices; an absent reading (a MIG device's utilization) excludes nothing;
 * sorted by memory in use, then utilization, then NVML index. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_out.h"
#include "common/parse.h"
#include "common/props.h"
#include "common/sample.h"
#include "jetsonctl.h"
#include "jetsond-dbus.h"

int jc_select_min_count = 0, jc_select_max_count = -1, jc_select_count = -1;
char *jc_select_min_free, *jc_select_min_total, *jc_select_max_util, *jc_select_max_mem_util;
char *jc_select_format, *jc_select_sep, *jc_select_inherit;
GPtrArray *jc_select_free_users;
double jc_select_tolerance;
gboolean jc_select_newline, jc_select_null, jc_select_no_sort;

gboolean jc_select_inherit_arg(const char *name, const char *value, gpointer data, GError **error)
{
        (void) name, (void) data, (void) error;
        /* Without a value, as nvisel's bare -i: the environment's (unset:
         * every device, as CUDA sees them then). */
        const char *v = value ? value : g_getenv("CUDA_VISIBLE_DEVICES");
        g_free(jc_select_inherit);
        jc_select_inherit = g_strdup(v);
        return TRUE;
}

gboolean jc_select_free_users_arg(const char *name, const char *value, gpointer data, GError **error)
{
        (void) name, (void) data, (void) error;
        if (!jc_select_free_users)
                jc_select_free_users = g_ptr_array_new_with_free_func(g_free);
        /* Without a value, as nvisel's: the caller's own user. */
        g_auto(GStrv) users = g_strsplit(value ? value : g_get_user_name(), ",", -1);
        for (char **u = users; *u; u++)
                if (**u)
                        g_ptr_array_add(jc_select_free_users, g_strdup(*u));
        return TRUE;
}

/* A device CUDA could be given: a GPU, or a MIG device of one (mig >= 0). */
typedef struct {
        unsigned index;
        int mig;
        char uuid[96], pci[32];
        bool has_used, has_total, has_load, has_mem_load, has_gi;
        uint64_t used_kib, total_kib, gi;
        double load, mem_load;
} device;

static void add_device(GArray *out, const jc_sample *s, const jc_object *g, int mig)
{
        device d = { .index = g->index, .mig = mig };
        g_autofree char *p = mig < 0 ? g_strdup_printf("dgpu.%u", g->index)
                                     : g_strdup_printf("dgpu.%u.mig.%d", g->index, mig);
        g_autofree char *uuid_key = g_strdup_printf("%s.uuid", p);
        const char *uuid = mig < 0 ? jc_prop_str(g->props, "UUID") : jc_sample_string(s, uuid_key);
        snprintf(d.uuid, sizeof(d.uuid), "%s", uuid ? uuid : "");
        snprintf(d.pci, sizeof(d.pci), "%s", jc_prop_str(g->props, "PciBusId"));
        d.has_used = jc_sample_uintf(s, &d.used_kib, "%s.mem_used", p);
        d.has_total = jc_sample_uintf(s, &d.total_kib, "%s.mem_total", p);
        d.has_load = jc_sample_doublef(s, &d.load, "%s.load", p);
        d.has_mem_load = jc_sample_doublef(s, &d.mem_load, "%s.mem_load", p);
        d.has_gi = mig >= 0 && jc_sample_uintf(s, &d.gi, "%s.gpu_instance", p);
        g_array_append_val(out, d);
}

/* Every GPU, a GPU with MIG on as its MIG devices. */
static GArray *candidates(const jc_sample *s, GPtrArray *gpus)
{
        GArray *out = g_array_new(FALSE, TRUE, sizeof(device));
        for (guint i = 0; gpus && i < gpus->len; i++) {
                const jc_object *g = g_ptr_array_index(gpus, i);
                bool mig = false;
                for (int m = 0; m < 64; m++) {
                        uint64_t v;
                        if (jc_sample_uintf(s, &v, "dgpu.%u.mig.%d.mem_total", g->index, m) ||
                            jc_sample_uintf(s, &v, "dgpu.%u.mig.%d.gpu_instance", g->index, m)) {
                                add_device(out, s, g, m);
                                mig = true;
                        }
                }
                if (!mig)
                        add_device(out, s, g, -1);
        }
        return out;
}

static bool free_user(const char *user)
{
        for (guint i = 0; user && jc_select_free_users && i < jc_select_free_users->len; i++)
                if (strcmp(user, g_ptr_array_index(jc_select_free_users, i)) == 0)
                        return true;
        return false;
}

/* --account-as-free: the memory the named users' processes hold on each
 * device (process.PID.dgpu.N.mem; on a MIG device, those in its GPU
 * instance) counts as free. */
static void account_as_free(GArray *devs, const jc_sample *s)
{
        GVariantIter it;
        const char *key;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&s*}", &key, NULL)) {
                unsigned pid, n;
                int end = 0;
                if (sscanf(key, "process.%u.dgpu.%u.mem%n", &pid, &n, &end) != 2 || key[end] != '\0')
                        continue;
                g_autofree char *user_key = g_strdup_printf("process.%u.user", pid);
                uint64_t kib, gi;
                if (!free_user(jc_sample_string(s, user_key)) || !jc_sample_uint(s, key, &kib))
                        continue;
                bool has_gi = jc_sample_uintf(s, &gi, "process.%u.dgpu.%u.gpu_instance", pid, n);
                for (guint i = 0; i < devs->len; i++) {
                        device *d = &g_array_index(devs, device, i);
                        if (d->index != n || !d->has_used || (d->mig >= 0 && (!has_gi || !d->has_gi || gi != d->gi)))
                                continue;
                        d->used_kib -= MIN(kib, d->used_kib);
                }
        }
}

static int by_bus(const void *a, const void *b)
{
        const device *x = a, *y = b;
        int c = strcmp(x->pci, y->pci);
        if (c)
                return c;
        return x->index != y->index ? (x->index < y->index ? -1 : 1) : (x->mig > y->mig) - (x->mig < y->mig);
}

/* The devices of a CUDA_VISIBLE_DEVICES value, in its order: CUDA's
 * ordinals (PCI bus order) or UUIDs (a prefix is enough); the list stops
 * at the first entry naming no device, or one named again, as CUDA's. */
static GArray *inherit(GArray *all, const char *visible)
{
        if (all->len > 1) /* an empty GArray's data may be NULL, which qsort may not take */
                qsort(all->data, all->len, sizeof(device), by_bus);
        GArray *out = g_array_new(FALSE, TRUE, sizeof(device));
        g_auto(GStrv) entries = g_strsplit(visible, ",", -1);
        g_autofree bool *taken = g_new0(bool, all->len + 1);
        for (char **e = entries; *e; e++) {
                char *entry = g_strstrip(*e);
                int found = -1, n = 0;
                uint64_t ordinal;
                bool number = jc_parse_uint(entry, G_MAXUINT, &ordinal);
                for (guint i = 0; i < all->len; i++) {
                        const device *d = &g_array_index(all, device, i);
                        if (number ? ordinal == i : (entry[0] && g_str_has_prefix(d->uuid, entry))) {
                                found = (int) i;
                                n++;
                        }
                }
                if (n != 1 || taken[found])
                        break;
                taken[found] = true;
                g_array_append_val(out, g_array_index(all, device, found));
        }
        g_array_unref(all);
        return out;
}

static int by_use(const void *a, const void *b)
{
        const device *x = a, *y = b;
        uint64_t ux = x->has_used ? x->used_kib : 0, uy = y->has_used ? y->used_kib : 0;
        double lx = x->has_load ? x->load : 0, ly = y->has_load ? y->load : 0;
        if (ux != uy)
                return ux < uy ? -1 : 1;
        if (lx != ly)
                return lx < ly ? -1 : 1;
        return (x->index > y->index) - (x->index < y->index);
}

typedef struct {
        bool free_set, total_set, util_set, mem_util_set;
        uint64_t min_free, min_total;
        double max_util, max_mem_util, loose;
} limits;

static bool fits(const device *d, const limits *l)
{
        if (l->free_set && (!d->has_used || !d->has_total ||
                            (double) (d->total_kib - MIN(d->used_kib, d->total_kib)) * 1024.0 < (double) l->min_free / l->loose))
                return false;
        if (l->total_set && (!d->has_total || (double) d->total_kib * 1024.0 < (double) l->min_total / l->loose))
                return false;
        if (l->util_set && d->has_load && d->load > l->max_util * l->loose)
                return false;
        if (l->mem_util_set && d->has_mem_load && d->mem_load > l->max_mem_util * l->loose)
                return false;
        return true;
}

/* The options' limits; false (and the message printed) if one is wrong. */
static bool read_limits(limits *l)
{
        g_autofree char *error = NULL;
        *l = (limits) { .loose = 1.0 + jc_select_tolerance / 100.0 };
        if ((jc_select_min_free && !(l->free_set = jc_parse_size(jc_select_min_free, &l->min_free, &error))) ||
            (jc_select_min_total && !(l->total_set = jc_parse_size(jc_select_min_total, &l->min_total, &error))) ||
            (jc_select_max_util && !(l->util_set = jc_parse_percent(jc_select_max_util, &l->max_util, &error))) ||
            (jc_select_max_mem_util &&
             !(l->mem_util_set = jc_parse_percent(jc_select_max_mem_util, &l->max_mem_util, &error)))) {
                jc_usage_error("select", "%s", error);
                return false;
        }
        if (jc_select_tolerance < 0) {
                jc_usage_error("select", "--tolerance is a percentage of 0 or more");
                return false;
        }
        if (jc_select_format && strcmp(jc_select_format, "index") && strcmp(jc_select_format, "uuid")) {
                jc_usage_error("select", "--format is index or uuid, not %s", jc_select_format);
                return false;
        }
        return true;
}

static void print_ids(GArray *chosen, bool uuids, bool json)
{
        const char *sep = jc_select_null ? "" : jc_select_newline ? "\n" : jc_select_sep ? jc_select_sep : ",";
        size_t sep_len = jc_select_null ? 1 : strlen(sep);
        if (json) {
                JsonBuilder *b = json_builder_new();
                json_builder_begin_array(b);
                for (guint i = 0; i < chosen->len; i++) {
                        const device *d = &g_array_index(chosen, device, i);
                        if (uuids)
                                json_builder_add_string_value(b, d->uuid);
                        else
                                json_builder_add_int_value(b, d->index);
                }
                json_builder_end_array(b);
                jc_json_print_builder(b);
                return;
        }
        for (guint i = 0; i < chosen->len; i++) {
                const device *d = &g_array_index(chosen, device, i);
                if (i)
                        fwrite(sep, 1, sep_len, stdout);
                if (uuids)
                        fputs(d->uuid, stdout);
                else
                        printf("%u", d->index);
        }
        if (chosen->len && !jc_select_null)
                putchar('\n');
}

int jc_cmd_select(jc_ctx *c, int argc, char **argv)
{
        (void) argv;
        if (argc > 1)
                return jc_usage_error("select", "select takes options only (see jetsonctl help select)");
        if (jc_select_count >= 0)
                jc_select_min_count = jc_select_max_count = jc_select_count;
        limits l;
        if (!read_limits(&l))
                return JC_EXIT_USAGE;
        jc_sample s = { 0 };
        int ret = jc_sample_fetch(c, &s);
        if (ret)
                return ret;
        g_autoptr(GPtrArray) gpus = NULL;
        ret = jc_objects_fetch(c, "listing the GPUs", JD_IFACE_DISCRETE_GPU, JD_DGPU_PATH_PREFIX, &gpus);
        if (ret) {
                jc_sample_clear(&s);
                return ret;
        }
        GArray *all = candidates(&s, gpus);
        if (jc_select_inherit)
                all = inherit(all, jc_select_inherit);
        if (jc_select_free_users)
                account_as_free(all, &s);
        g_autoptr(GArray) chosen = g_array_new(FALSE, TRUE, sizeof(device));
        bool any_mig = false;
        for (guint i = 0; i < all->len; i++)
                if (fits(&g_array_index(all, device, i), &l))
                        g_array_append_val(chosen, g_array_index(all, device, i));
        g_array_unref(all);
        if (!jc_select_no_sort && chosen->len > 1)
                qsort(chosen->data, chosen->len, sizeof(device), by_use);
        if (jc_select_max_count >= 0 && chosen->len > (guint) jc_select_max_count)
                g_array_set_size(chosen, (guint) jc_select_max_count);
        for (guint i = 0; i < chosen->len; i++)
                any_mig |= g_array_index(chosen, device, i).mig >= 0;
        jc_sample_clear(&s);
        if (chosen->len < (guint) MAX(jc_select_min_count, 0)) {
                fprintf(stderr, "jetsonctl: %u GPU%s meet%s the constraints, fewer than --min-count %d\n", chosen->len,
                        chosen->len == 1 ? "" : "s", chosen->len == 1 ? "s" : "", jc_select_min_count);
                return JC_EXIT_FAILURE;
        }
        /* A MIG device has no index CUDA takes: UUIDs then, as nvisel. */
        print_ids(chosen, any_mig || (jc_select_format && !strcmp(jc_select_format, "uuid")), c->json);
        return JC_EXIT_OK;
}
