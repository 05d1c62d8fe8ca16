/* jetsonctl top's screen (ncursesw), drawn whole from a jc_top for the
 * terminal's current size: the header, CPU cores in as many columns as
 * fit, GPU, EMC, memory, power rails (now and average), temperatures,
 * engines that are on, the GPU processes, and a footer with the keys or
 * the outcome of the last change. Every line is cut to the width. */
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <string.h>

#include "common/output.h"
#include "common/throttle.h"
#include "common/trips.h"
#include "top.h"
#include "top_draw.h"
#include "top_mouse.h"

static const char *const page_names[JC_PAGE_N] = { "Overview", "CPU", "GPU", "Memory", "Power", "Engines",
                                                       "Control", "Info" };

const char *jc_top_page_name(jc_top_page page)
{
        return page < JC_PAGE_N ? page_names[page] : "";
}

void jc_top_view_start(jc_top *t)
{
        setlocale(LC_ALL, "");
        initscr();
        cbreak();
        noecho();
        nodelay(stdscr, TRUE);
        keypad(stdscr, TRUE);
        curs_set(0);
        /* Clicks on pages, column titles and rows; no drag, so the
         * terminal's own selection still works with Shift. */
        mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED, NULL);
        mouseinterval(0);
        jc_top_mouse_start();
        /* Braille and block graphs need a UTF-8 locale; ASCII otherwise. */
        if (strcmp(nl_langinfo(CODESET), "UTF-8") != 0)
                t->graph_style = JC_GRAPH_ASCII;
        bool colors = t->color && has_colors();
        jc_top_colors(colors);
        if (colors) {
                start_color();
                use_default_colors();
                init_pair(JC_PAIR_OK, COLOR_GREEN, -1);
                init_pair(JC_PAIR_WARM, COLOR_YELLOW, -1);
                init_pair(JC_PAIR_HOT, COLOR_RED, -1);
                init_pair(JC_PAIR_TITLE, COLOR_CYAN, -1);
        }
}

void jc_top_view_end(void)
{
        jc_top_mouse_end();
        endwin();
}

