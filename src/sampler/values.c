#include "values.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

void jd_values_init(jd_values *v)
{
        v->items = NULL;
        v->n = v->cap = 0;
        v->layout = 0;
}

void jd_values_clear(jd_values *v)
{
        free(v->items);
        jd_values_init(v);
}

void jd_values_begin(jd_values *v)
{
        v->n = 0;
}

void jd_values_end(jd_values *v)
{
        /* A slot that was used last time and is not now changes the layout too. */
        if (v->n < v->cap && v->items[v->n].fmt) {
                v->items[v->n].fmt = NULL;
                v->layout++;
        }
}

static uint64_t hash_str(const char *s)
{
        uint64_t h = 14695981039346656037u; /* FNV-1a */
        for (; *s; s++)
                h = (h ^ (unsigned char) *s) * 1099511628211u;
        return h;
}

/* Spells FMT with its one "%u", "%zu" or "%s" replaced by the instance. */
static bool spell_key(char *out, size_t size, const char *fmt, uint64_t num, const char *str)
{
        const char *pct = strchr(fmt, '%');
        char inst[24];
        size_t skip = 0;
        if (pct) {
                skip = pct[1] == 'z' ? 3 : 2;
                if (pct[skip - 1] == 'u')
                        snprintf(inst, sizeof(inst), "%" PRIu64, num);
        }
        int n = pct ? snprintf(out, size, "%.*s%s%s", (int) (pct - fmt), fmt, pct[skip - 1] == 's' ? str : inst,
                               pct + skip)
                    : snprintf(out, size, "%s", fmt);
        return n >= 0 && (size_t) n < size;
}

/* Appends a value slot for the key FMT(instance). Slots are reused from
 * one sample to the next: a slot that held the same key (same format,
 * same instance) keeps its name, so a steady sample formats no key at
 * all; a different key is spelled and bumps the layout counter. */
static jd_value *add(jd_values *v, jd_value_type type, const char *fmt, uint64_t num, const char *str)
{
        if (v->n == v->cap) {
                size_t cap = v->cap ? v->cap * 2 : 256;
                jd_value *items = realloc(v->items, cap * sizeof(*items));
                if (!items)
                        return NULL;
                memset(items + v->cap, 0, (cap - v->cap) * sizeof(*items));
                v->items = items;
                v->cap = cap;
        }
        jd_value *x = &v->items[v->n];
        uint64_t h = str ? hash_str(str) : 0;
        if (x->fmt != fmt || x->num != num || x->str_hash != h) {
                x->fmt = NULL;
                if (!spell_key(x->key, sizeof(x->key), fmt, num, str))
                        return NULL; /* a key we cannot spell is left out */
                x->fmt = fmt;
                x->num = num;
                x->str_hash = h;
                v->layout++;
        }
        x->type = type;
        v->n++;
        return x;
}

/* KEY(fmt) or KEY(fmt, instance): the instance is a number (core id, fan
 * index, pid) or a name (rail, zone, engine), told apart by its type. */
#define KEY_PICK(a, b, name, ...) name
#define KEY(...) KEY_PICK(__VA_ARGS__, KEY2, KEY1, unused)(__VA_ARGS__)
#define KEY1(fmt) (fmt), 0, NULL
#define KEY2(fmt, inst)                                                                    \
        (fmt), _Generic((inst), char *: (uint64_t) 0, const char *: (uint64_t) 0, default: (inst)), \
                _Generic((inst), char *: (inst), const char *: (inst), default: (const char *) NULL)

#define ADD(v, T, field, value, ...)                                       \
        do {                                                               \
                jd_value *x_ = add((v), (T), KEY(__VA_ARGS__));            \
                if (x_)                                                    \
                        x_->field = (value);                               \
        } while (0)

/* Optional values are added only when present: absent means no key. */
/* A reading too large for its key's type is a broken read: left out, not truncated. */
#define ADD_OPT_U32(v, opt, scale, ...)                                                          \
        do {                                                                                     \
                if ((opt).present && (uint64_t) (opt).value / (scale) <= UINT32_MAX)             \
                        ADD(v, JD_VALUE_U32, u, (uint32_t) ((uint64_t) (opt).value / (scale)), __VA_ARGS__); \
        } while (0)
