#include "tool.h"

#include <gio/gio.h>
#include <limits.h>
#include <string.h>

typedef struct {
        char *tool;
        char *failure;                /* why it could not be started */
        GSubprocess *process;
        guint timeout_id;
        bool timed_out;
        jd_tool_done done;
        void *userdata;
} tool_run;

static void finish(tool_run *run, const jd_tool_result *result)
{
        run->done(result, run->userdata);
        if (run->timeout_id)
                g_source_remove(run->timeout_id);
        g_clear_object(&run->process);
        g_free(run->failure);
        g_free(run->tool);
        g_free(run);
}

static gboolean on_timeout(gpointer data)
{
        tool_run *run = data;
        run->timeout_id = 0;
        run->timed_out = true;
        /* SIGKILL: a hung nvpmodel may ignore SIGTERM. communicate()
         * then sees EOF and completes. */
        g_subprocess_force_exit(run->process);
        return G_SOURCE_REMOVE;
}

static void on_communicated(GObject *source, GAsyncResult *res, gpointer data)
{
        tool_run *run = data;
        g_autofree char *out = NULL;
        g_autoptr(GError) error = NULL;
        GSubprocess *p = G_SUBPROCESS(source);
        g_subprocess_communicate_utf8_finish(p, res, &out, NULL, &error);
        jd_tool_result r = {
                .tool = run->tool,
                .started = true,
                .timed_out = run->timed_out,
                .exited = !run->timed_out && g_subprocess_get_if_exited(p),
                .output = out ? out : (error ? error->message : ""),
        };
        if (r.exited)
                r.exit_status = g_subprocess_get_exit_status(p);
        finish(run, &r);
}

static gboolean report_not_started(gpointer data)
{
        tool_run *run = data;
        jd_tool_result r = { .tool = run->tool, .output = run->failure };
        finish(run, &r);
        return G_SOURCE_REMOVE;
}

void jd_tool_run(const jd_sysroot *sr, const char *name, const char *const *args, unsigned timeout_ms,
                 jd_tool_done done, void *userdata)
{
        tool_run *run = g_new0(tool_run, 1);
        run->tool = g_strdup(name);
        run->done = done;
        run->userdata = userdata;

        char path[PATH_MAX];
        if (jd_sysroot_find_tool(sr, name, path, sizeof(path)) < 0) {
                /* Report from the loop, as for a started tool, so callers
                 * never see their callback run before jd_tool_run returns. */
                run->failure = g_strdup_printf("%s is not installed", name);
                g_idle_add(report_not_started, run);
                return;
        }
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        g_ptr_array_add(argv, path);
        for (size_t i = 0; args && args[i]; i++)
                g_ptr_array_add(argv, (char *) args[i]);
        g_ptr_array_add(argv, NULL);

        g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new(
                G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE);
        /* The tools are shell scripts on a board: give them a plain,
         * predictable environment rather than whatever started jetsond. */
        const char *env[] = { "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL };
        g_subprocess_launcher_set_environ(launcher, (char **) env);
        g_autoptr(GError) error = NULL;
        run->process = g_subprocess_launcher_spawnv(launcher, (const char *const *) argv->pdata, &error);
        if (!run->process) {
                run->failure = g_strdup_printf("Cannot run %s: %s", name, error->message);
                g_idle_add(report_not_started, run);
                return;
        }
        run->timeout_id = g_timeout_add(timeout_ms, on_timeout, run);
        /* NULL input closes stdin at once: a prompt reads end-of-file. */
        g_subprocess_communicate_utf8_async(run->process, NULL, NULL, on_communicated, run);
}

char *jd_tool_last_line(const char *output)
{
        g_autofree char *copy = g_strdup(output ? output : "");
        g_strchomp(copy);
        const char *nl = strrchr(copy, '\n');
        return g_strdup(g_strstrip(nl ? (char *) nl + 1 : copy));
}

bool jd_tool_failed(const jd_tool_result *r, const char *what, unsigned timeout_ms, jd_result *out)
{
        if (r->exited && r->exit_status == 0)
                return false;
        g_autofree char *line = jd_tool_last_line(r->output);
        if (r->timed_out)
                jd_result_set(out, JD_TIMEOUT, "%s did not finish within %u s", what, timeout_ms / 1000);
        else
                jd_result_set(out, r->started ? JD_FAILED : JD_NOT_SUPPORTED, "%s failed: %s", what, line);
        return true;
}
