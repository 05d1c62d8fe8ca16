/* jetsonctl top: the live full-screen view. Samples come every
 * --interval: the Sample broadcast when that is jetsond's DefaultInterval,
 * else SampleAt signals for that period (Metrics.Subscribe, dropped on
 * exit; common/follow.h), keys from
 * the terminal, resizes from SIGWINCH, all on one sd-event loop; the
 * screen is drawn by top_view.c. Changes made from the screen (power
 * mode, fan profile) go through the same calls and polkit agent as the
 * commands, with curses suspended meanwhile so a password prompt can use
 * the terminal. */
#include <curses.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <systemd/sd-event.h>

#include "common/bus.h"
#include "common/follow.h"
#include "common/proc_strings.h"
#include "jetsond-dbus.h"
#include "top.h"

int jc_top_interval_ms = 1000;
gboolean jc_top_types[4];

static int on_sample(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        jc_top *t = userdata;
        g_autoptr(GVariant) args = jc_message_to_variant(m);
        jc_sample s = { 0 };
        if (!args || !jc_sample_from_variant(&s, args))
                return 0;
        jc_sample_to_caller(t->c, &s);
        if (t->dgpu_stale)
                jc_top_read_dgpus(t);
        jc_gpu_filter_sample(&t->shown, &s);
        jc_sample_read_commands(&s, "/proc", t->have_sample ? &t->sample : NULL);
        jc_sample_clear(&t->sample);
        t->sample = s;
        t->have_sample = true;
        jc_top_energy_add(t->energy, &t->sample);
        jc_top_history_add(t->history, &t->sample);
        /* Not while a chooser is up: a write may have curses suspended
         * for polkit's agent. */
        if (t->mode != JC_TOP_CHOOSE_MODE && t->mode != JC_TOP_CHOOSE_FAN)
                jc_top_draw(t);
        return 0;
}

static int on_resize(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        (void) s, (void) si;
        struct winsize ws;
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
                resize_term(ws.ws_row, ws.ws_col);
        /* The terminal's contents are not what curses last drew any more:
         * repaint all of it. */
        clearok(curscr, TRUE);
        jc_top_draw(userdata);
        return 0;
}

/* ---- changes from the screen ------------------------------------------- */

void jc_top_message(jc_top *t, bool error, const char *text)
{
        g_strlcpy(t->message, text, sizeof(t->message));
        t->message_is_error = error;
}

/* One write, as jc_write() does it, with curses suspended around it. */
static void write_call(jc_top *t, const char *path, const char *iface, const char *method, const char *doing,
                       const char *action, const char *done, const char *types, ...)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = 0;
        def_prog_mode();
        endwin();
        va_list ap;
        va_start(ap, types);
        GVariant *reply = jc_write_callv(t->c, path, iface, method, &error, &r, types, ap);
        va_end(ap);
        reset_prog_mode();
        if (reply) {
                jc_top_message(t, false, done);
                g_variant_unref(reply);
        } else {
                int code;
                g_autofree char *text = jc_error_text(doing, &error, r, action, NULL, &code);
                jc_top_message(t, true, text);
        }
        sd_bus_error_free(&error);
}

void jc_top_open_mode_chooser(jc_top *t)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = 0;
        g_autoptr(GVariant) props = jc_get_all(t->c, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, &error, &r);
        if (!props) {
                int code;
                g_autofree char *text = jc_error_text("power modes", &error, r, NULL, JC_NO_NVPMODEL, &code);
                jc_top_message(t, true, text);
                sd_bus_error_free(&error);
                return;
        }
        uint32_t current = UINT32_MAX, id;
        const char *name;
        g_variant_lookup(props, "Mode", "u", &current);
        g_autoptr(GVariantIter) it = NULL;
        g_array_set_size(t->choices, 0);
        if (g_variant_lookup(props, "Modes", "a(us)", &it))
                while (g_variant_iter_next(it, "(u&s)", &id, &name) && t->choices->len < 9) {
                        jc_top_choice ch = { .mode_id = id, .current = id == current };
                        g_snprintf(ch.label, sizeof(ch.label), "%s (%u)", name, id);
                        g_array_append_val(t->choices, ch);
                }
        t->mode = JC_TOP_CHOOSE_MODE;
}

