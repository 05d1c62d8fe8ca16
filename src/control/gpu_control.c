#include "gpu_control.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "deadline_task.h"
#include "gpu.h"
#include "parse.h"
#include "sysfile.h"

#define DEVFREQ "/sys/class/devfreq"
#define PERFORMANCE "performance"
#define MEMORY_GROUP "Scaling3D"

/* ---- finding the controls ---------------------------------------------- */

static void add_node(jd_gpu_controls *c, const char *name)
{
        if (c->n_nodes >= JD_GPU_MAX_NODES)
                return;
        g_strlcpy(c->nodes[c->n_nodes].name, name, sizeof(c->nodes[0].name));
        g_snprintf(c->nodes[c->n_nodes].dir, sizeof(c->nodes[0].dir), DEVFREQ "/%s", name);
        c->n_nodes++;
}

/* Thor's runtime PM switch: that of the PCI device gpu-gpc-0 belongs to,
 * found as the sampler's GPU reader finds it. */
static void probe_thor_railgate(const jd_sysroot *sr, jd_gpu_controls *c)
{
        char dev[PATH_MAX], path[PATH_MAX];
        if (!jd_gpu_thor_pci_dir(sr, dev, sizeof(dev)) ||
            (size_t) g_snprintf(path, sizeof(path), "%s/power/control", dev) >= sizeof(c->railgate_path) ||
            !jd_sysroot_exists(sr, path))
                return;
        const char *base = strrchr(dev, '/');
        g_strlcpy(c->name, base ? base + 1 : dev, sizeof(c->name));
        g_strlcpy(c->railgate_path, path, sizeof(c->railgate_path));
        c->railgate = JD_GPU_RAILGATE_RUNTIME_PM;
}

/* Thor: gpu-gpc-0 (graphics, first: it decides Scaling3D) and every
 * other gpu-* node (gpu-nvd-0, the video engines' clock). */
static bool probe_thor(const jd_sysroot *sr, jd_gpu_controls *c)
{
        if (!jd_sysroot_exists(sr, DEVFREQ "/gpu-gpc-0"))
                return false;
        g_strlcpy(c->name, "gpu-gpc-0", sizeof(c->name));
        add_node(c, "gpu-gpc-0");
        char **names;
        size_t n = jd_sysroot_list(sr, DEVFREQ, &names);
        for (size_t i = 0; i < n; i++)
                if (g_str_has_prefix(names[i], "gpu-") && strcmp(names[i], "gpu-gpc-0") != 0)
                        add_node(c, names[i]);
        jd_names_free(names, n);
        char governor[300];
        g_snprintf(governor, sizeof(governor), "%s/governor", c->nodes[0].dir);
        if (jd_sysroot_exists(sr, governor))
                c->scaling = JD_GPU_SCALING_GOVERNOR;
        probe_thor_railgate(sr, c);
        return true;
}

/* nvgpu (JetPack 4 to 7.2 Orin): the devfreq node src/readers/gpu.c
 * reads, its device's enable_3d_scaling and railgate_enable (or, where a
 * GPU has no railgate_enable, its runtime PM power/control, which the
 * reader then reads as rail gating too). */
static bool probe_nvgpu(const jd_sysroot *sr, jd_gpu_controls *c)
{
        char **names;
        size_t n = jd_sysroot_list(sr, DEVFREQ, &names);
        bool found = false;
        for (size_t i = 0; i < n && !found; i++) {
                char of_name[32];
                if (strlen(names[i]) >= sizeof(c->name) ||
                    !jd_read_str(sr, of_name, sizeof(of_name), DEVFREQ "/%s/device/of_node/name", names[i]) ||
                    !jd_gpu_is_node_name(of_name))
                        continue;
                found = true;
                g_strlcpy(c->name, names[i], sizeof(c->name));
                g_snprintf(c->scaling_path, sizeof(c->scaling_path), DEVFREQ "/%s/device/enable_3d_scaling",
                           names[i]);
                g_snprintf(c->railgate_path, sizeof(c->railgate_path), DEVFREQ "/%s/device/railgate_enable",
                           names[i]);
                char governor[300];
                g_snprintf(governor, sizeof(governor), DEVFREQ "/%s/governor", names[i]);
                if (jd_sysroot_exists(sr, c->scaling_path)) {
                        c->scaling = JD_GPU_SCALING_FILE;
                } else if (jd_sysroot_exists(sr, governor)) {
                        /* JetPack 7.2 Orin: the governor took its place. */
                        c->scaling = JD_GPU_SCALING_GOVERNOR;
                        add_node(c, names[i]);
                }
                if (c->scaling != JD_GPU_SCALING_FILE)
                        c->scaling_path[0] = '\0';
                if (jd_sysroot_exists(sr, c->railgate_path)) {
                        c->railgate = JD_GPU_RAILGATE_FILE;
                } else {
                        g_snprintf(c->railgate_path, sizeof(c->railgate_path), DEVFREQ "/%s/device/power/control",
                                   names[i]);
                        if (jd_sysroot_exists(sr, c->railgate_path))
                                c->railgate = JD_GPU_RAILGATE_RUNTIME_PM;
                        else
                                c->railgate_path[0] = '\0';
                }
        }
        jd_names_free(names, n);
        return found;
}

