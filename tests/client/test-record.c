/* jetsonctl record against jetsond on a simulated board: every format at
 * 1 ms for a second (csv and jsonl with each --time: absolute times in the
 * run's wall-clock window, time_s plus one origin), read back as its users read it (Python's csv module,
 * json line by line, the trace as one JSON document: check-record.py);
 * sync points from the command's marker fd; the command's exit status
 * passed through; a full disk, a bad option and Ctrl-C; a running process
 * tree followed with --pid, its tree.* columns summing what the tree did. */
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jctest.h"

#define CHECKER SOURCE_DIR "/tests/client/check-record.py"
#define KEYS "cpu.load,cpu.0.freq,power.*,temp.*"

/* Runs check-record.py on PATH: records INTERVAL_MS apart by their own
 * times, spanning MIN_SPAN_S, with --time TIME_MODE's absolute times
 * (NULL: the default, unix) within WALL0..WALL1 (seconds since the epoch;
 * 0: not checked); fails the test with its message. */
/* OPT: one more option of check-record.py's (NULL: none). */
static void check_file_opt(const char *format, const char *path, int interval_ms, double min_span_s, const char *globs,
                           const char *const *marks, const char *time_mode, double wall0, double wall1,
                           const char *opt)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(NULL);
        g_ptr_array_add(argv, (char *) "/usr/bin/python3");
        g_ptr_array_add(argv, (char *) CHECKER);
        g_autofree char *time_opt = g_strdup_printf("--time=%s", time_mode ? time_mode : "unix");
        g_autofree char *wall_opt = g_strdup_printf("--wall=%.6f,%.6f", wall0, wall1);
        g_ptr_array_add(argv, time_opt);
        if (wall0 > 0)
                g_ptr_array_add(argv, wall_opt);
        if (opt)
                g_ptr_array_add(argv, (char *) opt);
        g_ptr_array_add(argv, (char *) format);
        g_ptr_array_add(argv, (char *) path);
        g_autofree char *interval = g_strdup_printf("%d", interval_ms);
        g_autofree char *span = g_strdup_printf("%.3f", min_span_s);
        g_ptr_array_add(argv, interval);
        g_ptr_array_add(argv, span);
        g_ptr_array_add(argv, (char *) globs);
        for (size_t i = 0; marks && marks[i]; i++)
                g_ptr_array_add(argv, (char *) marks[i]);
        g_ptr_array_add(argv, NULL);
        g_autofree char *out = NULL, *err = NULL;
        int status = -1;
        g_autoptr(GError) error = NULL;
        if (!g_spawn_sync(NULL, (char **) argv->pdata, NULL, 0, NULL, NULL, &out, &err, &status, &error))
                fail_msg("check-record.py: %s", error->message);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                fail_msg("%s %s: %s", format, path, err);
        print_message("%s", out);
}

static void check_file_time(const char *format, const char *path, int interval_ms, double min_span_s, const char *globs,
                            const char *const *marks, const char *time_mode, double wall0, double wall1)
{
        check_file_opt(format, path, interval_ms, min_span_s, globs, marks, time_mode, wall0, wall1, NULL);
}

static void check_file(const char *format, const char *path, int interval_ms, double min_span_s, const char *globs,
                       const char *const *marks)
{
        check_file_time(format, path, interval_ms, min_span_s, globs, marks, NULL, 0, 0);
}

static char *tmp_path(testbus *tb, const char *name)
{
        return g_build_filename(tb->dir, name, NULL);
}

static void test_formats(void **state)
{
        /* Live before jetsond starts, so its first sample has cpu.load. */
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, "agx-orin-jp62");
        testbus_start_simulator(tb);
        testbus_start_daemon(tb, NULL);
        /* Every --time in csv and jsonl (NULL: the default); the trace's
         * own µs timestamps whatever --time says, its origin in otherData. */
        static const struct {
                const char *format, *time;
        } cases[] = {
                { "csv", NULL },    { "csv", "iso" },     { "csv", "relative" }, { "jsonl", NULL },
                { "jsonl", "iso" }, { "jsonl", "relative" }, { "trace", NULL },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autofree char *path = tmp_path(tb, cases[i].format);
                double wall0 = (double) g_get_real_time() / 1e6;
                jc_result r = cases[i].time
                                      ? jc_run("record", "--interval", "1", "--duration", "1", "--keys", KEYS,
                                               "--format", cases[i].format, "--time", cases[i].time, "-o", path, NULL)
                                      : jc_run("record", "--interval", "1", "--duration", "1", "--keys", KEYS,
                                               "--format", cases[i].format, "-o", path, NULL);
                double wall1 = (double) g_get_real_time() / 1e6;
                if (r.status != 0)
                        fail_msg("%s %s: exit %d: %s", cases[i].format, cases[i].time, r.status, r.err);
                assert_string_equal(r.err, "");
                /* A second of records 1 ms apart; how many a busy machine
                 * made is its figure. */
                check_file_time(cases[i].format, path, 1, 0.5, KEYS, NULL, cases[i].time, wall0, wall1);
                jc_result_clear(&r);
        }
}

