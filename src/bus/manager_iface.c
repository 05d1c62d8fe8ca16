/* org.jetsond.Jetson1.Manager: operations that span several parts of the
 * board (introspection/org.jetsond.Jetson1.Manager.xml).
 *
 * RestoreDefaults runs its steps one after the other (each may wait for a
 * tool or systemd), records one line per step, and goes on after a
 * failure: jetson_clocks off and not on boot, every fan to its default
 * profile, nvpmodel to its default mode, the GPU's 3D scaling and rail
 * gating on (as every JetPack boots). The GPU comes last: jetson_clocks
 * and nvpmodel may change rail gating on their way. */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "diagnose_method.h"
#include "fan_control.h"
#include "jetsond-dbus.h"
#include "nvpmodel_control.h"
#include "service.h"
#include "write.h"

/* All four are asked before anything changes (jd_write_authorize), also
 * on a board that lacks a part, so the answer never depends on the board. */
static const char *const restore_actions[] = { JD_ACTION_SET_JETSON_CLOCKS, JD_ACTION_SET_FAN,
                                               JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_GPU, NULL };

#define RESTORE_DOMAINS (JD_DOMAIN_JETSON_CLOCKS | JD_DOMAIN_FAN | JD_DOMAIN_NVPMODEL | JD_DOMAIN_GPU)

typedef enum {
        STEP_CLOCKS,
        STEP_CLOCKS_ON_BOOT,
        STEP_FANS,
        STEP_NVPMODEL,
        STEP_GPU_SCALING,
        STEP_GPU_RAILGATE,
        STEP_DONE
} step;

typedef struct {
        jd_write *w;
        step next;
        size_t fan;                   /* the fan STEP_FANS is at */
        GPtrArray *lines;             /* char *, one per step */
        bool failed;
        /* The step in flight: its line if it succeeds, and what a failure
         * line starts with. */
        char done_line[128];
        char name[48];
} restore_op;

static void run_next(restore_op *op);

/* One step's line: into the reply, and into the log as every write's. */
static void add_line(restore_op *op, char *line)
{
        jd_write_log(op->w, "Restore defaults: %s", line);
        g_ptr_array_add(op->lines, line);
}

static void record(restore_op *op, const jd_result *result)
{
        if (result->outcome == JD_OK) {
                add_line(op, g_strdup(op->done_line));
        } else if (result->outcome == JD_REBOOT_REQUIRED) {
                /* Not a failure: the default mode applies at the next boot
                 * once nvpmodel's saved mode is gone. */
                jd_result discarded;
                if (jd_nvpmodel_discard_state(op->w->svc->sr, &discarded))
                        add_line(op, g_strdup_printf("%s (needs a reboot: applies at the next boot)",
                                                     op->done_line));
                else
                        record(op, &discarded);
        } else {
                op->failed = true;
                add_line(op, g_strdup_printf("%s: failed: %s", op->name, result->message));
        }
}

static void on_step_resampled(void *data)
{
        run_next(data);
}

/* A step that waited: record it, publish what changed (the next step
 * judges from the fresh sample), go on. */
static void on_step_done(const jd_result *result, void *userdata)
{
        restore_op *op = userdata;
        record(op, result);
        jd_service_resample(op->w->svc, on_step_resampled, op);
}