#define ADD_OPT_U64(v, opt, scale, ...) \
        do { if ((opt).present) ADD(v, JD_VALUE_U64, t, (uint64_t) ((opt).value / (scale)), __VA_ARGS__); } while (0)
#define ADD_OPT_DBL(v, opt, ...) \
        do { if ((opt).present) ADD(v, JD_VALUE_DOUBLE, d, (opt).value, __VA_ARGS__); } while (0)
#define ADD_OPT_BOOL(v, opt, ...) \
        do { if ((opt).present) ADD(v, JD_VALUE_BOOL, b, (opt).value, __VA_ARGS__); } while (0)

#define add_str(v, value, ...)                                                  \
        do {                                                                    \
                const char *s_ = (value);                                       \
                jd_value *x_ = s_ && s_[0] ? add((v), JD_VALUE_STRING, KEY(__VA_ARGS__)) : NULL; \
                if (x_)                                                         \
                        jd_strlcpy(x_->s, s_, sizeof(x_->s));                   \
        } while (0)

static void add_cpu(jd_values *v, const jd_cpu_sample *cpu)
{
        ADD_OPT_DBL(v, cpu->load, "cpu.load");
        if (cpu->times.present) {
                ADD(v, JD_VALUE_DOUBLE, d, cpu->times.user, "cpu.user");
                ADD(v, JD_VALUE_DOUBLE, d, cpu->times.nice, "cpu.nice");
                ADD(v, JD_VALUE_DOUBLE, d, cpu->times.system, "cpu.system");
                ADD(v, JD_VALUE_DOUBLE, d, cpu->times.idle, "cpu.idle");
        }
        for (size_t i = 0; i < cpu->n_cores; i++) {
                const jd_cpu_core *c = &cpu->cores[i];
                ADD(v, JD_VALUE_BOOL, b, c->online, "cpu.%u.online", c->id);
                ADD_OPT_DBL(v, c->load, "cpu.%u.load", c->id);
                if (c->times.present) {
                        ADD(v, JD_VALUE_DOUBLE, d, c->times.user, "cpu.%u.user", c->id);
                        ADD(v, JD_VALUE_DOUBLE, d, c->times.nice, "cpu.%u.nice", c->id);
                        ADD(v, JD_VALUE_DOUBLE, d, c->times.system, "cpu.%u.system", c->id);
                        ADD(v, JD_VALUE_DOUBLE, d, c->times.idle, "cpu.%u.idle", c->id);
                }
                ADD_OPT_U32(v, c->cur_khz, 1, "cpu.%u.freq", c->id);
                ADD_OPT_U32(v, c->min_khz, 1, "cpu.%u.min_freq", c->id);
                ADD_OPT_U32(v, c->max_khz, 1, "cpu.%u.max_freq", c->id);
                add_str(v, c->governor, "cpu.%u.governor", c->id);
        }
}

static void add_gpu(jd_values *v, const jd_gpu_sample *g)
{
        if (!g->present)
                return;
        ADD_OPT_DBL(v, g->load, "gpu.load");
        ADD_OPT_U32(v, g->cur_hz, 1000, "gpu.freq");
        ADD_OPT_U32(v, g->video_hz, 1000, "gpu.video_freq");
        ADD_OPT_U32(v, g->min_hz, 1000, "gpu.min_freq");
        ADD_OPT_U32(v, g->max_hz, 1000, "gpu.max_freq");
        for (size_t i = 0; i < g->n_gpc; i++)
                ADD_OPT_U32(v, g->gpc_hz[i], 1000, "gpu.gpc%zu.freq", i);
        add_str(v, g->governor, "gpu.governor");
        ADD_OPT_BOOL(v, g->railgate, "gpu.railgate");
        ADD_OPT_BOOL(v, g->scaling_3d, "gpu.3d_scaling");
        ADD_OPT_U32(v, g->tpc_pg_mask, 1, "gpu.tpc_pg_mask");
}

