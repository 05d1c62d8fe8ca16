/* jetsonctl status: everything on one screen. The board comes from the
 * properties, the readings from one GetSnapshot(), so every reading
 * shown belongs to the same sample. A reading the sample lacks is left
 * out (or shown as "-"), never shown as 0, as the contract requires. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "status_procs.h"
#include "common/json_docs.h"
#include "common/json_out.h"
#include "common/throttle.h"
#include "common/trips.h"
#include "jetsond-dbus.h"
#include "common/output.h"
#include "common/gpu_filter.h"
#include "common/proc_strings.h"
#include "common/props.h"
#include "common/sample.h"

#define LABEL_WIDTH 8
#define BAR_WIDTH 20

typedef struct {
        GVariant *board, *nvpmodel, *clocks;
        GPtrArray *fans, *dgpus;
        jc_sample sample;
} status_data;

static void status_data_clear(status_data *d)
{
        g_clear_pointer(&d->board, g_variant_unref);
        g_clear_pointer(&d->nvpmodel, g_variant_unref);
        g_clear_pointer(&d->clocks, g_variant_unref);
        g_clear_pointer(&d->fans, g_ptr_array_unref);
        g_clear_pointer(&d->dgpus, g_ptr_array_unref);
        jc_sample_clear(&d->sample);
}

static int fetch(jc_ctx *c, status_data *d)
{
        int ret = jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_BOARD, false, "reading the board", NULL, &d->board);
        /* NVPModel and JetsonClocks are not exported on boards without
         * them: optional. */
        if (!ret)
                ret = jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, true, "reading the power mode", NULL,
                                     &d->nvpmodel);
        if (!ret)
                ret = jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, true, "reading jetson_clocks", NULL,
                                     &d->clocks);
        if (!ret)
                ret = jc_fans_fetch(c, "listing the fans", &d->fans);
        if (!ret)
                ret = jc_objects_fetch(c, "listing the GPUs", JD_IFACE_DISCRETE_GPU, JD_DGPU_PATH_PREFIX, &d->dgpus);
        if (!ret)
                ret = jc_sample_fetch(c, &d->sample);
        g_autofree char *error = NULL;
        jc_gpu_filter filter = { 0 };
        if (!ret && !jc_gpu_filter_from_jetsonctl(&filter, d->dgpus, &d->sample, &error))
                ret = jc_usage_error("status", "%s", error);
        if (!ret) {
                jc_gpu_filter_objects(&filter, d->dgpus);
                jc_gpu_filter_sample(&filter, &d->sample);
                jc_sample_read_commands(&d->sample, "/proc", NULL);
        }
        jc_gpu_filter_clear(&filter);
        return ret;
}

/* ---- text ------------------------------------------------------------- */

static void label(GString *out, bool color, const char *text)
{
        g_autofree char *padded = g_strdup_printf("%-*s", LABEL_WIDTH, text);
        jc_append_colored(out, color, JC_COLOR_BOLD, padded);
}

/* "LABEL  55.0% [#####.....]  DETAIL"; without a percentage the bar is
 * left out rather than drawn empty, which would read as 0 %. */
static void bar_row(GString *out, bool color, const char *name, bool have, double pct, const char *detail)
{
        label(out, color, name);
        if (have) {
                g_string_append_printf(out, "%5.1f%% ", pct);
                jc_append_bar(out, color, pct, BAR_WIDTH);
        } else {
                g_string_append_printf(out, "%6s %*s", "-", BAR_WIDTH + 2, "");
        }
        if (detail && *detail)
                g_string_append_printf(out, "  %s", detail);
        /* No trailing blanks when there is no detail. */
        while (out->len && out->str[out->len - 1] == ' ')
                g_string_truncate(out, out->len - 1);
        g_string_append_c(out, '\n');
}