bool jd_gpu_controls_probe(const jd_sysroot *sr, jd_gpu_controls *out)
{
        memset(out, 0, sizeof(*out));
        out->present = probe_thor(sr, out);
        if (!out->present) {
                memset(out, 0, sizeof(*out));
                out->present = probe_nvgpu(sr, out);
        }
        if (!out->present)
                memset(out, 0, sizeof(*out));
        return out->present;
}

/* ---- reading ------------------------------------------------------------ */

static void read_flag(const jd_sysroot *sr, const char *path, jd_opt_bool *o)
{
        uint64_t v = 0;
        o->present = jd_read_u64(sr, &v, "%s", path) && v <= 1;
        o->value = o->present && v == 1;
}

void jd_gpu_state_read(const jd_sysroot *sr, const jd_gpu_controls *c, jd_gpu_state *out)
{
        memset(out, 0, sizeof(*out));
        if (c->scaling == JD_GPU_SCALING_FILE)
                read_flag(sr, c->scaling_path, &out->scaling_3d);
        for (size_t i = 0; c->scaling == JD_GPU_SCALING_GOVERNOR && i < c->n_nodes; i++) {
                if (!jd_read_str(sr, out->governor[i], sizeof(out->governor[i]), "%s/governor", c->nodes[i].dir))
                        out->governor[i][0] = '\0';
                if (!jd_read_str(sr, out->available[i], sizeof(out->available[i]), "%s/available_governors",
                                 c->nodes[i].dir))
                        out->available[i][0] = '\0';
        }
        if (c->scaling == JD_GPU_SCALING_GOVERNOR && out->governor[0][0]) {
                out->scaling_3d.present = true;
                out->scaling_3d.value = strcmp(out->governor[0], PERFORMANCE) != 0;
        }
        if (c->railgate == JD_GPU_RAILGATE_FILE) {
                read_flag(sr, c->railgate_path, &out->railgate);
        } else if (c->railgate == JD_GPU_RAILGATE_RUNTIME_PM) {
                char control[8];
                if (jd_read_str(sr, control, sizeof(control), "%s", c->railgate_path) &&
                    (strcmp(control, "auto") == 0 || strcmp(control, "on") == 0)) {
                        out->railgate.present = true;
                        out->railgate.value = strcmp(control, "auto") == 0;
                }
        }
}

/* ---- the governors to give back ----------------------------------------- */

static bool worth_remembering(const char *governor)
{
        return governor[0] && strcmp(governor, PERFORMANCE) != 0;
}

void jd_gpu_memory_note(jd_gpu_memory *m, const jd_gpu_controls *c, const jd_gpu_state *st)
{
        for (size_t i = 0; i < c->n_nodes; i++)
                if (worth_remembering(st->governor[i]))
                        g_strlcpy(m->governor[i], st->governor[i], sizeof(m->governor[i]));
}

char *jd_gpu_memory_to_text(const jd_gpu_memory *m, const jd_gpu_controls *c)
{
        g_autoptr(GKeyFile) kf = g_key_file_new();
        for (size_t i = 0; i < c->n_nodes; i++)
                if (worth_remembering(m->governor[i]))
                        g_key_file_set_string(kf, MEMORY_GROUP, c->nodes[i].name, m->governor[i]);
        g_key_file_set_comment(kf, NULL, NULL,
                               " jetsond: the devfreq governor of each GPU node before 3D scaling was switched off",
                               NULL);
        return g_key_file_to_data(kf, NULL, NULL);
}

