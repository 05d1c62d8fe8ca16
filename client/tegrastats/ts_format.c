/* The fields of a tegrastats line, in NVIDIA's order: timestamp, RAM,
 * SWAP, IRAM, CPU, EMC_FREQ, GR3D_FREQ, engines, temperatures, rails.
 * A field whose value the sample lacks is left out, as tegrastats leaves
 * out what it cannot read; no value is made up. */
#include "ts_format.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
        double sum, max;
        uint64_t n;
} running;

struct ts_stats {
        GHashTable *by_key;     /* sample key -> running */
};

ts_stats *ts_stats_new(void)
{
        ts_stats *s = g_new0(ts_stats, 1);
        s->by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        return s;
}

void ts_stats_free(ts_stats *stats)
{
        if (!stats)
                return;
        g_hash_table_unref(stats->by_key);
        g_free(stats);
}

static const running *stats_add(ts_stats *stats, const char *key, double v)
{
        running *r = g_hash_table_lookup(stats->by_key, key);
        if (!r) {
                r = g_new0(running, 1);
                r->max = v;
                g_hash_table_insert(stats->by_key, g_strdup(key), r);
        }
        r->sum += v;
        r->n++;
        if (v > r->max)
                r->max = v;
        return r;
}

void ts_sensor_free(gpointer sensor)
{
        ts_sensor *s = sensor;
        g_free(s->key);
        g_free(s->kind);
        g_free(s->label);
        g_free(s);
}

bool ts_gen_parse(const char *text, ts_gen *gen)
{
        static const ts_gen gens[] = { TS_R32, TS_R35, TS_R36, TS_R38, TS_R39 };
        if (text[0] == 'r' || text[0] == 'R')
                text++;
        for (size_t i = 0; i < G_N_ELEMENTS(gens); i++) {
                char name[8];
                snprintf(name, sizeof(name), "%d", (int) gens[i]);
                if (strcmp(text, name) == 0) {
                        *gen = gens[i];
                        return true;
                }
        }
        return false;
}

ts_gen ts_gen_for_l4t(const char *l4t)
{
        int major = l4t && *l4t ? atoi(l4t) : 0;
        if (major <= 0)
                return TS_R36;  /* a PC: jetsond's own form, docs/tegrastats.md */
        if (major <= 32)
                return TS_R32;
        if (major <= 35)
                return TS_R35;
        if (major <= 37)
                return TS_R36;
        if (major == 38)
                return TS_R38;
        return TS_R39;
}

const char *ts_gen_name(ts_gen gen)
{
        switch (gen) {
        case TS_R32: return "r32";
        case TS_R35: return "r35";
        case TS_R36: return "r36";
        case TS_R38: return "r38";
        case TS_R39: return "r39";
        }
        return "r36";
}

typedef struct {
        const ts_board *b;
        ts_value_fn value;
        void *data;
        ts_stats *stats;
        GString *out;
} line;

