#include "measure_output.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/json_out.h"

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

static void add_uint_or_null(JsonBuilder *b, const char *name, uint64_t v, bool known)
{
        if (known) {
                add_uint(b, name, v);
                return;
        }
        json_builder_set_member_name(b, name);
        json_builder_add_null_value(b);
}

static double load_mean(const jc_window *w, int i)
{
        return w->load_n[i] ? w->load_sum[i] / (double) w->load_n[i] : NAN;
}

/* Discrete GPU G's clock event reasons over the window (issue 39):
 * {"throttled_percent": p, "any_reason_s": s, "throttled_s": {"sw_power_cap":
 * s, ...}, "clock_settings_s": {"app_clocks": s, "display_clocks": s},
 * "unknown_s": s}: every throttling reason NVML names, and a bit it has
 * not named by its hex value where it held; null without a bitmask. */
static void dgpu_throttle_json(JsonBuilder *b, const jc_measure *m, const jc_window *w, size_t g)
{
        json_builder_set_member_name(b, "throttle");
        if (m->dgpu_throttle_col[g] == JC_NO_COLUMN) {
                json_builder_add_null_value(b);
                return;
        }
        const double *reason_s = &w->dgpu_reason_s[g * JC_NVML_REASON_BITS];
        double seconds = jc_window_seconds(w);
        json_builder_begin_object(b);
        add_double_or_null(b, "throttled_percent", seconds > 0 ? 100 * w->dgpu_throttled_s[g] / seconds : NAN, 2);
        add_double_or_null(b, "any_reason_s", w->dgpu_throttled_s[g], 9);
        for (int setting = 0; setting < 2; setting++) {
                json_builder_set_member_name(b, setting ? "clock_settings_s" : "throttled_s");
                json_builder_begin_object(b);
                for (unsigned bit = 0; bit < JC_NVML_REASON_BITS; bit++) {
                        jc_nvml_reason_kind kind = jc_nvml_reason_kind_of(bit);
                        char hex[24];
                        const char *name = jc_nvml_reason_name(bit, hex);
                        bool named = name != hex;
                        if (kind == (setting ? JC_NVML_SETTING : JC_NVML_THROTTLE) && (named || reason_s[bit] > 0))
                                add_double_or_null(b, name, reason_s[bit], 9);
                }
                json_builder_end_object(b);
        }
        add_double_or_null(b, "unknown_s", jc_window_dgpu_unknown_s(w, g), 9);
        json_builder_end_object(b);
}

/* Each discrete GPU's load (mean and max), maximum clocks and
 * temperature, peak memory and clock event reasons, named as its power
 * column ("dgpu.0"). */
static void dgpus_json(JsonBuilder *b, const jc_measure *m, const jc_window *w)
{
        json_builder_set_member_name(b, "dgpus");
        json_builder_begin_object(b);
        for (size_t g = 0; g < m->n_dgpu; g++) {
                const double *max = &w->dgpu_max[g * JC_DGPU_FIELDS];
                json_builder_set_member_name(b, m->dgpu_name[g]);
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "load_percent");
                json_builder_begin_object(b);
                add_double_or_null(b, "mean", jc_window_dgpu_mean(w, g, JC_DGPU_LOAD), 2);
                add_double_or_null(b, "max", max[JC_DGPU_LOAD], 2);
                json_builder_end_object(b);
                add_double_or_null(b, "freq_max_khz", max[JC_DGPU_FREQ], 0);
                add_double_or_null(b, "sm_freq_max_khz", max[JC_DGPU_SM_FREQ], 0);
                add_double_or_null(b, "mem_freq_max_khz", max[JC_DGPU_MEM_FREQ], 0);
                add_double_or_null(b, "temp_max_celsius", max[JC_DGPU_TEMP], 3);
                add_double_or_null(b, "mem_used_max_kib", max[JC_DGPU_MEM_USED], 0);
                dgpu_throttle_json(b, m, w, g);
                json_builder_end_object(b);
        }
        json_builder_end_object(b);
}

/* {"over_current_events": N, "throttled_s": {"over_current": s, ...}} for the
 * reasons the board reports; null events and {} where it reports none. */
static void throttle_json(JsonBuilder *b, const jc_measure *m, const jc_window *w)
{
        json_builder_set_member_name(b, "throttle");
        json_builder_begin_object(b);
        double events = jc_window_oc_events(w);
        if (isfinite(events)) {
                add_uint(b, "over_current_events", (uint64_t) events);
        } else {
                json_builder_set_member_name(b, "over_current_events");
                json_builder_add_null_value(b);
        }
        json_builder_set_member_name(b, "throttled_s");
        json_builder_begin_object(b);
        for (int i = 0; i < JC_THROTTLE_REASONS; i++)
                if (m->reason_col[i] != JC_NO_COLUMN)
                        add_double_or_null(b, jc_throttle_reasons[i], w->throttled_s[i], 9);
        json_builder_end_object(b);
        json_builder_end_object(b);
}