static int draw_header(const jc_top *t, int y)
{
        const jc_sample *s = &t->sample;
        uint64_t up;
        int x = jc_top_put(y, 0, A_BOLD, t->board);
        if (jc_sample_uint(s, "uptime", &up))
                jc_top_putf(y, x, A_NORMAL, "  up %" G_GUINT64_FORMAT "d %02" G_GUINT64_FORMAT ":%02" G_GUINT64_FORMAT,
                     up / 86400, up / 3600 % 24, up / 60 % 60);
        /* The marker: what holds the clocks down now (the Power page says more). */
        g_autofree char *now = jc_throttle_now(s);
        if (now) {
                x = jc_top_put(y, x, jc_top_pair(JC_PAIR_HOT) | A_BOLD, "  THROTTLED");
                x = jc_top_putf(y, x, jc_top_pair(JC_PAIR_HOT), " %s", now);
        }
        y++;
        x = 0;
        const char *mode = jc_sample_string(s, "nvpmodel.name");
        if (mode)
                x = jc_top_putf(y, x, A_NORMAL, "mode %s  ", mode);
        bool on;
        if (jc_sample_bool(s, "jetson_clocks.active", &on))
                x = jc_top_put(y, x, on ? jc_top_pair(JC_PAIR_WARM) | A_BOLD : A_NORMAL, on ? "jetson_clocks ON  " : "jetson_clocks off  ");
        for (unsigned n = 0; n < 16; n++) {
                double speed;
                uint64_t rpm;
                const char *profile = NULL;
                g_autofree char *key = g_strdup_printf("fan.%u.profile", n);
                profile = jc_sample_string(s, key);
                bool has_speed = jc_sample_doublef(s, &speed, "fan.%u.speed", n);
                if (!profile && !has_speed)
                        break;
                x = jc_top_putf(y, x, A_NORMAL, "fan%u %s", n, profile ? profile : "");
                if (has_speed)
                        x = jc_top_putf(y, x, A_NORMAL, " %.0f%%", speed);
                if (jc_sample_uintf(s, &rpm, "fan.%u.rpm", n))
                        x = jc_top_putf(y, x, A_NORMAL, " %" G_GUINT64_FORMAT " rpm", rpm);
                x = jc_top_put(y, x, A_NORMAL, "  ");
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
                jc_top_putf(row, x, jc_top_pair(JC_PAIR_TITLE), "CPU%-2u", n);
                double load;
                uint64_t f;
                jc_sample_boolf(s, &online, "cpu.%u.online", n);
                if (!online) {
                        jc_top_put(row, x + 6, jc_top_pair(JC_PAIR_TITLE), "off");
                        continue;
                }
                bool has_load = jc_sample_doublef(s, &load, "cpu.%u.load", n);
                jc_top_bar(row, x + 6, width - 23, has_load ? load : 0);
                g_autofree char *freq = jc_sample_uintf(s, &f, "cpu.%u.freq", n) ? jc_format_khz(f) : g_strdup("");
                if (has_load)
                        jc_top_putf(row, x + width - 17, A_NORMAL, "%3.0f%% %9s", load, freq);
                else
                        jc_top_putf(row, x + width - 17, A_NORMAL, "   - %9s", freq);
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
        jc_top_put(y, 0, jc_top_pair(JC_PAIR_TITLE), title);
        int width = MIN(COLS, 80) / 2;
        jc_top_bar(y, 6, width - 6, has_load ? load : 0);
        int x = has_load ? jc_top_putf(y, width + 1, A_NORMAL, "%3.0f%%", load) : jc_top_put(y, width + 1, A_NORMAL, "  -");
        if (has_freq) {
                g_autofree char *now = jc_format_khz(f);
                x = jc_top_putf(y, x, A_NORMAL, "  %s", now);
        }
        if (jc_sample_uint(s, min_key, &lo) && jc_sample_uint(s, max_key, &hi))
                jc_top_putf(y, x, A_NORMAL, " (%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT ")", lo / 1000, hi / 1000);
        return y + 1;
}

/* A discrete GPU's second line, nvitop's device panel in one: "NVIDIA
 * GeForce RTX 4090  MEM 1280 MiB/24564 MiB  61°C  231/450 W  fan 40%",
 * what it reports. */
static int draw_dgpu_device(const jc_top *t, int y, unsigned n)
{
        const jc_sample *s = &t->sample;
        double temp, fan;
        uint64_t used, total, power, limit;
        const char *name = n < t->dgpu_names->len ? g_ptr_array_index(t->dgpu_names, n) : "";
        int x = jc_top_putf(y, 6, A_NORMAL, "%.28s", name);
        if (jc_sample_uintf(s, &used, "dgpu.%u.mem_used", n) && jc_sample_uintf(s, &total, "dgpu.%u.mem_total", n)) {
                g_autofree char *u = jc_format_kib(used), *tt = jc_format_kib(total);
                x = jc_top_putf(y, x, A_NORMAL, "  MEM %s/%s", u, tt);
        }
        if (jc_sample_doublef(s, &temp, "dgpu.%u.temp", n)) {
                x = jc_top_put(y, x, A_NORMAL, "  ");
                x = jc_top_putf(y, x, jc_top_level(temp, 70, 85), "%.0f°C", temp);
        }
        /* "231/450 W", as jetsonctl status: the line fits 80 columns. */
        if (jc_sample_uintf(s, &power, "dgpu.%u.power", n)) {
                x = jc_top_putf(y, x, A_NORMAL, "  %.0f", (double) power / 1000);
                if (jc_sample_uintf(s, &limit, "dgpu.%u.power_limit", n))
                        x = jc_top_putf(y, x, A_NORMAL, "/%.0f", (double) limit / 1000);
                x = jc_top_put(y, x, A_NORMAL, " W");
        }
        if (jc_sample_doublef(s, &fan, "dgpu.%u.fan", n))
                jc_top_putf(y, x, A_NORMAL, "  fan %.0f%%", fan);
        return y + 1;
}

static int draw_memory(const jc_top *t, int y)
{
        const jc_sample *s = &t->sample;
        uint64_t used, total, a, b;
        if (!jc_sample_uint(s, "ram.used", &used) || !jc_sample_uint(s, "ram.total", &total))
                return y;
        jc_top_put(y, 0, jc_top_pair(JC_PAIR_TITLE), "RAM");
        g_autofree char *u = jc_format_kib(used), *tt = jc_format_kib(total);
        int x = jc_top_putf(y, 6, A_NORMAL, "%s/%s ", u, tt);
        /* Sizes in whole MiB as every command prints them: the bar is
         * short enough for RAM, swap and GPU shared to fit 80 columns. */
        jc_top_bar(y, x, 10, total ? (double) used * 100.0 / (double) total : 0);
        x += 10;
        if (jc_sample_uint(s, "swap.used", &a) && jc_sample_uint(s, "swap.total", &b) && b > 0) {
                g_autofree char *su = jc_format_kib(a), *st = jc_format_kib(b);
                x = jc_top_putf(y, x, A_NORMAL, "  swap %s/%s", su, st);
        }
        if (jc_sample_uint(s, "ram.shared", &a)) {
                g_autofree char *sh = jc_format_kib(a);
                jc_top_putf(y, x, A_NORMAL, "  GPU shared %s", sh);
        }
        return y + 1;
}

/* One entry of the power grid: "VDD_GPU_SOC  2392 mW avg  2390". */
static void power_entry(const jc_top *t, int row, int col, const char *name, uint64_t mw, const char *energy_key)
{
        double avg;
        jc_top_putf(row, col, A_NORMAL, "  %-18.18s %6" G_GUINT64_FORMAT " mW", name, mw);
        if (jc_top_energy_average(t->energy, energy_key, &avg))
                jc_top_putf(row, col + 31, A_NORMAL, "avg %5.0f", avg);
}

/* Rails two (or more) to a row, then each discrete GPU's power with its
 * limit; the board total in the title line. No section with none. */
static int draw_power(const jc_top *t, int y, int last)
{
        const jc_sample *s = &t->sample;
        uint64_t now, limit;
        double avg;
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
                        if (row <= last)
                                power_entry(t, row, col, rail, g_variant_get_uint32(value), energy_key);
                        i++;
                }
                g_variant_unref(value);
        }
        for (unsigned n = 0; n < 16; n++) {
                if (!jc_sample_uintf(s, &now, "dgpu.%u.power", n))
                        continue;
                int row = y + 1 + i / per_row, col = i % per_row * width;
                g_autofree char *name = jc_sample_uintf(s, &limit, "dgpu.%u.power_limit", n)
                                                ? g_strdup_printf("GPU%u of %.0f W", n, (double) limit / 1000)
                                                : g_strdup_printf("GPU%u", n);
                g_autofree char *energy_key = g_strdup_printf("dgpu.%u.energy", n);
                if (row <= last)
                        power_entry(t, row, col, name, now, energy_key);
                i++;
        }
        bool has_total = jc_sample_uint(s, "power.total", &now);
        if (!has_total && i == 0)
                return y;
        jc_top_put(y, 0, jc_top_pair(JC_PAIR_TITLE), "Power");
        if (has_total) {
                bool sum = false;
                jc_sample_bool(s, "power.total_is_sum", &sum);
                int x = jc_top_putf(y, 7, A_BOLD, "board %s%" G_GUINT64_FORMAT " mW", sum ? "~" : "", now);
                if (jc_top_energy_average(t->energy, "energy.total", &avg))
                        jc_top_putf(y, x, A_NORMAL, "  avg %.0f mW", avg);
        }
        return y + 1 + (i + per_row - 1) / per_row;
}

