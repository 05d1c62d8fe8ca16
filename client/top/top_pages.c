/* jetsonctl top's CPU, GPU and memory pages: the overview's numbers in
 * full, each with its history graphs (top_draw.c) from the view's one
 * subscription. */
#include <math.h>
#include <string.h>

#include "common/output.h"
#include "top.h"
#include "top_draw.h"

/* " usr 36% sys 18%" (and " nice N%" when there is nice time) of the
 * split whose keys start with PREFIX ("cpu." or "cpu.N."); "" without. */
static char *split_text(const jc_sample *s, const char *prefix)
{
        double user, nice, system;
        if (!jc_sample_doublef(s, &user, "%suser", prefix) || !jc_sample_doublef(s, &system, "%ssystem", prefix))
                return g_strdup("");
        bool has_nice = jc_sample_doublef(s, &nice, "%snice", prefix) && nice >= 0.5;
        return has_nice ? g_strdup_printf(" usr %.0f%% nice %.0f%% sys %.0f%%", user, nice, system)
                        : g_strdup_printf(" usr %.0f%% sys %.0f%%", user, system);
}

/* Rows Y to LAST: the total's graph on a third, then a graph per core in
 * as many columns of 40 as fit, each as tall as the rows allow; each
 * title with the user/system split of its load. */
void jc_top_draw_cpu_page(const jc_top *t, int y, int last)
{
        const jc_sample *s = &t->sample;
        unsigned n = 0;
        bool online;
        while (n < 1024 && jc_sample_boolf(s, &online, "cpu.%u.online", n))
                n++;
        int rows_left = last + 1 - y;
        int total_h = MAX(2, rows_left / 3);
        g_autofree char *total_split = split_text(s, "cpu.");
        g_autofree char *total_title = g_strdup_printf("CPU total%s", total_split);
        y = jc_top_graph(t, y, 0, COLS, total_h, total_title, "cpu.load", 100, 60, 90, "%", 1);
        if (n == 0)
                return;
        int per_row = MAX(1, COLS / 40), grid_rows = (int) ((n + (unsigned) per_row - 1) / (unsigned) per_row);
        int h = MAX(1, MIN(6, (last + 1 - y) / grid_rows)), w = COLS / per_row;
        for (unsigned c = 0; c < n; c++) {
                int row = y + (int) (c / (unsigned) per_row) * h, x = (int) (c % (unsigned) per_row) * w;
                if (row + h - 1 > last)
                        break;
                jc_sample_boolf(s, &online, "cpu.%u.online", c);
                if (!online) {
                        jc_top_putf(row, x, jc_top_pair(JC_PAIR_TITLE), "CPU%u off", c);
                        continue;
                }
                uint64_t f;
                g_autofree char *freq = jc_sample_uintf(s, &f, "cpu.%u.freq", c) ? jc_format_khz(f) : g_strdup("");
                g_autofree char *prefix = g_strdup_printf("cpu.%u.", c);
                g_autofree char *split = split_text(s, prefix);
                g_autofree char *title = g_strdup_printf("CPU%-2u %s%s", c, freq, split);
                g_autofree char *key = g_strdup_printf("cpu.%u.load", c);
                jc_top_graph(t, row, x, w - 1, h, title, key, 100, 60, 90, "%", 1);
        }
}

/* "on"/"off" of a boolean key, or NULL when absent. */
static const char *on_off(const jc_sample *s, const char *key)
{
        bool b;
        return jc_sample_bool(s, key, &b) ? (b ? "on" : "off") : NULL;
}

/* The SoC's GPU as jtop's GPU page shows it: frequency and its limits,
 * governor, 3D scaling, rail gating, the EMC it shares, then its load
 * and frequency graphs. */
