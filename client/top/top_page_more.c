/* jetsonctl top's engines, control and info pages and the per-process
 * metrics screen. */
#include <string.h>

#include "common/output.h"
#include "top.h"
#include "top_draw.h"

/* Engines as jtop's page: each engine with its state and clock, and a
 * graph of the clock where it has one. */
void jc_top_draw_engines_page(const jc_top *t, int y, int last)
{
        GVariantIter it;
        const char *key;
        GVariant *value;
        int n = 0, per_row = COLS >= 120 ? 2 : 1, w = COLS / per_row;
        g_variant_iter_init(&it, t->sample.values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                if (g_str_has_prefix(key, "engine.") && g_str_has_suffix(key, ".online") &&
                    g_variant_is_of_type(value, G_VARIANT_TYPE_BOOLEAN)) {
                        int row = y + n / per_row, x = n % per_row * w;
                        g_autofree char *name = g_strndup(key + 7, strlen(key) - 14);
                        g_autofree char *freq_key = g_strdup_printf("engine.%s.freq", name);
                        bool on = g_variant_get_boolean(value);
                        uint64_t f;
                        if (row <= last) {
                                jc_top_putf(row, x, jc_top_pair(JC_PAIR_TITLE), "%-12.12s", name);
                                jc_top_put(row, x + 13, on ? jc_top_pair(JC_PAIR_OK) | A_BOLD : A_DIM, on ? "on " : "off");
                                if (jc_sample_uint(&t->sample, freq_key, &f)) {
                                        g_autofree char *mhz = jc_format_khz(f);
                                        jc_top_putf(row, x + 17, A_NORMAL, "%9s", mhz);
                                }
                                jc_top_graph(t, row, x + 28, w - 29, 1, "", freq_key, 0, G_MAXDOUBLE, G_MAXDOUBLE,
                                             NULL, 1);
                        }
                        n++;
                }
                g_variant_unref(value);
        }
        if (n == 0)
                jc_top_put(y, 0, A_NORMAL, "No engines in the samples.");
}

static int control_row(int y, const char *key, const char *what, const char *state)
{
        jc_top_putf(y, 0, A_BOLD, "  %-3s", key);
        jc_top_putf(y, 6, A_NORMAL, "%-22s", what);
        jc_top_put(y, 29, jc_top_pair(JC_PAIR_TITLE), state);
        return y + 1;
}

/* What can be changed from here, through polkit as the commands do:
 * the power mode and fan profile choosers, jetson_clocks, and the SoC
 * GPU's 3D scaling and rail gating. */
void jc_top_draw_control_page(const jc_top *t, int y, int last)
{
        (void) last;
        const jc_sample *s = &t->sample;
        bool b;
        jc_top_put(y++, 0, A_BOLD, "Changes (each through polkit, as jetsonctl's commands):");
        y++;
        const char *mode = jc_sample_string(s, "nvpmodel.name");
        y = control_row(y, "m", "power mode", mode ? mode : "-");
        const char *profile = jc_sample_string(s, "fan.0.profile");
        y = control_row(y, "f", "fan profile", profile ? profile : "-");
        y = control_row(y, "c", "jetson_clocks", jc_sample_bool(s, "jetson_clocks.active", &b) ? (b ? "on" : "off") : "-");
        y = control_row(y, "S", "GPU 3D scaling", jc_sample_bool(s, "gpu.3d_scaling", &b) ? (b ? "on" : "off") : "-");
        y = control_row(y, "G", "GPU rail gating", jc_sample_bool(s, "gpu.railgate", &b) ? (b ? "on" : "off") : "-");
        y++;
        jc_top_put(y, 0, A_DIM, "c, S and G switch the setting over; the outcome shows in the footer.");
}