static void add_emc(jd_values *v, const jd_emc_sample *e)
{
        if (!e->present)
                return;
        ADD_OPT_DBL(v, e->load, "emc.load");
        ADD_OPT_U32(v, e->cur_hz, 1000, "emc.freq");
        ADD_OPT_U32(v, e->min_hz, 1000, "emc.min_freq");
        ADD_OPT_U32(v, jd_emc_effective_max(e), 1000, "emc.max_freq");
}

static void add_engines(jd_values *v, const jd_engines_sample *e)
{
        for (size_t i = 0; i < e->n; i++) {
                ADD_OPT_BOOL(v, e->engines[i].online, "engine.%s.online", e->engines[i].name);
                ADD_OPT_U32(v, e->engines[i].rate_hz, 1000, "engine.%s.freq", e->engines[i].name);
        }
}

static void add_memory(jd_values *v, const jd_memory_sample *m)
{
        ADD_OPT_U64(v, m->total, 1, "ram.total");
        ADD_OPT_U64(v, m->used, 1, "ram.used");
        ADD_OPT_U64(v, m->free, 1, "ram.free");
        ADD_OPT_U64(v, m->available, 1, "ram.available");
        ADD_OPT_U64(v, m->buffers, 1, "ram.buffers");
        ADD_OPT_U64(v, m->cached, 1, "ram.cached");
        ADD_OPT_U64(v, m->shared, 1, "ram.shared");
        ADD_OPT_U32(v, m->lfb, 1, "ram.lfb");
        ADD_OPT_U64(v, m->lfb_size, 1, "ram.lfb_size");
        ADD_OPT_U64(v, m->lfb_count, 1, "ram.lfb_count");
        ADD_OPT_U64(v, m->swap_total, 1, "swap.total");
        ADD_OPT_U64(v, m->swap_used, 1, "swap.used");
        ADD_OPT_U64(v, m->swap_cached, 1, "swap.cached");
        ADD_OPT_U64(v, m->swap_in, 1, "swap.in");
        ADD_OPT_U64(v, m->swap_out, 1, "swap.out");
        ADD_OPT_U64(v, m->iram_total, 1, "iram.total");
        ADD_OPT_U64(v, m->iram_used, 1, "iram.used");
}

static void add_power(jd_values *v, const jd_power_sample *p)
{
        for (size_t i = 0; i < p->n; i++) {
                const jd_rail *r = &p->rails[i];
                ADD_OPT_U32(v, r->power_mw, 1, "power.%s.power", r->name);
                ADD_OPT_U32(v, r->voltage_mv, 1, "power.%s.voltage", r->name);
                ADD_OPT_U32(v, r->current_ma, 1, "power.%s.current", r->name);
                ADD_OPT_U32(v, r->warn_ma, 1, "power.%s.warn_current", r->name);
                ADD_OPT_U32(v, r->crit_ma, 1, "power.%s.crit_current", r->name);
                /* A counter never read (RAPL's is root's alone) is no 0 J. */
                if (r->energy_known)
                        ADD(v, JD_VALUE_U64, t, (uint64_t) r->energy_mj, "energy.%s", r->name);
        }
        if (p->total_mw.present) {
                ADD_OPT_U32(v, p->total_mw, 1, "power.total");
                ADD(v, JD_VALUE_BOOL, b, p->total_is_sum, "power.total_is_sum");
                ADD(v, JD_VALUE_U64, t, (uint64_t) p->total_energy_mj, "energy.total");
        }
}

static void add_thermal(jd_values *v, const jd_thermal_sample *t)
{
        for (size_t i = 0; i < t->n; i++)
                if (t->zones[i].online)
                        ADD_OPT_DBL(v, t->zones[i].temp_c, "temp.%s", t->zones[i].key);
        /* A power-gated zone keeps its trips: they are the board's limits,
         * not a reading. */
        for (size_t i = 0; i < t->n; i++) {
                ADD_OPT_DBL(v, t->zones[i].throttle_trip_c, "temp_trip.%s.throttle", t->zones[i].key);
                ADD_OPT_DBL(v, t->zones[i].critical_trip_c, "temp_trip.%s.critical", t->zones[i].key);
        }
}

/* Over-current counters, thermal caps and the one summary every view
 * shows (throttle.h). The summary's reasons appear only where the board
 * can report them, so "no key" means "cannot tell", not "not throttled". */