static int draw_igpu(const jc_top *t, int y, int last, int graph_h)
{
        const jc_sample *s = &t->sample;
        uint64_t f, lo, hi, emc;
        double load, temp;
        bool has_freq = jc_sample_uint(s, "gpu.freq", &f), has_load = jc_sample_double(s, "gpu.load", &load);
        if (!has_freq && !has_load)
                return y;
        int x = jc_top_put(y, 0, jc_top_pair(JC_PAIR_TITLE) | A_BOLD, "SoC GPU");
        if (has_load)
                x = jc_top_putf(y, x, jc_top_level(load, 60, 90), "  load %.0f%%", load);
        if (has_freq) {
                g_autofree char *now = jc_format_khz(f);
                x = jc_top_putf(y, x, A_NORMAL, "  %s", now);
        }
        if (jc_sample_uint(s, "gpu.min_freq", &lo) && jc_sample_uint(s, "gpu.max_freq", &hi))
                x = jc_top_putf(y, x, A_NORMAL, " (%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT " MHz)", lo / 1000,
                                hi / 1000);
        if (jc_sample_double(s, "gpu.temp", &temp))
                jc_top_putf(y, x, jc_top_level(temp, 70, 85), "  %.1f°C", temp);
        y++;
        x = 2;
        const char *gov = jc_sample_string(s, "gpu.governor"), *scaling = on_off(s, "gpu.3d_scaling"),
                   *railgate = on_off(s, "gpu.railgate");
        if (gov)
                x = jc_top_putf(y, x, A_NORMAL, "governor %s  ", gov);
        if (scaling)
                x = jc_top_putf(y, x, A_NORMAL, "3D scaling %s  ", scaling);
        if (railgate)
                x = jc_top_putf(y, x, A_NORMAL, "rail gating %s  ", railgate);
        if (jc_sample_double(s, "emc.load", &load) && jc_sample_uint(s, "emc.freq", &emc)) {
                g_autofree char *e = jc_format_khz(emc);
                x = jc_top_putf(y, x, A_NORMAL, "EMC %.0f%% of %s", load, e);
        }
        if (x > 2)
                y++;
        if (graph_h >= 2 && y + graph_h - 1 <= last) {
                int w = COLS / 2;
                jc_top_graph(t, y, 0, w - 1, graph_h, "load", "gpu.load", 100, 60, 90, "%", 1);
                double max = jc_sample_uint(s, "gpu.max_freq", &hi) ? (double) hi : 0;
                jc_top_graph(t, y, w, COLS - w, graph_h, "frequency", "gpu.freq", max, G_MAXDOUBLE, G_MAXDOUBLE,
                             " MHz", 0.001);
                y += graph_h;
        }
        return y;
}

/* GPU N's NVLink line, as nvitop's: the rates over all links, and each
 * link's where the sample has them; nothing on a GPU without NVLink. */
static int draw_dgpu_nvlink(const jc_sample *s, unsigned n, int y)
{
        uint64_t rx, tx;
        bool has_rx = jc_sample_uintf(s, &rx, "dgpu.%u.nvlink_rx", n);
        bool has_tx = jc_sample_uintf(s, &tx, "dgpu.%u.nvlink_tx", n);
        if (!has_rx && !has_tx)
                return y;
        int x = jc_top_putf(y, 2, A_NORMAL, "NVLink");
        if (has_rx) {
                g_autofree char *r = jc_format_bytes(rx);
                x = jc_top_putf(y, x, A_NORMAL, "  rx %s/s", r);
        }
        if (has_tx) {
                g_autofree char *w = jc_format_bytes(tx);
                x = jc_top_putf(y, x, A_NORMAL, "  tx %s/s", w);
        }
        /* Each link's rx/tx per second, as far as the line goes. */
        for (unsigned l = 0; l < 18; l++) {
                uint64_t lr = 0, lt = 0;
                bool r = jc_sample_uintf(s, &lr, "dgpu.%u.nvlink.%u.rx", n, l);
                bool w = jc_sample_uintf(s, &lt, "dgpu.%u.nvlink.%u.tx", n, l);
                if (!r && !w)
                        continue;
                g_autofree char *a = jc_format_bytes(lr), *b = jc_format_bytes(lt);
                g_autofree char *cell = g_strdup_printf("  L%u %s/%s", l, r ? a : "-", w ? b : "-");
                if (x + (int) g_utf8_strlen(cell, -1) > COLS)
                        break;
                x = jc_top_putf(y, x, A_DIM, "%s", cell);
        }
        return y + 1;
}