static void header(GString *out, const status_data *d, bool color)
{
        const char *model = jc_prop_str(d->board, "Model");
        jc_append_colored(out, color, JC_COLOR_BOLD, *model ? model : "unknown board");
        g_string_append_c(out, '\n');

        const char *module = jc_prop_str(d->board, "Module");
        if (*module)
                g_string_append_printf(out, "  %-12s%s\n", "Module", module);
        const char *jetpack = jc_prop_str(d->board, "JetPack"), *l4t = jc_prop_str(d->board, "L4T");
        const char *soc = jc_prop_str(d->board, "SoC");
        g_autoptr(GString) sw = g_string_new(NULL);
        if (*jetpack)
                g_string_append_printf(sw, "JetPack %s", jetpack);
        if (*l4t)
                g_string_append_printf(sw, "%s(L4T %s)", sw->len ? " " : "", l4t);
        if (*soc)
                g_string_append_printf(sw, "%sSoC %s", sw->len ? ", " : "", soc);
        if (!sw->len)
                g_string_append_printf(sw, "%s, kernel %s", jc_prop_str(d->board, "Distribution"),
                                       jc_prop_str(d->board, "KernelRelease"));
        g_string_append_printf(out, "  %-12s%s\n", "Software", sw->str);

        uint32_t mode, def;
        if (d->nvpmodel && jc_prop_u32(d->nvpmodel, "Mode", &mode) && jc_prop_u32(d->nvpmodel, "DefaultMode", &def)) {
                g_string_append_printf(out, "  %-12s", "Power mode");
                if (mode == UINT32_MAX)
                        g_string_append(out, "unknown");
                else
                        g_string_append_printf(out, "%u %s", mode, jc_prop_str(d->nvpmodel, "ModeName"));
                const char *def_name = jc_mode_name(d->nvpmodel, def);
                if (def != UINT32_MAX)
                        g_string_append_printf(out, " (at boot: %u%s%s)", def, def_name ? " " : "",
                                               def_name ? def_name : "");
                g_string_append_c(out, '\n');
        }
        bool active, on_boot;
        if (d->clocks && jc_prop_bool(d->clocks, "Active", &active) && jc_prop_bool(d->clocks, "OnBoot", &on_boot)) {
                g_string_append_printf(out, "  %-12sjetson_clocks ", "Clocks");
                jc_append_colored(out, color, active ? JC_COLOR_YELLOW : JC_COLOR_NONE, active ? "on" : "off");
                g_string_append_printf(out, " (at boot: %s)\n", on_boot ? "on" : "off");
        }
        for (guint i = 0; d->fans && i < d->fans->len; i++) {
                const jc_object *f = g_ptr_array_index(d->fans, i);
                double speed = 0;
                uint32_t rpm = 0;
                jc_prop_double(f->props, "Speed", &speed);
                g_autofree char *name = g_strdup_printf("Fan %u", f->index);
                g_string_append_printf(out, "  %-12s%s %.0f%%", name, jc_prop_str(f->props, "Name"), speed);
                if (jc_prop_u32(f->props, "Rpm", &rpm) && rpm)
                        g_string_append_printf(out, " %u rpm", rpm);
                const char *profile = jc_prop_str(f->props, "Profile");
                if (*profile)
                        g_string_append_printf(out, ", profile %s", profile);
                g_string_append_c(out, '\n');
        }
}

/* The CPU numbers N of the cpu.N.* keys, in sample order. */
static GArray *cpu_indices(const jc_sample *s)
{
        GArray *cpus = g_array_new(FALSE, FALSE, sizeof(unsigned));
        GVariantIter it;
        const char *key;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, NULL)) {
                if (!g_str_has_prefix(key, "cpu.") || !g_ascii_isdigit(key[4]))
                        continue;
                unsigned n = (unsigned) strtoul(key + 4, NULL, 10);
                bool seen = false;
                for (guint i = 0; i < cpus->len && !seen; i++)
                        seen = g_array_index(cpus, unsigned, i) == n;
                if (!seen)
                        g_array_append_val(cpus, n);
        }
        return cpus;
}