/* The recording's own tier rates on a moving board: in csv and jsonl the
 * medium and slow values come from readings 50 ms and 500 ms apart, each
 * value changing only with its tier's time column (check-record.py). */
static void test_tier_rates(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, "agx-orin-jp62");
        testbus_start_simulator(tb);
        testbus_start_daemon(tb, NULL);
        static const char *const formats[] = { "csv", "jsonl" };
        for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
                g_autofree char *path = tmp_path(tb, formats[i]);
                jc_result r = jc_run("record", "--interval", "1", "--medium", "50", "--slow", "500", "--duration", "2.5",
                                     "--keys", KEYS, "--format", formats[i], "--time", "relative", "-o", path, NULL);
                if (r.status != 0)
                        fail_msg("%s: exit %d: %s", formats[i], r.status, r.err);
                check_file_opt(formats[i], path, 1, 2.0, KEYS, NULL, "relative", 0, 0,
                               "--tier-period=medium:50,slow:500");
                jc_result_clear(&r);
        }
        /* The header names the tiers' time columns after the keys. */
        g_autofree char *path = tmp_path(tb, "csv");
        g_autofree char *text = NULL;
        assert_true(g_file_get_contents(path, &text, NULL, NULL));
        assert_non_null(strstr(text, ",medium_time_s,slow_time_s,mark\n"));
}

static void test_marks(void **state)
{
        testbus *tb = jc_start(state, "agx-orin-jp62", NULL);
        static const char *const marks[] = { "load model", "infer, batch 1", "done", NULL };
        static const char *const formats[] = { "csv", "jsonl", "trace" };
        for (size_t i = 0; i < G_N_ELEMENTS(formats); i++) {
                g_autofree char *path = tmp_path(tb, formats[i]);
                jc_result r = jc_run("record", "-i", "2", "-k", "cpu.0.freq", "-f", formats[i], "-o", path, "--", "sh", "-c",
                                     "echo 'load model' >&$JETSONCTL_MARK_FD; sleep 0.2; "
                                     "echo 'infer, batch 1' >&$JETSONCTL_MARK_FD; sleep 0.2; "
                                     "printf done >&$JETSONCTL_MARK_FD; sleep 0.1",
                                     NULL);
                if (r.status != 0)
                        fail_msg("%s: exit %d: %s", formats[i], r.status, r.err);
                /* Records from the command's start to its end (0.5 s of
                 * sleeps), 2 ms apart; a trace holds an event only when
                 * values moved, on a static board perhaps one. */
                check_file(formats[i], path, 2, strcmp(formats[i], "trace") ? 0.4 : 0.0, "cpu.0.freq,tree.*", marks);
                jc_result_clear(&r);
        }
}

static void test_exit_status(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        static const struct {
                const char *script;
                int status;
        } cases[] = {
                { "exit 0", 0 },
                { "exit 3", 3 },
                { "kill -9 $$", 128 + SIGKILL },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                jc_result r = jc_run("record", "-o", "/dev/null", "--", "sh", "-c", cases[i].script, NULL);
                if (r.status != cases[i].status)
                        fail_msg("%s: exit %d, want %d: %s", cases[i].script, r.status, cases[i].status, r.err);
                assert_string_equal(r.err, "");
                jc_result_clear(&r);
        }
        /* As a shell: 127 and one line for a command that does not exist. */
        jc_result r = jc_run("record", "-o", "/dev/null", "--", "/nonexistent/tool", "--flag", NULL);
        assert_int_equal(r.status, 127);
        assert_string_equal(r.err, "jetsonctl: /nonexistent/tool: command not found\n");
        assert_string_equal(r.out, "");
        jc_result_clear(&r);
}

