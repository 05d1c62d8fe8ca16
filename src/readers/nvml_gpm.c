/* GPU Performance Monitoring (nvml.h, JD_NVML_GPM): the activities
 * dcgm-exporter reports as DCGM_FI_PROF_*, on Hopper and newer. NVML
 * computes a metric from two samples, over the time between them: each
 * read takes a sample and gives the metrics since the read before; the
 * first read, and a GPU without GPM, give none. */
#include <math.h>
#include <string.h>

#include "nvml_private.h"

/* Whether GPU DEV has GPM, asked once (again after a loss), with its two
 * samples allocated; false once the GPU is lost. Under S->mu. */
static bool gpm_ready(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, struct jd_nvml_slow *s)
{
        if (s->gpm_tried)
                return s->gpm_on;
        s->gpm_tried = true;
        if (!n->gpm_sample_alloc || !n->gpm_sample_free || !n->gpm_sample_get || !n->gpm_metrics_get)
                return false;
        nvmlGpmSupport_t support = { .version = NVML_GPM_SUPPORT_VERSION };
        nvmlReturn_t r = CALL(n->gpm_support, dev, &support);
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        if (r != NVML_SUCCESS || !support.isSupportedDevice)
                return false;
        for (int k = 0; k < 2; k++)
                if (n->gpm_sample_alloc(&s->gpm_sample[k]) != NVML_SUCCESS)
                        s->gpm_sample[k].handle = NULL;
        s->gpm_on = s->gpm_sample[0].handle && s->gpm_sample[1].handle;
        s->gpm_last = -1;
        return s->gpm_on;
}

void jd_nvml_read_gpm(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index)
{
        if (index >= MAX_GPUS)
                return;
        struct jd_nvml_slow *s = &n->slow[index];
        pthread_mutex_lock(&s->mu);
        if (!gpm_ready(n, g, dev, s))
                goto out;
        int cur = s->gpm_last == 0 ? 1 : 0;
        nvmlReturn_t r = n->gpm_sample_get(dev, s->gpm_sample[cur]);
        if (r != NVML_SUCCESS) {
                if (r == NVML_ERROR_GPU_IS_LOST)
                        g->lost = true;
                s->gpm_last = -1; /* the next read starts the interval anew */
                goto out;
        }
        int prev = s->gpm_last;
        s->gpm_last = cur;
        if (prev < 0)
                goto out;
        /* ~19 KiB: off the thread's stack. */
        static _Thread_local nvmlGpmMetricsGet_t m;
        memset(&m, 0, sizeof(m));
        m.version = NVML_GPM_METRICS_GET_VERSION;
        m.sample1 = s->gpm_sample[prev];
        m.sample2 = s->gpm_sample[cur];
        const unsigned ids[] = { NVML_GPM_METRIC_ANY_TENSOR_UTIL, NVML_GPM_METRIC_GRAPHICS_UTIL,
                                 NVML_GPM_METRIC_DRAM_BW_UTIL };
        jd_opt_dbl *out[] = { &g->tensor_active, &g->graphics_active, &g->dram_active };
        m.numMetrics = sizeof(ids) / sizeof(ids[0]);
        for (unsigned i = 0; i < m.numMetrics; i++)
                m.metrics[i].metricId = ids[i];
        if (n->gpm_metrics_get(&m) != NVML_SUCCESS)
                goto out;
        for (unsigned i = 0; i < m.numMetrics; i++)
                if (m.metrics[i].nvmlReturn == NVML_SUCCESS && isfinite(m.metrics[i].value) && m.metrics[i].value >= 0)
                        JD_SET(*out[i], m.metrics[i].value);
out:
        pthread_mutex_unlock(&s->mu);
}