/* Temperatures coloured by their zone's trip points (common/trips.h),
 * "name value" never cut between rows: an item that does not
 * fit the row starts the next, up to ROWS rows. */
int jc_top_draw_temperatures(const jc_top *t, int y, int rows)
{
        int x = 6, row = 0;
        GVariantIter it;
        const char *key;
        GVariant *value;
        g_variant_iter_init(&it, t->sample.values);
        bool any = false;
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                if (g_str_has_prefix(key, "temp.") && g_variant_is_of_type(value, G_VARIANT_TYPE_DOUBLE)) {
                        double c = g_variant_get_double(value);
                        g_autofree char *deg = g_strdup_printf("%.1f°C", c);
                        int len = (int) (strlen(key + 5) + 1 + g_utf8_strlen(deg, -1));
                        if (x > 6 && x + len > COLS) {
                                x = 6;
                                row++;
                        }
                        if (row < rows) {
                                x = jc_top_putf(y + row, x, A_NORMAL, "%s ", key + 5);
                                double warm, hot;
                                jc_trip_bands(&t->sample, key + 5, &warm, &hot);
                                x = jc_top_put(y + row, x, jc_top_level(c, warm, hot), deg);
                                x += 2;
                        }
                        any = true;
                }
                g_variant_unref(value);
        }
        if (!any)
                return y;
        jc_top_put(y, 0, jc_top_pair(JC_PAIR_TITLE), "Temp");
        return y + MIN(row + 1, rows);
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
                        x = jc_top_putf(y, x, A_NORMAL, "%.*s %u  ", (int) (strlen(key) - 12), key + 7,
                                 g_variant_get_uint32(value) / 1000);
                g_variant_unref(value);
        }
        if (x == 6)
                return y;
        jc_top_put(y, 0, jc_top_pair(JC_PAIR_TITLE), "Eng");
        return y + 1;
}