static void test_errors(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        jc_result r = jc_run("record", "-o", "/dev/full", "--duration", "0.3", NULL);
        assert_int_equal(r.status, 1);
        assert_string_equal(r.err, "jetsonctl: writing /dev/full: No space left on device\n");
        jc_result_clear(&r);
        r = jc_run("record", "-o", "/nonexistent/dir/x.csv", "--duration", "0.3", NULL);
        assert_int_equal(r.status, 1);
        assert_string_equal(r.err, "jetsonctl: cannot write /nonexistent/dir/x.csv: No such file or directory\n");
        jc_result_clear(&r);
        static const char *const bad[][3] = {
                { "--format", "xml", NULL }, { "--interval", "0", NULL }, { "--duration", "-1", NULL },
                { "--medium", "9", NULL },   { "--medium", "3600001", NULL }, { "--slow", "99", NULL },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                r = jc_run("record", bad[i][0], bad[i][1], NULL);
                assert_int_equal(r.status, 2);
                jc_result_clear(&r);
        }
        /* A --time it does not know: a usage error, before any capture. */
        r = jc_run("record", "--time", "local", "--duration", "0.2", NULL);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "--time must be unix, iso or relative, not \"local\""));
        assert_string_equal(r.out, "");
        jc_result_clear(&r);
        r = jc_run("record", "--duration", "1", "--", "true", NULL);
        assert_int_equal(r.status, 2);
        jc_result_clear(&r);
        /* A glob jetsond cannot match is its InvalidArgs: exit 2, one line. */
        r = jc_run("record", "--keys", "no.such.key", "--duration", "0.2", NULL);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "no.such.key"));
        jc_result_clear(&r);
}

/* Sends SIG to jetsonctl PID (WHAT, for the failure) once PATH holds its
 * header and a row, and checks that it exited 0: a recording a signal
 * ends is whole. The rows take 0.6 s on an idle machine; jetsonctl's
 * start may take longer on a busy one. */
static void stop_after_rows(GPid pid, const char *path, int sig, const char *what)
{
        for (uint64_t end = testbus_now_us() + 30 * G_USEC_PER_SEC;;) {
                g_autofree char *text = NULL;
                if (g_file_get_contents(path, &text, NULL, NULL) && strchr(text, '\n') &&
                    strchr(strchr(text, '\n') + 1, '\n'))
                        break;
                if (testbus_now_us() > end)
                        fail_msg("%s wrote no row within 30 s", what);
                g_usleep(50000);
        }
        g_usleep(300000);
        kill(pid, sig);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
}

/* Ctrl-C ends a recording without a command cleanly: exit 0, whole rows. */
static void test_ctrl_c(void **state)
{
        testbus *tb = jc_start(state, "agx-orin-jp62", NULL);
        g_autofree char *path = tmp_path(tb, "interrupted.csv");
        char *argv[] = { (char *) JETSONCTL_PATH, (char *) "--address", (char *) tb->address, (char *) "record",
                         (char *) "-i", (char *) "5", (char *) "-k", (char *) "cpu.0.freq", (char *) "-o", path, NULL };
        GPid pid;
        g_autoptr(GError) error = NULL;
        if (!g_spawn_async(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &error))
                fail_msg("%s", error->message);
        stop_after_rows(pid, path, SIGINT, "jetsonctl record");
        check_file("csv", path, 5, 0.1, "cpu.0.freq", NULL);
}

/* The tree.* columns of a csv: each column's values, row by row (NAN: empty). */
typedef struct {
        GPtrArray *names;
        GArray *rows; /* of double[n], flattened */
        size_t n;
} csv_table;

static csv_table read_csv(const char *path)
{
        g_autofree char *text = NULL;
        if (!g_file_get_contents(path, &text, NULL, NULL))
                fail_msg("no %s", path);
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        csv_table t = { g_ptr_array_new_with_free_func(g_free), g_array_new(FALSE, FALSE, sizeof(double)), 0 };
        g_auto(GStrv) head = g_strsplit(lines[0], ",", -1);
        for (size_t i = 0; head[i]; i++)
                g_ptr_array_add(t.names, g_strdup(head[i]));
        t.n = t.names->len;
        for (size_t l = 1; lines[l] && *lines[l]; l++) {
                g_auto(GStrv) f = g_strsplit(lines[l], ",", -1);
                if (g_strv_length(f) != t.n)
                        fail_msg("row %zu has %u fields, the header %zu", l, g_strv_length(f), t.n);
                for (size_t i = 0; i < t.n; i++) {
                        double v = *f[i] ? g_ascii_strtod(f[i], NULL) : NAN;
                        g_array_append_val(t.rows, v);
                }
        }
        return t;
}

static size_t column(const csv_table *t, const char *name)
{
        for (size_t i = 0; i < t->n; i++)
                if (strcmp(g_ptr_array_index(t->names, i), name) == 0)
                        return i;
        fail_msg("no column %s", name);
        return 0;
}

