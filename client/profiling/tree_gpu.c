#include "tree_gpu.h"

#include <inttypes.h>
#include <string.h>

static uint64_t number_of(GVariant *v)
{
        if (g_variant_is_of_type(v, G_VARIANT_TYPE_UINT64))
                return g_variant_get_uint64(v);
        if (g_variant_is_of_type(v, G_VARIANT_TYPE_UINT32))
                return g_variant_get_uint32(v);
        if (g_variant_is_of_type(v, G_VARIANT_TYPE_DOUBLE))
                return (uint64_t) MAX(g_variant_get_double(v), 0);
        return 0;
}

/* One tree process's keys ("process.PID." prefix) in VALUES: its GPU
 * memory, the discrete GPUs it is on (bits of *DGPUS, by index below 64),
 * its SM use summed (false when a context lacks it). */
static void one_process(GVariant *values, const char *prefix, uint64_t *mem_kib, uint64_t *dgpu_kib, uint64_t *dgpus,
                        double *sm, bool *sm_known)
{
        size_t n = strlen(prefix);
        GVariantIter it;
        const char *key;
        GVariant *v;
        uint64_t on_sm = 0;
        g_variant_iter_init(&it, values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &v)) {
                if (strncmp(key, prefix, n) == 0) {
                        const char *rest = key + n;
                        char *end = NULL;
                        if (strcmp(rest, "gpu_mem") == 0)
                                *mem_kib += number_of(v);
                        else if (g_str_has_prefix(rest, "dgpu.")) {
                                guint64 gpu = g_ascii_strtoull(rest + 5, &end, 10);
                                if (end != rest + 5 && *end == '.' && gpu < 64) {
                                        *dgpus |= 1ull << gpu;
                                        if (strcmp(end, ".mem") == 0)
                                                *dgpu_kib += number_of(v);
                                        else if (strcmp(end, ".sm") == 0 &&
                                                 g_variant_is_of_type(v, G_VARIANT_TYPE_DOUBLE)) {
                                                *sm += g_variant_get_double(v);
                                                on_sm |= 1ull << gpu;
                                        }
                                }
                        }
                }
                g_variant_unref(v);
        }
        /* NVML reads per-process SM use every 10 s: a context newer than
         * that has none yet, and the sum is not known. */
        uint64_t mine = 0;
        g_variant_iter_init(&it, values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &v)) {
                char *end = NULL;
                if (strncmp(key, prefix, n) == 0 && g_str_has_prefix(key + n, "dgpu.")) {
                        guint64 gpu = g_ascii_strtoull(key + n + 5, &end, 10);
                        if (end != key + n + 5 && gpu < 64)
                                mine |= 1ull << gpu;
                }
                g_variant_unref(v);
        }
        if ((mine & ~on_sm) != 0)
                *sm_known = false;
}

static bool has_discrete_gpu(GVariant *values)
{
        GVariantIter it;
        const char *key;
        GVariant *v;
        bool any = false;
        g_variant_iter_init(&it, values);
        while (!any && g_variant_iter_next(&it, "{&sv}", &key, &v)) {
                any = g_str_has_prefix(key, "dgpu.") && g_ascii_isdigit(key[5]);
                g_variant_unref(v);
        }
        return any;
}

void jc_tree_gpu_figures(GVariant *values, const uint32_t *pids, size_t n, jc_tree_figures *out)
{
        uint64_t mem = 0, dgpu_mem = 0, dgpus = 0;
        double sm = 0;
        bool sm_known = true;
        for (size_t i = 0; i < n; i++) {
                if (!pids[i])
                        continue;
                /* Each process's memory beyond its discrete GPUs' is the
                 * integrated GPU's (nvmap). */
                uint64_t m = 0, d = 0;
                g_autofree char *prefix = g_strdup_printf("process.%" PRIu32 ".", pids[i]);
                one_process(values, prefix, &m, &d, &dgpus, &sm, &sm_known);
                mem += m;
                dgpu_mem += d;
        }
        out->have_gpu = true;
        out->gpu_mem_kib = mem;
        out->gpus_busy = (unsigned) __builtin_popcountll(dgpus) + (mem > dgpu_mem ? 1 : 0);
        out->have_sm = sm_known && has_discrete_gpu(values);
        out->sm_percent = out->have_sm ? sm : 0;
}