/* A step with nothing to do, or that cannot be done. */
static void note(restore_op *op, bool failure, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void note(restore_op *op, bool failure, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        g_autofree char *why = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        op->failed = op->failed || failure;
        add_line(op, g_strdup_printf("%s: %s", op->name, why));
}

/* Each returns true if it started something that ends in on_step_done. */
static bool step_clocks(restore_op *op)
{
        jd_service *svc = op->w->svc;
        g_strlcpy(op->name, "jetson_clocks", sizeof(op->name));
        g_strlcpy(op->done_line, "jetson_clocks: switched off", sizeof(op->done_line));
        if (!svc->jetson_clocks) {
                note(op, false, "not on this board, left alone");
                return false;
        }
        jd_result already;
        if (jd_jetson_clocks_switch(svc, false, on_step_done, op, &already))
                return true;
        note(op, false, "already off");
        return false;
}

/* True while systemd disables jetsond's unit. */
static bool step_clocks_on_boot(restore_op *op)
{
        jd_service *svc = op->w->svc;
        if (!svc->jetson_clocks)
                return false;
        g_strlcpy(op->name, "jetson_clocks", sizeof(op->name));
        g_strlcpy(op->done_line, "jetson_clocks: not switched on at boot", sizeof(op->done_line));
        jd_jetson_clocks_set_on_boot(svc->jetson_clocks, false, on_step_done, op);
        return true;
}

/* One fan per call; true while a fan change is in flight. */
static bool step_fan(restore_op *op)
{
        jd_service *svc = op->w->svc;
        const jd_fan_sample *fans = svc->sample->fans;
        const jd_fan *f = &fans->fans[op->fan];
        g_snprintf(op->name, sizeof(op->name), "fan %zu (%s)", op->fan, f->name);
        /* The reader's default: nvfancontrol's FAN_DEFAULT_PROFILE, or
         * "temp_control" on JetPack 4; none for a fan without a controller. */
        const char *target = f->default_profile;
        if (!target[0]) {
                note(op, false, "no default profile, left alone");
                return false;
        }
        if (strcmp(f->profile, target) == 0) {
                note(op, false, "already %s", target);
                return false;
        }
        g_snprintf(op->done_line, sizeof(op->done_line), "%s: profile %s -> %s", op->name,
                   f->profile[0] ? f->profile : "unknown", target);
        jd_fan_set_profile(svc->sr, f, target, jd_service_fan_switch(svc), on_step_done, op);
        return true;
}

static bool step_nvpmodel(restore_op *op)
{
        jd_service *svc = op->w->svc;
        const jd_nvpmodel_sample *nv = svc->sample->nvpmodel;
        g_strlcpy(op->name, "nvpmodel", sizeof(op->name));
        if (!nv || nv->n_modes == 0) {
                note(op, false, "not on this board, left alone");
                return false;
        }
        if (!nv->default_id.present || !jd_nvpmodel_mode_name(nv, (unsigned) nv->default_id.value)) {
                note(op, true, "failed: the default mode in /etc/nvpmodel.conf is unknown");
                return false;
        }
        unsigned id = (unsigned) nv->default_id.value;
        const char *name = jd_nvpmodel_mode_name(nv, id);
        if (nv->current_id.present && nv->current_id.value == id) {
                note(op, false, "already mode %u (%s)", id, name);
                return false;
        }
        if (nv->current_id.present)
                g_snprintf(op->done_line, sizeof(op->done_line), "nvpmodel: mode %u (%s) -> %u (%s)",
                           (unsigned) nv->current_id.value, nv->current_name, id, name);
        else
                g_snprintf(op->done_line, sizeof(op->done_line), "nvpmodel: mode unknown -> %u (%s)", id, name);
        const jd_sample *s = svc->sample;
        bool clocks = s->jetson_clocks_active.present && s->jetson_clocks_active.value;
        g_auto(jd_fan_pwms) pwms = { 0 };
        jd_service_fan_pwms(svc, &pwms);
        jd_nvpmodel_set_mode(svc->sr, &svc->config, id, name, clocks, &pwms, on_step_done, op);
        return true;
}

/* The GPU step's line says what the change found and did ("3D scaling
 * off -> on", "rail gating already on"). */
static void on_gpu_step_done(const jd_result *result, void *userdata)
{
        restore_op *op = userdata;
        if (result->outcome == JD_OK) {
                add_line(op, g_strdup_printf("%s: %s", op->name, result->message));
        } else {
                op->failed = true;
                add_line(op, g_strdup_printf("%s: failed: %s", op->name, result->message));
        }
        jd_service_resample(op->w->svc, on_step_resampled, op);
}

/* True while the GPU's SETTING is switched on. */
static bool step_gpu(restore_op *op, jd_gpu_setting setting)
{
        jd_service *svc = op->w->svc;
        const char *what = setting == JD_GPU_SET_SCALING_3D ? "3D scaling" : "rail gating";
        if (!svc->gpu) {
                g_strlcpy(op->name, "gpu", sizeof(op->name));
                if (setting == JD_GPU_SET_SCALING_3D)   /* one line for both */
                        note(op, false, "not on this board, left alone");
                return false;
        }
        g_snprintf(op->name, sizeof(op->name), "gpu (%s)", jd_gpu_name(svc->gpu));
        if (!jd_gpu_has(svc->gpu, setting)) {
                note(op, false, "no %s control, left alone", what);
                return false;
        }
        jd_gpu_switch(svc->gpu, setting, true, on_gpu_step_done, op);
        return true;
}

static void finish(restore_op *op)
{
        jd_write *w = op->w;
        if (op->failed) {
                jd_result result;
                g_ptr_array_add(op->lines, NULL);
                g_autofree char *all = g_strjoinv("\n", (char **) op->lines->pdata);
                jd_result_set(&result, JD_FAILED, "%s", all);
                jd_write_finish(w, &result);
        } else {
                sd_bus_message *reply = NULL;
                g_ptr_array_add(op->lines, NULL);
                if (sd_bus_message_new_method_return(w->call, &reply) >= 0 &&
                    sd_bus_message_append_strv(reply, (char **) op->lines->pdata) >= 0) {
                        jd_write_finish_reply(w, reply);
                } else {
                        jd_result result;
                        jd_result_set(&result, JD_FAILED, "Out of memory");
                        jd_write_finish(w, &result);
                }
                sd_bus_message_unref(reply);
        }
        g_ptr_array_unref(op->lines);
        g_free(op);
}

/* A step that finishes at once adds its line itself; one that starts a
 * tool or a systemd job comes back through on_step_done, which calls
 * run_next again. */
static void run_next(restore_op *op)
{
        for (;;) {
                switch (op->next) {
                case STEP_CLOCKS:
                        op->next = STEP_CLOCKS_ON_BOOT;
                        if (step_clocks(op))
                                return;
                        break;
                case STEP_CLOCKS_ON_BOOT:
                        op->next = STEP_FANS;
                        op->fan = 0;
                        if (step_clocks_on_boot(op))
                                return;
                        break;
                case STEP_FANS: {
                        const jd_fan_sample *fans = op->w->svc->sample->fans;
                        if (!fans || op->fan >= fans->n) {
                                op->next = STEP_NVPMODEL;
                                break;
                        }
                        bool started = step_fan(op);
                        op->fan++;
                        if (started)
                                return;
                        break;
                }
                case STEP_NVPMODEL:
                        op->next = STEP_GPU_SCALING;
                        if (step_nvpmodel(op))
                                return;
                        break;
                case STEP_GPU_SCALING:
                        op->next = STEP_GPU_RAILGATE;
                        if (step_gpu(op, JD_GPU_SET_SCALING_3D))
                                return;
                        break;
                case STEP_GPU_RAILGATE:
                        op->next = STEP_DONE;
                        if (step_gpu(op, JD_GPU_SET_RAILGATE))
                                return;
                        break;
                case STEP_DONE:
                        finish(op);
                        return;
                }
        }
}

static void apply_restore(jd_write *w)
{
        restore_op *op = g_new0(restore_op, 1);
        op->w = w;
        op->lines = g_ptr_array_new_with_free_func(g_free);
        run_next(op);
}

static int method_restore_defaults(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        jd_iface *self = userdata;
        jd_write *w = jd_write_new(self->svc, m, RESTORE_DOMAINS, "restore of the defaults", error);
        if (!w)
                return -EBUSY;
        return jd_write_authorize(w, restore_actions, apply_restore, error);
}

static int method_diagnose(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        jd_iface *self = userdata;
        return jd_method_diagnose(m, self->svc, error);
}

static int get_version(sd_bus *bus, const char *path, const char *interface, const char *property,
                       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) userdata, (void) error;
        return sd_bus_message_append(reply, "s", JETSOND_VERSION);
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "s", get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_METHOD_WITH_ARGS("RestoreDefaults", SD_BUS_NO_ARGS, SD_BUS_RESULT("as", steps),
                                method_restore_defaults, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Diagnose", SD_BUS_NO_ARGS, SD_BUS_RESULT("a{sv}", service, "aa{sv}", families),
                                method_diagnose, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static void manager_destroy(jd_iface *base)
{
        g_free(base);
}

jd_iface *jd_manager_iface_new(jd_service *svc, GError **error)
{
        jd_iface *self = g_new0(jd_iface, 1);
        self->svc = svc;
        self->destroy = manager_destroy;
        int r = sd_bus_add_object_vtable(svc->bus, &self->slot, JD_OBJECT_PATH, JD_IFACE_MANAGER, manager_vtable, self);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_MANAGER);
                g_free(self);
                return NULL;
        }
        return self;
}