void jc_top_open_fan_chooser(jc_top *t)
{
        g_array_set_size(t->choices, 0);
        for (unsigned n = 0; n < 16 && t->choices->len < 9; n++) {
                g_autofree char *path = g_strdup_printf(JD_FAN_PATH_PREFIX "%u", n);
                sd_bus_error error = SD_BUS_ERROR_NULL;
                int r = 0;
                g_autoptr(GVariant) props = jc_get_all(t->c, path, JD_IFACE_FAN, &error, &r);
                sd_bus_error_free(&error);
                if (!props)
                        break;
                const char *current = "", *profile;
                g_variant_lookup(props, "Profile", "&s", &current);
                g_autoptr(GVariantIter) it = NULL;
                if (g_variant_lookup(props, "Profiles", "as", &it))
                        while (g_variant_iter_next(it, "&s", &profile) && t->choices->len < 9) {
                                jc_top_choice ch = { .fan = n, .current = strcmp(profile, current) == 0 };
                                g_snprintf(ch.label, sizeof(ch.label), "fan%u %s", n, profile);
                                g_array_append_val(t->choices, ch);
                        }
        }
        if (t->choices->len == 0) {
                jc_top_message(t, true, JC_NO_FAN " with profiles");
                return;
        }
        t->mode = JC_TOP_CHOOSE_FAN;
}

void jc_top_choose(jc_top *t, guint i)
{
        if (i >= t->choices->len)
                return;
        jc_top_choice ch = g_array_index(t->choices, jc_top_choice, i);
        jc_top_mode mode = t->mode;
        t->mode = JC_TOP_SCREEN;
        if (mode == JC_TOP_CHOOSE_MODE) {
                g_autofree char *done = g_strdup_printf("Power mode %s set", ch.label);
                write_call(t, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "switching power mode",
                           JD_ACTION_SET_NVPMODEL, done, "u", ch.mode_id);
        } else {
                g_autofree char *path = g_strdup_printf(JD_FAN_PATH_PREFIX "%u", ch.fan);
                const char *profile = strchr(ch.label, ' ') + 1;
                g_autofree char *done = g_strdup_printf("Fan %u profile %s set", ch.fan, profile);
                write_call(t, path, JD_IFACE_FAN, "SetProfile", "setting the fan profile", JD_ACTION_SET_FAN, done,
                           "s", profile);
        }
}

static int on_key(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
        (void) fd, (void) revents;
        jc_top *t = userdata;
        int key;
        while ((key = getch()) != ERR)
                if (!jc_top_key(t, key)) {
                        sd_event_exit(sd_event_source_get_event(s), JC_EXIT_OK);
                        return 0;
                }
        jc_top_draw(t);
        return 0;
}

/* ---- the command ------------------------------------------------------ */

void jc_top_toggle(jc_top *t, int what)
{
        bool on;
        const char *key = what == 'c' ? "jetson_clocks.active" : what == 'S' ? "gpu.3d_scaling" : "gpu.railgate";
        const char *name = what == 'c' ? "jetson_clocks" : what == 'S' ? "GPU 3D scaling" : "GPU rail gating";
        if (!jc_sample_bool(&t->sample, key, &on)) {
                g_autofree char *text = g_strdup_printf("This board has no %s", name);
                jc_top_message(t, true, text);
                return;
        }
        g_autofree char *done = g_strdup_printf("%s %s", name, on ? "off" : "on");
        g_autofree char *doing = g_strdup_printf("switching %s", name);
        if (what == 'c')
                write_call(t, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", doing, JD_ACTION_SET_JETSON_CLOCKS,
                           done, "b", !on);
        else
                write_call(t, JD_OBJECT_PATH, JD_IFACE_GPU, what == 'S' ? "SetScaling3D" : "SetRailgate", doing,
                           JD_ACTION_SET_GPU, done, "b", !on);
}

static void read_board(jc_top *t)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = 0;
        GVariant *props = jc_get_all(t->c, JD_OBJECT_PATH, JD_IFACE_BOARD, &error, &r);
        /* Kept for the info page. */
        t->board_props = props;
        sd_bus_error_free(&error);
        const char *model = "", *jetpack = "";
        if (props) {
                g_variant_lookup(props, "Model", "&s", &model);
                g_variant_lookup(props, "JetPack", "&s", &jetpack);
        }
        g_snprintf(t->board, sizeof(t->board), "%s%s%s", *model ? model : "Unknown board",
                   *jetpack ? " - JetPack " : "", jetpack);
}

/* A GPU's mode changed (nvidia-smi -pm, -c, -e): its properties are
 * read again with the next sample, outside this callback. */
static int on_dgpu_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) m, (void) ret_error;
        ((jc_top *) userdata)->dgpu_stale = true;
        return 0;
}