static void add_throttle(jd_values *v, const jd_throttle_sample *t)
{
        for (size_t i = 0; i < t->n_oc; i++) {
                const jd_oc_channel *oc = &t->oc[i];
                ADD_OPT_U64(v, oc->events, 1, "throttle.oc%u.events", oc->channel);
                ADD_OPT_BOOL(v, oc->armed, "throttle.oc%u.armed", oc->channel);
                ADD(v, JD_VALUE_U64, t, oc->counted, "throttle.oc%u.events_counted", oc->channel);
                add_str(v, jd_oc_counter_state_name(oc->state), "throttle.oc%u.counter", oc->channel);
                ADD(v, JD_VALUE_U64, t, oc->resets, "throttle.oc%u.resets", oc->channel);
                ADD(v, JD_VALUE_U64, t, oc->failed_reads, "throttle.oc%u.failed_reads", oc->channel);
        }
        for (size_t i = 0; i < t->n_caps; i++) {
                ADD_OPT_U32(v, t->caps[i].state, 1, "throttle.cap.%s.state", t->caps[i].type);
                ADD_OPT_U32(v, t->caps[i].max_state, 1, "throttle.cap.%s.max_state", t->caps[i].type);
        }
        bool any_reason = false, active = false;
        for (int r = 0; r < JD_THROTTLE_REASONS; r++) {
                if (!t->has_reason[r])
                        continue;
                any_reason = true;
                active = active || t->active[r];
                ADD(v, JD_VALUE_BOOL, b, t->active[r], "throttle.reason.%s.active",
                    jd_throttle_reason_name((jd_throttle_reason) r));
        }
        if (!any_reason)
                return;
        char reasons[JD_VALUE_STR_MAX];
        jd_throttle_reasons_text(t, reasons, sizeof(reasons));
        ADD(v, JD_VALUE_BOOL, b, active, "throttle.active");
        add_str(v, reasons, "throttle.reasons");
        if (t->n_oc) {
                ADD_OPT_U64(v, t->oc_events_since_boot, 1, "throttle.oc_events");
                ADD(v, JD_VALUE_U64, t, t->oc_events_counted, "throttle.oc_events_counted");
        }
}

static void add_fans(jd_values *v, const jd_fan_sample *f)
{
        for (size_t i = 0; i < f->n; i++) {
                ADD_OPT_DBL(v, f->fans[i].speed, "fan.%zu.speed", i);
                ADD_OPT_U32(v, f->fans[i].pwm, 1, "fan.%zu.pwm", i);
                ADD_OPT_U32(v, f->fans[i].rpm, 1, "fan.%zu.rpm", i);
                add_str(v, f->fans[i].profile, "fan.%zu.profile", i);
        }
}

static void add_modes(jd_values *v, const jd_nvpmodel_sample *n)
{
        if (n->present) {
                ADD_OPT_U32(v, n->current_id, 1, "nvpmodel.mode");
                add_str(v, n->current_name, "nvpmodel.name");
        }
}

static void add_processes(jd_values *v, const jd_process_sample *p)
{
        for (size_t i = 0; i < p->n; i++) {
                const jd_process *x = &p->procs[i];
                add_str(v, x->name, "process.%u.name", x->pid);
                add_str(v, x->user, "process.%u.user", x->pid);
                ADD(v, JD_VALUE_U64, t, x->gpu_kib, "process.%u.gpu_mem", x->pid);
                ADD_OPT_DBL(v, x->cpu, "process.%u.cpu", x->pid);
                ADD_OPT_U64(v, x->rss_bytes, 1024, "process.%u.rss", x->pid);
                if (x->ppid)
                        ADD(v, JD_VALUE_U32, u, x->ppid, "process.%u.ppid", x->pid);
                ADD_OPT_DBL(v, x->start_time, "process.%u.start_time", x->pid);
        }
}