/* With MIG on, a line per MIG device, as nvitop's device rows of MIG
 * instances: slot, instances, memory bar, load where NVML gives it. */
static int draw_dgpu_migs(const jc_sample *s, unsigned n, int y, int last)
{
        for (unsigned m = 0; m < 64 && y <= last; m++) {
                uint64_t used = 0, total = 0, gi, ci;
                double load;
                bool mem = jc_sample_uintf(s, &used, "dgpu.%u.mig.%u.mem_used", n, m) &&
                           jc_sample_uintf(s, &total, "dgpu.%u.mig.%u.mem_total", n, m) && total > 0;
                bool has_gi = jc_sample_uintf(s, &gi, "dgpu.%u.mig.%u.gpu_instance", n, m);
                if (!mem && !has_gi)
                        continue;
                int x = jc_top_putf(y, 2, A_BOLD, "MIG %u", m);
                if (has_gi) {
                        x = jc_top_putf(y, x, A_NORMAL, "  GI %" G_GUINT64_FORMAT, gi);
                        if (jc_sample_uintf(s, &ci, "dgpu.%u.mig.%u.compute_instance", n, m))
                                x = jc_top_putf(y, x, A_NORMAL, " CI %" G_GUINT64_FORMAT, ci);
                }
                if (jc_sample_doublef(s, &load, "dgpu.%u.mig.%u.load", n, m))
                        x = jc_top_putf(y, x, A_NORMAL, "  UTIL %.0f%%", load);
                if (mem) {
                        g_autofree char *u = jc_format_kib(used), *t = jc_format_kib(total);
                        x = jc_top_putf(y, x, A_NORMAL, "  MEM %s / %s ", u, t);
                        jc_top_bar(y, x, MAX(3, MIN(COLS, 120) - x), (double) used * 100.0 / (double) total);
                }
                y++;
        }
        return y;
}

/* One discrete GPU as nvitop's device panel: name, fan, temperature,
 * performance state, power against its limit, memory, load and clocks,
 * then its load and memory graphs. */