static double val(const line *l, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static double val(const line *l, const char *fmt, ...)
{
        char key[96];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(key, sizeof(key), fmt, ap);
        va_end(ap);
        return l->value(l->data, key);
}

/* kHz as tegrastats' MHz: whole megahertz, cut (2201600 kHz -> 2201). */
static unsigned long mhz(double khz)
{
        return (unsigned long) (khz / 1000.0);
}

static void field(const line *l, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void field(const line *l, const char *fmt, ...)
{
        va_list ap;
        if (l->out->len)
                g_string_append_c(l->out, ' ');
        va_start(ap, fmt);
        g_string_append_vprintf(l->out, fmt, ap);
        va_end(ap);
}

static void timestamp(const line *l, uint64_t usec)
{
        time_t secs = (time_t) (usec / G_USEC_PER_SEC);
        struct tm tm;
        char text[32];
        if (localtime_r(&secs, &tm) && strftime(text, sizeof(text), "%m-%d-%Y %H:%M:%S", &tm))
                field(l, "%s", text);
}

/* "RAM 3577/62795MB (lfb 14204x4MB)": the largest free size in MB, or kB
 * below a megabyte. */
static void memory(const line *l)
{
        double used = val(l, "ram.used"), total = val(l, "ram.total");
        if (isnan(used) || isnan(total))
                return;
        field(l, "RAM %lu/%luMB", (unsigned long) (used / 1024), (unsigned long) (total / 1024));
        double block = val(l, "ram.lfb_size"), blocks = val(l, "ram.lfb_count"), lfb = val(l, "ram.lfb");
        if (isnan(block) || isnan(blocks)) {
                /* A jetsond without the block size: the 4 MiB count. */
                block = 4096;
                blocks = lfb;
        }
        if (!isnan(blocks) && blocks >= 1) {
                if (block >= 1024)
                        g_string_append_printf(l->out, " (lfb %lux%luMB)", (unsigned long) blocks,
                                               (unsigned long) (block / 1024));
                else
                        g_string_append_printf(l->out, " (lfb %lux%lukB)", (unsigned long) blocks,
                                               (unsigned long) block);
        }
}

static void swap(const line *l)
{
        double used = val(l, "swap.used"), total = val(l, "swap.total"), cached = val(l, "swap.cached");
        if (isnan(used) || isnan(total) || total <= 0)
                return;
        field(l, "SWAP %lu/%luMB", (unsigned long) (used / 1024), (unsigned long) (total / 1024));
        if (!isnan(cached))
                g_string_append_printf(l->out, " (cached %luMB)", (unsigned long) (cached / 1024));
}

/* "IRAM 0/252kB(lfb 252kB)", no blank before "(lfb": nvmap tells no
 * largest free block, which is the whole IRAM only while none is used. */
static void iram(const line *l)
{
        double used = val(l, "iram.used"), total = val(l, "iram.total");
        if (isnan(used) || isnan(total))
                return;
        field(l, "IRAM %lu/%lukB", (unsigned long) used, (unsigned long) total);
        if (used == 0)
                g_string_append_printf(l->out, "(lfb %lukB)", (unsigned long) total);
}

static void load_at(const line *l, double load, double khz)
{
        if (!isnan(load))
                g_string_append_printf(l->out, "%.0f%%", load);
        if (!isnan(khz))
                g_string_append_printf(l->out, "@%lu", mhz(khz));
}

static void cpus(const line *l)
{
        GString *items = g_string_new(NULL);
        for (unsigned n = 0;; n++) {
                double online = val(l, "cpu.%u.online", n);
                if (isnan(online))
                        break;
                if (items->len)
                        g_string_append_c(items, ',');
                if (online == 0) {
                        g_string_append(items, "off");
                        continue;
                }
                line item = *l;
                item.out = items;
                load_at(&item, val(l, "cpu.%u.load", n), val(l, "cpu.%u.freq", n));
        }
        if (items->len)
                field(l, "CPU [%s]", items->str);
        g_string_free(items, TRUE);
}

static void emc(const line *l)
{
        double load = val(l, "emc.load");
        if (isnan(load))
                return;
        field(l, "EMC_FREQ ");
        load_at(l, load, val(l, "emc.freq"));
}

/* The GPU's clocks in tegrastats' brackets: each GPC's measured clock
 * (Orin), Thor's one GPC clock for its three GPCs, else the GPU clock. */
static void gpc_clocks(const line *l, GString *out)
{
        unsigned n = 0;
        for (double f; !isnan(f = val(l, "gpu.gpc%u.freq", n)); n++)
                g_string_append_printf(out, "%s%lu", n ? "," : "", mhz(f));
        if (n)
                return;
        double f = val(l, "gpu.freq");
        if (isnan(f))
                return;
        for (unsigned i = 0; i < (l->b->thor ? 3u : 1u); i++)
                g_string_append_printf(out, "%s%lu", i ? "," : "", mhz(f));
}

static void gpu(const line *l)
{
        double load = val(l, "gpu.load"), freq = val(l, "gpu.freq");
        ts_gen gen = l->b->gen;
        bool gpcs = !isnan(val(l, "gpu.gpc0.freq"));
        if (gen == TS_R32 || (gen == TS_R35 && !gpcs)) {
                /* "GR3D_FREQ 7%@768": the GPU's one clock. */
                if (isnan(load))
                        return;
                field(l, "GR3D_FREQ ");
                load_at(l, load, freq);
                return;
        }
        GString *clocks = g_string_new(NULL);
        gpc_clocks(l, clocks);
        /* Thor's lines carry no GPU load: "GR3D_FREQ @[314,314,314]". */
        bool with_load = !(l->b->thor && gen >= TS_R38);
        if (with_load && !isnan(load))
                field(l, "GR3D_FREQ %.0f%%%s%s%s", load, clocks->len ? "@[" : "", clocks->str, clocks->len ? "]" : "");
        else if (!with_load && clocks->len)
                field(l, "GR3D_FREQ @[%s]", clocks->str);
        g_string_free(clocks, TRUE);
}

typedef enum {
        ON_ONLY,        /* "NAME F" while on, left out while off (R32, R35) */
        OFF_OR_F,       /* "NAME off" / "NAME F" (R36, R39) */
        OFF_OR_AT_F,    /* "NAME off" / "NAME @F" (Thor's _FREQ fields) */
        VIDEO_CLOCK,    /* "NAME @F" of Thor's video clock, gpu.video_freq */
} engine_form;

typedef struct {
        const char *name;       /* as the line prints it */
        const char *engine;     /* jetsond's engine.NAME */
        engine_form form;
        bool second;            /* a second instance: Thor's video engines, Orin's NVJPG1 */
} engine_field;

static const engine_field r32_engines[] = {
        { "MSENC", "MSENC", ON_ONLY, false }, { "NVENC", "NVENC", ON_ONLY, false },
        { "NVDEC", "NVDEC", ON_ONLY, false }, { "NVJPG", "NVJPG", ON_ONLY, false },
        { "APE", "APE", ON_ONLY, false }, { NULL, NULL, 0, false },
};
static const engine_field r35_engines[] = {
        { "NVENC", "NVENC", ON_ONLY, false }, { "NVDEC", "NVDEC", ON_ONLY, false },
        { "NVJPG", "NVJPG", ON_ONLY, false }, { "VIC_FREQ", "VIC", ON_ONLY, false },
        { "APE", "APE", ON_ONLY, false }, { NULL, NULL, 0, false },
};
static const engine_field r36_engines[] = {
        { "NVENC", "NVENC", OFF_OR_F, false }, { "NVDEC", "NVDEC", OFF_OR_F, false },
        { "NVJPG", "NVJPG", OFF_OR_F, false }, { "NVJPG1", "NVJPG", OFF_OR_F, true },
        { "VIC", "VIC", OFF_OR_F, false }, { "OFA", "OFA", OFF_OR_F, false },
        { "NVDLA0", "DLA0", OFF_OR_F, false }, { "NVDLA1", "DLA1", OFF_OR_F, false },
        { "PVA0_FREQ", "PVA0", OFF_OR_F, false }, { "APE", "APE", ON_ONLY, false }, { NULL, NULL, 0, false },
};
static const engine_field r39_orin_engines[] = {
        { "NVENC0", "NVENC", OFF_OR_F, false }, { "NVDEC0", "NVDEC", OFF_OR_F, false },
        { "NVJPG0", "NVJPG", OFF_OR_F, false }, { "NVJPG1", "NVJPG", OFF_OR_F, true },
        { "VIC", "VIC", OFF_OR_F, false }, { "OFA", "OFA", OFF_OR_F, false },
        { "NVDLA0", "DLA0", OFF_OR_F, false }, { "NVDLA1", "DLA1", OFF_OR_F, false },
        { "PVA0_FREQ", "PVA0", OFF_OR_F, false }, { "APE", "APE", ON_ONLY, false }, { NULL, NULL, 0, false },
};
static const engine_field thor_engines[] = {
        { "NVENC0_FREQ", "NVENC", VIDEO_CLOCK, false }, { "NVENC1_FREQ", "NVENC", VIDEO_CLOCK, true },
        { "NVDEC0_FREQ", "NVDEC", VIDEO_CLOCK, false }, { "NVDEC1_FREQ", "NVDEC", VIDEO_CLOCK, true },
        { "NVJPG0_FREQ", "NVJPG", VIDEO_CLOCK, false }, { "VIC", "VIC", OFF_OR_F, false },
        { "OFA_FREQ", "OFA", VIDEO_CLOCK, false }, { "PVA0_FREQ", "PVA0", OFF_OR_F, false },
        { "APE", "APE", ON_ONLY, false }, { NULL, NULL, 0, false },
};

static void engine(const line *l, const engine_field *e)
{
        double online = val(l, "engine.%s.online", e->engine), khz = val(l, "engine.%s.freq", e->engine);
        if (e->form == VIDEO_CLOCK) {
                if (l->b->thor) {
                        double video = val(l, "gpu.video_freq");
                        if (!isnan(video))
                                field(l, "%s @%lu", e->name, mhz(video));
                        return;
                }
                /* Another board in Thor's form: its own engine, one instance. */
                if (e->second)
                        return;
                if (online == 0)
                        field(l, "%s off", e->name);
                else if (!isnan(khz))
                        field(l, "%s @%lu", e->name, mhz(khz));
                return;
        }
        if (e->second) {
                /* NVJPG1: jetsond counts both JPEG engines as NVJPG, so
                 * only "both off" is known of each. */
                if (l->b->two_nvjpg && online == 0)
                        field(l, "%s off", e->name);
                return;
        }
        if (isnan(online))
                return;         /* the board has no such engine */
        if (online == 0) {
                if (e->form != ON_ONLY)
                        field(l, "%s off", e->name);
        } else if (!isnan(khz)) {
                field(l, e->form == OFF_OR_AT_F ? "%s @%lu" : "%s %lu", e->name, mhz(khz));
        }
}

static void engines(const line *l)
{
        ts_gen gen = l->b->gen;
        const engine_field *list = gen == TS_R32   ? r32_engines
                                   : gen == TS_R35 ? r35_engines
                                   : gen == TS_R36 ? r36_engines
                                   : gen == TS_R38 || l->b->thor ? thor_engines
                                                                 : r39_orin_engines;
        for (const engine_field *e = list; e->name; e++)
                engine(l, e);
}

/* NVML's GPUs are dgpu.0 to dgpu.31: jetsond reads at most the NVIDIA
 * driver's 32, and a GPU that stopped answering leaves a gap. */
#define MAX_DGPUS 32u

/* jetsond's own fields for an NVML GPU (a PC's cards): load at its clock. */
static void dgpus(const line *l)
{
        for (unsigned n = 0; n < MAX_DGPUS; n++) {
                double load = val(l, "dgpu.%u.load", n), freq = val(l, "dgpu.%u.freq", n);
                if (isnan(load) && isnan(freq))
                        continue;
                field(l, "DGPU%u_FREQ ", n);
                load_at(l, load, freq);
        }
}

/* PRINT (a temperature or a rail) of each NVML GPU that has dgpu.N.WHAT,
 * named dgpuN among the zones, DGPUN among the rails. */
static void each_dgpu(const line *l, const char *what, bool upper,
                      void (*print)(const line *l, const char *name, const char *key))
{
        for (unsigned n = 0; n < MAX_DGPUS; n++) {
                char key[32], name[16];
                snprintf(key, sizeof(key), "dgpu.%u.%s", n, what);
                if (isnan(l->value(l->data, key)))
                        continue;
                snprintf(name, sizeof(name), upper ? "DGPU%u" : "dgpu%u", n);
                print(l, name, key);
        }
}

/* 47.6875 -> "47.687" (milli-degrees, as the zone reads them), 49 -> "49". */
static void append_celsius(GString *out, double c)
{
        long milli = lround(c * 1000.0);
        g_string_append_printf(out, "%s%ld", milli < 0 && milli > -1000 ? "-" : "", milli / 1000);
        long frac = labs(milli % 1000);
        if (frac) {
                char digits[8];
                snprintf(digits, sizeof(digits), "%03ld", frac);
                for (size_t n = strlen(digits); n > 0 && digits[n - 1] == '0'; n--)
                        digits[n - 1] = '\0';
                g_string_append_printf(out, ".%s", digits);
        }
}

/* A zone's name in the line: its type up to the first '-' (else '_'),
 * case kept: "CPU-therm" -> "CPU", "Tboard_tegra" -> "Tboard". */
static char *zone_name(const char *type)
{
        size_t n = strcspn(type, "-");
        if (type[n] == '\0')
                n = strcspn(type, "_");
        return g_strndup(type, n ? n : strlen(type));
}

static void temperature(const line *l, const char *name, const char *key)
{
        double c = l->value(l->data, key);
        if (isnan(c)) {
                /* JetPack 4 and 5 print a gated zone as the kernel reads it. */
                if (l->b->gen <= TS_R35)
                        field(l, "%s@-256C", name);
                return;
        }
        const running *r = stats_add(l->stats, key, c);
        field(l, "%s@", name);
        append_celsius(l->out, c);
        g_string_append_c(l->out, 'C');
        if (l->b->gen >= TS_R39) {
                g_string_append_c(l->out, '/');
                append_celsius(l->out, r->max);
                g_string_append_c(l->out, 'C');
        }
}

static void temperatures(const line *l)
{
        for (guint i = 0; l->b->sensors && i < l->b->sensors->len; i++) {
                const ts_sensor *s = g_ptr_array_index(l->b->sensors, i);
                if (strcmp(s->kind, "thermal_zone") != 0)
                        continue;
                g_autofree char *name = zone_name(s->label);
                temperature(l, name, s->key);
        }
        each_dgpu(l, "temp", false, temperature);
}

/* "VDD_IN 5480mW/5480mW": now, and the mean (and R39's maximum) since the
 * command started; R32 without the unit. */
static void rail(const line *l, const char *name, const char *key)
{
        double mw = l->value(l->data, key);
        if (isnan(mw))
                return;
        const running *r = stats_add(l->stats, key, mw);
        const char *unit = l->b->gen == TS_R32 ? "" : "mW";
        /* The mean as the releases print it: cut on R32 and R35 lines,
         * rounded on R36.4 and later ones (tests/tegrastats/README.md). */
        double mean = r->sum / (double) r->n;
        unsigned long avg = (unsigned long) (l->b->gen >= TS_R36 ? round(mean) : mean);
        field(l, "%s %lu%s/%lu%s", name, (unsigned long) mw, unit, avg, unit);
        if (l->b->gen >= TS_R39)
                g_string_append_printf(l->out, "/%lu%s", (unsigned long) r->max, unit);
}

static void rails(const line *l)
{
        for (guint i = 0; l->b->sensors && i < l->b->sensors->len; i++) {
                const ts_sensor *s = g_ptr_array_index(l->b->sensors, i);
                if (strcmp(s->kind, "rail") != 0)
                        continue;
                g_autofree char *key = g_strdup_printf("%s.power", s->key);
                rail(l, s->label, key);
        }
        each_dgpu(l, "power", true, rail);
}

void ts_format_line(GString *out, const ts_board *board, ts_value_fn value, void *data, uint64_t timestamp_usec,
                    ts_stats *stats)
{
        GString *own = g_string_new(NULL);
        line l = { board, value, data, stats, own };
        if (board->gen >= TS_R35)
                timestamp(&l, timestamp_usec);
        memory(&l);
        swap(&l);
        iram(&l);
        cpus(&l);
        emc(&l);
        gpu(&l);
        engines(&l);
        dgpus(&l);
        temperatures(&l);
        rails(&l);
        g_string_append_len(out, own->str, (gssize) own->len);
        g_string_free(own, TRUE);
}