/* The largest and the last non-empty value of a column (NAN: none). */
static double column_max(const csv_table *t, const char *name, double *last)
{
        size_t c = column(t, name), rows = t->rows->len / t->n;
        double max = NAN;
        *last = NAN;
        for (size_t r = 0; r < rows; r++) {
                double v = g_array_index(t->rows, double, r * t->n + c);
                if (isnan(v))
                        continue;
                *last = v;
                if (isnan(max) || v > max)
                        max = v;
        }
        return max;
}

/* A job that forks three children after 0.5 s, each of 32 MiB, 0.3 s of
 * CPU and 4 MiB written and synced: followed by PID from before its
 * children appear until it exits; tree.* sum the tree as the job says. */
static void test_follow_pid(void **state)
{
        testbus *tb = jc_start(state, "agx-orin-jp62", NULL);
        g_autofree char *path = tmp_path(tb, "tree.csv");
        jc_workload w = jc_workload_start(tb->dir, 3, 32, 0.3, 4);
        g_autofree char *pid = g_strdup_printf("%d", (int) w.pid);
        jc_result r = jc_run("record", "-i", "20", "-k", "cpu.0.freq", "--pid", pid, "-o", path, NULL);
        g_autoptr(JsonNode) did = jc_workload_end(&w);
        if (r.status != 0)
                fail_msg("record --pid: exit %d: %s", r.status, r.err);
        assert_string_equal(r.err, "");
        jc_result_clear(&r);
        check_file("csv", path, 20, 1.0, "cpu.0.freq,tree.*", NULL);
        csv_table t = read_csv(path);
        double last, last_sys;
        double procs = column_max(&t, "tree.processes", &last);
        double user = (column_max(&t, "tree.cpu_user_s", &last), last);
        column_max(&t, "tree.cpu_system_s", &last_sys);
        double rss = column_max(&t, "tree.rss_kib", &last);
        double pss = column_max(&t, "tree.pss_kib", &last);
        double written = (column_max(&t, "tree.write_bytes", &last), last);
        double cpu = user + last_sys;
        double want_cpu = json_node_get_double(jc_json_at(did, "cpu_s"));
        double held = json_node_get_double(jc_json_at(did, "mem_kib_held"));
        double want_written = json_node_get_double(jc_json_at(did, "write_bytes"));
        print_message("figure: record --pid: %.0f processes, CPU %.2f s (the job's %.2f s), peak RSS %.0f KiB, "
                      "PSS %.0f KiB (held %.0f), written %.0f B (the job's %.0f B)\n",
                      procs, cpu, want_cpu, rss, pss, held, written, want_written);
        /* The parent and its three children, which came after the start. */
        if (procs != 4)
                fail_msg("%.0f processes at most, want 4", procs);
        /* The children's CPU (reaped into the parent's), the parent's own
         * besides: at least theirs, not a whole second more. */
        if (cpu < want_cpu - 0.05 || cpu > want_cpu + 1.0)
                fail_msg("CPU %.3f s, the children used %.3f s", cpu, want_cpu);
        if (rss < 0.95 * held || pss < 0.9 * held)
                fail_msg("peak RSS %.0f KiB, PSS %.0f KiB: the children held %.0f KiB at once", rss, pss, held);
        if (written < want_written || written > want_written + (1 << 20))
                fail_msg("%.0f bytes written, the children wrote %.0f", written, want_written);
        /* Followed until it exited: the last rows after its children's end
         * have the parent alone. */
        column_max(&t, "tree.processes", &last);
        if (last != 1)
                fail_msg("the last row has %.0f processes, want the parent alone", last);
        g_ptr_array_unref(t.names);
        g_array_unref(t.rows);
}

/* SIGTERM ends the following of a process that goes on: exit 0, whole
 * rows with the tree's columns, and the process untouched. */
static void test_follow_pid_sigterm(void **state)
{
        testbus *tb = jc_start(state, "agx-orin-jp62", NULL);
        g_autofree char *path = tmp_path(tb, "followed.csv");
        GPid sleeper = jc_spawn_sleep("60"), pid;
        g_autoptr(GError) error = NULL;
        g_autofree char *followed = g_strdup_printf("%d", (int) sleeper);
        char *argv[] = { (char *) JETSONCTL_PATH, (char *) "--address", (char *) tb->address, (char *) "record",
                         (char *) "-i", (char *) "5", (char *) "-k", (char *) "cpu.0.freq", (char *) "--pid", followed,
                         (char *) "-o", path, NULL };
        if (!g_spawn_async(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &error))
                fail_msg("%s", error->message);
        stop_after_rows(pid, path, SIGTERM, "jetsonctl record --pid");
        int status;
        assert_int_equal(kill(sleeper, 0), 0);
        assert_int_equal(waitpid(sleeper, &status, WNOHANG), 0);
        kill(sleeper, SIGKILL);
        waitpid(sleeper, NULL, 0);
        check_file("csv", path, 5, 0.1, "cpu.0.freq,tree.*", NULL);
        csv_table t = read_csv(path);
        double last;
        assert_true(column_max(&t, "tree.processes", &last) == 1 && last == 1);
        g_ptr_array_unref(t.names);
        g_array_unref(t.rows);
}

