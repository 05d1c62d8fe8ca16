/* jetsonctl measure against jetsond on a static fake board (the rails
 * hold still, so the energy is known): energy per rail = power x time,
 * a child that touches 64 MiB and burns CPU is seen in the process tree,
 * two sync points make three phases covering the run (in absolute time
 * too), and the command's
 * exit status is passed through. A running job that forks, followed by
 * --pid until it exits: its tree's CPU, memory and writes as the job
 * says; a PID that is no number, not there, or gone at once. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <math.h>
#include <string.h>

#include "jctest.h"

static JsonNode *measure_json(const char *const *command, int want_status)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        g_ptr_array_add(argv, (char *) "measure");
        g_ptr_array_add(argv, (char *) "--json");
        g_ptr_array_add(argv, (char *) "--");
        for (size_t i = 0; command[i]; i++)
                g_ptr_array_add(argv, (char *) command[i]);
        g_ptr_array_add(argv, NULL);
        jc_result r = jc_runv((const char *const *) argv->pdata);
        if (r.status != want_status)
                fail_msg("exit %d, want %d: %s", r.status, want_status, r.err);
        JsonNode *j = jc_parse_json(r.out);
        jc_result_clear(&r);
        return j;
}

static double number_at(JsonNode *root, const char *path)
{
        JsonNode *n = jc_json_at(root, path);
        if (JSON_NODE_HOLDS_NULL(n))
                fail_msg("%s is null", path);
        return json_node_get_double(n);
}

static void test_energy(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        static const char *const cmd[] = { "sleep", "1", NULL };
        g_autoptr(JsonNode) j = measure_json(cmd, 0);
        /* At least the second it slept; a busy machine adds to it, and
         * the energy below is checked against the measured time. */
        double secs = number_at(j, "duration_s");
        print_message("figure: measure sleep 1: %.3f s\n", secs);
        if (secs < 0.95 || secs > 30)
                fail_msg("sleep 1 took %.3f s", secs);
        JsonObject *power = json_node_get_object(jc_json_at(j, "power"));
        g_autoptr(GList) rails = json_object_get_members(power);
        assert_true(g_list_length(rails) >= 2);
        for (GList *l = rails; l; l = l->next) {
                g_autofree char *base = g_strdup_printf("power|%s", (const char *) l->data);
                g_autofree char *e_path = g_strconcat(base, "|energy_j", NULL);
                g_autofree char *p_path = g_strconcat(base, "|peak_power_mw", NULL);
                g_autofree char *m_path = g_strconcat(base, "|mean_power_mw", NULL);
                double energy = number_at(j, e_path), peak = number_at(j, p_path), mean = number_at(j, m_path);
                /* Constant rails: power x time, within 2 %. */
                double want = peak / 1000 * secs;
                if (fabs(energy - want) > 0.02 * want)
                        fail_msg("%s: %.4f J, want %.4f J (%.0f mW for %.3f s)", (const char *) l->data, energy, want,
                                 peak, secs);
                if (fabs(mean - peak) > 0.02 * peak)
                        fail_msg("%s: mean %.1f mW, peak %.1f mW on a board whose rails hold still",
                                 (const char *) l->data, mean, peak);
        }
        /* The board's total is there, from its input rail. */
        number_at(j, "power|total|energy_j");
}

static void test_processes(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        /* A child of the command allocates and touches 64 MiB, then burns
         * 0.5 s of CPU while holding it. */
        static const char *const cmd[] = {
                "/usr/bin/python3", "-c",
                "import subprocess, sys\n"
                "subprocess.run([sys.executable, '-c', '''\n"
                "import time\n"
                "b = bytearray(64 << 20)\n"
                "for i in range(0, len(b), 4096): b[i] = 1\n"
                "t = time.process_time()\n"
                "while time.process_time() - t < 0.5: pass\n"
                "'''], check=True)\n",
                NULL,
        };
        g_autoptr(JsonNode) j = measure_json(cmd, 0);
        double rss = number_at(j, "processes.peak_rss_bytes");
        double cpu = number_at(j, "processes.cpu_user_s") + number_at(j, "processes.cpu_system_s");
        if (rss < 64.0 * 1024 * 1024)
                fail_msg("peak RSS %.1f MiB, want at least 64 MiB", rss / 1048576);
        if (cpu < 0.45)
                fail_msg("CPU time %.3f s, want at least 0.45 s", cpu);
        /* PSS is sampled: the 64 MiB were held for half a second. */
        if (number_at(j, "processes.peak_pss_bytes") < 60.0 * 1024 * 1024)
                fail_msg("peak PSS %.1f MiB", number_at(j, "processes.peak_pss_bytes") / 1048576);
}