int jc_cmd_top(jc_ctx *c, int argc, char **argv)
{
        (void) argv;
        if (argc > 1)
                return jc_usage_error("top", "top takes no arguments");
        if (jc_top_interval_ms < (int) (JD_INTERVAL_MIN_USEC / 1000) ||
            (uint64_t) jc_top_interval_ms > JD_INTERVAL_MAX_USEC / 1000)
                return jc_usage_error("top", "--interval %d is out of range (%llu to %llu ms)", jc_top_interval_ms,
                                      JD_INTERVAL_MIN_USEC / 1000, JD_INTERVAL_MAX_USEC / 1000);
        jc_top_type_filter types = JC_TYPE_ANY;
        for (int i = 0; i < 4; i++) {
                if (jc_top_types[i] && types != JC_TYPE_ANY)
                        return jc_usage_error("top", "--compute, --only-compute, --graphics and --only-graphics "
                                                     "exclude each other");
                if (jc_top_types[i])
                        types = (jc_top_type_filter) (JC_TYPE_COMPUTE + i);
        }
        /* A GPU or PID named wrong is said before anything else. */
        jc_gpu_filter filter = { 0 };
        int filtered = jc_gpu_filter_fetch(c, "top", &filter);
        if (filtered == JC_EXIT_OK && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
                fprintf(stderr, "jetsonctl: top needs a terminal (use watch or status in scripts)\n");
                filtered = JC_EXIT_USAGE;
        }
        if (filtered != JC_EXIT_OK) {
                jc_gpu_filter_clear(&filter);
                return filtered;
        }
        jc_top_layout layout = { .proc_header_y = -1 };
        jc_top t = { .c = c, .layout = &layout, .sort_col = JC_COL_GPU_MEM, .type_filter = types, .energy = jc_top_energy_new(), .color = c->color, .interval_ms = jc_top_interval_ms,
                     .history = jc_top_history_new(), .dgpu_names = g_ptr_array_new_with_free_func(g_free),
                     .dgpu_props = g_ptr_array_new_with_free_func(jc_top_props_free),
                     .choices = g_array_new(FALSE, FALSE, sizeof(jc_top_choice)), .shown = filter };
        jc_follow follow;
        sd_bus_slot *dgpu_slot = NULL;
        int ret = jc_follow_stream(c, &follow, SIGWINCH, (uint64_t) jc_top_interval_ms * 1000, false, on_sample,
                                   on_sample, &t, "top");
        if (ret != JC_EXIT_OK)
                goto out;
        sd_event *event = follow.event;
        int r = sd_event_add_signal(event, NULL, SIGWINCH, on_resize, &t);
        if (r >= 0)
                r = sd_bus_add_match(c->bus, &dgpu_slot,
                                     "type='signal',sender='" JD_BUS_NAME "',path_namespace='/org/jetsond/Jetson1/dgpu'"
                                     ",interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='"
                                     JD_IFACE_DISCRETE_GPU "'",
                                     on_dgpu_changed, &t);
        if (r < 0) {
                fprintf(stderr, "jetsonctl: top: %s\n", strerror(-r));
                ret = JC_EXIT_FAILURE;
                goto out;
        }
        read_board(&t);
        jc_top_read_dgpus(&t);
        /* The latest sample at once, rather than a blank screen until the
         * first signal. */
        if (jc_sample_fetch(c, &t.sample) == JC_EXIT_OK) {
                jc_gpu_filter_sample(&t.shown, &t.sample);
                jc_sample_read_commands(&t.sample, "/proc", NULL);
                t.have_sample = true;
                jc_top_energy_add(t.energy, &t.sample);
                jc_top_history_add(t.history, &t.sample);
        }

        jc_top_view_start(&t);
        r = sd_event_add_io(event, NULL, STDIN_FILENO, EPOLLIN, on_key, &t);
        if (r >= 0) {
                jc_top_draw(&t);
                r = sd_event_loop(event);
        }
        jc_top_view_end();
        if (r < 0) {
                fprintf(stderr, "jetsonctl: top: %s\n", strerror(-r));
                ret = JC_EXIT_FAILURE;
        } else if (follow.jetsond_left) {
                fprintf(stderr, "jetsonctl: jetsond left the bus\n");
                ret = JC_EXIT_FAILURE;
        }
        jc_follow_unsubscribe(c, &follow);

out:
        jc_sample_clear(&t.sample);
        jc_top_energy_free(t.energy);
        jc_top_history_free(t.history);
        sd_bus_slot_unref(dgpu_slot);
        g_ptr_array_unref(t.dgpu_names);
        g_ptr_array_unref(t.dgpu_props);
        if (t.board_props)
                g_variant_unref(t.board_props);
        g_array_unref(t.choices);
        jc_gpu_filter_clear(&t.shown);
        jc_follow_close(c, &follow);
        return ret;
}