static void cpu_rows(GString *out, const jc_sample *s, bool color)
{
        g_autoptr(GArray) cpus = cpu_indices(s);
        double load;
        bool have = jc_sample_double(s, "cpu.load", &load);
        if (!cpus->len && !have)
                return;
        /* Where the load went, as jtop's CPU panel: user, nice, kernel. */
        double user, nice, system;
        g_autofree char *split = jc_sample_double(s, "cpu.user", &user) && jc_sample_double(s, "cpu.nice", &nice) &&
                                                 jc_sample_double(s, "cpu.system", &system)
                                         ? g_strdup_printf("user %.1f%%, nice %.1f%%, system %.1f%%", user, nice, system)
                                         : NULL;
        bar_row(out, color, "CPU", have, load, split);
        for (guint i = 0; i < cpus->len; i++) {
                unsigned n = g_array_index(cpus, unsigned, i);
                g_autofree char *name = g_strdup_printf("  cpu%u", n);
                bool online = true;
                jc_sample_boolf(s, &online, "cpu.%u.online", n);
                if (!online) {
                        label(out, color, name);
                        g_string_append_printf(out, "%6s\n", "off");
                        continue;
                }
                uint64_t freq;
                g_autofree char *detail = jc_sample_uintf(s, &freq, "cpu.%u.freq", n) ? jc_format_khz(freq) : NULL;
                bool have_load = jc_sample_doublef(s, &load, "cpu.%u.load", n);
                bar_row(out, color, name, have_load, load, detail);
        }
}

/* "306 MHz (306-1300 MHz)" from PREFIX.freq, .min_freq, .max_freq. */
static char *freq_detail(const jc_sample *s, const char *prefix)
{
        uint64_t f, lo, hi;
        g_autoptr(GString) d = g_string_new(NULL);
        if (jc_sample_uintf(s, &f, "%s.freq", prefix))
                g_string_append_printf(d, "%" G_GUINT64_FORMAT " MHz", f / 1000);
        if (jc_sample_uintf(s, &lo, "%s.min_freq", prefix) && jc_sample_uintf(s, &hi, "%s.max_freq", prefix))
                g_string_append_printf(d, "%s(%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT " MHz)", d->len ? " " : "",
                                       lo / 1000, hi / 1000);
        return g_string_free(g_steal_pointer(&d), FALSE);
}

static void unit_row(GString *out, const jc_sample *s, bool color, const char *name, const char *prefix)
{
        double load;
        bool have = jc_sample_doublef(s, &load, "%s.load", prefix);
        g_autofree char *detail = freq_detail(s, prefix);
        if (have || *detail)
                bar_row(out, color, name, have, load, detail);
}

/* With MIG on, a line per MIG device under its GPU, as nvitop lists
 * them: slot, GPU and compute instance, memory, load where NVML has it. */
static void mig_rows(GString *out, const jc_sample *s, unsigned n)
{
        for (unsigned m = 0; m < 64; m++) {
                uint64_t used, total, gi, ci;
                double load;
                bool mem = jc_sample_uintf(s, &used, "dgpu.%u.mig.%u.mem_used", n, m) &&
                           jc_sample_uintf(s, &total, "dgpu.%u.mig.%u.mem_total", n, m);
                bool has_gi = jc_sample_uintf(s, &gi, "dgpu.%u.mig.%u.gpu_instance", n, m);
                if (!mem && !has_gi)
                        continue;
                g_string_append_printf(out, "  MIG %u", m);
                if (has_gi) {
                        g_string_append_printf(out, "  GI %" G_GUINT64_FORMAT, gi);
                        if (jc_sample_uintf(s, &ci, "dgpu.%u.mig.%u.compute_instance", n, m))
                                g_string_append_printf(out, " CI %" G_GUINT64_FORMAT, ci);
                }
                if (mem) {
                        g_autofree char *u = jc_format_kib(used), *t = jc_format_kib(total);
                        g_string_append_printf(out, "  %s of %s", u, t);
                }
                if (jc_sample_doublef(s, &load, "dgpu.%u.mig.%u.load", n, m))
                        g_string_append_printf(out, "  %.0f%%", load);
                g_string_append_c(out, '\n');
        }
}

/* A mode property in nvidia-smi's words ("On", "Off"), NULL when unknown. */
static const char *on_off(const jc_object *g, const char *property)
{
        const char *v = jc_prop_str(g->props, property);
        return strcmp(v, "enabled") == 0 ? "On" : strcmp(v, "disabled") == 0 ? "Off" : NULL;
}