static void test_phases(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        static const char *const cmd[] = {
                "sh", "-c",
                "sleep 0.2; echo load >&$JETSONCTL_MARK_FD; sleep 0.3; echo run >&$JETSONCTL_MARK_FD; sleep 0.2",
                NULL,
        };
        double wall0 = (double) g_get_real_time() / 1e6;
        g_autoptr(JsonNode) j = measure_json(cmd, 0);
        double wall1 = (double) g_get_real_time() / 1e6;
        JsonArray *phases = json_node_get_array(jc_json_at(j, "phases"));
        assert_int_equal(json_array_get_length(phases), 3);
        /* Absolute times: the run within the wall clock around it, as
         * long as its duration_s; the phases end to end from its start to
         * its end, each where start_s puts it. */
        double start = number_at(j, "start_unix_s"), end = number_at(j, "end_unix_s");
        if (start < wall0 - 1e-6 || end > wall1 + 1e-6 || fabs(end - start - number_at(j, "duration_s")) > 2e-6)
                fail_msg("run from %.6f to %.6f (%.6f s), wall clock %.6f to %.6f", start, end,
                         number_at(j, "duration_s"), wall0, wall1);
        double at = start;
        for (guint i = 0; i < 3; i++) {
                JsonNode *p = json_array_get_element(phases, i);
                double s = number_at(p, "start_unix_s"), e = number_at(p, "end_unix_s");
                if (fabs(s - at) > 1e-6 || fabs(s - start - number_at(p, "start_s")) > 2e-6 ||
                    fabs(e - s - number_at(p, "duration_s")) > 2e-6)
                        fail_msg("phase %u from %.6f to %.6f, want from %.6f (start_s %.6f, duration_s %.6f)", i, s,
                                 e, at, number_at(p, "start_s"), number_at(p, "duration_s"));
                at = e;
        }
        if (fabs(at - end) > 1e-6)
                fail_msg("the last phase ends at %.6f, the run at %.6f", at, end);
        static const char *const names[] = { "start", "load", "run" };
        static const double lengths[] = { 0.2, 0.3, 0.2 };
        double sum = 0, sum_energy = 0;
        for (guint i = 0; i < 3; i++) {
                JsonNode *p = json_array_get_element(phases, i);
                assert_string_equal(json_node_get_string(jc_json_at(p, "name")), names[i]);
                /* Each phase ends when its mark is read: a busy machine
                 * reads a mark late, lengthening one phase and shortening
                 * the next by as much (milliseconds; a stall is seconds). */
                double d = number_at(p, "duration_s");
                print_message("figure: measure phase %s: %.3f s (slept %.1f s)\n", names[i], d, lengths[i]);
                if (d < lengths[i] - 0.1 || d > lengths[i] + 10)
                        fail_msg("phase %s lasted %.3f s, want about %.1f", names[i], d, lengths[i]);
                sum += d;
                sum_energy += number_at(p, "power|total|energy_j");
        }
        double whole = number_at(j, "duration_s");
        if (fabs(sum - whole) > 1e-6)
                fail_msg("phases add up to %.6f s, the run took %.6f s", sum, whole);
        double whole_energy = number_at(j, "power|total|energy_j");
        if (fabs(sum_energy - whole_energy) > 0.02 * whole_energy)
                fail_msg("phases' energy %.4f J, the run's %.4f J", sum_energy, whole_energy);
}

