#include "jctest.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void jc_result_clear(jc_result *r)
{
        g_free(r->out);
        g_free(r->err);
        r->out = r->err = NULL;
}

static jc_result run_array(const char *const *args)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
        g_ptr_array_add(argv, g_strdup("timeout"));
        g_ptr_array_add(argv, g_strdup("-k2"));
        g_ptr_array_add(argv, g_strdup("60"));   /* only a hung jetsonctl takes a minute */
        testbus_add_wrapper(argv, "JETSONCTL_TEST_WRAPPER");
        g_ptr_array_add(argv, g_strdup(JETSONCTL_PATH));
        for (size_t i = 0; args[i]; i++)
                g_ptr_array_add(argv, g_strdup(args[i]));
        g_ptr_array_add(argv, NULL);

        /* Output for a pipe, in any environment the tests run in. */
        char **envp = g_get_environ();
        envp = g_environ_unsetenv(envp, "NO_COLOR");
        envp = g_environ_setenv(envp, "TZ", "UTC", TRUE);

        jc_result r = { 0 };
        int wait_status = -1;
        GError *error = NULL;
        uint64_t start = testbus_now_us();
        gboolean ok = g_spawn_sync(NULL, (char **) argv->pdata, envp, G_SPAWN_SEARCH_PATH, NULL, NULL, &r.out, &r.err,
                                   &wait_status, &error);
        r.usec = testbus_now_us() - start;
        g_strfreev(envp);
        if (!ok)
                fail_msg("cannot run jetsonctl: %s", error->message);
        r.status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
        return r;
}

static jc_result run_v(const char *first, va_list ap)
{
        g_autoptr(GPtrArray) args = g_ptr_array_new();
        for (const char *a = first; a; a = va_arg(ap, const char *))
                g_ptr_array_add(args, (char *) a);
        g_ptr_array_add(args, NULL);
        return run_array((const char *const *) args->pdata);
}

jc_result jc_runv(const char *const *args)
{
        return run_array(args);
}

jc_result jc_run(const char *first, ...)
{
        va_list ap;
        va_start(ap, first);
        jc_result r = run_v(first, ap);
        va_end(ap);
        return r;
}

char *jc_ok(const char *first, ...)
{
        va_list ap;
        va_start(ap, first);
        jc_result r = run_v(first, ap);
        va_end(ap);
        if (r.status != 0 || *r.err)
                fail_msg("jetsonctl %s...: exit %d, stderr:\n%s\nstdout:\n%s", first, r.status, r.err, r.out);
        g_free(r.err);
        return r.out;
}

GPid jc_spawn_sleep(const char *seconds)
{
        GPid pid;
        char *argv[] = { (char *) "sleep", (char *) seconds, NULL };
        g_autoptr(GError) error = NULL;
        if (!g_spawn_async(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, NULL, NULL, &pid, &error))
                fail_msg("%s", error->message);
        return pid;
}

void jc_run_pid_gone(const char *const *args, jc_result r[2])
{
        GPid pid;
        char *argv[] = { (char *) "true", NULL };
        g_autoptr(GError) error = NULL;
        if (!g_spawn_async(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, NULL, NULL, &pid, &error))
                fail_msg("%s", error->message);
        /* Time for true to exit: a zombie from here on. */
        g_usleep(200000);
        g_autofree char *gone = g_strdup_printf("%d", (int) pid);
        g_autofree char *want = g_strdup_printf("jetsonctl: no process %s to follow (it does not exist or has exited)\n",
                                                gone);
        g_autoptr(GPtrArray) full = g_ptr_array_new();
        for (const char *const *a = args; *a; a++)
                g_ptr_array_add(full, (gpointer) *a);
        g_ptr_array_add(full, (gpointer) "--pid");
        g_ptr_array_add(full, gone);
        g_ptr_array_add(full, NULL);
        for (int pass = 0; pass < 2; pass++) {
                r[pass] = jc_runv((const char *const *) full->pdata);
                assert_int_equal(r[pass].status, 1);
                assert_string_equal(r[pass].err, want);
                if (pass == 0)
                        assert_int_equal(waitpid(pid, NULL, 0), pid);
        }
}

char *jc_mask(const char *text)
{
        g_autoptr(GRegex) time_re = g_regex_new("^[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} ", G_REGEX_MULTILINE, 0, NULL);
        return g_regex_replace_literal(time_re, text, -1, 0, "HH:MM:SS.mmm ", 0, NULL);
}

void jc_check_golden(const char *name, const char *text)
{
        g_autofree char *path = g_build_filename(GOLDEN_DIR, name, NULL);
        g_autofree char *masked = jc_mask(text);
        if (g_strcmp0(g_getenv("JETSONCTL_UPDATE_GOLDEN"), "1") == 0) {
                assert_true(g_file_set_contents(path, masked, -1, NULL));
                fprintf(stderr, "updated %s\n", path);
                return;
        }
        g_autofree char *want = NULL;
        if (!g_file_get_contents(path, &want, NULL, NULL))
                fail_msg("no golden file %s; output was:\n%s", path, masked);
        if (strcmp(want, masked) == 0)
                return;
        /* Point at the first differing line, then show both in full. */
        g_auto(GStrv) a = g_strsplit(want, "\n", -1), b = g_strsplit(masked, "\n", -1);
        guint i = 0;
        while (a[i] && b[i] && strcmp(a[i], b[i]) == 0)
                i++;
        fail_msg("output differs from %s at line %u:\n  want: %s\n  got:  %s\n--- full output:\n%s", path, i + 1,
                 a[i] ? a[i] : "<end>", b[i] ? b[i] : "<end>", masked);
}