void jd_gpu_memory_from_text(jd_gpu_memory *m, const jd_gpu_controls *c, const char *text)
{
        g_autoptr(GKeyFile) kf = g_key_file_new();
        if (!g_key_file_load_from_data(kf, text, (gsize) -1, G_KEY_FILE_NONE, NULL))
                return;
        for (size_t i = 0; i < c->n_nodes; i++) {
                g_autofree char *g = g_key_file_get_string(kf, MEMORY_GROUP, c->nodes[i].name, NULL);
                /* A name that does not fit, or holds a blank, is not a
                 * governor: never written back to the kernel. */
                if (g && worth_remembering(g) && strlen(g) < sizeof(m->governor[i]) && !strpbrk(g, " \t\n"))
                        g_strlcpy(m->governor[i], g, sizeof(m->governor[i]));
        }
}

/* ---- planning ----------------------------------------------------------- */

/* Whether the space-separated LIST holds WORD. */
static bool listed(const char *list, const char *word)
{
        size_t len = strlen(word);
        for (const char *p = list; (p = strstr(p, word)); p += len)
                if ((p == list || p[-1] == ' ') && (p[len] == '\0' || p[len] == ' '))
                        return true;
        return false;
}

/* The governor that scales a node again: the one it had, else L4T's
 * default, else the kernel's generic one; an unknown list (no
 * available_governors) trusts only L4T's default. */
static const char *scaling_governor(const char *remembered, const char *available)
{
        if (worth_remembering(remembered) && (!available[0] || listed(available, remembered)))
                return remembered;
        if (!available[0] || listed(available, "nvhost_podgov"))
                return "nvhost_podgov";
        if (listed(available, "simple_ondemand"))
                return "simple_ondemand";
        return NULL;
}

static void add_write(jd_attribute_write *w, const char *path, const char *value)
{
        g_strlcpy(w->path, path, sizeof(w->path));
        if (value[0])
                g_snprintf(w->value, sizeof(w->value), "%s\n", value);
        else
                w->value[0] = '\0';
}

/* A file holding 1/0 or auto/on: one write, undone by the old value. */
static void plan_flag(const char *path, jd_opt_bool now, bool on, const char *on_value, const char *off_value,
                      jd_attribute_write *writes, jd_attribute_write *undo, size_t *n)
{
        if (now.present && now.value == on)
                return;
        add_write(&writes[0], path, on ? on_value : off_value);
        add_write(&undo[0], path, !now.present ? "" : now.value ? on_value : off_value);
        *n = 1;
}

static jd_outcome plan_governors(const jd_gpu_controls *c, const jd_gpu_state *st, const jd_gpu_memory *m, bool on,
                                 jd_attribute_write *writes, jd_attribute_write *undo, size_t *n, jd_result *r)
{
        for (size_t i = 0; i < c->n_nodes; i++) {
                const char *now = st->governor[i], *target;
                if (on) {
                        if (worth_remembering(now))
                                continue;     /* scaling already, maybe with a governor of the user's */
                        target = scaling_governor(m->governor[i], st->available[i]);
                        if (!target) {
                                jd_result_set(r, JD_NOT_SUPPORTED,
                                              "GPU devfreq node %s offers no governor that scales (available: %s)",
                                              c->nodes[i].name, st->available[i]);
                                *n = 0;
                                return JD_NOT_SUPPORTED;
                        }
                } else {
                        if (strcmp(now, PERFORMANCE) == 0)
                                continue;
                        if (st->available[i][0] && !listed(st->available[i], PERFORMANCE)) {
                                jd_result_set(r, JD_NOT_SUPPORTED,
                                              "GPU devfreq node %s has no performance governor (available: %s)",
                                              c->nodes[i].name, st->available[i]);
                                *n = 0;
                                return JD_NOT_SUPPORTED;
                        }
                        target = PERFORMANCE;
                }
                char path[sizeof(c->nodes[0].dir) + 16];
                g_snprintf(path, sizeof(path), "%s/governor", c->nodes[i].dir);
                add_write(&writes[*n], path, target);
                add_write(&undo[*n], path, now);
                (*n)++;
        }
        return JD_OK;
}

static const char *setting_name(jd_gpu_setting setting)
{
        return setting == JD_GPU_SET_SCALING_3D ? "3D scaling" : "rail gating";
}