static void test_status(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        static const char *const three[] = { "sh", "-c", "exit 3", NULL };
        g_autoptr(JsonNode) j = measure_json(three, 3);
        jc_assert_json_int(j, "exit_status", 3);
        jc_result r = jc_run("measure", "--", "/nonexistent/tool", NULL);
        assert_int_equal(r.status, 127);
        assert_string_equal(r.err, "jetsonctl: /nonexistent/tool: command not found\n");
        jc_result_clear(&r);
        r = jc_run("measure", NULL);
        assert_int_equal(r.status, 2);
        jc_result_clear(&r);
        /* Text for people: units on every line. */
        r = jc_run("measure", "--", "sleep", "0.2", NULL);
        assert_int_equal(r.status, 0);
        assert_non_null(strstr(r.out, "Energy:"));
        assert_non_null(strstr(r.out, " J, mean "));
        assert_non_null(strstr(r.out, "Processes:"));
        jc_result_clear(&r);
}

/* Issue 39: the command itself raises 2 over-current events and a GPU
 * thermal cap (simulate.py) and then runs a second: the text says how much
 * of the run the cap held and how many events it counted. */
static void test_throttled(void **state)
{
        testbus *tb = jc_start(state, "agx-thor-jp71", (const char *[]) { "--interval=100", NULL });
        g_autofree char *script = g_strdup_printf(
                "/usr/bin/python3 %s/simulate.py %s --duration-s 0 --oc-events 1=2 --cap gpu-throttle-alert=1 "
                "&& sleep 1",
                FIXTURES_DIR, tb->root);
        jc_result r = jc_run("measure", "--", "sh", "-c", script, NULL);
        assert_int_equal(r.status, 0);
        const char *line = strstr(r.out, "Throttled:        ");
        if (!line || !strstr(line, "% of the time by GPU thermal cap (2 over-current events)\n"))
                fail_msg("no throttled line in:\n%s", r.out);
        jc_result_clear(&r);
}

static void test_follow_pid(void **state)
{
        testbus *tb = jc_start(state, "agx-orin-jp62", NULL);
        jc_workload w = jc_workload_start(tb->dir, 3, 32, 0.3, 4);
        g_autofree char *pid = g_strdup_printf("%d", (int) w.pid);
        jc_result r = jc_run("measure", "--json", "--pid", pid, NULL);
        g_autoptr(JsonNode) did = jc_workload_end(&w);
        if (r.status != 0)
                fail_msg("measure --pid: exit %d: %s", r.status, r.err);
        g_autoptr(JsonNode) j = jc_parse_json(r.out);
        jc_result_clear(&r);
        jc_assert_json_int(j, "pid", w.pid);
        jc_assert_json_string(j, "followed_until", "exit");
        assert_true(JSON_NODE_HOLDS_NULL(jc_json_at(j, "exit_status")));
        assert_string_equal(json_node_get_string(json_array_get_element(
                                    json_node_get_array(jc_json_at(j, "command")), 0)),
                            "/usr/bin/python3");
        double cpu = number_at(j, "processes.cpu_user_s") + number_at(j, "processes.cpu_system_s");
        double want_cpu = json_node_get_double(jc_json_at(did, "cpu_s"));
        double held = json_node_get_double(jc_json_at(did, "mem_kib_held")) * 1024;
        double written = number_at(j, "processes.write_bytes");
        double want_written = json_node_get_double(jc_json_at(did, "write_bytes"));
        double secs = number_at(j, "duration_s");
        print_message("figure: measure --pid: %.3f s, CPU %.2f s (the job's %.2f s), peak RSS %.1f MiB, written %.0f B "
                      "(the job's %.0f B)\n",
                      secs, cpu, want_cpu, number_at(j, "processes.peak_rss_bytes") / 1048576, written, want_written);
        /* Followed from before the children to the job's end: its 0.5 s
         * start, 0.5 s hold and 0.5 s tail at least. */
        if (secs < 1.4 || secs > 30)
                fail_msg("followed for %.3f s", secs);
        if (cpu < want_cpu - 0.05 || cpu > want_cpu + 1.0)
                fail_msg("CPU %.3f s, the children used %.3f s", cpu, want_cpu);
        if (number_at(j, "processes.peak_rss_bytes") < 0.95 * held ||
            number_at(j, "processes.peak_pss_bytes") < 0.9 * held)
                fail_msg("peak RSS %.0f, PSS %.0f bytes: the children held %.0f at once",
                         number_at(j, "processes.peak_rss_bytes"), number_at(j, "processes.peak_pss_bytes"), held);
        if (written < want_written || written > want_written + (1 << 20))
                fail_msg("%.0f bytes written, the children wrote %.0f", written, want_written);
}

