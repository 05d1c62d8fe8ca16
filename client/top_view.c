/* jetsonctl top's screen (ncursesw), drawn whole from a jc_top for the
 * terminal's current size: the header, CPU cores in as many columns as
 * fit, GPU, EMC, memory, power rails (now and average), temperatures,
 * engines that are on, the GPU processes, and a footer with the keys or
 * the outcome of the last change. Every line is cut to the width. */
#include <curses.h>
#include <locale.h>
#include <string.h>

#include "output.h"
#include "top.h"

enum { PAIR_OK = 1, PAIR_WARM, PAIR_HOT, PAIR_TITLE };

static bool colors;

void jc_top_view_start(jc_top *t)
{
        setlocale(LC_ALL, "");
        initscr();
        cbreak();
        noecho();
        nodelay(stdscr, TRUE);
        keypad(stdscr, TRUE);
        curs_set(0);
        colors = t->color && has_colors();
        if (colors) {
                start_color();
                use_default_colors();
                init_pair(PAIR_OK, COLOR_GREEN, -1);
                init_pair(PAIR_WARM, COLOR_YELLOW, -1);
                init_pair(PAIR_HOT, COLOR_RED, -1);
                init_pair(PAIR_TITLE, COLOR_CYAN, -1);
        }
}

void jc_top_view_end(void)
{
        endwin();
}

static attr_t pair(int p)
{
        return colors ? COLOR_PAIR(p) : A_NORMAL;
}

/* TEXT at (Y, X), cut to the screen's width (one cell per character:
 * everything drawn here is narrow). */
static int put(int y, int x, attr_t attr, const char *text)
{
        if (y < 0 || y >= LINES || x >= COLS)
                return x;
        glong room = COLS - x, len = g_utf8_strlen(text, -1);
        const char *end = len > room ? g_utf8_offset_to_pointer(text, room) : text + strlen(text);
        attron(attr);
        mvaddnstr(y, x, text, (int) (end - text));
        attroff(attr);
        return x + (int) MIN(len, room);
}