jd_outcome jd_gpu_plan(const jd_gpu_controls *c, const jd_gpu_state *st, const jd_gpu_memory *m,
                       jd_gpu_setting setting, bool on, jd_attribute_write *writes, jd_attribute_write *undo,
                       size_t *n, jd_result *r)
{
        *n = 0;
        if (setting == JD_GPU_SET_SCALING_3D) {
                switch (c->scaling) {
                case JD_GPU_SCALING_NONE:
                        jd_result_set(r, JD_NOT_SUPPORTED,
                                      "The GPU (%s) has no 3D scaling control (no enable_3d_scaling, no devfreq "
                                      "governor)",
                                      c->present ? c->name : "none");
                        return JD_NOT_SUPPORTED;
                case JD_GPU_SCALING_FILE:
                        plan_flag(c->scaling_path, st->scaling_3d, on, "1", "0", writes, undo, n);
                        break;
                case JD_GPU_SCALING_GOVERNOR:
                        if (plan_governors(c, st, m, on, writes, undo, n, r) != JD_OK)
                                return r->outcome;
                        break;
                }
        } else {
                switch (c->railgate) {
                case JD_GPU_RAILGATE_NONE:
                        jd_result_set(r, JD_NOT_SUPPORTED,
                                      "The GPU (%s) has no rail-gating control (no railgate_enable, no runtime PM "
                                      "power/control)",
                                      c->present ? c->name : "none");
                        return JD_NOT_SUPPORTED;
                case JD_GPU_RAILGATE_FILE:
                        plan_flag(c->railgate_path, st->railgate, on, "1", "0", writes, undo, n);
                        break;
                case JD_GPU_RAILGATE_RUNTIME_PM:
                        plan_flag(c->railgate_path, st->railgate, on, "auto", "on", writes, undo, n);
                        break;
                }
        }
        jd_result_set(r, JD_OK, "%s already %s", setting_name(setting), on ? "on" : "off");
        return JD_OK;
}

/* ---- changing ----------------------------------------------------------- */

static const char *word(jd_opt_bool v)
{
        return !v.present ? "unknown" : v.value ? "on" : "off";
}

void jd_gpu_set(const jd_sysroot *sr, const jd_gpu_controls *c, const jd_gpu_memory *m, const char *state_file,
                jd_gpu_setting setting, bool on, jd_gpu_change *out)
{
        memset(out, 0, sizeof(*out));
        out->memory = *m;
        jd_gpu_state_read(sr, c, &out->before);
        jd_gpu_memory_note(&out->memory, c, &out->before);
        jd_attribute_write writes[JD_GPU_MAX_NODES], undo[JD_GPU_MAX_NODES];
        size_t n = 0;
        if (jd_gpu_plan(c, &out->before, &out->memory, setting, on, writes, undo, &n, &out->result) != JD_OK ||
            n == 0) {
                out->after = out->before;
                return;
        }
        char saved[300] = "";
        if (setting == JD_GPU_SET_SCALING_3D && c->scaling == JD_GPU_SCALING_GOVERNOR && !on && state_file) {
                g_autofree char *text = jd_gpu_memory_to_text(&out->memory, c);
                int r = jd_atomic_write(sr, state_file, text, strlen(text), 0644);
                if (r < 0)
                        g_snprintf(saved, sizeof(saved), " (the governors to give back could not be saved in %s: %s)",
                                   state_file, jd_sysroot_strerror(-r));
        }
        for (size_t i = 0; i < n; i++) {
                int r = jd_write_attribute(sr, writes[i].path, writes[i].value);
                if (r >= 0)
                        continue;
                /* No half-switched GPU: the nodes already written go back. */
                size_t undone = 0;
                for (size_t k = 0; k < i; k++)
                        if (undo[k].value[0] && jd_write_attribute(sr, undo[k].path, undo[k].value) >= 0)
                                undone++;
                g_autofree char *value = g_strchomp(g_strdup(writes[i].value));
                jd_result_set(&out->result, JD_FAILED, "Cannot switch GPU %s %s: writing \"%s\" to %s: %s%s",
                              setting_name(setting), on ? "on" : "off", value, writes[i].path, jd_sysroot_strerror(-r),
                              undone ? "; the nodes already switched were put back" : "");
                jd_gpu_state_read(sr, c, &out->after);
                return;
        }
        jd_gpu_state_read(sr, c, &out->after);
        const jd_opt_bool *was = setting == JD_GPU_SET_SCALING_3D ? &out->before.scaling_3d : &out->before.railgate;
        jd_result_set(&out->result, JD_OK, "%s %s -> %s%s", setting_name(setting), word(*was), on ? "on" : "off",
                      saved);
}

/* ---- in a worker thread ------------------------------------------------- */

typedef struct {
        const jd_sysroot *sr;
        jd_gpu_controls controls;
        jd_gpu_memory memory;
        char *state_file;
        jd_gpu_setting setting;
        bool on;
        jd_gpu_change change;
        unsigned timeout_ms;
        GCancellable *cancellable;
        jd_gpu_change_done change_done;
        void *userdata;
} gpu_op;