/* Ctrl-C ends the following of a process that goes on: a report of
 * that time, followed_until "stopped", exit 0, the process untouched. */
static void test_follow_pid_stopped(void **state)
{
        testbus *tb = jc_start(state, "agx-orin-jp62", NULL);
        GPid sleeper = jc_spawn_sleep("60"), pid;
        g_autoptr(GError) error = NULL;
        g_autofree char *followed = g_strdup_printf("%d", (int) sleeper);
        char *argv[] = { (char *) JETSONCTL_PATH, (char *) "--address", (char *) tb->address, (char *) "--json",
                         (char *) "measure", (char *) "--pid", followed, NULL };
        int out_fd;
        if (!g_spawn_async_with_pipes(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out_fd,
                                      NULL, &error))
                fail_msg("%s", error->message);
        g_usleep(1500000);
        kill(pid, SIGINT);
        GString *out = g_string_new(NULL);
        char buf[4096];
        ssize_t n;
        while ((n = read(out_fd, buf, sizeof(buf))) > 0)
                g_string_append_len(out, buf, n);
        close(out_fd);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        assert_int_equal(waitpid(sleeper, &status, WNOHANG), 0);
        kill(sleeper, SIGKILL);
        waitpid(sleeper, NULL, 0);
        g_autofree char *text = g_string_free(out, FALSE);
        g_autoptr(JsonNode) j = jc_parse_json(text);
        jc_assert_json_string(j, "followed_until", "stopped");
        jc_assert_json_int(j, "pid", sleeper);
        if (number_at(j, "duration_s") <= 0)
                fail_msg("followed for %.3f s", number_at(j, "duration_s"));
}

static void test_pid_errors(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        jc_result r = jc_run("measure", "--pid", "abc", NULL);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "--pid must be a process ID (a positive number), not \"abc\""));
        jc_result_clear(&r);
        r = jc_run("measure", "--pid", "1", "--", "true", NULL);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "give either --pid or a command, not both"));
        jc_result_clear(&r);
        /* Gone before jetsonctl looks (a zombie, then reaped): a message. */
        jc_result gone[2];
        jc_run_pid_gone((const char *const[]) { "measure", NULL }, gone);
        for (int pass = 0; pass < 2; pass++) {
                assert_string_equal(gone[pass].out, "");
                jc_result_clear(&gone[pass]);
        }
        GPid pid;
        g_autoptr(GError) error = NULL;
        /* Gone once followed: a short report, valid, up to its exit. */
        char *sleeper[] = { (char *) "sleep", (char *) "0.3", NULL };
        if (!g_spawn_async(NULL, sleeper, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &pid, &error))
                fail_msg("%s", error->message);
        g_autofree char *quick = g_strdup_printf("%d", (int) pid);
        r = jc_run("measure", "--json", "--pid", quick, NULL);
        if (r.status == 0) {
                g_autoptr(JsonNode) j = jc_parse_json(r.out);
                jc_assert_json_string(j, "followed_until", "exit");
                if (number_at(j, "duration_s") > 5)
                        fail_msg("sleep 0.3 followed for %.3f s", number_at(j, "duration_s"));
        } else {
                /* A machine so busy that jetsonctl started after it ended. */
                assert_int_equal(r.status, 1);
                assert_non_null(strstr(r.err, "no process"));
        }
        jc_result_clear(&r);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_energy, testbus_teardown),
                cmocka_unit_test_teardown(test_processes, testbus_teardown),
                cmocka_unit_test_teardown(test_phases, testbus_teardown),
                cmocka_unit_test_teardown(test_throttled, testbus_teardown),
                cmocka_unit_test_teardown(test_status, testbus_teardown),
                cmocka_unit_test_teardown(test_follow_pid, testbus_teardown),
                cmocka_unit_test_teardown(test_follow_pid_stopped, testbus_teardown),
                cmocka_unit_test_teardown(test_pid_errors, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
