#include "nvpmodel_control.h"

#include <errno.h>
#include <glib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "config_edit.h"
#include "jetson_clocks_control.h"
#include "tool.h"

typedef struct {
        const jd_sysroot *sr;
        unsigned timeout_ms;
        unsigned id;
        char mode_name[64];
        const jd_config *cfg;
        bool reapply_clocks;
        jd_fan_pwms fan_pwms;         /* kept by jetson_clocks both ways */
        jd_result result;
        jd_result_fn done;
        void *userdata;
} set_mode;

static void finish(set_mode *op)
{
        op->done(&op->result, op->userdata);
        jd_fan_pwms_clear(&op->fan_pwms);
        g_free(op);
}

static void on_clocks_reapplied(const jd_result *result, void *data)
{
        set_mode *op = data;
        /* The mode outcome stands; a failed re-apply is added to it. */
        if (result->outcome != JD_OK) {
                size_t len = strlen(op->result.message);
                g_snprintf(op->result.message + len, sizeof(op->result.message) - len,
                           "%sjetson_clocks could not be applied again: %s", len ? "; " : "", result->message);
                if (op->result.outcome == JD_OK)
                        op->result.outcome = JD_FAILED;
        }
        finish(op);
}

/* The last "NVPM ERROR" line, else the last line. */
static char *nvpm_error(const char *output)
{
        const char *e = g_strrstr(output, "NVPM ERROR");
        return e ? g_strstrip(g_strndup(e, strcspn(e, "\n"))) : jd_tool_last_line(output);
}

static void on_nvpmodel(const jd_tool_result *r, void *data)
{
        set_mode *op = data;
        if (r->timed_out) {
                jd_result_set(&op->result, JD_TIMEOUT, "nvpmodel -m %u did not finish within %u s", op->id,
                              op->timeout_ms / 1000);
        } else if (strstr(r->output, "Reboot required")) {
                jd_result_set(&op->result, JD_REBOOT_REQUIRED,
                              "Switching to power mode %u (%s) requires a reboot; use SetDefaultMode(%u) and reboot",
                              op->id, op->mode_name, op->id);
        } else if (!r->started || !r->exited || r->exit_status != 0 || strstr(r->output, "NVPM ERROR")) {
                g_autofree char *line = nvpm_error(r->output);
                jd_result_set(&op->result, JD_FAILED, "nvpmodel -m %u failed: %s", op->id, line);
        } else {
                jd_result_set(&op->result, JD_OK, "Power mode %u (%s) set", op->id, op->mode_name);
        }
        if (op->reapply_clocks) {
                /* Stores the new mode's limits, so a later SetActive(false)
                 * restores those and not the old mode's. */
                jd_jetson_clocks_set(op->sr, op->cfg, true, &op->fan_pwms, on_clocks_reapplied,
                                     op);
                return;
        }
        finish(op);
}

static void run_nvpmodel(set_mode *op)
{
        char id[16];
        g_snprintf(id, sizeof(id), "%u", op->id);
        const char *args[] = { "-m", id, NULL };
        jd_tool_run(op->sr, "nvpmodel", args, op->timeout_ms, on_nvpmodel, op);
}

static void on_clocks_restored(const jd_result *result, void *data)
{
        set_mode *op = data;
        if (result->outcome != JD_OK) {
                jd_result_set(&op->result, result->outcome, "Before the mode change: %s", result->message);
                finish(op);
                return;
        }
        run_nvpmodel(op);
}

void jd_nvpmodel_set_mode(const jd_sysroot *sr, const jd_config *cfg, unsigned id, const char *mode_name,
                          bool jetson_clocks_active, const jd_fan_pwms *fan_pwms, jd_result_fn done, void *userdata)
{
        set_mode *op = g_new0(set_mode, 1);
        op->sr = sr;
        op->cfg = cfg;
        jd_fan_pwms_copy(&op->fan_pwms, fan_pwms);
        op->timeout_ms = cfg->tool_timeout_ms;
        op->id = id;
        g_strlcpy(op->mode_name, mode_name ? mode_name : "", sizeof(op->mode_name));
        op->reapply_clocks = jetson_clocks_active;
        op->done = done;
        op->userdata = userdata;
        /* Restore only what jetsond stored; clocks pinned by someone else
         * are reset by the mode change itself. */
        if (jetson_clocks_active && jd_sysroot_exists(sr, JD_JETSON_CLOCKS_STORE)) {
                jd_jetson_clocks_set(sr, cfg, false, &op->fan_pwms, on_clocks_restored, op);
                return;
        }
        run_nvpmodel(op);
}

