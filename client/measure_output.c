#include "measure_output.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_out.h"

/* V rounded to DECIMALS places (the sources' resolution: µJ, 0.1 mW,
 * 0.01 %, 1 kHz, 1 m°C, 1 ns), or null if there is none. */
static void add_double_or_null(JsonBuilder *b, const char *name, double v, int decimals)
{
        json_builder_set_member_name(b, name);
        if (isfinite(v)) {
                double scale = pow(10, decimals);
                json_builder_add_double_value(b, round(v * scale) / scale);
        } else {
                json_builder_add_null_value(b);
        }
}

static void add_uint(JsonBuilder *b, const char *name, uint64_t v)
{
        json_builder_set_member_name(b, name);
        json_builder_add_int_value(b, (gint64) v);
}

static double load_mean(const jc_window *w, int i)
{
        return w->load_n[i] ? w->load_sum[i] / (double) w->load_n[i] : NAN;
}

static void window_json(JsonBuilder *b, const jc_measure *m, const jc_window *w)
{
        add_double_or_null(b, "duration_s", jc_window_seconds(w), 9);
        add_uint(b, "records", w->records);
        json_builder_set_member_name(b, "power");
        json_builder_begin_object(b);
        for (size_t i = 0; i < m->n_power; i++) {
                json_builder_set_member_name(b, m->power_name[i]);
                json_builder_begin_object(b);
                add_double_or_null(b, "energy_j", isfinite(w->peak_mw[i]) ? w->energy_mj[i] / 1000 : NAN, 6);
                add_double_or_null(b, "mean_power_mw", jc_window_mean_mw(w, i), 1);
                add_double_or_null(b, "peak_power_mw", w->peak_mw[i], 1);
                json_builder_end_object(b);
        }
        json_builder_end_object(b);
        static const char *const loads[JC_LOADS] = { "cpu_load_percent", "gpu_load_percent", "emc_load_percent" };
        for (int i = 0; i < JC_LOADS; i++) {
                json_builder_set_member_name(b, loads[i]);
                json_builder_begin_object(b);
                add_double_or_null(b, "mean", load_mean(w, i), 2);
                add_double_or_null(b, "max", w->load_max[i], 2);
                json_builder_end_object(b);
        }
        add_double_or_null(b, "gpu_freq_max_khz", w->freq_max[JC_FREQ_GPU], 0);
        add_double_or_null(b, "emc_freq_max_khz", w->freq_max[JC_FREQ_EMC], 0);
        json_builder_set_member_name(b, "temp_max_celsius");
        json_builder_begin_object(b);
        for (size_t i = 0; i < m->n_temp; i++)
                add_double_or_null(b, m->temp_name[i], w->temp_max[i], 3);
        json_builder_end_object(b);
        const jc_window_procs *p = &w->procs;
        json_builder_set_member_name(b, "processes");
        json_builder_begin_object(b);
        add_double_or_null(b, "cpu_user_s", p->user_s, 6);
        add_double_or_null(b, "cpu_system_s", p->system_s, 6);
        add_uint(b, "peak_rss_bytes", p->peak_rss_bytes);
        add_uint(b, "peak_pss_bytes", p->peak_pss_bytes);
        add_uint(b, "read_bytes", p->read_bytes);
        add_uint(b, "write_bytes", p->write_bytes);
        json_builder_set_member_name(b, "peak_gpu_mem_kib");
        if (p->have_gpu_mem)
                json_builder_add_int_value(b, (gint64) p->peak_gpu_mem_kib);
        else
                json_builder_add_null_value(b);
        json_builder_end_object(b);
}