static void window_json(JsonBuilder *b, const jc_measure *m, const jc_window *w)
{
        add_double_or_null(b, "duration_s", jc_window_seconds(w), 9);
        /* Absolute, for merging with other nodes' logs: the monotonic
         * times moved by the one offset the capture read when it opened. */
        add_double_or_null(b, "start_unix_s", ((double) w->start_ns + (double) m->realtime_offset_ns) / 1e9, 6);
        add_double_or_null(b, "end_unix_s", ((double) w->end_ns + (double) m->realtime_offset_ns) / 1e9, 6);
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
        dgpus_json(b, m, w);
        throttle_json(b, m, w);
        const jc_window_procs *p = &w->procs;
        json_builder_set_member_name(b, "processes");
        json_builder_begin_object(b);
        add_double_or_null(b, "cpu_user_s", p->user_s, 6);
        add_double_or_null(b, "cpu_system_s", p->system_s, 6);
        add_uint_or_null(b, "peak_rss_bytes", p->peak_rss_bytes, !p->rss_unknown);
        add_uint_or_null(b, "peak_pss_bytes", p->peak_pss_bytes, !p->pss_unknown);
        add_uint_or_null(b, "read_bytes", p->read_bytes, !p->io_unknown);
        add_uint_or_null(b, "write_bytes", p->write_bytes, !p->io_unknown);
        json_builder_set_member_name(b, "peak_gpu_mem_kib");
        if (p->have_gpu_mem)
                json_builder_add_int_value(b, (gint64) p->peak_gpu_mem_kib);
        else
                json_builder_add_null_value(b);
        json_builder_end_object(b);
}

static void print_json(const jc_measure *m, char *const *command, int status, pid_t pid, bool exited)
{
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "command");
        json_builder_begin_array(b);
        for (size_t i = 0; command[i]; i++)
                json_builder_add_string_value(b, command[i]);
        json_builder_end_array(b);
        if (pid > 0) {
                /* A process not ours: its exit status is its parent's to read. */
                json_builder_set_member_name(b, "exit_status");
                json_builder_add_null_value(b);
                add_uint(b, "pid", (uint64_t) pid);
                json_builder_set_member_name(b, "followed_until");
                json_builder_add_string_value(b, exited ? "exit" : "stopped");
        } else {
                add_uint(b, "exit_status", (uint64_t) status);
        }
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

static void print_bytes(const char *what, uint64_t v, bool known)
{
        if (!known) {
                printf(" %s unknown", what);
                return;
        }
        printf(" %s %.1f MiB", what, (double) v / (1024.0 * 1024.0));
}

/* "dgpu.0: load mean 37.0 %, max 37.0 %; max 2520 MHz, SM 2520 MHz,
 * memory 10501 MHz; max 61.0°C; peak memory 1280.0 MiB", what it has. */
static void dgpu_text(const jc_measure *m, const jc_window *w, size_t g, const char *indent)
{
        const double *max = &w->dgpu_max[g * JC_DGPU_FIELDS];
        g_autoptr(GString) line = g_string_new(NULL);
        if (isfinite(max[JC_DGPU_LOAD]))
                g_string_append_printf(line, "; load mean %.1f %%, max %.1f %%", jc_window_dgpu_mean(w, g, JC_DGPU_LOAD),
                                       max[JC_DGPU_LOAD]);
        static const struct {
                int field;
                const char *name;
        } clocks[] = { { JC_DGPU_FREQ, "" }, { JC_DGPU_SM_FREQ, "SM " }, { JC_DGPU_MEM_FREQ, "memory " } };
        bool first = true;
        for (size_t i = 0; i < G_N_ELEMENTS(clocks); i++)
                if (isfinite(max[clocks[i].field])) {
                        g_string_append_printf(line, "%s%s%.0f MHz", first ? "; max " : ", ", clocks[i].name,
                                               max[clocks[i].field] / 1000);
                        first = false;
                }
        if (isfinite(max[JC_DGPU_TEMP]))
                g_string_append_printf(line, "; max %.1f°C", max[JC_DGPU_TEMP]);
        if (isfinite(max[JC_DGPU_MEM_USED]))
                g_string_append_printf(line, "; peak memory %.1f MiB", max[JC_DGPU_MEM_USED] / 1024);
        g_autofree char *label = g_strdup_printf("%s:", m->dgpu_name[g]);
        if (line->len)
                printf("%s%-17s %s\n", indent, label, line->str + 2);
}

/* "dgpu.0 throttled: 12.0 % of the time by sw_power_cap", "15.0 % of the
 * time: 12.0 % by sw_power_cap, 5.0 % by hw_thermal" or "not throttled",
 * then the clock settings that held ("; app_clocks 100.0 % (a clock
 * setting)") and the time without a reading ("; no reading 2.0 %");
 * nothing for a GPU without a bitmask. */