/* The GPU's facts and modes, what NVML says of them, as nvitop -1's
 * header and nvidia-smi's columns: CUDA version and compute capability,
 * persistence mode, display active, compute mode, ECC with its
 * uncorrected errors, BAR1 in use and the video clock. */
static void dgpu_facts(GString *out, const jc_sample *s, const jc_object *g, const char *prefix)
{
        g_autoptr(GString) line = g_string_new(NULL);
        const char *v;
        if (*(v = jc_prop_str(g->props, "CudaDriverVersion")))
                g_string_append_printf(line, "  CUDA %s", v);
        if (*(v = jc_prop_str(g->props, "ComputeCapability")))
                g_string_append_printf(line, "  cc %s", v);
        if ((v = on_off(g, "PersistenceMode")))
                g_string_append_printf(line, "  Persistence-M %s", v);
        if ((v = on_off(g, "DisplayActive")))
                g_string_append_printf(line, "  Disp.A %s", v);
        if (*(v = jc_prop_str(g->props, "ComputeMode")))
                g_string_append_printf(line, "  Compute-M %s", v);
        if (line->len)
                g_string_append_printf(out, "%s\n", line->str);
        g_string_truncate(line, 0);
        uint64_t used, vol, agg, total = 0;
        if ((v = on_off(g, "EccMode"))) {
                g_string_append_printf(line, "  ECC %s", v);
                const char *pending = on_off(g, "EccModePending");
                if (pending && strcmp(pending, v) != 0)
                        g_string_append_printf(line, " (%s after reset)", pending);
                if (jc_sample_uintf(s, &vol, "%s.ecc_volatile_uncorrected", prefix) &&
                    jc_sample_uintf(s, &agg, "%s.ecc_aggregate_uncorrected", prefix))
                        g_string_append_printf(line, ", uncorrected %" G_GUINT64_FORMAT " volatile %" G_GUINT64_FORMAT
                                                     " aggregate", vol, agg);
        }
        if (jc_sample_uintf(s, &used, "%s.bar1_used", prefix)) {
                g_autofree char *u = jc_format_kib(used);
                g_string_append_printf(line, "  BAR1 %s", u);
                if (jc_prop_u64(g->props, "Bar1Total", &total) && total) {
                        g_autofree char *t = jc_format_kib(total / 1024);
                        g_string_append_printf(line, " of %s", t);
                }
        }
        if (jc_sample_uintf(s, &used, "%s.video_freq", prefix))
                g_string_append_printf(line, "  video %" G_GUINT64_FORMAT " MHz", used / 1000);
        if (line->len)
                g_string_append_printf(out, "%s\n", line->str);
}

/* One discrete GPU, as nvitop shows it: load and clock, then its name,
 * memory, temperature, power and fan (what it reports), then its facts. */
static void dgpu_rows(GString *out, const jc_sample *s, const jc_object *g, bool color)
{
        double load, temp, fan;
        uint64_t v, w;
        g_autofree char *name = g_strdup_printf("dGPU %u", g->index);
        g_autofree char *prefix = g_strdup_printf("dgpu.%u", g->index);
        g_autoptr(GString) clock = g_string_new(NULL);
        if (jc_sample_uintf(s, &v, "%s.freq", prefix))
                g_string_append_printf(clock, "%" G_GUINT64_FORMAT " MHz", v / 1000);
        uint32_t max = 0;
        g_autoptr(GVariant) clocks = g_variant_lookup_value(g->props, "MaxClocks", G_VARIANT_TYPE("a{su}"));
        if (clocks && g_variant_lookup(clocks, "graphics", "u", &max))
                g_string_append_printf(clock, "%s(max %u MHz)", clock->len ? " " : "", max / 1000);
        bool have = jc_sample_doublef(s, &load, "%s.load", prefix);
        bar_row(out, color, name, have, load, clock->str);

        g_autoptr(GString) line = g_string_new(NULL);
        g_string_append_printf(line, "  %.28s", *jc_prop_str(g->props, "Name") ? jc_prop_str(g->props, "Name") : "-");
        if (jc_sample_uintf(s, &v, "%s.mem_used", prefix) && jc_sample_uintf(s, &w, "%s.mem_total", prefix)) {
                g_autofree char *u = jc_format_kib(v), *t = jc_format_kib(w);
                g_string_append_printf(line, "  %s of %s", u, t);
        }
        if (jc_sample_doublef(s, &temp, "%s.temp", prefix))
                g_string_append_printf(line, "  %.0f°C", temp);
        if (jc_sample_uintf(s, &v, "%s.power", prefix)) {
                g_string_append_printf(line, "  %.0f", (double) v / 1000);
                if (jc_sample_uintf(s, &w, "%s.power_limit", prefix))
                        g_string_append_printf(line, "/%.0f", (double) w / 1000);
                g_string_append(line, " W");
        }
        if (jc_sample_doublef(s, &fan, "%s.fan", prefix))
                g_string_append_printf(line, "  fan %.0f%%", fan);
        g_string_append_printf(out, "%s\n", line->str);
        dgpu_facts(out, s, g, prefix);
        mig_rows(out, s, g->index);
}

