#include "gpu_filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/parse.h"
#include "common/variant_number.h"

char *jc_filter_only, *jc_filter_owners, *jc_filter_pids;
gboolean jc_filter_only_visible;

gboolean jc_filter_owner_arg(const char *name, const char *value, gpointer data, GError **error)
{
        (void) name, (void) data, (void) error;
        /* Without a value, as nvitop's bare --user: the caller's own. */
        g_free(jc_filter_owners);
        jc_filter_owners = g_strdup(value ? value : g_get_user_name());
        return TRUE;
}

void jc_gpu_filter_clear(jc_gpu_filter *f)
{
        g_clear_pointer(&f->dgpus, g_hash_table_unref);
        g_clear_pointer(&f->owners, g_strfreev);
        g_clear_pointer(&f->pids, g_array_unref);
        f->gpus_limited = f->soc = false;
}

static void take_gpu(jc_gpu_filter *f, int gpu)
{
        if (gpu < 0)
                f->soc = true;
        else
                g_hash_table_add(f->dgpus, GUINT_TO_POINTER((guint) gpu + 1));
}

/* A PCI bus id as domain, bus, device and function; a missing domain is
 * -1 (any). nvidia-smi and NVML write "00000000:01:00.0", lspci "01:00.0". */
static bool parse_bus_id(const char *text, long long id[4])
{
        unsigned long long d, b, dev, fn;
        char end;
        if (sscanf(text, "%llx:%llx:%llx.%llx%c", &d, &b, &dev, &fn, &end) == 4) {
                id[0] = (long long) d;
        } else if (sscanf(text, "%llx:%llx.%llx%c", &b, &dev, &fn, &end) == 3) {
                id[0] = -1;
        } else {
                return false;
        }
        id[1] = (long long) b, id[2] = (long long) dev, id[3] = (long long) fn;
        return true;
}

static bool same_bus_id(const char *want, const char *have)
{
        long long w[4], h[4];
        if (!parse_bus_id(want, w) || !parse_bus_id(have, h))
                return false;
        return (w[0] < 0 || w[0] == h[0]) && w[1] == h[1] && w[2] == h[2] && w[3] == h[3];
}

/* The MIG device whose UUID starts with PREFIX: its GPU's index, or -1;
 * *COUNT how many matched. */
static int mig_gpu(const jc_sample *s, const char *prefix, int *count)
{
        int gpu = -1;
        GVariantIter it;
        const char *key;
        GVariant *value;
        if (!s || !s->values)
                return -1;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                unsigned n, m;
                int end = 0;
                if (sscanf(key, "dgpu.%u.mig.%u.uuid%n", &n, &m, &end) == 2 && key[end] == '\0' &&
                    g_variant_is_of_type(value, G_VARIANT_TYPE_STRING) &&
                    g_str_has_prefix(g_variant_get_string(value, NULL), prefix)) {
                        gpu = (int) n;
                        (*count)++;
                }
                g_variant_unref(value);
        }
        return gpu;
}

/* The GPU ENTRY names (-1 the SoC's): an index, "soc", a UUID or a prefix
 * of one, a bus id. False with *ERROR when it names none or several. */
static bool resolve(const char *entry, const jc_gpu_ident *gpus, size_t n, const jc_sample *s, bool has_soc,
                    const char *what, int *gpu, char **error)
{
        uint64_t index;
        int found = -2, count = 0;
        if (!*entry) {
                *error = g_strdup_printf("%s: an empty entry names no GPU", what);
                return false;
        }
        if (g_ascii_strcasecmp(entry, "soc") == 0) {
                if (!has_soc) {
                        *error = g_strdup_printf("%s: \"soc\": this machine has no SoC GPU", what);
                        return false;
                }
                *gpu = -1;
                return true;
        }
        if (jc_parse_uint(entry, G_MAXINT, &index)) {
                for (size_t i = 0; i < n; i++)
                        if (gpus[i].index == index)
                                found = (int) index, count++;
        } else {
                for (size_t i = 0; i < n; i++)
                        if ((gpus[i].uuid && *gpus[i].uuid && g_str_has_prefix(gpus[i].uuid, entry)) ||
                            (gpus[i].pci && *gpus[i].pci && same_bus_id(entry, gpus[i].pci)))
                                found = (int) gpus[i].index, count++;
                int mig_count = 0, mig = mig_gpu(s, entry, &mig_count);
                if (mig_count)
                        found = mig, count += mig_count;
        }
        if (count == 1) {
                *gpu = found;
                return true;
        }
        *error = count ? g_strdup_printf("%s: \"%s\" names %d GPUs: give more of the UUID", what, entry, count)
                 : n ? g_strdup_printf("%s: \"%s\" names no GPU (an NVML index, a UUID or its start, a PCI bus id, "
                                       "or soc; jetsonctl status lists them)", what, entry)
                     : g_strdup_printf("%s: \"%s\" names no GPU: this machine has no discrete GPU%s", what, entry,
                                       has_soc ? " (its own GPU is \"soc\")" : "");
        return false;
}