static void add_system(jd_values *v, const jd_system_sample *s)
{
        ADD_OPT_U64(v, s->uptime_s, 1, "uptime");
        ADD_OPT_U64(v, s->disk_total_bytes, 1, "disk.total_bytes");
        ADD_OPT_U64(v, s->disk_available_bytes, 1, "disk.available_bytes");
        ADD_OPT_U64(v, s->disk_read_bytes, 1, "disk.read_bytes");
        ADD_OPT_U64(v, s->disk_write_bytes, 1, "disk.write_bytes");
        ADD_OPT_U64(v, s->net_rx_bytes, 1, "net.rx_bytes");
        ADD_OPT_U64(v, s->net_tx_bytes, 1, "net.tx_bytes");
}

void jd_values_add_sample(jd_values *out, const jd_sample *s)
{
        if (s->cpu)
                add_cpu(out, s->cpu);
        if (s->gpu)
                add_gpu(out, s->gpu);
        if (s->emc)
                add_emc(out, s->emc);
        if (s->memory)
                add_memory(out, s->memory);
        ADD_OPT_BOOL(out, s->jetson_clocks_active, "jetson_clocks.active");
        if (s->engines)
                add_engines(out, s->engines);
        if (s->power)
                add_power(out, s->power);
        if (s->thermal)
                add_thermal(out, s->thermal);
        if (s->throttle)
                add_throttle(out, s->throttle);
        if (s->fans)
                add_fans(out, s->fans);
        if (s->nvpmodel)
                add_modes(out, s->nvpmodel);
        if (s->processes)
                add_processes(out, s->processes);
        if (s->system)
                add_system(out, s->system);
}

void jd_values_add_derived(jd_values *out, const jd_sample *s)
{
        /* GPU-shared memory: NvMapMemUsed (fast tier), else the total of
         * the nvmap client table (slow tier). */
        if (s->memory && !s->memory->shared.present && s->processes)
                ADD_OPT_U64(out, s->processes->nvmap_total_kib, 1, "ram.shared");
}

void jd_values_from_sample(jd_values *out, const jd_sample *s)
{
        jd_values_begin(out);
        jd_values_add_sample(out, s);
        jd_values_add_derived(out, s);
        jd_values_end(out);
}

bool jd_values_copy(jd_values *out, const jd_values *in)
{
        if (in->n > out->cap) {
                jd_value *items = realloc(out->items, in->n * sizeof(jd_value));
                if (!items)
                        return false;
                out->items = items;
                out->cap = in->n;
        }
        if (in->n)
                memcpy(out->items, in->items, in->n * sizeof(jd_value));
        out->n = in->n;
        out->layout = in->layout;
        return true;
}

/* The SoC's own GPU as NVML sees it (Thor's; JetPack 7.2 Orin's, where
 * NVML answers NOT_SUPPORTED for all but the name): it is gpu.*, read
 * from sysfs where sysfs has it. Its load comes from NVML only where no
 * load file exists (SYSFS_LOAD false: Thor), its temperature always (a
 * thermal zone that fails while the GPU is gated is absent meanwhile), and
 * its encoder and decoder use where NVML answers. */
static void add_integrated_gpu(jd_values *v, const jd_nvml_gpu *g, bool sysfs_load)
{
        if (g->load.present && !sysfs_load)
                ADD(v, JD_VALUE_DOUBLE, d, (double) g->load.value, "gpu.load");
        if (g->temp_c.present)
                ADD(v, JD_VALUE_DOUBLE, d, (double) g->temp_c.value, "gpu.temp");
        /* The video engines' use: NVML's alone (sysfs has their clock). */
        if (g->encoder_load.present)
                ADD(v, JD_VALUE_DOUBLE, d, (double) g->encoder_load.value, "gpu.encoder_load");
        if (g->decoder_load.present)
                ADD(v, JD_VALUE_DOUBLE, d, (double) g->decoder_load.value, "gpu.decoder_load");
}

/* NVLink: the counters in bytes, the rates since the read before in
 * bytes/s, over all links and per link; nothing on a GPU without. */