static void memory_rows(GString *out, const jc_sample *s, bool color)
{
        uint64_t total, used, v;
        if (jc_sample_uint(s, "ram.total", &total) && jc_sample_uint(s, "ram.used", &used) && total) {
                g_autofree char *u = jc_format_kib(used), *t = jc_format_kib(total);
                g_autoptr(GString) d = g_string_new(NULL);
                g_string_append_printf(d, "%s of %s", u, t);
                if (jc_sample_uint(s, "ram.lfb", &v))
                        g_string_append_printf(d, " (lfb %" G_GUINT64_FORMAT "x4MB)", v);
                bar_row(out, color, "RAM", true, 100.0 * (double) used / (double) total, d->str);
                /* A line of its own, so the RAM line fits 80 columns. */
                if (jc_sample_uint(s, "ram.shared", &v)) {
                        g_autofree char *sh = jc_format_kib(v);
                        g_string_append_printf(out, "  %-*s%s\n", LABEL_WIDTH + 4, "GPU shared", sh);
                }
        }
        if (jc_sample_uint(s, "iram.total", &total) && jc_sample_uint(s, "iram.used", &used) && total) {
                g_autofree char *u = jc_format_kib(used), *t = jc_format_kib(total);
                g_autofree char *d = g_strdup_printf("%s of %s", u, t);
                bar_row(out, color, "IRAM", true, 100.0 * (double) used / (double) total, d);
        }
        if (jc_sample_uint(s, "swap.total", &total) && jc_sample_uint(s, "swap.used", &used)) {
                if (!total) {
                        label(out, color, "Swap");
                        g_string_append(out, "  none\n");
                        return;
                }
                g_autofree char *u = jc_format_kib(used), *t = jc_format_kib(total);
                g_autoptr(GString) d = g_string_new(NULL);
                g_string_append_printf(d, "%s of %s", u, t);
                if (jc_sample_uint(s, "swap.cached", &v)) {
                        g_autofree char *ca = jc_format_kib(v);
                        g_string_append_printf(d, " (cached %s)", ca);
                }
                bar_row(out, color, "Swap", true, 100.0 * (double) used / (double) total, d->str);
        }
}

/* RAIL of a "power.RAIL.power" key, or NULL. */
static char *rail_of(const char *key)
{
        if (!g_str_has_prefix(key, "power.") || !g_str_has_suffix(key, ".power"))
                return NULL;
        size_t len = strlen(key) - strlen("power.") - strlen(".power");
        return (ssize_t) len > 0 ? g_strndup(key + strlen("power."), len) : NULL;
}

/* The board's total where it has one, then each rail (a PC's RAPL zones)
 * and each discrete GPU's power of its limit; no section without any. */