static int putf(int y, int x, attr_t attr, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
static int putf(int y, int x, attr_t attr, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        g_autofree char *text = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        return put(y, x, attr, text);
}

/* "[|||||     ]" WIDTH cells wide for PCT, coloured by load. */
static void bar(int y, int x, int width, double pct)
{
        if (width < 3)
                return;
        int inner = width - 2, fill = (int) (pct * inner / 100.0 + 0.5);
        fill = fill < 0 ? 0 : fill > inner ? inner : fill;
        g_autofree char *bars = g_strnfill((gsize) fill, '|');
        g_autofree char *spaces = g_strnfill((gsize) (inner - fill), ' ');
        put(y, x, A_NORMAL, "[");
        put(y, x + 1, pair(pct >= 90 ? PAIR_HOT : pct >= 60 ? PAIR_WARM : PAIR_OK), bars);
        put(y, x + 1 + fill, A_NORMAL, spaces);
        put(y, x + width - 1, A_NORMAL, "]");
}

static int draw_header(const jc_top *t, int y)
{
        const jc_sample *s = &t->sample;
        uint64_t up;
        int x = put(y, 0, A_BOLD, t->board);
        if (jc_sample_uint(s, "uptime", &up))
                putf(y, x, A_NORMAL, "  up %" G_GUINT64_FORMAT "d %02" G_GUINT64_FORMAT ":%02" G_GUINT64_FORMAT,
                     up / 86400, up / 3600 % 24, up / 60 % 60);
        y++;
        x = 0;
        const char *mode = jc_sample_string(s, "nvpmodel.name");
        if (mode)
                x = putf(y, x, A_NORMAL, "mode %s  ", mode);
        bool on;
        if (jc_sample_bool(s, "jetson_clocks.active", &on))
                x = put(y, x, on ? pair(PAIR_WARM) | A_BOLD : A_NORMAL, on ? "jetson_clocks ON  " : "jetson_clocks off  ");
        for (unsigned n = 0; n < 16; n++) {
                double speed;
                uint64_t rpm;
                const char *profile = NULL;
                g_autofree char *key = g_strdup_printf("fan.%u.profile", n);
                profile = jc_sample_string(s, key);
                bool has_speed = jc_sample_doublef(s, &speed, "fan.%u.speed", n);
                if (!profile && !has_speed)
                        break;
                x = putf(y, x, A_NORMAL, "fan%u %s", n, profile ? profile : "");
                if (has_speed)
                        x = putf(y, x, A_NORMAL, " %.0f%%", speed);
                if (jc_sample_uintf(s, &rpm, "fan.%u.rpm", n))
                        x = putf(y, x, A_NORMAL, " %" G_GUINT64_FORMAT " rpm", rpm);
                x = put(y, x, A_NORMAL, "  ");
        }
        return y + 1;
}

static int draw_cpus(const jc_top *t, int y, int last)
{
        const jc_sample *s = &t->sample;
        unsigned n_cpus = 0;
        bool online;
        while (n_cpus < 1024 && jc_sample_boolf(s, &online, "cpu.%u.online", n_cpus))
                n_cpus++;
        if (n_cpus == 0)
                return y;
        int width = 40, per_row = COLS / width > 0 ? COLS / width : 1;
        int rows = (int) ((n_cpus + (unsigned) per_row - 1) / (unsigned) per_row);
        for (unsigned n = 0; n < n_cpus; n++) {
                int row = y + (int) n % rows, x = (int) n / rows * width;
                if (row > last)
                        continue;
                putf(row, x, pair(PAIR_TITLE), "CPU%-2u", n);
                double load;
                uint64_t f;
                jc_sample_boolf(s, &online, "cpu.%u.online", n);
                if (!online) {
                        put(row, x + 6, pair(PAIR_TITLE), "off");
                        continue;
                }
                bool has_load = jc_sample_doublef(s, &load, "cpu.%u.load", n);
                bar(row, x + 6, width - 23, has_load ? load : 0);
                g_autofree char *freq = jc_sample_uintf(s, &f, "cpu.%u.freq", n) ? jc_format_khz(f) : g_strdup("");
                if (has_load)
                        putf(row, x + width - 17, A_NORMAL, "%3.0f%% %9s", load, freq);
                else
                        putf(row, x + width - 17, A_NORMAL, "   - %9s", freq);
        }
        return y + rows;
}

/* "GPU [|||   ] 35%  306 MHz (306-1300 MHz)" */
static int draw_unit(const jc_top *t, int y, const char *title, const char *prefix)
{
        const jc_sample *s = &t->sample;
        double load;
        uint64_t f, lo, hi;
        g_autofree char *load_key = g_strdup_printf("%s.load", prefix), *freq_key = g_strdup_printf("%s.freq", prefix);
        g_autofree char *min_key = g_strdup_printf("%s.min_freq", prefix);
        g_autofree char *max_key = g_strdup_printf("%s.max_freq", prefix);
        bool has_load = jc_sample_double(s, load_key, &load), has_freq = jc_sample_uint(s, freq_key, &f);
        if (!has_load && !has_freq)
                return y;
        put(y, 0, pair(PAIR_TITLE), title);
        int width = MIN(COLS, 80) / 2;
        bar(y, 6, width - 6, has_load ? load : 0);
        int x = has_load ? putf(y, width + 1, A_NORMAL, "%3.0f%%", load) : put(y, width + 1, A_NORMAL, "  -");
        if (has_freq) {
                g_autofree char *now = jc_format_khz(f);
                x = putf(y, x, A_NORMAL, "  %s", now);
        }
        if (jc_sample_uint(s, min_key, &lo) && jc_sample_uint(s, max_key, &hi))
                putf(y, x, A_NORMAL, " (%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT ")", lo / 1000, hi / 1000);
        return y + 1;
}

static int draw_memory(const jc_top *t, int y)
{
        const jc_sample *s = &t->sample;
        uint64_t used, total, a, b;
        if (!jc_sample_uint(s, "ram.used", &used) || !jc_sample_uint(s, "ram.total", &total))
                return y;
        put(y, 0, pair(PAIR_TITLE), "RAM");
        g_autofree char *u = jc_format_kib(used), *tt = jc_format_kib(total);
        int x = putf(y, 6, A_NORMAL, "%s/%s ", u, tt);
        /* Sizes in whole MiB as every command prints them: the bar is
         * short enough for RAM, swap and GPU shared to fit 80 columns. */
        bar(y, x, 10, total ? (double) used * 100.0 / (double) total : 0);
        x += 10;
        if (jc_sample_uint(s, "swap.used", &a) && jc_sample_uint(s, "swap.total", &b) && b > 0) {
                g_autofree char *su = jc_format_kib(a), *st = jc_format_kib(b);
                x = putf(y, x, A_NORMAL, "  swap %s/%s", su, st);
        }
        if (jc_sample_uint(s, "ram.shared", &a)) {
                g_autofree char *sh = jc_format_kib(a);
                putf(y, x, A_NORMAL, "  GPU shared %s", sh);
        }
        return y + 1;
}

/* Rails two (or more) to a row: "VDD_GPU_SOC  2392 mW avg  2390"; the
 * board total in the title line. */
static int draw_power(const jc_top *t, int y, int last)
{
        const jc_sample *s = &t->sample;
        uint64_t now;
        double avg;
        int x = put(y, 0, pair(PAIR_TITLE), "Power");
        if (jc_sample_uint(s, "power.total", &now)) {
                bool sum = false;
                jc_sample_bool(s, "power.total_is_sum", &sum);
                x = putf(y, 7, A_BOLD, "board %s%" G_GUINT64_FORMAT " mW", sum ? "~" : "", now);
                if (jc_top_energy_average(t->energy, "energy.total", &avg))
                        putf(y, x, A_NORMAL, "  avg %.0f mW", avg);
        } else {
                (void) x;
        }
        int width = 40, per_row = COLS / width > 0 ? COLS / width : 1, i = 0;
        GVariantIter it;
        const char *key;
        GVariant *value;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                if (g_str_has_prefix(key, "power.") && g_str_has_suffix(key, ".power") &&
                    g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32)) {
                        int row = y + 1 + i / per_row, col = i % per_row * width;
                        g_autofree char *rail = g_strndup(key + 6, strlen(key) - 12);
                        g_autofree char *energy_key = g_strdup_printf("energy.%s", rail);
                        if (row <= last) {
                                putf(row, col, A_NORMAL, "  %-18.18s %6u mW", rail, g_variant_get_uint32(value));
                                if (jc_top_energy_average(t->energy, energy_key, &avg))
                                        putf(row, col + 31, A_NORMAL, "avg %5.0f", avg);
                        }
                        i++;
                }
                g_variant_unref(value);
        }
        return y + 1 + (i + per_row - 1) / per_row;
}