static void dgpu_throttle_text(const jc_measure *m, const jc_window *w, size_t g, const char *indent)
{
        double seconds = jc_window_seconds(w);
        if (m->dgpu_throttle_col[g] == JC_NO_COLUMN || seconds <= 0)
                return;
        const double *reason_s = &w->dgpu_reason_s[g * JC_NVML_REASON_BITS];
        g_autoptr(GString) reasons = g_string_new(NULL), settings = g_string_new(NULL);
        unsigned n_reasons = 0, last = 0;
        for (unsigned bit = 0; bit < JC_NVML_REASON_BITS; bit++) {
                if (reason_s[bit] <= 0 || jc_nvml_reason_kind_of(bit) == JC_NVML_IDLE)
                        continue;
                char hex[24];
                const char *name = jc_nvml_reason_name(bit, hex);
                double percent = 100 * reason_s[bit] / seconds;
                if (jc_nvml_reason_kind_of(bit) == JC_NVML_SETTING) {
                        g_string_append_printf(settings, "; %s %.1f %% (a clock setting)", name, percent);
                        continue;
                }
                g_string_append_printf(reasons, "%s%.1f %% by %s", reasons->len ? ", " : "", percent, name);
                n_reasons++;
                last = bit;
        }
        g_autoptr(GString) line = g_string_new(NULL);
        char hex[24];
        if (w->dgpu_throttled_s[g] > 0)
                g_string_printf(line, "%.1f %% of the time", 100 * w->dgpu_throttled_s[g] / seconds);
        else
                g_string_assign(line, "not throttled");
        if (n_reasons == 1 && reason_s[last] == w->dgpu_throttled_s[g])
                g_string_append_printf(line, " by %s", jc_nvml_reason_name(last, hex));
        else if (n_reasons)
                g_string_append_printf(line, ": %s", reasons->str);
        g_string_append(line, settings->str);
        double unknown = 100 * jc_window_dgpu_unknown_s(w, g) / seconds;
        if (unknown >= 0.05)
                g_string_append_printf(line, "; no reading %.1f %%", unknown);
        g_autofree char *label = g_strdup_printf("%s throttled:", m->dgpu_name[g]);
        printf("%s%-17s %s\n", indent, label, line->str);
}

/* "Throttled:        12.0 % of the time by over-current, 40.5 % by GPU
 * thermal cap (3 over-current events)", or "not throttled (0 ...)". */
static void throttle_text(const jc_measure *m, const jc_window *w, const char *indent)
{
        static const char *const labels[JC_THROTTLE_REASONS] = { "over-current", "CPU thermal cap",
                                                                 "GPU thermal cap", "SoC thermal cap" };
        double seconds = jc_window_seconds(w), events = jc_window_oc_events(w);
        g_autoptr(GString) line = g_string_new(NULL);
        bool any_reason = false;
        for (int i = 0; i < JC_THROTTLE_REASONS; i++) {
                if (m->reason_col[i] == JC_NO_COLUMN)
                        continue;
                any_reason = true;
                if (w->throttled_s[i] <= 0 || seconds <= 0)
                        continue;
                g_string_append_printf(line, "%s%.1f %% of the time by %s", line->len ? ", " : "",
                                       100.0 * w->throttled_s[i] / seconds, labels[i]);
        }
        if (!any_reason && isnan(events))
                return;
        if (!line->len)
                g_string_append(line, "not throttled");
        if (isfinite(events))
                g_string_append_printf(line, " (%.0f over-current event%s)", events, events == 1 ? "" : "s");
        printf("%sThrottled:        %s\n", indent, line->str);
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
        for (size_t g = 0; g < m->n_dgpu; g++) {
                dgpu_text(m, w, g, indent);
                dgpu_throttle_text(m, w, g, indent);
        }
        throttle_text(m, w, indent);
        const jc_window_procs *p = &w->procs;
        printf("%sProcesses:        CPU %.2f s user, %.2f s system;", indent, p->user_s, p->system_s);
        print_bytes("peak RSS", p->peak_rss_bytes, !p->rss_unknown);
        printf(",");
        print_bytes("peak PSS", p->peak_pss_bytes, !p->pss_unknown);
        printf(";");
        print_bytes("read", p->read_bytes, !p->io_unknown);
        printf(",");
        print_bytes("written", p->write_bytes, !p->io_unknown);
        if (p->have_gpu_mem)
                printf("; peak GPU memory %.1f MiB", (double) p->peak_gpu_mem_kib / 1024.0);
        printf("\n");
}

void jc_measure_print(const jc_ctx *c, const jc_measure *m, char *const *command, int status, pid_t pid,
                      bool exited)
{
        if (c->json) {
                print_json(m, command, status, pid, exited);
                return;
        }
        g_autofree char *joined = g_strjoinv(" ", (char **) command);
        if (pid > 0)
                printf("Process:          %d, %s (followed until %s)\n", (int) pid, joined,
                       exited ? "it exited" : "stopped");
        else
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