static void power_rows(GString *out, const jc_sample *s, const status_data *d, bool color)
{
        g_autoptr(GString) rows = g_string_new(NULL);
        GVariantIter it;
        const char *key;
        /* Names in one column, as wide as the longest (RAPL_PACKAGE_0_UNCORE). */
        int width = 20;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, NULL)) {
                g_autofree char *rail = rail_of(key);
                width = rail ? MAX(width, (int) strlen(rail)) : width;
        }
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, NULL)) {
                g_autofree char *rail = rail_of(key);
                uint64_t mw, mv, ma;
                if (!rail || !jc_sample_uint(s, key, &mw))
                        continue;
                g_string_append_printf(rows, "  %-*s %6" G_GUINT64_FORMAT " mW", width, rail, mw);
                if (jc_sample_uintf(s, &mv, "power.%s.voltage", rail))
                        g_string_append_printf(rows, " %6" G_GUINT64_FORMAT " mV", mv);
                if (jc_sample_uintf(s, &ma, "power.%s.current", rail))
                        g_string_append_printf(rows, " %6" G_GUINT64_FORMAT " mA", ma);
                g_string_append_c(rows, '\n');
        }
        for (guint i = 0; d->dgpus && i < d->dgpus->len; i++) {
                const jc_object *g = g_ptr_array_index(d->dgpus, i);
                uint64_t mw, limit;
                if (!jc_sample_uintf(s, &mw, "dgpu.%u.power", g->index))
                        continue;
                g_autofree char *name = g_strdup_printf("dGPU %u", g->index);
                g_string_append_printf(rows, "  %-*s %6" G_GUINT64_FORMAT " mW", width, name, mw);
                if (jc_sample_uintf(s, &limit, "dgpu.%u.power_limit", g->index))
                        g_string_append_printf(rows, " of %" G_GUINT64_FORMAT " mW", limit);
                g_string_append_c(rows, '\n');
        }
        uint64_t total;
        bool have_total = jc_sample_uint(s, "power.total", &total);
        if (!have_total && !rows->len)
                return;
        bool is_sum = false;
        jc_sample_bool(s, "power.total_is_sum", &is_sum);
        label(out, color, "Power");
        if (have_total)
                g_string_append_printf(out, "%" G_GUINT64_FORMAT " mW%s\n", total,
                                       is_sum ? " (sum of the rails: the board has no input rail)" : "");
        else
                g_string_append(out, "no board total (no input rail); its parts:\n");
        g_string_append(out, rows->str);
}

static void temp_row(GString *out, const jc_sample *s, bool color)
{
        /* Zones in as many lines of 80 columns as they need. */
        g_autoptr(GString) lines = g_string_new(NULL);
        size_t line_start = 0;
        GVariantIter it;
        const char *key;
        GVariant *v;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &v)) {
                if (g_str_has_prefix(key, "temp.") && g_variant_is_of_type(v, G_VARIANT_TYPE_DOUBLE)) {
                        g_autofree char *trips = jc_trip_text(s, key + 5, false);
                        g_autofree char *item = g_strdup_printf("%s %.1f°C%s", key + 5, g_variant_get_double(v), trips);
                        size_t width = g_utf8_strlen(lines->str + line_start, -1);
                        if (width && LABEL_WIDTH + width + 2 + g_utf8_strlen(item, -1) > 80) {
                                g_string_append_printf(lines, "\n%*s", LABEL_WIDTH, "");
                                line_start = lines->len;
                        } else if (width) {
                                g_string_append(lines, "  ");
                        }
                        g_string_append(lines, item);
                }
                g_variant_unref(v);
        }
        if (!lines->len)
                return;
        label(out, color, "Temp");
        g_string_append_printf(out, "%s\n", lines->str);
}

/* Is it throttled, and why: the summary every view shows (common/throttle.h). */
static void throttle_row(GString *out, const jc_sample *s, bool color)
{
        bool active;
        g_autofree char *line = jc_throttle_line(s, &active);
        if (!line)
                return;
        label(out, color, "Throttle");
        /* Its "; "-separated parts in lines of 80 columns. */
        g_autoptr(GString) text = g_string_new(NULL);
        size_t line_start = 0;
        g_auto(GStrv) parts = g_strsplit(line, "; ", -1);
        for (char **p = parts; *p; p++) {
                size_t width = g_utf8_strlen(text->str + line_start, -1);
                if (width && LABEL_WIDTH + 1 + width + 2 + g_utf8_strlen(*p, -1) > 80) {
                        g_string_append_printf(text, ";\n%*s", LABEL_WIDTH + 1, "");
                        line_start = text->len;
                } else if (width) {
                        g_string_append(text, "; ");
                }
                g_string_append(text, *p);
        }
        g_string_append_c(out, ' ');
        jc_append_colored(out, color, active ? JC_COLOR_RED : JC_COLOR_NONE, text->str);
        g_string_append_c(out, '\n');
}