static void add_nvlink(jd_values *v, const jd_nvml_gpu *g)
{
        unsigned n = g->index;
        const jd_nvlink_counters *c = &g->nvlink;
        const jd_nvlink_rates *r = &g->nvlink_rate;
        if (!c->links)
                return;
        if (c->rx_kib.present)
                ADD(v, JD_VALUE_U64, t, c->rx_kib.value * 1024, "dgpu.%u.nvlink_rx_total", n);
        if (c->tx_kib.present)
                ADD(v, JD_VALUE_U64, t, c->tx_kib.value * 1024, "dgpu.%u.nvlink_tx_total", n);
        ADD_OPT_U64(v, r->rx, 1, "dgpu.%u.nvlink_rx", n);
        ADD_OPT_U64(v, r->tx, 1, "dgpu.%u.nvlink_tx", n);
        for (unsigned l = 0; l < c->links; l++) {
                char inst[32]; /* a key has one instance: "N.nvlink.L" */
                snprintf(inst, sizeof(inst), "%u.nvlink.%u", n, l);
                ADD_OPT_U64(v, r->link_rx[l], 1, "dgpu.%s.rx", inst);
                ADD_OPT_U64(v, r->link_tx[l], 1, "dgpu.%s.tx", inst);
        }
}

/* With MIG on, each MIG device as a device of its own, by its slot:
 * dgpu.N.mig.M.*; nothing with MIG off. */
static void add_migs(jd_values *v, const jd_nvml_gpu *g)
{
        for (unsigned i = 0; g->mig && i < g->n_migs; i++) {
                const jd_nvml_mig *m = &g->migs[i];
                char inst[32]; /* "N.mig.M": a key has one instance */
                snprintf(inst, sizeof(inst), "%u.mig.%u", g->index, m->slot);
                ADD_OPT_U64(v, m->mem_used_kib, 1, "dgpu.%s.mem_used", inst);
                ADD_OPT_U64(v, m->mem_total_kib, 1, "dgpu.%s.mem_total", inst);
                if (m->load.present)
                        ADD(v, JD_VALUE_DOUBLE, d, (double) m->load.value, "dgpu.%s.load", inst);
                ADD_OPT_U32(v, m->gpu_instance, 1, "dgpu.%s.gpu_instance", inst);
                ADD_OPT_U32(v, m->compute_instance, 1, "dgpu.%s.compute_instance", inst);
                if (m->uuid[0])
                        add_str(v, m->uuid, "dgpu.%s.uuid", inst);
        }
}

/* A discrete GPU's keys, or the integrated one's (above). NVML's whole
 * percentages become doubles, as every load and speed of the contract
 * is. */
