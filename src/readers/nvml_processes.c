/* NVML's process lists and each process's SM use (nvml.h). */
#include <stdlib.h>

#include "grow.h"
#include "nvml_private.h"

static jd_nvml_process *process_slot(jd_nvml_gpu *g, unsigned pid)
{
        for (size_t i = 0; i < g->n_processes; i++)
                if (g->processes[i].pid == pid)
                        return &g->processes[i];
        jd_nvml_process *room = jd_grow(g->processes, &g->cap_processes, g->n_processes + 1, sizeof(*room));
        if (!room)
                return NULL; /* out of memory */
        g->processes = room;
        jd_nvml_process *p = &g->processes[g->n_processes++];
        *p = (jd_nvml_process) { .pid = pid };
        return p;
}

/* INFO, from the compute or the graphics list, into P. A process in both
 * lists has one memory, counted once: the later list's (graphics is read
 * second), the newer reading of memory that grows between the calls, as
 * nvitop keeps it; the earlier one stays where the later has none. */
static void merge_process(jd_nvml_process *p, const nvmlProcessInfo_t *info, bool compute)
{
        if (compute)
                p->compute = true;
        else
                p->graphics = true;
        if (info->usedGpuMemory != NVML_VALUE_NOT_AVAILABLE)
                JD_SET(p->mem_kib, info->usedGpuMemory / 1024);
}

void jd_nvml_read_processes(jd_nvml_gpu *g, nvml_processes_fn *fn, nvmlDevice_t dev, bool compute)
{
        nvmlProcessInfo_t *infos = NULL;
        unsigned count = 0, room = 64;
        nvmlReturn_t r = NVML_ERROR_INSUFFICIENT_SIZE;
        for (int tries = 0; r == NVML_ERROR_INSUFFICIENT_SIZE && tries < LIST_TRIES; tries++) {
                nvmlProcessInfo_t *bigger = realloc(infos, room * sizeof(*infos));
                if (!bigger)
                        break;
                infos = bigger;
                count = room;
                r = CALL(fn, dev, &count, infos);
                if (r == NVML_ERROR_INSUFFICIENT_SIZE)
                        room = count + LIST_SLACK;
        }
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        for (unsigned i = 0; r == NVML_SUCCESS && i < count && i < room; i++) {
                jd_nvml_process *p = process_slot(g, infos[i].pid);
                if (!p)
                        break;
                merge_process(p, &infos[i], compute);
                /* With MIG on, NVML says in which GPU instance (else ~0). */
                if (g->mig && infos[i].gpuInstanceId != 0xFFFFFFFFu)
                        JD_SET(p->gpu_instance, infos[i].gpuInstanceId);
        }
        free(infos);
}

/* A sample's SM, memory bandwidth, encoder and decoder use, into P. */
static void set_use(jd_nvml_process *p, const nvmlProcessUtilizationSample_t *s)
{
        JD_SET(p->sm, s->smUtil);
        JD_SET(p->mem_util, s->memUtil);
        JD_SET(p->enc, s->encUtil);
        JD_SET(p->dec, s->decUtil);
}

/* Each process's SM and memory bandwidth use over NVML's last interval. LISTED_ONLY: only
 * for G's listed processes (a sample may outlive its process); else a
 * process for each sample, for jd_nvml_gpu_merge to match later. */
void jd_nvml_read_process_sm(jd_nvml *n, jd_nvml_gpu *g, nvmlDevice_t dev, unsigned index, bool listed_only)
{
        nvmlProcessUtilizationSample_t *samples = NULL;
        unsigned count = 0, room = (unsigned) g->n_processes + LIST_SLACK;
        /* Atomic: two threads may read one GPU's parts (gpu_poller.c). */
        unsigned long long since = index < MAX_GPUS ? __atomic_load_n(&n->last_seen_us[index], __ATOMIC_RELAXED) : 0;
        nvmlReturn_t r = NVML_ERROR_INSUFFICIENT_SIZE;
        for (int tries = 0; r == NVML_ERROR_INSUFFICIENT_SIZE && tries < LIST_TRIES; tries++) {
                nvmlProcessUtilizationSample_t *bigger = realloc(samples, room * sizeof(*samples));
                if (!bigger)
                        break;
                samples = bigger;
                count = room;
                r = CALL(n->process_util, dev, samples, &count, since);
                if (r == NVML_ERROR_INSUFFICIENT_SIZE)
                        room = count + LIST_SLACK;
        }
        if (r == NVML_ERROR_GPU_IS_LOST)
                g->lost = true;
        if (r != NVML_SUCCESS) {
                free(samples);
                return;
        }
        unsigned long long newest = since;
        for (unsigned i = 0; i < count && i < room; i++) {
                if (listed_only) {
                        for (size_t k = 0; k < g->n_processes; k++)
                                if (g->processes[k].pid == samples[i].pid)
                                        set_use(&g->processes[k], &samples[i]);
                } else {
                        jd_nvml_process *p = process_slot(g, samples[i].pid);
                        if (p)
                                set_use(p, &samples[i]);
                }
                if (samples[i].timeStamp > newest)
                        newest = samples[i].timeStamp;
        }
        if (index < MAX_GPUS)
                __atomic_store_n(&n->last_seen_us[index], newest, __ATOMIC_RELAXED);
        free(samples);
}

size_t jd_nvml_add_gpu_users(jd_gpu_user **usersp, size_t *cap, size_t n, const jd_nvml_gpu *g)
{
        for (size_t p = 0; p < g->n_processes; p++) {
                size_t k = 0;
                while (k < n && (*usersp)[k].pid != g->processes[p].pid)
                        k++;
                if (k == n) {
                        jd_gpu_user *grown = jd_grow(*usersp, cap, n + 1, sizeof(*grown));
                        if (!grown)
                                break; /* out of memory: those so far */
                        *usersp = grown;
                        grown[n++] = (jd_gpu_user) { .pid = g->processes[p].pid };
                }
                jd_gpu_user *users = *usersp;
                if (g->processes[p].mem_kib.present)
                        users[k].gpu_kib += g->processes[p].mem_kib.value;
        }
        return n;
}
