#include "fan_control.h"

#include <errno.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "config_edit.h"
#include "sysfs_write.h"

/* The attribute writes of a change, made off the main loop. */
typedef struct {
        size_t n;
        jd_attribute_write w[2];
} writes;

typedef struct {
        const jd_sysroot *sr;
        jd_fan_switch sw;
        char name[32];
        char pwm_path[256];
        char temp_control_path[256];
        double pct;
        char profile[32];
        char *new_conf;               /* the edited nvfancontrol.conf, NULL if unchanged */
        writes pending;               /* the attribute writes under way */
        jd_result result;
        jd_result_fn done;
        void *userdata;
} fan_op;

static fan_op *op_new(const jd_sysroot *sr, const jd_fan *fan, jd_fan_switch sw, jd_result_fn done,
                      void *userdata)
{
        fan_op *op = g_new0(fan_op, 1);
        op->sr = sr;
        op->sw = sw;
        g_strlcpy(op->name, fan->name, sizeof(op->name));
        g_strlcpy(op->pwm_path, fan->pwm_path, sizeof(op->pwm_path));
        g_strlcpy(op->temp_control_path, fan->temp_control_path, sizeof(op->temp_control_path));
        op->done = done;
        op->userdata = userdata;
        return op;
}

static void finish(fan_op *op)
{
        op->done(&op->result, op->userdata);
        g_free(op->new_conf);
        g_free(op);
}

/* Outcomes known at once still reach DONE from the loop. */
static gboolean finish_later(gpointer data)
{
        finish(data);
        return G_SOURCE_REMOVE;
}

static void add_write(writes *ws, const char *path, const char *value)
{
        g_strlcpy(ws->w[ws->n].path, path, sizeof(ws->w[ws->n].path));
        g_strlcpy(ws->w[ws->n].value, value, sizeof(ws->w[ws->n].value));
        ws->n++;
}

/* Reports the writes' outcome: the failed or stuck write, or what the
 * change did (a profile change has OP->profile set). */
static void on_written(int r, size_t index, void *data)
{
        fan_op *op = data;
        const jd_attribute_write *w = &op->pending.w[index];
        int value_len = (int) strcspn(w->value, "\n");
        if (r == -ETIMEDOUT)
                jd_result_set(&op->result, JD_TIMEOUT, "Writing %.*s to %s did not finish within %u s", value_len,
                              w->value, w->path, JD_ATTRIBUTE_TIMEOUT_MS / 1000);
        else if (r < 0)
                jd_result_set(&op->result, JD_FAILED, "Cannot write %.*s to %s: %s", value_len, w->value, w->path,
                              jd_sysroot_strerror(-r));
        else if (op->profile[0])
                jd_result_set(&op->result, JD_OK, "Fan profile set to %s", op->profile);
        else
                jd_result_set(&op->result, JD_OK, "Fan %s set to %g %% (PWM %" G_GUINT64_FORMAT ")", op->name,
                              op->pct, jd_fan_pwm_from_percent(op->pct));
        finish(op);
}

static void start_writes(fan_op *op, const writes *ws)
{
        op->pending = *ws;
        jd_write_attributes_async(op->sr, ws->w, ws->n, JD_ATTRIBUTE_TIMEOUT_MS, on_written, op);
}

/* The PWM write of SetSpeed, after TEMP_CONTROL "0" where the kernel's
 * own control must let go first (JetPack 4). */
static void write_pwm(fan_op *op, bool temp_control_off)
{
        writes ws = { 0 };
        if (temp_control_off)
                add_write(&ws, op->temp_control_path, "0\n");
        char v[16];
        g_snprintf(v, sizeof(v), "%" G_GUINT64_FORMAT "\n", jd_fan_pwm_from_percent(op->pct));
        add_write(&ws, op->pwm_path, v);
        start_writes(op, &ws);
}

/* ---- speed ------------------------------------------------------------ */

static void on_stopped_for_speed(const jd_result *result, void *data)
{
        fan_op *op = data;
        op->result = *result;
        if (result->outcome != JD_OK) {
                finish(op);
                return;
        }
        write_pwm(op, false);
}