static void draw_chooser(const jc_top *t)
{
        int h = (int) t->choices->len + 3, w = 44, y0 = MAX(0, (LINES - h) / 2), x0 = MAX(0, (COLS - w) / 2);
        for (int r = 0; r < h; r++)
                jc_top_putf(y0 + r, x0, A_REVERSE, "%-*s", w, "");
        jc_top_putf(y0, x0 + 1, A_REVERSE | A_BOLD, "%s", t->mode == JC_TOP_CHOOSE_MODE ? "Power mode" : "Fan profile");
        for (guint i = 0; i < t->choices->len; i++) {
                const jc_top_choice *ch = &g_array_index(t->choices, jc_top_choice, i);
                jc_top_putf(y0 + 1 + (int) i, x0 + 1, A_REVERSE, "%u  %s%s", i + 1, ch->label, ch->current ? "  (current)" : "");
        }
        jc_top_putf(y0 + h - 1, x0 + 1, A_REVERSE, "1-%u choose, Esc cancel", t->choices->len);
}

/* The overview's graphs where the rows allow: CPU, GPU and board power
 * side by side, between the numbers and the process list. */
static int draw_overview_graphs(const jc_top *t, int y, int h)
{
        double d;
        uint64_t total = 0;
        const char *gpu = jc_sample_double(&t->sample, "gpu.load", &d) ? "gpu.load" : "dgpu.0.load";
        int w = COLS / 3;
        jc_top_graph(t, y, 0, w - 1, h, "CPU", "cpu.load", 100, 60, 90, "%", 1);
        jc_top_graph(t, y, w, w - 1, h, "GPU", gpu, 100, 60, 90, "%", 1);
        /* A PC has no board power: its memory instead. */
        if (jc_sample_uint(&t->sample, "power.total", &total))
                jc_top_graph(t, y, 2 * w, COLS - 2 * w, h, "Board", "power.total", 0, G_MAXDOUBLE, G_MAXDOUBLE,
                             " mW", 1);
        else if (jc_sample_uint(&t->sample, "ram.total", &total))
                jc_top_graph(t, y, 2 * w, COLS - 2 * w, h, "RAM", "ram.used", (double) total, 0.6 * (double) total,
                             0.9 * (double) total, " MiB", 1.0 / 1024);
        return y + h;
}