static int draw_dgpu(const jc_top *t, unsigned n, int y, int last, int graph_h)
{
        const jc_sample *s = &t->sample;
        double load, temp, fan;
        uint64_t used = 0, total = 0, power, limit, pstate, f;
        bool has_load = jc_sample_doublef(s, &load, "dgpu.%u.load", n);
        bool has_mem = jc_sample_uintf(s, &used, "dgpu.%u.mem_used", n) &&
                       jc_sample_uintf(s, &total, "dgpu.%u.mem_total", n) && total > 0;
        if (!has_load && !has_mem)
                return y;
        const char *name = n < t->dgpu_names->len ? g_ptr_array_index(t->dgpu_names, n) : "";
        int x = jc_top_putf(y, 0, jc_top_pair(JC_PAIR_TITLE) | A_BOLD, "GPU%u %s", n, name);
        if (jc_sample_doublef(s, &fan, "dgpu.%u.fan", n))
                x = jc_top_putf(y, x, A_NORMAL, "  fan %.0f%%", fan);
        if (jc_sample_doublef(s, &temp, "dgpu.%u.temp", n))
                x = jc_top_putf(y, x, jc_top_level(temp, 70, 85), "  %.0f°C", temp);
        if (jc_sample_uintf(s, &pstate, "dgpu.%u.pstate", n))
                x = jc_top_putf(y, x, A_NORMAL, "  P%" G_GUINT64_FORMAT, pstate);
        if (jc_sample_uintf(s, &power, "dgpu.%u.power", n)) {
                x = jc_top_putf(y, x, A_NORMAL, "  %.0f W", (double) power / 1000);
                if (jc_sample_uintf(s, &limit, "dgpu.%u.power_limit", n))
                        jc_top_putf(y, x, A_NORMAL, " / %.0f W", (double) limit / 1000);
        }
        y++;
        int half = MIN(COLS, 120) / 2;
        if (has_mem) {
                g_autofree char *u = jc_format_kib(used), *tt = jc_format_kib(total);
                x = jc_top_putf(y, 2, A_NORMAL, "MEM %s / %s ", u, tt);
                jc_top_bar(y, x, MAX(3, half - x), (double) used * 100.0 / (double) total);
        }
        if (has_load) {
                x = jc_top_putf(y, half + 1, A_NORMAL, "UTIL %3.0f%% ", load);
                jc_top_bar(y, x, MAX(3, 2 * half - x), load);
        }
        y++;
        x = 2;
        static const char *const clocks[][2] = { { "freq", "graphics" }, { "sm_freq", "SM" }, { "mem_freq", "memory" } };
        for (size_t i = 0; i < G_N_ELEMENTS(clocks); i++)
                if (jc_sample_uintf(s, &f, "dgpu.%u.%s", n, clocks[i][0])) {
                        g_autofree char *c = jc_format_khz(f);
                        x = jc_top_putf(y, x, A_NORMAL, "%s %s  ", clocks[i][1], c);
                }
        if (jc_sample_doublef(s, &load, "dgpu.%u.encoder_load", n))
                x = jc_top_putf(y, x, A_NORMAL, "enc %.0f%%  ", load);
        if (jc_sample_doublef(s, &load, "dgpu.%u.decoder_load", n))
                x = jc_top_putf(y, x, A_NORMAL, "dec %.0f%%  ", load);
        if (x > 2)
                y++;
        y = jc_top_draw_dgpu_facts(t, n, y);
        y = draw_dgpu_nvlink(s, n, y);
        y = draw_dgpu_migs(s, n, y, last);
        if (graph_h >= 2 && y + graph_h - 1 <= last) {
                int w = COLS / 2;
                g_autofree char *load_key = g_strdup_printf("dgpu.%u.load", n);
                g_autofree char *mem_key = g_strdup_printf("dgpu.%u.mem_used", n);
                jc_top_graph(t, y, 0, w - 1, graph_h, "load", load_key, 100, 60, 90, "%", 1);
                if (has_mem)
                        jc_top_graph(t, y, w, COLS - w, graph_h, "memory", mem_key, (double) total,
                                     0.6 * (double) total, 0.9 * (double) total, " MiB", 1.0 / 1024);
                y += graph_h;
        }
        return y;
}

void jc_top_draw_gpu_page(const jc_top *t, int y, int last)
{
        const jc_sample *s = &t->sample;
        int gpus = 0;
        double d;
        uint64_t u;
        bool igpu = jc_sample_uint(s, "gpu.freq", &u) || jc_sample_double(s, "gpu.load", &d);
        gpus += igpu;
        for (unsigned n = 0; n < 16; n++)
                gpus += jc_sample_doublef(s, &d, "dgpu.%u.load", n) || jc_sample_uintf(s, &u, "dgpu.%u.mem_used", n);
        if (gpus == 0) {
                jc_top_put(y, 0, A_NORMAL, "No GPU in the samples.");
                return;
        }
        /* Each GPU's text takes about 3 rows and a blank; its graphs share
         * the rest. */
        int graph_h = MIN(12, (last + 1 - y) / gpus - 4);
        if (igpu)
                y = draw_igpu(t, y, last, graph_h) + 1;
        for (unsigned n = 0; n < 16 && y <= last; n++) {
                int next = draw_dgpu(t, n, y, last, graph_h);
                y = next > y ? next + 1 : y;
        }
}