void jd_fan_set_speed(const jd_sysroot *sr, const jd_fan *fan, double pct, jd_fan_switch sw, jd_result_fn done,
                      void *userdata)
{
        fan_op *op = op_new(sr, fan, sw, done, userdata);
        op->pct = pct;
        bool manual = strcmp(fan->profile, "manual") == 0;
        if (!op->pwm_path[0]) {
                jd_result_set(&op->result, JD_NOT_SUPPORTED, "Fan %s has no PWM control", op->name);
        } else if (fan->controller == JD_FAN_CONTROL_NVFANCONTROL && !manual) {
                /* A running nvfancontrol would take the speed back. */
                sw.run(false, on_stopped_for_speed, op, sw.data);
                return;
        } else {
                write_pwm(op, fan->controller == JD_FAN_CONTROL_TEMP_CONTROL && !manual);
                return;
        }
        g_idle_add(finish_later, op);
}

/* ---- profile ---------------------------------------------------------- */

static void on_started(const jd_result *result, void *data)
{
        fan_op *op = data;
        if (op->result.outcome == JD_OK)
                op->result = *result;
        if (op->result.outcome == JD_OK)
                jd_result_set(&op->result, JD_OK, "Fan profile set to %s", op->profile);
        finish(op);
}

/* The cached state wins over FAN_DEFAULT_PROFILE while it exists, so it
 * goes; then the service starts again, also after a failed edit: never
 * leave the fan without its controller because of us. */
static void on_conf_written(int r, void *data)
{
        fan_op *op = data;
        if (r < 0)
                jd_result_set(&op->result, JD_FAILED, "Cannot rewrite %s: %s", JD_NVFANCONTROL_CONF, jd_sysroot_strerror(-r));
        char host[4096];
        if (op->result.outcome == JD_OK && jd_sysroot_host_path(op->sr, JD_NVFANCONTROL_STATUS, host, sizeof(host)) == 0 &&
            unlink(host) < 0 && errno != ENOENT) {
                int err = errno;
                jd_sysroot_note_refusal(op->sr, JD_NVFANCONTROL_STATUS, err);
                jd_result_set(&op->result, JD_FAILED, "Cannot remove %s: %s", JD_NVFANCONTROL_STATUS,
                              jd_sysroot_strerror(err));
        }
        op->sw.run(true, on_started, op, op->sw.data);
}

static void on_stopped_for_profile(const jd_result *result, void *data)
{
        fan_op *op = data;
        op->result = *result;
        if (result->outcome != JD_OK || strcmp(op->profile, "manual") == 0) {
                finish(op);
                return;
        }
        if (op->new_conf)
                jd_atomic_write_async(op->sr, JD_NVFANCONTROL_CONF, op->new_conf, strlen(op->new_conf), 0644,
                                      on_conf_written, op);
        else
                on_conf_written(0, op);
}

/* The edit is made before anything stops, so a conf jetsond cannot edit
 * unambiguously changes nothing at all. */
static bool prepare_conf(fan_op *op)
{
        g_autofree char *conf = NULL;
        int r = jd_read_text(op->sr, JD_NVFANCONTROL_CONF, 1 << 20, &conf);
        if (r < 0) {
                jd_result_set(&op->result, JD_FAILED, "Cannot read %s: %s", JD_NVFANCONTROL_CONF, jd_sysroot_strerror(-r));
                return false;
        }
        const char *why = NULL;
        char *edited = jd_edit_nvfancontrol_profile(conf, op->profile, &why);
        if (!edited) {
                jd_result_set(&op->result, JD_FAILED, "Cannot set the profile in %s: %s", JD_NVFANCONTROL_CONF, why);
                return false;
        }
        if (strcmp(edited, conf) == 0)
                g_free(edited);
        else
                op->new_conf = edited;
        return true;
}

void jd_fan_set_profile(const jd_sysroot *sr, const jd_fan *fan, const char *profile, jd_fan_switch sw,
                        jd_result_fn done, void *userdata)
{
        fan_op *op = op_new(sr, fan, sw, done, userdata);
        g_strlcpy(op->profile, profile, sizeof(op->profile));
        bool manual = strcmp(profile, "manual") == 0;
        if (strcmp(fan->profile, profile) == 0) {
                jd_result_set(&op->result, JD_OK, "Fan %s already has profile %s", op->name, profile);
        } else if (fan->controller == JD_FAN_CONTROL_NVFANCONTROL) {
                if (manual || prepare_conf(op)) {
                        sw.run(false, on_stopped_for_profile, op, sw.data);
                        return;
                }
        } else if (fan->controller == JD_FAN_CONTROL_TEMP_CONTROL) {
                writes ws = { 0 };
                add_write(&ws, op->temp_control_path, manual ? "0\n" : "1\n");
                start_writes(op, &ws);
                return;
        } else {
                jd_result_set(&op->result, JD_NOT_SUPPORTED, "Fan %s has no profiles", op->name);
        }
        g_idle_add(finish_later, op);
}