/* PID 1's tree for half a second (--pid with --duration): where the test
 * itself may not read /proc/1/io and smaps_rollup (another user's, or
 * capabilities this sandbox lacks), tree.*_bytes and tree.pss_kib are
 * empty, not 0, and the CPU time (from the world-readable stat) is there. */
static void test_follow_hidden(void **state)
{
        testbus *tb = jc_start(state, "agx-orin-jp62", NULL);
        g_autofree char *path = tmp_path(tb, "init.csv");
        jc_result r = jc_run("record", "-i", "50", "-k", "cpu.0.freq", "--pid", "1", "-d", "0.5", "-o", path, NULL);
        if (r.status != 0)
                fail_msg("record --pid 1: exit %d: %s", r.status, r.err);
        jc_result_clear(&r);
        csv_table t = read_csv(path);
        double last;
        if (isnan(column_max(&t, "tree.cpu_user_s", &last)) || column_max(&t, "tree.processes", &last) < 1)
                fail_msg("no CPU time or processes for PID 1's tree");
        g_autofree char *io = NULL, *rollup = NULL;
        bool io_hidden = !g_file_get_contents("/proc/1/io", &io, NULL, NULL) || !*io;
        bool pss_hidden = !g_file_get_contents("/proc/1/smaps_rollup", &rollup, NULL, NULL) || !*rollup;
        print_message("figure: /proc/1/io %s, smaps_rollup %s to the test\n", io_hidden ? "hidden" : "readable",
                      pss_hidden ? "hidden" : "readable");
        if (io_hidden && (!isnan(column_max(&t, "tree.read_bytes", &last)) ||
                          !isnan(column_max(&t, "tree.write_bytes", &last))))
                fail_msg("PID 1 hides its I/O, yet tree.read_bytes or tree.write_bytes has a value");
        if (pss_hidden && !isnan(column_max(&t, "tree.pss_kib", &last)))
                fail_msg("PID 1 hides its smaps_rollup, yet tree.pss_kib has a value");
        g_ptr_array_unref(t.names);
        g_array_unref(t.rows);
}

/* --pid's bad input: exit 2 for what is no PID or beside a command, 1 for
 * a process that is not there or has exited. */
static void test_pid_errors(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        static const char *const not_pids[] = { "abc", "0", "-5", "12x", "" };
        for (size_t i = 0; i < G_N_ELEMENTS(not_pids); i++) {
                jc_result r = jc_run("record", "-o", "/dev/null", "--pid", not_pids[i], NULL);
                assert_int_equal(r.status, 2);
                g_autofree char *want = g_strdup_printf("--pid must be a process ID (a positive number), not \"%s\"",
                                                        not_pids[i]);
                if (!strstr(r.err, want))
                        fail_msg("--pid %s: %s", not_pids[i], r.err);
                jc_result_clear(&r);
        }
        g_autofree char *me = g_strdup_printf("%d", (int) getpid());
        jc_result r = jc_run("record", "-o", "/dev/null", "--pid", me, "--", "true", NULL);
        assert_int_equal(r.status, 2);
        assert_non_null(strstr(r.err, "give either --pid or a command, not both"));
        jc_result_clear(&r);
        /* An exited child not reaped yet (a zombie), and then no process. */
        jc_result gone[2];
        jc_run_pid_gone((const char *const[]) { "record", "-o", "/dev/null", NULL }, gone);
        jc_result_clear(&gone[0]);
        jc_result_clear(&gone[1]);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_formats, testbus_teardown),
                cmocka_unit_test_teardown(test_tier_rates, testbus_teardown),
                cmocka_unit_test_teardown(test_marks, testbus_teardown),
                cmocka_unit_test_teardown(test_exit_status, testbus_teardown),
                cmocka_unit_test_teardown(test_errors, testbus_teardown),
                cmocka_unit_test_teardown(test_ctrl_c, testbus_teardown),
                cmocka_unit_test_teardown(test_follow_pid, testbus_teardown),
                cmocka_unit_test_teardown(test_follow_pid_sigterm, testbus_teardown),
                cmocka_unit_test_teardown(test_follow_hidden, testbus_teardown),
                cmocka_unit_test_teardown(test_pid_errors, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