void jd_values_add_nvml_gpu(jd_values *v, const jd_nvml_gpu *g, bool sysfs_load)
{
        if (g->lost)
                return;
        if (g->integrated) {
                add_integrated_gpu(v, g, sysfs_load);
                return;
        }
        unsigned n = g->index;
        if (g->load.present)
                ADD(v, JD_VALUE_DOUBLE, d, (double) g->load.value, "dgpu.%u.load", n);
        if (g->mem_load.present)
                ADD(v, JD_VALUE_DOUBLE, d, (double) g->mem_load.value, "dgpu.%u.mem_load", n);
        ADD_OPT_U64(v, g->mem_used_kib, 1, "dgpu.%u.mem_used", n);
        ADD_OPT_U64(v, g->mem_total_kib, 1, "dgpu.%u.mem_total", n);
        ADD_OPT_U64(v, g->mem_reserved_kib, 1, "dgpu.%u.mem_reserved", n);
        ADD_OPT_U32(v, g->freq_khz, 1, "dgpu.%u.freq", n);
        ADD_OPT_U32(v, g->sm_freq_khz, 1, "dgpu.%u.sm_freq", n);
        ADD_OPT_U32(v, g->mem_freq_khz, 1, "dgpu.%u.mem_freq", n);
        ADD_OPT_U32(v, g->video_freq_khz, 1, "dgpu.%u.video_freq", n);
        ADD_OPT_U64(v, g->bar1_used_kib, 1, "dgpu.%u.bar1_used", n);
        ADD_OPT_U64(v, g->ecc_volatile_corrected, 1, "dgpu.%u.ecc_volatile_corrected", n);
        ADD_OPT_U64(v, g->ecc_volatile_uncorrected, 1, "dgpu.%u.ecc_volatile_uncorrected", n);
        ADD_OPT_U64(v, g->ecc_aggregate_corrected, 1, "dgpu.%u.ecc_aggregate_corrected", n);
        ADD_OPT_U64(v, g->ecc_aggregate_uncorrected, 1, "dgpu.%u.ecc_aggregate_uncorrected", n);
        if (g->temp_c.present)
                ADD(v, JD_VALUE_DOUBLE, d, (double) g->temp_c.value, "dgpu.%u.temp", n);
        ADD_OPT_U32(v, g->power_mw, 1, "dgpu.%u.power", n);
        ADD_OPT_U32(v, g->power_limit_mw, 1, "dgpu.%u.power_limit", n);
        ADD_OPT_U64(v, g->energy_mj, 1, "dgpu.%u.energy", n);
        if (g->fan.present)
                ADD(v, JD_VALUE_DOUBLE, d, (double) g->fan.value, "dgpu.%u.fan", n);
        if (g->encoder_load.present)
                ADD(v, JD_VALUE_DOUBLE, d, (double) g->encoder_load.value, "dgpu.%u.encoder_load", n);
        if (g->decoder_load.present)
                ADD(v, JD_VALUE_DOUBLE, d, (double) g->decoder_load.value, "dgpu.%u.decoder_load", n);
        ADD_OPT_U32(v, g->pstate, 1, "dgpu.%u.pstate", n);
        ADD_OPT_U64(v, g->throttle, 1, "dgpu.%u.throttle", n);
        if (g->throttle.present) {
                char names[JD_VALUE_STR_MAX];
                jd_nvml_clock_reasons_text(g->throttle.value, names, sizeof(names));
                add_str(v, names, "dgpu.%u.throttle_reasons", n);
        }
        ADD_OPT_U64(v, g->pcie_rx, 1, "dgpu.%u.pcie_rx", n);
        ADD_OPT_U64(v, g->pcie_tx, 1, "dgpu.%u.pcie_tx", n);
        if (g->mem_temp_c.present)
                ADD(v, JD_VALUE_DOUBLE, d, (double) g->mem_temp_c.value, "dgpu.%u.mem_temp", n);
        ADD_OPT_U64(v, g->pcie_replays, 1, "dgpu.%u.pcie_replay", n);
        ADD_OPT_U32(v, g->xid, 1, "dgpu.%u.xid", n);
        ADD_OPT_U64(v, g->xid_count, 1, "dgpu.%u.xid_count", n);
        ADD_OPT_DBL(v, g->tensor_active, "dgpu.%u.tensor_active", n);
        ADD_OPT_DBL(v, g->graphics_active, "dgpu.%u.gr_active", n);
        ADD_OPT_DBL(v, g->dram_active, "dgpu.%u.dram_active", n);
        add_nvlink(v, g);
        add_migs(v, g);
        for (size_t i = 0; i < g->n_processes; i++) {
                const jd_nvml_process *p = &g->processes[i];
                char inst[32];
                snprintf(inst, sizeof(inst), "%u.dgpu.%u", p->pid, n);
                ADD_OPT_U64(v, p->mem_kib, 1, "process.%s.mem", inst);
                ADD_OPT_U32(v, p->gpu_instance, 1, "process.%s.gpu_instance", inst);
                if (p->sm.present)
                        ADD(v, JD_VALUE_DOUBLE, d, (double) p->sm.value, "process.%s.sm", inst);
                if (p->mem_util.present)
                        ADD(v, JD_VALUE_DOUBLE, d, (double) p->mem_util.value, "process.%s.mem_util", inst);
                if (p->enc.present)
                        ADD(v, JD_VALUE_DOUBLE, d, (double) p->enc.value, "process.%s.enc", inst);
                if (p->dec.present)
                        ADD(v, JD_VALUE_DOUBLE, d, (double) p->dec.value, "process.%s.dec", inst);
                /* Which of NVML's lists it is in, as nvitop's C, G, C+G. */
                add_str(v, p->compute && p->graphics ? "compute+graphics" : p->compute ? "compute" : "graphics",
                        "process.%s.type", inst);
        }
}

const jd_value *jd_values_find(const jd_values *v, const char *key)
{
        for (size_t i = 0; i < v->n; i++)
                if (strcmp(v->items[i].key, key) == 0)
                        return &v->items[i];
        return NULL;
}
