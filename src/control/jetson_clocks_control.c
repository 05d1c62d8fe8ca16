#include "jetson_clocks_control.h"

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysfile.h"
#include "sysfs_write.h"
#include "tool.h"

typedef struct {
        const jd_sysroot *sr;
        unsigned timeout_ms;
        bool on;
        jd_fan_pwms pwms;
        jd_attribute_write *writes;   /* one per PWM of pwms */
        jd_result result;
        jd_result_fn done;
        void *userdata;
} clocks_op;

void jd_fan_pwms_copy(jd_fan_pwms *to, const jd_fan_pwms *from)
{
        to->n = from ? from->n : 0;
        to->fan = to->n ? g_new(jd_fan_pwm, to->n) : NULL;
        if (to->n)
                memcpy(to->fan, from->fan, to->n * sizeof(*to->fan));
}

void jd_fan_pwms_clear(jd_fan_pwms *pwms)
{
        g_clear_pointer(&pwms->fan, g_free);
        pwms->n = 0;
}

static void report(clocks_op *op)
{
        op->done(&op->result, op->userdata);
        jd_fan_pwms_clear(&op->pwms);
        g_free(op->writes);
        g_free(op);
}

static void on_fans_restored(int r, size_t index, void *data)
{
        clocks_op *op = data;
        if (r < 0 && op->result.outcome == JD_OK)
                jd_result_set(&op->result, r == -ETIMEDOUT ? JD_TIMEOUT : JD_FAILED,
                              "Cannot restore the fan speed in %s: %s", op->writes[index].path,
                              r == -ETIMEDOUT ? "the write did not finish" : jd_sysroot_strerror(-r));
        report(op);
}

/* jetson_clocks drove the fans to their maximum, whichever way it went:
 * their speeds go back, off the main loop. */
static void finish(clocks_op *op)
{
        size_t n = 0;
        for (size_t i = 0; i < op->pwms.n; i++) {
                if (!op->pwms.fan[i].value.present)
                        continue;
                g_strlcpy(op->writes[n].path, op->pwms.fan[i].path, sizeof(op->writes[n].path));
                g_snprintf(op->writes[n].value, sizeof(op->writes[n].value), "%" G_GUINT64_FORMAT "\n",
                           op->pwms.fan[i].value.value);
                n++;
        }
        if (n == 0) {
                report(op);
                return;
        }
        jd_write_attributes_async(op->sr, op->writes, n, JD_ATTRIBUTE_TIMEOUT_MS, on_fans_restored, op);
}

/* Outcomes known at once are still reported from the loop, like every
 * other outcome, so callers never see DONE before the call returns. */
static gboolean finish_later(gpointer data)
{
        finish(data);
        return G_SOURCE_REMOVE;
}

static bool tool_failed(clocks_op *op, const jd_tool_result *r, const char *what)
{
        return jd_tool_failed(r, what, op->timeout_ms, &op->result);
}

static void on_applied(const jd_tool_result *r, void *data)
{
        clocks_op *op = data;
        if (!tool_failed(op, r, "jetson_clocks"))
                jd_result_set(&op->result, JD_OK, "jetson_clocks is on");
        finish(op);
}

static void on_stored(const jd_tool_result *r, void *data)
{
        clocks_op *op = data;
        if (tool_failed(op, r, "jetson_clocks --store")) {
                finish(op);
                return;
        }
        jd_tool_run(op->sr, "jetson_clocks", NULL, op->timeout_ms, on_applied, op);
}

static void on_restored(const jd_tool_result *r, void *data)
{
        clocks_op *op = data;
        if (!tool_failed(op, r, "jetson_clocks --restore")) {
                /* Used once: limits stored now would be stale after the
                 * next power mode change. */
                char host[4096];
                if (jd_sysroot_host_path(op->sr, JD_JETSON_CLOCKS_STORE, host, sizeof(host)) == 0)
                        unlink(host);
                jd_result_set(&op->result, JD_OK, "jetson_clocks is off");
        }
        finish(op);
}

void jd_jetson_clocks_set(const jd_sysroot *sr, const jd_config *cfg, bool on, const jd_fan_pwms *pwms,
                          jd_result_fn done, void *userdata)
{
        clocks_op *op = g_new0(clocks_op, 1);
        op->sr = sr;
        op->timeout_ms = cfg->tool_timeout_ms;
        op->on = on;
        op->done = done;
        op->userdata = userdata;
        jd_fan_pwms_copy(&op->pwms, pwms);
        op->writes = g_new0(jd_attribute_write, op->pwms.n ? op->pwms.n : 1);
        if (on) {
                const char *args[] = { "--store", JD_JETSON_CLOCKS_STORE, NULL };
                jd_tool_run(sr, "jetson_clocks", args, op->timeout_ms, on_stored, op);
        } else if (jd_sysroot_exists(sr, JD_JETSON_CLOCKS_STORE)) {
                const char *args[] = { "--restore", JD_JETSON_CLOCKS_STORE, NULL };
                jd_tool_run(sr, "jetson_clocks", args, op->timeout_ms, on_restored, op);
        } else {
                jd_result_set(&op->result, JD_FAILED,
                              "jetson_clocks was not switched on by jetsond, so there are no stored clocks to "
                              "restore; set the power mode again to reset them");
                g_idle_add(finish_later, op);
        }
}