static int by_bus(gconstpointer a, gconstpointer b)
{
        const jc_gpu_ident *x = a, *y = b;
        int c = g_ascii_strcasecmp(x->pci ? x->pci : "", y->pci ? y->pci : "");
        return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* CUDA_VISIBLE_DEVICES: ordinals count the discrete GPUs in PCI bus
 * order (on a Jetson without one, 0 is the SoC's). */
static bool take_visible(jc_gpu_filter *f, const char *visible, const jc_gpu_ident *gpus, size_t n,
                         const jc_sample *s, bool has_soc, char **error)
{
        g_autofree jc_gpu_ident *ordered = g_new0(jc_gpu_ident, n + 1);
        if (n)
                memcpy(ordered, gpus, n * sizeof(*gpus));
        if (n > 1)
                qsort(ordered, n, sizeof(*ordered), by_bus);
        /* Set but empty: CUDA sees no device. */
        g_autofree char *trimmed = g_strstrip(g_strdup(visible));
        if (!*trimmed)
                return true;
        g_auto(GStrv) entries = g_strsplit(visible, ",", -1);
        for (char **e = entries; *e; e++) {
                char *entry = g_strstrip(*e);
                g_autofree char *what = g_strdup_printf("CUDA_VISIBLE_DEVICES=%s, entry %d", visible,
                                                        (int) (e - entries) + 1);
                uint64_t ordinal;
                int gpu;
                if (jc_parse_uint(entry, G_MAXINT, &ordinal)) {
                        if (ordinal < n) {
                                take_gpu(f, (int) ordered[ordinal].index);
                                continue;
                        }
                        if (!n && has_soc && ordinal == 0) {
                                take_gpu(f, -1);
                                continue;
                        }
                        *error = g_strdup_printf("%s: CUDA has no device %s here (%zu%s), and would ignore it "
                                                 "and every entry after it",
                                                 what, entry, n ? n : (size_t) has_soc,
                                                 (n ? n : (size_t) has_soc) == 1 ? " device" : " devices");
                        return false;
                }
                if (!resolve(entry, gpus, n, s, has_soc, what, &gpu, error))
                        return false;
                take_gpu(f, gpu);
        }
        return true;
}

static bool has_soc_gpu(const jc_sample *s)
{
        GVariantIter it;
        const char *key;
        GVariant *value;
        bool soc = false;
        if (!s || !s->values)
                return false;
        g_variant_iter_init(&it, s->values);
        while (!soc && g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                soc = g_str_has_prefix(key, "gpu.");
                g_variant_unref(value);
        }
        return soc;
}

bool jc_gpu_filter_from_options(jc_gpu_filter *f, const jc_gpu_ident *gpus, size_t n, const jc_sample *s,
                                const char *only, bool only_visible, const char *visible, const char *owners,
                                const char *pids, char **error)
{
        jc_gpu_filter_clear(f);
        f->dgpus = g_hash_table_new(g_direct_hash, g_direct_equal);
        bool soc = has_soc_gpu(s);
        if (only) {
                f->gpus_limited = true;
                g_auto(GStrv) entries = g_strsplit(only, ",", -1);
                for (char **e = entries; *e; e++) {
                        g_autofree char *what = g_strdup_printf("--only %s", only);
                        int gpu;
                        if (!resolve(g_strstrip(*e), gpus, n, s, soc, what, &gpu, error))
                                return false;
                        take_gpu(f, gpu);
                }
        }
        if (only_visible && visible) {
                /* With --only too, the GPUs both name. */
                jc_gpu_filter vis = { .dgpus = g_hash_table_new(g_direct_hash, g_direct_equal) };
                bool ok = take_visible(&vis, visible, gpus, n, s, soc, error);
                if (ok && only) {
                        GHashTableIter it;
                        gpointer key;
                        g_hash_table_iter_init(&it, f->dgpus);
                        while (g_hash_table_iter_next(&it, &key, NULL))
                                if (!g_hash_table_contains(vis.dgpus, key))
                                        g_hash_table_iter_remove(&it);
                        f->soc = f->soc && vis.soc;
                } else if (ok) {
                        g_hash_table_unref(f->dgpus);
                        f->dgpus = g_hash_table_ref(vis.dgpus);
                        f->soc = vis.soc;
                }
                f->gpus_limited = true;
                jc_gpu_filter_clear(&vis);
                if (!ok)
                        return false;
        }
        if (owners) {
                f->owners = g_strsplit(owners, ",", -1);
                for (char **o = f->owners; *o; o++)
                        g_strstrip(*o);
        }
        if (pids) {
                f->pids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
                g_auto(GStrv) entries = g_strsplit(pids, ",", -1);
                for (char **e = entries; *e; e++) {
                        uint64_t pid;
                        if (!jc_parse_uint(g_strstrip(*e), UINT32_MAX, &pid) || pid == 0) {
                                *error = g_strdup_printf("--pid %s: \"%s\" is not a PID", pids, *e);
                                return false;
                        }
                        uint32_t p = (uint32_t) pid;
                        g_array_append_val(f->pids, p);
                }
        }
        return true;
}

bool jc_gpu_filter_from_jetsonctl(jc_gpu_filter *f, GPtrArray *dgpus, const jc_sample *s, char **error)
{
        g_autofree jc_gpu_ident *ids = g_new0(jc_gpu_ident, dgpus ? dgpus->len + 1 : 1);
        size_t n = 0;
        for (guint i = 0; dgpus && i < dgpus->len; i++) {
                const jc_object *g = g_ptr_array_index(dgpus, i);
                GVariant *props = g->props;
                const char *uuid = NULL, *pci = NULL;
                if (props) {
                        g_variant_lookup(props, "UUID", "&s", &uuid);
                        g_variant_lookup(props, "PciBusId", "&s", &pci);
                }
                ids[n++] = (jc_gpu_ident) { .index = g->index, .uuid = uuid ? uuid : "", .pci = pci ? pci : "" };
        }
        return jc_gpu_filter_from_options(f, ids, n, s, jc_filter_only, jc_filter_only_visible,
                                          g_getenv("CUDA_VISIBLE_DEVICES"), jc_filter_owners, jc_filter_pids, error);
}

bool jc_gpu_filter_keeps_gpu(const jc_gpu_filter *f, int gpu)
{
        if (!f->gpus_limited)
                return true;
        return gpu < 0 ? f->soc : g_hash_table_contains(f->dgpus, GUINT_TO_POINTER((guint) gpu + 1));
}

bool jc_gpu_filter_keeps_process(const jc_gpu_filter *f, uint32_t pid, const char *user)
{
        if (f->owners && !g_strv_contains((const char *const *) f->owners, user ? user : ""))
                return false;
        for (guint i = 0; f->pids && i < f->pids->len; i++)
                if (g_array_index(f->pids, uint32_t, i) == pid)
                        return true;
        return !f->pids;
}

/* The GPU KEY is of: an NVML index, -1 the SoC's, -2 none; *PID the
 * process of a process.PID key (0 none). */
static int key_gpu(const char *key, uint32_t *pid)
{
        unsigned n, p;
        int end = 0;
        *pid = 0;
        if (g_str_has_prefix(key, "gpu."))
                return -1;
        if (sscanf(key, "dgpu.%u.%n", &n, &end) == 1 && end)
                return n <= G_MAXINT ? (int) n : -2;
        if (sscanf(key, "process.%u.%n", &p, &end) == 1 && end) {
                *pid = p;
                end = 0;
                if (sscanf(key, "process.%u.dgpu.%u.%n", &p, &n, &end) == 2 && end)
                        return n <= G_MAXINT ? (int) n : -2;
        }
        return -2;
}

/* What a process's keys say, for the filter. */
typedef struct {
        const char *user;
        bool has_gpu_mem, on_kept_dgpu, on_any_dgpu;
        double gpu_mem, dgpu_mem, kept_dgpu_mem;
} process_use;

static process_use *use_of(GHashTable *uses, uint32_t pid)
{
        process_use *u = g_hash_table_lookup(uses, GUINT_TO_POINTER(pid));
        if (!u) {
                u = g_new0(process_use, 1);
                g_hash_table_insert(uses, GUINT_TO_POINTER(pid), u);
        }
        return u;
}

/* V as a number (jc_variant_number), 0 where it is none. */
static double number(GVariant *v)
{
        double x;
        return jc_variant_number(v, &x) ? x : 0;
}

/* Whether the process is shown; its GPU memory then counts the GPUs shown
 * alone (*GPU_MEM): the SoC's share (process.PID.gpu_mem less its discrete
 * GPUs') where the SoC's GPU is shown, and the discrete GPUs shown. */
static bool keep_process(const jc_gpu_filter *f, uint32_t pid, const process_use *u, double *gpu_mem)
{
        if (!jc_gpu_filter_keeps_process(f, pid, u->user ? u->user : ""))
                return false;
        if (!f->gpus_limited)
                return true;
        double soc_share = u->has_gpu_mem && u->gpu_mem > u->dgpu_mem ? u->gpu_mem - u->dgpu_mem : 0;
        bool on_soc = u->has_gpu_mem ? soc_share > 0 : !u->on_any_dgpu;
        *gpu_mem = (f->soc ? soc_share : 0) + u->kept_dgpu_mem;
        return u->on_kept_dgpu || (f->soc && on_soc);
}

void jc_gpu_filter_sample(const jc_gpu_filter *f, jc_sample *s)
{
        if ((!f->gpus_limited && !f->owners && !f->pids) || !s->values)
                return;
        g_autoptr(GHashTable) uses = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        GVariantIter it;
        const char *key;
        GVariant *value;
        uint32_t pid;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                int gpu = key_gpu(key, &pid);
                if (pid) {
                        process_use *u = use_of(uses, pid);
                        const char *field = strchr(key + 8, '.') + 1;
                        if (strcmp(field, "user") == 0 && g_variant_is_of_type(value, G_VARIANT_TYPE_STRING))
                                u->user = g_variant_get_string(value, NULL); /* s->values holds it */
                        else if (strcmp(field, "gpu_mem") == 0)
                                u->has_gpu_mem = true, u->gpu_mem = number(value);
                        if (gpu >= 0) {
                                bool kept = jc_gpu_filter_keeps_gpu(f, gpu);
                                u->on_any_dgpu = true;
                                u->on_kept_dgpu |= kept;
                                if (g_str_has_suffix(key, ".mem") && strstr(field, "dgpu.") == field &&
                                    strchr(field + 5, '.') == strrchr(field, '.')) {
                                        u->dgpu_mem += number(value);
                                        u->kept_dgpu_mem += kept ? number(value) : 0;
                                }
                        }
                }
                g_variant_unref(value);
        }
        GVariantBuilder b;
        g_variant_builder_init(&b, G_VARIANT_TYPE("a{sv}"));
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                int gpu = key_gpu(key, &pid);
                double gpu_mem = 0;
                bool keep = gpu == -2 || jc_gpu_filter_keeps_gpu(f, gpu);
                if (keep && pid)
                        keep = keep_process(f, pid, g_hash_table_lookup(uses, GUINT_TO_POINTER(pid)), &gpu_mem);
                if (keep && pid && f->gpus_limited && g_str_has_suffix(key, ".gpu_mem") &&
                    strchr(key + 8, '.') == strrchr(key, '.'))
                        g_variant_builder_add(&b, "{sv}", key, g_variant_new_uint64((guint64) gpu_mem));
                else if (keep)
                        g_variant_builder_add(&b, "{sv}", key, value);
                g_variant_unref(value);
        }
        GVariant *old = s->values;
        s->values = g_variant_ref_sink(g_variant_builder_end(&b));
        g_variant_unref(old);
}

void jc_gpu_filter_objects(const jc_gpu_filter *f, GPtrArray *dgpus)
{
        for (guint i = dgpus ? dgpus->len : 0; i-- > 0;)
                if (!jc_gpu_filter_keeps_gpu(f, (int) ((const jc_object *) g_ptr_array_index(dgpus, i))->index))
                        g_ptr_array_remove_index(dgpus, i);
}