static void op_free(void *p)
{
        gpu_op *op = p;
        g_free(op->state_file);
        g_clear_object(&op->cancellable);
        g_free(op);
}

static void set_in_thread(void *data)
{
        gpu_op *op = data;
        jd_gpu_set(op->sr, &op->controls, &op->memory, op->state_file, op->setting, op->on, &op->change);
}

static void on_set(bool timed_out, void *data)
{
        gpu_op *op = data;
        if (op->cancellable && g_cancellable_is_cancelled(op->cancellable))
                return;
        if (!timed_out) {
                op->change_done(&op->change, op->userdata);
                return;
        }
        jd_gpu_change late = { .memory = op->memory };
        jd_result_set(&late.result, JD_TIMEOUT, "Switching GPU %s %s did not finish within %u ms",
                      setting_name(op->setting), op->on ? "on" : "off", op->timeout_ms);
        op->change_done(&late, op->userdata);
}

void jd_gpu_set_async(const jd_sysroot *sr, const jd_gpu_controls *c, const jd_gpu_memory *m,
                      const char *state_file, jd_gpu_setting setting, bool on, unsigned timeout_ms,
                      GCancellable *cancellable, jd_gpu_change_done done, void *userdata)
{
        gpu_op *op = g_new0(gpu_op, 1);
        op->sr = sr;
        op->controls = *c;
        op->cancellable = cancellable ? g_object_ref(cancellable) : NULL;
        op->userdata = userdata;
        op->memory = *m;
        op->state_file = g_strdup(state_file);
        op->setting = setting;
        op->on = on;
        op->timeout_ms = timeout_ms;
        op->change_done = done;
        jd_run_with_deadline(set_in_thread, on_set, op, op_free, timeout_ms);
}

/* ---- probing in a thread of its own -------------------------------------- */

struct jd_gpu_probe {
        gint refs;                    /* the caller's and the thread's */
        const jd_sysroot *sr;
        GMutex lock;
        GCond ended;
        bool done;
        jd_gpu_controls controls;
        jd_gpu_state state;
};

static void probe_unref(jd_gpu_probe *p)
{
        if (!g_atomic_int_dec_and_test(&p->refs))
                return;
        g_mutex_clear(&p->lock);
        g_cond_clear(&p->ended);
        g_free(p);
}

static void probe_finish(jd_gpu_probe *p, const jd_gpu_controls *c, const jd_gpu_state *st)
{
        g_mutex_lock(&p->lock);
        p->controls = *c;
        p->state = *st;
        p->done = true;
        g_cond_broadcast(&p->ended);
        g_mutex_unlock(&p->lock);
}

static gpointer probe_thread(gpointer data)
{
        jd_gpu_probe *p = data;
        jd_gpu_controls c;
        jd_gpu_state st = { 0 };
        if (jd_gpu_controls_probe(p->sr, &c))
                jd_gpu_state_read(p->sr, &c, &st);
        probe_finish(p, &c, &st);
        probe_unref(p);
        return NULL;
}

jd_gpu_probe *jd_gpu_probe_start(const jd_sysroot *sr)
{
        jd_gpu_probe *p = g_new0(jd_gpu_probe, 1);
        p->refs = 2;
        p->sr = sr;
        g_mutex_init(&p->lock);
        g_cond_init(&p->ended);
        GThread *t = g_thread_try_new("jetsond-gpu-probe", probe_thread, p, NULL);
        if (t) {
                g_thread_unref(t);
        } else {
                /* No thread: as if nothing were found; the caller tries again later. */
                static const jd_gpu_controls none;
                static const jd_gpu_state nothing;
                probe_finish(p, &none, &nothing);
                probe_unref(p);
        }
        return p;
}

bool jd_gpu_probe_wait(jd_gpu_probe *p, uint64_t timeout_us, jd_gpu_controls *c, jd_gpu_state *st)
{
        gint64 end = g_get_monotonic_time() + (gint64) timeout_us;
        g_mutex_lock(&p->lock);
        while (!p->done && g_cond_wait_until(&p->ended, &p->lock, end))
                ;
        bool done = p->done;
        if (done) {
                *c = p->controls;
                *st = p->state;
        }
        g_mutex_unlock(&p->lock);
        return done;
}

void jd_gpu_probe_free(jd_gpu_probe *p)
{
        if (p)
                probe_unref(p);
}