static void print_json(const jc_measure *m, char *const *command, int status)
{
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "command");
        json_builder_begin_array(b);
        for (size_t i = 0; command[i]; i++)
                json_builder_add_string_value(b, command[i]);
        json_builder_end_array(b);
        add_uint(b, "exit_status", (uint64_t) status);
        window_json(b, m, &m->whole);
        json_builder_set_member_name(b, "phases");
        json_builder_begin_array(b);
        for (size_t i = 0; m->n_phases > 1 && i < m->n_phases; i++) {
                const jc_window *w = m->phases[i];
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "name");
                json_builder_add_string_value(b, w->name);
                add_double_or_null(b, "start_s", (double) (w->start_ns - m->whole.start_ns) / 1e9, 9);
                window_json(b, m, w);
                json_builder_end_object(b);
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
        g_autoptr(JsonNode) root = json_builder_get_root(b);
        jc_json_print(root, FALSE);
}

static void print_bytes(const char *what, uint64_t v)
{
        printf(" %s %.1f MiB", what, (double) v / (1024.0 * 1024.0));
}

static void window_text(const jc_measure *m, const jc_window *w, const char *indent)
{
        printf("%sTime:             %.3f s (%zu records)\n", indent, jc_window_seconds(w), w->records);
        /* The board's total first (it is last in the columns), then the rails. */
        for (size_t k = 0; k < m->n_power; k++) {
                size_t i = k == 0 ? m->n_power - 1 : k - 1;
                if (!isfinite(w->peak_mw[i]))
                        continue;
                bool total = i + 1 == m->n_power && strcmp(m->power_name[i], "total") == 0;
                g_autofree char *rail = g_strdup_printf("  %s", m->power_name[i]);
                printf("%s%-17s %.3f J, mean %.3f W, peak %.3f W\n", indent, total ? "Energy:" : rail,
                       w->energy_mj[i] / 1000, jc_window_mean_mw(w, i) / 1000, w->peak_mw[i] / 1000);
        }
        static const char *const loads[JC_LOADS] = { "CPU load:", "GPU load:", "EMC load:" };
        for (int i = 0; i < JC_LOADS; i++)
                if (w->load_n[i])
                        printf("%s%-17s mean %.1f %%, max %.1f %%\n", indent, loads[i], load_mean(w, i), w->load_max[i]);
        if (isfinite(w->freq_max[JC_FREQ_GPU]))
                printf("%sGPU freq:         max %.0f MHz\n", indent, w->freq_max[JC_FREQ_GPU] / 1000);
        if (isfinite(w->freq_max[JC_FREQ_EMC]))
                printf("%sEMC freq:         max %.0f MHz\n", indent, w->freq_max[JC_FREQ_EMC] / 1000);
        bool any_temp = false;
        for (size_t i = 0; i < m->n_temp; i++) {
                if (!isfinite(w->temp_max[i]))
                        continue;
                printf("%s%s %s %.1f°C", any_temp ? "," : indent, any_temp ? "" : "Max temp:        ", m->temp_name[i],
                       w->temp_max[i]);
                any_temp = true;
        }
        if (any_temp)
                printf("\n");
        const jc_window_procs *p = &w->procs;
        printf("%sProcesses:        CPU %.2f s user, %.2f s system;", indent, p->user_s, p->system_s);
        print_bytes("peak RSS", p->peak_rss_bytes);
        printf(",");
        print_bytes("peak PSS", p->peak_pss_bytes);
        printf(";");
        print_bytes("read", p->read_bytes);
        printf(",");
        print_bytes("written", p->write_bytes);
        if (p->have_gpu_mem)
                printf("; peak GPU memory %.1f MiB", (double) p->peak_gpu_mem_kib / 1024.0);
        printf("\n");
}

void jc_measure_print(const jc_ctx *c, const jc_measure *m, char *const *command, int status)
{
        if (c->json) {
                print_json(m, command, status);
                return;
        }
        g_autofree char *joined = g_strjoinv(" ", (char **) command);
        printf("Command:          %s (exit status %d)\n", joined, status);
        window_text(m, &m->whole, "");
        if (m->n_phases < 2)
                return;
        for (size_t i = 0; i < m->n_phases; i++) {
                const jc_window *w = m->phases[i];
                printf("\nPhase %zu, \"%s\", from %.3f s:\n", i + 1, w->name,
                       (double) (w->start_ns - m->whole.start_ns) / 1e9);
                window_text(m, w, "  ");
        }
}