/* Temperatures coloured by fixed bands (the samples carry no trip points). */
static int draw_temperatures(const jc_top *t, int y)
{
        int x = put(y, 0, pair(PAIR_TITLE), "Temp");
        x = 6;
        GVariantIter it;
        const char *key;
        GVariant *value;
        g_variant_iter_init(&it, t->sample.values);
        bool any = false;
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                if (g_str_has_prefix(key, "temp.") && g_variant_is_of_type(value, G_VARIANT_TYPE_DOUBLE)) {
                        double c = g_variant_get_double(value);
                        x = putf(y, x, A_NORMAL, "%s ", key + 5);
                        x = putf(y, x, pair(c >= 85 ? PAIR_HOT : c >= 70 ? PAIR_WARM : PAIR_OK), "%.1f°C  ", c);
                        any = true;
                }
                g_variant_unref(value);
        }
        return any ? y + 1 : y;
}

static int draw_engines(const jc_top *t, int y)
{
        int x = 6;
        GVariantIter it;
        const char *key;
        GVariant *value;
        g_variant_iter_init(&it, t->sample.values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                if (g_str_has_prefix(key, "engine.") && g_str_has_suffix(key, ".freq") &&
                    g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
                        x = putf(y, x, A_NORMAL, "%.*s %u  ", (int) (strlen(key) - 12), key + 7,
                                 g_variant_get_uint32(value) / 1000);
                g_variant_unref(value);
        }
        if (x == 6)
                return y;
        put(y, 0, pair(PAIR_TITLE), "Eng");
        return y + 1;
}

static int draw_processes(const jc_top *t, int y, int last)
{
        g_autoptr(GArray) list = jc_gpu_process_rows(&t->sample, t->sort);
        if (list->len == 0)
                return y;
        putf(y, 0, A_REVERSE, "%-3s %7s %-9s %-14s %5s %4s %9s %9s%*s", "GPU", "PID", "USER", "NAME", "CPU%", "SM%",
             "RSS", "GPU MEM", COLS > 67 ? COLS - 67 : 0, "");
        /* The sorted column's title is underlined. */
        static const int sort_col[JC_TOP_SORT_N] = { 58, 37, 48, 4 };
        static const int sort_width[JC_TOP_SORT_N] = { 9, 5, 9, 7 };
        mvchgat(y, sort_col[t->sort], sort_width[t->sort], A_REVERSE | A_UNDERLINE, 0, NULL);
        for (guint i = 0; i < list->len && y + 1 + (int) i <= last; i++) {
                const jc_gpu_process_row *p = &g_array_index(list, jc_gpu_process_row, i);
                g_autofree char *gpu = p->gpu == JC_GPU_SOC ? g_strdup("SoC") : g_strdup_printf("%d", p->gpu);
                g_autofree char *cpu = p->has_cpu ? g_strdup_printf("%.1f", p->cpu) : g_strdup("-");
                g_autofree char *sm = p->has_sm ? g_strdup_printf("%.0f", p->sm) : g_strdup("-");
                g_autofree char *rss = p->has_rss ? jc_format_kib(p->rss_kib) : g_strdup("-");
                g_autofree char *mem = p->has_mem ? jc_format_kib(p->mem_kib) : g_strdup("-");
                putf(y + 1 + (int) i, 0, A_NORMAL, "%-3s %7u %-9.9s %-14.14s %5s %4s %9s %9s", gpu, p->pid, p->user,
                     p->name, cpu, sm, rss, mem);
        }
        return y + 1 + (int) list->len;
}

static void draw_chooser(const jc_top *t)
{
        int h = (int) t->choices->len + 3, w = 44, y0 = MAX(0, (LINES - h) / 2), x0 = MAX(0, (COLS - w) / 2);
        for (int r = 0; r < h; r++)
                putf(y0 + r, x0, A_REVERSE, "%-*s", w, "");
        putf(y0, x0 + 1, A_REVERSE | A_BOLD, "%s", t->mode == JC_TOP_CHOOSE_MODE ? "Power mode" : "Fan profile");
        for (guint i = 0; i < t->choices->len; i++) {
                const jc_top_choice *ch = &g_array_index(t->choices, jc_top_choice, i);
                putf(y0 + 1 + (int) i, x0 + 1, A_REVERSE, "%u  %s%s", i + 1, ch->label, ch->current ? "  (current)" : "");
        }
        putf(y0 + h - 1, x0 + 1, A_REVERSE, "1-%u choose, Esc cancel", t->choices->len);
}

void jc_top_draw(const jc_top *t)
{
        erase();
        int last = LINES - 2; /* the footer is the last line */
        if (!t->have_sample) {
                put(0, 0, A_NORMAL, "Waiting for jetsond's first sample...");
        } else {
                int y = draw_header(t, 0);
                y = draw_cpus(t, y, last);
                y = draw_unit(t, y, "GPU", "gpu");
                /* Discrete GPUs (NVML), by index: what the sample has. */
                for (unsigned n = 0; n < 16; n++) {
                        g_autofree char *title = g_strdup_printf("GPU%u", n);
                        g_autofree char *prefix = g_strdup_printf("dgpu.%u", n);
                        y = draw_unit(t, y, title, prefix);
                }
                y = draw_unit(t, y, "EMC", "emc");
                y = draw_memory(t, y);
                y = draw_power(t, y, last);
                y = draw_temperatures(t, y);
                y = draw_engines(t, y);
                draw_processes(t, y, last);
        }
        if (t->message[0])
                putf(LINES - 1, 0, t->message_is_error ? pair(PAIR_HOT) | A_BOLD : A_BOLD, "%s", t->message);
        else
                putf(LINES - 1, 0, A_REVERSE, " q quit  s sort (%s)  m power mode  f fan profile%*s",
                     jc_top_sort_name(t->sort), COLS, "");
        if (t->mode != JC_TOP_SCREEN)
                draw_chooser(t);
        refresh();
}