JsonNode *jc_parse_json(const char *text)
{
        g_autoptr(JsonParser) p = json_parser_new();
        g_autoptr(GError) error = NULL;
        if (!json_parser_load_from_data(p, text, -1, &error))
                fail_msg("not JSON (%s): %s", error->message, text);
        JsonNode *root = json_parser_get_root(p);
        if (!root)
                fail_msg("empty JSON output");
        return json_node_copy(root);
}

JsonNode *jc_json_member(JsonNode *object, const char *name)
{
        if (!JSON_NODE_HOLDS_OBJECT(object))
                fail_msg("not a JSON object where \"%s\" was expected", name);
        JsonNode *n = json_object_get_member(json_node_get_object(object), name);
        if (!n)
                fail_msg("no JSON member \"%s\"", name);
        return n;
}

JsonNode *jc_json_at(JsonNode *root, const char *path)
{
        g_auto(GStrv) parts = g_strsplit(path, strchr(path, '|') ? "|" : ".", -1);
        JsonNode *n = root;
        for (char **p = parts; *p; p++) {
                if (!**p)
                        continue; /* "|fan.0.speed": one key with dots */
                if ((*p)[0] == '[') {
                        guint index = (guint) g_ascii_strtoull(*p + 1, NULL, 10);
                        if (!JSON_NODE_HOLDS_ARRAY(n) || index >= json_array_get_length(json_node_get_array(n)))
                                fail_msg("%s: no element %u", path, index);
                        n = json_array_get_element(json_node_get_array(n), index);
                } else {
                        n = jc_json_member(n, *p);
                }
        }
        return n;
}

void jc_assert_json_string(JsonNode *root, const char *path, const char *want)
{
        JsonNode *n = jc_json_at(root, path);
        if (json_node_get_value_type(n) != G_TYPE_STRING || strcmp(json_node_get_string(n), want) != 0)
                fail_msg("%s: expected \"%s\", got %s", path, want, json_to_string(n, FALSE));
}

void jc_assert_json_int(JsonNode *root, const char *path, gint64 want)
{
        JsonNode *n = jc_json_at(root, path);
        if (json_node_get_value_type(n) != G_TYPE_INT64 || json_node_get_int(n) != want)
                fail_msg("%s: expected integer %" G_GINT64_FORMAT ", got %s", path, want, json_to_string(n, FALSE));
}

void jc_assert_json_double(JsonNode *root, const char *path, double want)
{
        JsonNode *n = jc_json_at(root, path);
        if (json_node_get_value_type(n) != G_TYPE_DOUBLE || json_node_get_double(n) != want)
                fail_msg("%s: expected number %g, got %s", path, want, json_to_string(n, FALSE));
}

void jc_assert_json_bool(JsonNode *root, const char *path, gboolean want)
{
        JsonNode *n = jc_json_at(root, path);
        if (json_node_get_value_type(n) != G_TYPE_BOOLEAN || json_node_get_boolean(n) != want)
                fail_msg("%s: expected %s, got %s", path, want ? "true" : "false", json_to_string(n, FALSE));
}

testbus *jc_start(void **state, const char *board, const char *const *args)
{
        return testbus_start(state, board, args);
}

testbus *jc_start_with_polkit(void **state, const char *board, const char *const *allowed)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, board);
        testbus_start_polkit(tb, allowed);
        testbus_start_daemon(tb, NULL);
        return tb;
}

jc_workload jc_workload_start(const char *dir, int n, int mem_mib, double cpu_s, int write_mib)
{
        g_autofree char *n_text = g_strdup_printf("%d", n), *mem = g_strdup_printf("%d", mem_mib),
                        *cpu = g_strdup_printf("%.3f", cpu_s), *write = g_strdup_printf("%d", write_mib);
        char *argv[] = { (char *) "/usr/bin/python3", (char *) SOURCE_DIR "/tests/client/forking-workload.py",
                         (char *) dir, n_text, mem, cpu, write, NULL };
        jc_workload w = { 0 };
        g_autoptr(GError) error = NULL;
        if (!g_spawn_async_with_pipes(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &w.pid, NULL,
                                      &w.out_fd, NULL, &error))
                fail_msg("forking-workload.py: %s", error->message);
        return w;
}

JsonNode *jc_workload_end(jc_workload *w)
{
        GString *out = g_string_new(NULL);
        char buf[512];
        ssize_t n;
        while ((n = read(w->out_fd, buf, sizeof(buf))) > 0)
                g_string_append_len(out, buf, n);
        close(w->out_fd);
        int status = 0;
        if (waitpid(w->pid, &status, 0) != w->pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
                fail_msg("forking-workload.py failed (status %d): %s", status, out->str);
        g_autofree char *text = g_string_free(out, FALSE);
        return jc_parse_json(text);
}