typedef struct {
        const jd_sysroot *sr;
        unsigned id;
        jd_result result;
        jd_result_fn done;
        void *userdata;
} set_default;

static void default_done(set_default *op)
{
        op->done(&op->result, op->userdata);
        g_free(op);
}

static gboolean default_done_later(gpointer data)
{
        default_done(data);
        return G_SOURCE_REMOVE;
}

static void on_conf_written(int r, void *data)
{
        set_default *op = data;
        if (r < 0)
                jd_result_set(&op->result, JD_FAILED, "Cannot rewrite /etc/nvpmodel.conf: %s", jd_sysroot_strerror(-r));
        else if (jd_nvpmodel_discard_state(op->sr, &op->result))
                jd_result_set(&op->result, JD_OK, "Boot power mode set to %u", op->id);
        default_done(op);
}

void jd_nvpmodel_set_default(const jd_sysroot *sr, unsigned id, jd_result_fn done, void *userdata)
{
        set_default *op = g_new0(set_default, 1);
        op->sr = sr;
        op->id = id;
        op->done = done;
        op->userdata = userdata;
        g_autofree char *conf = NULL;
        g_autofree char *edited = NULL;
        const char *why = NULL;
        int r = jd_read_text(sr, "/etc/nvpmodel.conf", 1 << 20, &conf);
        if (r < 0)
                jd_result_set(&op->result, JD_NOT_SUPPORTED, "Cannot read /etc/nvpmodel.conf: %s", jd_sysroot_strerror(-r));
        else if (!(edited = jd_edit_nvpmodel_default(conf, id, &why)))
                jd_result_set(&op->result, JD_FAILED, "Cannot change the default in /etc/nvpmodel.conf: %s", why);
        else if (strcmp(edited, conf) == 0)   /* already the default: nothing to rewrite */
                jd_result_set(&op->result, JD_OK, "The boot power mode is already %u", id);
        else {
                jd_atomic_write_async(sr, "/etc/nvpmodel.conf", edited, strlen(edited), 0644, on_conf_written, op);
                return;
        }
        g_idle_add(default_done_later, op);
}

/* The mode nvpmodel's status file names keeps running until the reboot:
 * noted first, so Mode stays known (the reader falls back to the note).
 * /run is a tmpfs, so this small synchronous write waits for no disk. If
 * it fails (jetsond logged at start that it could not create /run/jetsond)
 * the mode only shows as unknown until the reboot. */
static void note_running_mode(const jd_sysroot *sr)
{
        g_autofree char *status = NULL;
        jd_nvpmodel_sample running = { 0 };
        if (jd_read_text(sr, JD_NVPMODEL_STATUS, 4096, &status) < 0 || !jd_parse_nvpmodel_status(status, &running))
                return;
        g_autofree char *note = g_strdup_printf("pmode:%04" G_GUINT64_FORMAT "\n", running.current_id.value);
        (void) jd_atomic_write(sr, JD_NVPMODEL_RUNNING_NOTE, note, strlen(note), 0644);
}

bool jd_nvpmodel_discard_state(const jd_sysroot *sr, jd_result *result)
{
        note_running_mode(sr);
        char host[PATH_MAX];
        if (jd_sysroot_host_path(sr, JD_NVPMODEL_STATUS, host, sizeof(host)) < 0 || unlink(host) == 0 ||
            errno == ENOENT)
                return true;
        int err = errno;
        jd_sysroot_note_refusal(sr, JD_NVPMODEL_STATUS, err);
        jd_result_set(result, JD_FAILED, "Cannot remove %s: %s", JD_NVPMODEL_STATUS, jd_sysroot_strerror(err));
        return false;
}