/* The board as the Board interface describes it, read once. */
void jc_top_draw_info_page(const jc_top *t, int y, int last)
{
        static const char *const props[] = { "Model", "Module", "PartNumber", "SoC", "CudaArch", "Codename", "L4T",
                                             "JetPack", "Machine", "Distribution", "KernelRelease" };
        if (!t->board_props) {
                jc_top_put(y, 0, A_NORMAL, "No board information from jetsond.");
                return;
        }
        for (size_t i = 0; i < G_N_ELEMENTS(props) && y <= last; i++) {
                const char *v = NULL;
                if (g_variant_lookup(t->board_props, props[i], "&s", &v) && *v) {
                        jc_top_putf(y, 0, jc_top_pair(JC_PAIR_TITLE), "%-14s", props[i]);
                        jc_top_put(y++, 15, A_NORMAL, v);
                }
        }
        g_autoptr(GVariantIter) libs = NULL;
        if (g_variant_lookup(t->board_props, "Libraries", "a{ss}", &libs) && y + 1 <= last) {
                y++;
                jc_top_put(y++, 0, A_BOLD, "Libraries");
                const char *name, *version;
                int x = 0;
                while (g_variant_iter_next(libs, "{&s&s}", &name, &version)) {
                        g_autofree char *item = g_strdup_printf("%s %s   ", name, version);
                        if (x > 0 && x + (int) strlen(item) > COLS) {
                                x = 0;
                                y++;
                        }
                        if (y <= last)
                                x = jc_top_put(y, x, A_NORMAL, item);
                }
                y++;
        }
        if (y + 1 <= last)
                jc_top_putf(y + 1, 0, A_DIM, "jetsonctl %s", JETSONCTL_VERSION);
}

/* The selected process with its own live graphs, as nvitop's process
 * metrics screen: CPU, RSS, GPU memory and SM on each GPU it uses. */
void jc_top_draw_process_screen(const jc_top *t, int y, int last)
{
        const jc_sample *s = &t->sample;
        uint32_t pid = t->selected_pid;
        g_autofree char *name_key = g_strdup_printf("process.%u.name", pid);
        g_autofree char *user_key = g_strdup_printf("process.%u.user", pid);
        const char *name = jc_sample_string(s, name_key), *user = jc_sample_string(s, user_key);
        jc_top_putf(y, 0, A_BOLD, "Process %u  %s  (%s)%s", pid, name ? name : "", user ? user : "",
                    name ? "" : "  - gone from jetsond's list");
        jc_top_put(y, MAX(0, COLS - 24), A_DIM, "Esc or Enter: back");
        y += 1;
        uint64_t ram_total = 0;
        jc_sample_uint(s, "ram.total", &ram_total);
        /* SM graphs of the discrete GPUs the history has for it. */
        GPtrArray *sm = g_ptr_array_new_with_free_func(g_free);
        for (unsigned n = 0; n < 16; n++) {
                g_autofree char *key = g_strdup_printf("process.%u.dgpu.%u.sm", pid, n);
                double v[1];
                if (jc_top_history_get(t->history, key, 1, v))
                        g_ptr_array_add(sm, g_steal_pointer(&key));
        }
        int graphs = 3 + (int) sm->len, rows = last + 1 - y;
        int h = MAX(2, MIN(14, rows / ((graphs + 1) / 2)));
        int w = COLS / 2;
        g_autofree char *cpu = g_strdup_printf("process.%u.cpu", pid), *rss = g_strdup_printf("process.%u.rss", pid);
        g_autofree char *mem = g_strdup_printf("process.%u.gpu_mem", pid);
        jc_top_graph(t, y, 0, w - 1, h, "CPU (of one core)", cpu, 100, 60, 90, "%", 1);
        jc_top_graph(t, y, w, COLS - w, h, "RSS", rss, (double) ram_total, 0.6 * (double) ram_total,
                     0.9 * (double) ram_total, " MiB", 1.0 / 1024);
        y += h;
        if (y + h - 1 <= last)
                jc_top_graph(t, y, 0, w - 1, h, "GPU memory", mem, 0, G_MAXDOUBLE, G_MAXDOUBLE, " MiB", 1.0 / 1024);
        for (guint i = 0; i < sm->len; i++) {
                int col = (int) (i + 1) % 2, row = y + (int) (i + 1) / 2 * h;
                if (row + h - 1 > last)
                        break;
                const char *key = g_ptr_array_index(sm, i);
                g_autofree char *title = g_strdup_printf("SM on GPU%s", strstr(key, ".dgpu.") + 6);
                *strrchr(title, '.') = '\0';
                jc_top_graph(t, row, col * w, col ? COLS - w : w - 1, h, title, key, 100, 60, 90, "%", 1);
        }
        g_ptr_array_unref(sm);
}
