#include "reading.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"

/* Only the header is set: a tier copies just its own parts, so the
 * fast tier does not clear the slow tier's 30 KiB a thousand times a
 * second. The values' memory, if any, is kept for the copy. */
static void reset_header(jd_reading *r, unsigned tier)
{
        atomic_init(&r->refs, 1);
        r->tier = tier;
        r->seq = r->generation = 0;
        r->requested = false;
        r->read_tiers = 0;
        r->started_ns = 0;
        r->started_us = r->finished_us = r->deadline_us = 0;
        memset(&r->part, 0, sizeof(r->part));
        r->values.n = 0;
}

static jd_reading *alloc_reading(unsigned tier)
{
        jd_reading *r = malloc(sizeof(*r));
        if (!r)
                return NULL;
        jd_values_init(&r->values);
        reset_header(r, tier);
        return r;
}

jd_reading *jd_reading_new_empty(unsigned tier)
{
        return alloc_reading(tier);
}

/* An array a part points to is the reader's, rewritten at its next
 * reading: the reading keeps a copy of its own. */
#define COPY_ARRAY(name, field, count)                                                          \
        do {                                                                                    \
                if (r->part.name) {                                                             \
                        r->name.field = jd_memdup(sample->name->field, sample->name->count,     \
                                                  sizeof(*r->name.field), &ok);                 \
                        if (!r->name.field)                                                     \
                                r->name.count = 0;                                              \
                }                                                                               \
        } while (0)

#define COPY_PART(name)                                 \
        do {                                            \
                if (sample->name) {                     \
                        r->name = *sample->name;        \
                        r->part.name = &r->name;        \
                }                                       \
        } while (0)

static void free_copies(jd_reading *r);

/* Copies SAMPLE's parts and VALUES into R, which has no parts; on failure
 * R is released. */
static jd_reading *fill(jd_reading *r, const jd_sample *sample, const jd_values *values)
{
        r->part.timestamp_us = sample->timestamp_us;
        r->part.jetson_clocks_active = sample->jetson_clocks_active;
        COPY_PART(cpu);
        r->cpu.cores = NULL; /* the reader's until copied below */
        if (sample->cpu && sample->cpu->n_cores) {
                r->cpu.cores = malloc(sample->cpu->n_cores * sizeof(jd_cpu_core));
                if (!r->cpu.cores) {
                        r->cpu.n_cores = 0;
                        jd_reading_unref(r);
                        return NULL;
                }
                memcpy(r->cpu.cores, sample->cpu->cores, sample->cpu->n_cores * sizeof(jd_cpu_core));
        }
        bool ok = true;
        COPY_PART(gpu);
        COPY_PART(emc);
        COPY_PART(memory);
        COPY_PART(power);
        COPY_ARRAY(power, rails, n);
        COPY_PART(engines);
        COPY_ARRAY(engines, engines, n);
        COPY_PART(throttle);
        COPY_ARRAY(throttle, oc, n_oc);
        COPY_ARRAY(throttle, caps, n_caps);
        COPY_PART(thermal);
        COPY_ARRAY(thermal, zones, n);
        COPY_PART(fans);
        COPY_ARRAY(fans, fans, n);
        r->fans.cap = r->fans.n;
        for (size_t i = 0; r->part.fans && i < r->fans.n; i++) {
                if (!jd_fan_profiles_dup(&sample->fans->fans[i], &r->fans.fans[i].profiles))
                        ok = false;
                r->fans.fans[i].cap_profiles = r->fans.fans[i].n_profiles;
        }
        COPY_PART(nvpmodel);
        COPY_ARRAY(nvpmodel, modes, n_modes);
        r->nvpmodel.cap_modes = r->nvpmodel.n_modes;
        COPY_PART(swap);
        COPY_ARRAY(swap, swaps, n);
        r->swap.cap = r->swap.n;
        COPY_PART(processes);
        COPY_ARRAY(processes, procs, n);
        COPY_PART(system);
        if (!ok || !jd_values_copy(&r->values, values)) {
                jd_reading_unref(r);
                return NULL;
        }
        return r;
}

jd_reading *jd_reading_new(unsigned tier, const jd_sample *sample, const jd_values *values)
{
        jd_reading *r = alloc_reading(tier);
        return r ? fill(r, sample, values) : NULL;
}

jd_reading *jd_reading_renew(jd_reading *r, unsigned tier, const jd_sample *sample, const jd_values *values)
{
        free_copies(r);
        reset_header(r, tier);
        return fill(r, sample, values);
}

jd_reading *jd_reading_ref(jd_reading *r)
{
        atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
        return r;
}

bool jd_reading_unshared(jd_reading *r)
{
        return atomic_load_explicit(&r->refs, memory_order_acquire) == 1;
}

/* The arrays a reading's parts own; not its values, nor itself. */
static void free_copies(jd_reading *r)
{
        if (r->part.cpu)
                free(r->cpu.cores);
        if (r->part.power)
                free(r->power.rails);
        if (r->part.engines)
                free(r->engines.engines);
        if (r->part.swap)
                free(r->swap.swaps);
        if (r->part.nvpmodel)
                free(r->nvpmodel.modes);
        if (r->part.processes)
                free(r->processes.procs);
        for (size_t i = 0; r->part.fans && i < r->fans.n; i++)
                free(r->fans.fans[i].profiles);
        if (r->part.fans)
                free(r->fans.fans);
        if (r->part.throttle) {
                free(r->throttle.oc);
                free(r->throttle.caps);
        }
        if (r->part.thermal)
                free(r->thermal.zones);
}

void jd_reading_unref(jd_reading *r)
{
        if (!r || atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1)
                return;
        free_copies(r);
        free(r->values.items);
        free(r);
}