static void draw_overview(const jc_top *t, int y, int last)
{
        g_autoptr(GArray) list = jc_top_procs(t);
        y = draw_cpus(t, y, last);
        y = draw_unit(t, y, "GPU", "gpu");
        /* Discrete GPUs (NVML), by index: what the sample has. */
        for (unsigned n = 0; n < 16; n++) {
                g_autofree char *title = g_strdup_printf("GPU%u", n);
                g_autofree char *prefix = g_strdup_printf("dgpu.%u", n);
                int next = draw_unit(t, y, title, prefix);
                y = next > y ? draw_dgpu_device(t, next, n) : y;
        }
        y = draw_unit(t, y, "EMC", "emc");
        y = draw_memory(t, y);
        y = draw_power(t, y, last);
        y = jc_top_draw_temperatures(t, y, 2);
        y = draw_engines(t, y);
        /* What the process list leaves, up to 16 rows: graphs from 3 rows
         * up, so 80x24 keeps its numbers and a tall terminal is not half
         * empty. */
        int spare = last + 1 - y - (list->len || t->filter[0] ? MAX((int) list->len, 1) + 1 : 0);
        if (spare >= 3)
                y = draw_overview_graphs(t, y, MIN(spare, 16));
        jc_top_draw_processes(t, list, y, last);
}

static void draw_footer(const jc_top *t)
{
        int y = LINES - 1;
        if (jc_top_draw_prompt(t))
                return;
        if (t->message[0]) {
                jc_top_putf(y, 0, t->message_is_error ? jc_top_pair(JC_PAIR_HOT) | A_BOLD : A_BOLD, "%s", t->message);
                return;
        }
        jc_top_putf(y, 0, A_REVERSE, "%*s", COLS, "");
        int x = jc_top_put(y, 0, A_REVERSE, " q quit  ");
        if (COLS >= 140) {
                /* Every page's name, the current one standing out. */
                for (int p = 0; p < JC_PAGE_N; p++)
                        x = jc_top_putf(y, x, p == (int) t->page ? A_BOLD : A_REVERSE, "%d %s ", p + 1,
                                        jc_top_page_name(p));
        } else {
                x = jc_top_putf(y, x, A_REVERSE, "Tab/1-%d ", JC_PAGE_N);
                x = jc_top_put(y, x, A_BOLD, jc_top_page_name(t->page));
        }
        jc_top_putf(y, x, A_REVERSE, "  s sort (%s%s)  / filter  h help  w zoom x%u", jc_top_col_name(t->sort_col),
                    t->sort_reverse ? ", reversed" : "", jc_top_graph_zoom(t));
}

void jc_top_draw(const jc_top *t)
{
        erase();
        t->layout->proc_header_y = -1;
        t->layout->proc_rows = 0;
        int last = LINES - 2; /* the footer is the last line */
        if (!t->have_sample) {
                jc_top_put(0, 0, A_NORMAL, "Waiting for jetsond's first sample...");
        } else {
                int y = draw_header(t, 0);
                if (t->env_screen)
                        jc_top_draw_env_screen(t, y, last);
                else switch (t->process_screen ? JC_PAGE_N : t->page) {
                case JC_PAGE_N:
                        jc_top_draw_process_screen(t, y, last);
                        break;
                case JC_PAGE_ENGINES:
                        jc_top_draw_engines_page(t, y, last);
                        break;
                case JC_PAGE_CONTROL:
                        jc_top_draw_control_page(t, y, last);
                        break;
                case JC_PAGE_INFO:
                        jc_top_draw_info_page(t, y, last);
                        break;
                case JC_PAGE_CPU:
                        jc_top_draw_cpu_page(t, y, last);
                        break;
                case JC_PAGE_GPU:
                        jc_top_draw_gpu_page(t, y, last);
                        break;
                case JC_PAGE_MEMORY:
                        jc_top_draw_memory_page(t, y, last);
                        break;
                case JC_PAGE_POWER:
                        jc_top_draw_power_page(t, y, last);
                        break;
                default:
                        draw_overview(t, y, last);
                        break;
                }
        }
        draw_footer(t);
        if (t->mode == JC_TOP_CHOOSE_MODE || t->mode == JC_TOP_CHOOSE_FAN)
                draw_chooser(t);
        else if (t->mode == JC_TOP_HELP)
                jc_top_draw_help(t);
        refresh();
}
