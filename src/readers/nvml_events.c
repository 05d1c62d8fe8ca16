/* A GPU's health as DCGM reports it (nvml.h, JD_NVML_HEALTH): memory
 * temperature, PCIe replays and XID errors. Each value NVML answers
 * NOT_SUPPORTED for, or whose entry point the driver lacks, is absent. */
#include <math.h>
#include <string.h>

#include "nvml_private.h"

/* XID events taken from a set in one read: a GPU in trouble may raise
 * many, and the rest wait for the next read rather than hold this one. */
#define MAX_EVENTS_A_READ 64

bool jd_nvml_field_double(const nvmlFieldValue_t *f, double *out)
{
        if (f->nvmlReturn != NVML_SUCCESS)
                return false;
        switch (f->valueType) {
        case NVML_VALUE_TYPE_DOUBLE: *out = f->value.dVal; break;
        case NVML_VALUE_TYPE_UNSIGNED_INT: *out = f->value.uiVal; break;
        case NVML_VALUE_TYPE_UNSIGNED_LONG: *out = (double) f->value.ulVal; break;
        case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: *out = (double) f->value.ullVal; break;
        case NVML_VALUE_TYPE_SIGNED_LONG_LONG: *out = (double) f->value.sllVal; break;
        case NVML_VALUE_TYPE_SIGNED_INT: *out = f->value.siVal; break;
        case NVML_VALUE_TYPE_UNSIGNED_SHORT: *out = f->value.usVal; break;
        default: return false;
        }
        return isfinite(*out);
}

static void read_mem_temp(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev)
{
        nvmlFieldValue_t f;
        memset(&f, 0, sizeof(f));
        f.fieldId = NVML_FI_DEV_MEMORY_TEMP;
        nvmlReturn_t r = CALL(n->field_values, dev, 1, &f);
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        double c = 0;
        /* GDDR boards answer with an error of the field's own. */
        if (r == NVML_SUCCESS && jd_nvml_field_double(&f, &c) && c >= 0)
                JD_SET(g->mem_temp_c, (uint64_t) llround(c));
}

/* Registers GPU DEV's XID events in a set of its own (so that a GPU's
 * thread drains only its own), once; false once the GPU is lost. Under
 * S->mu. */
static bool register_events(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, struct jd_nvml_slow *s)
{
        if (s->events_tried)
                return true;
        s->events_tried = true;
        nvmlEventSet_t set = NULL;
        if (CALL(n->event_set_create, &set) != NVML_SUCCESS || !set || !n->event_set_wait || !n->event_set_free)
                return true;
        nvmlReturn_t r = CALL(n->register_events, dev, nvmlEventTypeXidCriticalError, set);
        if (r != NVML_SUCCESS) {
                /* NOT_SUPPORTED: no XID events from this GPU; xid stays absent. */
                n->event_set_free(set);
                if (r == NVML_ERROR_GPU_IS_LOST)
                        g->lost = true;
                return !g->lost;
        }
        s->events = set;
        return true;
}

/* The XID events pending in S's set, taken without waiting. Under S->mu. */
static void drain_events(jd_nvml *n, struct jd_nvml_slow *s)
{
        for (int i = 0; i < MAX_EVENTS_A_READ; i++) {
                nvmlEventData_t e;
                memset(&e, 0, sizeof(e));
                if (n->event_set_wait(s->events, &e, 0) != NVML_SUCCESS)
                        return; /* NVML_ERROR_TIMEOUT: none pending */
                if (!(e.eventType & nvmlEventTypeXidCriticalError))
                        continue;
                s->xid = e.eventData;
                s->xid_count++;
        }
}

void jd_nvml_read_health(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index)
{
        read_mem_temp(n, g, dev);
        if (g->lost)
                return;
        /* The call first, then its value (an argument's order is unspecified). */
        unsigned v = 0;
        nvmlReturn_t r = CALL(n->pcie_replays, dev, &v);
        if (!jd_nvml_set_u64(g, r, &g->pcie_replays, v) || index >= MAX_GPUS)
                return;
        struct jd_nvml_slow *s = &n->slow[index];
        pthread_mutex_lock(&s->mu);
        if (register_events(n, g, dev, s) && s->events) {
                drain_events(n, s);
                /* DCGM's last XID is 0 until one comes: a true value once
                 * the events are registered. */
                JD_SET(g->xid, s->xid);
                JD_SET(g->xid_count, s->xid_count);
        }
        pthread_mutex_unlock(&s->mu);
}

static void free_gpm(jd_nvml *n, struct jd_nvml_slow *s)
{
        for (int k = 0; k < 2; k++) {
                if (s->gpm_sample[k].handle && n->gpm_sample_free)
                        n->gpm_sample_free(s->gpm_sample[k]);
                s->gpm_sample[k].handle = NULL;
        }
        s->gpm_last = -1;
        s->gpm_tried = s->gpm_on = false;
}

void jd_nvml_slow_reset(jd_nvml *n, unsigned index)
{
        if (index >= MAX_GPUS)
                return;
        struct jd_nvml_slow *s = &n->slow[index];
        pthread_mutex_lock(&s->mu);
        if (s->events)
                n->event_set_free(s->events);
        s->events = NULL;
        s->events_tried = false;
        free_gpm(n, s);
        pthread_mutex_unlock(&s->mu);
}

void jd_nvml_slow_free(jd_nvml *n)
{
        for (unsigned i = 0; i < MAX_GPUS; i++) {
                jd_nvml_slow_reset(n, i);
                pthread_mutex_destroy(&n->slow[i].mu);
        }
}