static void engine_row(GString *out, const jc_sample *s, bool color)
{
        g_autoptr(GString) line = g_string_new(NULL);
        bool any = false;
        GVariantIter it;
        const char *key;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, NULL)) {
                if (!g_str_has_prefix(key, "engine.") || !g_str_has_suffix(key, ".online"))
                        continue;
                any = true;
                bool on = false;
                if (!jc_sample_bool(s, key, &on) || !on)
                        continue;
                g_autofree char *name = g_strndup(key + 7, strlen(key) - 7 - strlen(".online"));
                uint64_t f;
                g_string_append_printf(line, "%s%s", line->len ? ", " : "", name);
                if (jc_sample_uintf(s, &f, "engine.%s.freq", name))
                        g_string_append_printf(line, " %" G_GUINT64_FORMAT " MHz", f / 1000);
        }
        if (!any)
                return;
        label(out, color, "Engines");
        g_string_append_printf(out, "%s\n", line->len ? line->str : "none on");
}

static void print_text(const status_data *d, bool color)
{
        g_autoptr(GString) out = g_string_new(NULL);
        header(out, d, color);
        g_string_append_c(out, '\n');
        const jc_sample *s = &d->sample;
        cpu_rows(out, s, color);
        unit_row(out, s, color, "GPU", "gpu");
        for (guint i = 0; d->dgpus && i < d->dgpus->len; i++)
                dgpu_rows(out, s, g_ptr_array_index(d->dgpus, i), color);
        unit_row(out, s, color, "EMC", "emc");
        memory_rows(out, s, color);
        power_rows(out, s, d, color);
        temp_row(out, s, color);
        throttle_row(out, s, color);
        engine_row(out, s, color);
        jc_status_process_rows(out, s, color);
        fputs(out->str, stdout);
}

/* ---- JSON ----------------------------------------------------------- */

static void print_json(const status_data *d)
{
        JsonBuilder *b = json_builder_new();
        json_builder_begin_object(b);

        json_builder_set_member_name(b, "board");
        json_builder_add_value(b, jc_doc_board(d->board));
        json_builder_set_member_name(b, "nvpmodel");
        json_builder_add_value(b, jc_doc_nvpmodel(d->nvpmodel));
        json_builder_set_member_name(b, "jetson_clocks");
        json_builder_add_value(b, jc_doc_clocks(d->clocks));
        json_builder_set_member_name(b, "fans");
        json_builder_begin_array(b);
        for (guint i = 0; d->fans && i < d->fans->len; i++)
                json_builder_add_value(b, jc_doc_fan(g_ptr_array_index(d->fans, i)));
        json_builder_end_array(b);
        json_builder_set_member_name(b, "dgpus");
        json_builder_begin_array(b);
        for (guint i = 0; d->dgpus && i < d->dgpus->len; i++)
                json_builder_add_value(b, jc_doc_dgpu(g_ptr_array_index(d->dgpus, i)));
        json_builder_end_array(b);

        json_builder_set_member_name(b, "temperatures");
        json_builder_add_value(b, jc_trip_doc(&d->sample));
        json_builder_set_member_name(b, "timestamp_usec");
        json_builder_add_int_value(b, (gint64) d->sample.timestamp_usec);
        jc_json_add_variant(b, "values", d->sample.values);
        /* What jetsond does not send: the command lines this user may read. */
        json_builder_set_member_name(b, "commands");
        json_builder_add_value(b, jc_status_commands_doc(&d->sample));
        json_builder_end_object(b);
        jc_json_print_builder(b);
}

int jc_cmd_status(jc_ctx *c, int argc, char **argv)
{
        (void) argv;
        if (argc > 1)
                return jc_usage_error("status", "status takes no arguments");
        status_data d = { 0 };
        int ret = fetch(c, &d);
        if (ret == JC_EXIT_OK) {
                if (c->json)
                        print_json(&d);
                else
                        print_text(&d, c->color);
        }
        status_data_clear(&d);
        return ret;
}
