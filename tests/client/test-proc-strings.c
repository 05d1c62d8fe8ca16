/* What jetsonctl reads of a process with the caller's rights
 * (client/common/proc_strings.c): top's environment screen's NAME=VALUE
 * strings from a proc directory, control bytes shown as '?', a process
 * that has gone, another user's process (not permitted), and a real
 * child's environment through /proc; the whole command lines of the
 * process lists, a PID reused since jetsond named it, a kernel thread,
 * and a sample's processes. */
#include <errno.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/proc_strings.h"

static void test_parse(void **state)
{
        (void) state;
        g_autofree char *dir = g_dir_make_tmp("jetsonctl-environ.XXXXXX", NULL);
        g_autofree char *pid_dir = g_build_filename(dir, "123", NULL);
        g_autofree char *file = g_build_filename(pid_dir, "environ", NULL);
        assert_int_equal(g_mkdir(pid_dir, 0755), 0);
        static const char text[] = "A=1\0B=x\ty\0\0C=\0";
        assert_true(g_file_set_contents(file, text, sizeof(text) - 1, NULL));
        int err = -1;
        g_autoptr(GPtrArray) vars = jc_proc_read_strings(dir, 123, "environ", &err);
        assert_non_null(vars);
        assert_int_equal(err, 0);
        assert_int_equal(vars->len, 3);
        assert_string_equal(g_ptr_array_index(vars, 0), "A=1");
        assert_string_equal(g_ptr_array_index(vars, 1), "B=x?y");
        assert_string_equal(g_ptr_array_index(vars, 2), "C=");
        /* Gone. */
        assert_null(jc_proc_read_strings(dir, 124, "environ", &err));
        assert_int_equal(err, ENOENT);
        /* Unreadable: not permitted (root reads it anyway: then nothing to refuse). */
        assert_int_equal(g_chmod(file, 0), 0);
        g_autoptr(GPtrArray) denied = jc_proc_read_strings(dir, 123, "environ", &err);
        if (geteuid() != 0) {
                assert_null(denied);
                assert_int_equal(err, EACCES);
        }
        g_unlink(file);
        g_rmdir(pid_dir);
        g_rmdir(dir);
}

/* A child started with exactly FOO=bar: its environ through /proc. */
static void test_child(void **state)
{
        (void) state;
        char *argv[] = { "/bin/sleep", "30", NULL }, *envp[] = { "FOO=bar", "EMPTY=", NULL };
        GPid child;
        assert_true(g_spawn_async(NULL, argv, envp, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &child, NULL));
        int err = -1;
        GPtrArray *vars = NULL;
        /* Until exec has replaced the forked copy's environment. */
        for (int tries = 0; tries < 3000; tries++) {
                vars = jc_proc_read_strings("/proc", (unsigned) child, "environ", &err);
                if (vars && vars->len == 2)
                        break;
                g_clear_pointer(&vars, g_ptr_array_unref);
                g_usleep(1000);
        }
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        assert_non_null(vars);
        assert_string_equal(g_ptr_array_index(vars, 0), "FOO=bar");
        assert_string_equal(g_ptr_array_index(vars, 1), "EMPTY=");
        g_ptr_array_unref(vars);
}

/* PID 1 is root's: for anyone else, not permitted. Run as root (as in
 * the test VMs), a child turned into nobody asks. */
static int read_pid1_as_caller(void)
{
        int err = 0;
        GPtrArray *vars = jc_proc_read_strings("/proc", 1, "environ", &err);
        if (vars)
                g_ptr_array_unref(vars);
        return !vars && (err == EACCES || err == EPERM) ? 0 : 1;
}

static void test_other_user(void **state)
{
        (void) state;
        if (geteuid() != 0) {
                assert_int_equal(read_pid1_as_caller(), 0);
                return;
        }
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
                if (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
                    setresuid(65534, 65534, 65534) != 0)
                        _exit(2);
                _exit(read_pid1_as_caller());
        }
        int status = 0;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
}

/* A fake proc directory's process PID: its comm and cmdline (LEN bytes,
 * NULs included). */
static void fake_process(const char *dir, unsigned pid, const char *comm, const char *cmdline, size_t len)
{
        g_autofree char *pid_dir = g_strdup_printf("%s/%u", dir, pid);
        g_autofree char *comm_file = g_build_filename(pid_dir, "comm", NULL);
        g_autofree char *cmdline_file = g_build_filename(pid_dir, "cmdline", NULL);
        g_autofree char *comm_text = g_strdup_printf("%s\n", comm);
        assert_int_equal(g_mkdir_with_parents(pid_dir, 0755), 0);
        assert_true(g_file_set_contents(comm_file, comm_text, -1, NULL));
        assert_true(g_file_set_contents(cmdline_file, cmdline, (gssize) len, NULL));
}

static void test_command_line(void **state)
{
        (void) state;
        g_autofree char *dir = g_dir_make_tmp("jetsonctl-cmdline.XXXXXX", NULL);
        static const char train[] = "/usr/bin/python3\0train.py\0--epochs\0""10\0";
        fake_process(dir, 10, "python3", train, sizeof(train) - 1);
        g_autofree char *line = jc_proc_command_line(dir, 10, "python3", -1);
        assert_string_equal(line, "/usr/bin/python3 train.py --epochs 10");
        /* No name to check against: read as it is. */
        g_autofree char *unchecked = jc_proc_command_line(dir, 10, NULL, -1);
        assert_string_equal(unchecked, line);
        /* The PID is another process now: nothing rather than its line. */
        assert_null(jc_proc_command_line(dir, 10, "bash", -1));
        /* comm is cut at 15 bytes; jetsond's name is that comm. */
        static const char long_name[] = "./a-very-long-program-name\0-x\0";
        fake_process(dir, 11, "a-very-long-pro", long_name, sizeof(long_name) - 1);
        g_autofree char *cut = jc_proc_command_line(dir, 11, "a-very-long-pro", -1);
        assert_string_equal(cut, "./a-very-long-program-name -x");
        /* A kernel thread's (and a zombie's) is empty: the name is shown. */
        fake_process(dir, 12, "kworker/0:1", "", 0);
        assert_null(jc_proc_command_line(dir, 12, "kworker/0:1", -1));
        /* A line rewritten by the process (setproctitle) with control
         * bytes and no NUL between words. */
        static const char title[] = "postgres: writer\tprocess\0\0\0";
        fake_process(dir, 13, "postgres", title, sizeof(title) - 1);
        g_autofree char *titled = jc_proc_command_line(dir, 13, "postgres", -1);
        assert_string_equal(titled, "postgres: writer?process");
        /* Gone (or hidden by hidepid: no directory at all). */
        assert_null(jc_proc_command_line(dir, 99, "python3", -1));

        /* The start time jetsond gave: btime plus field 22 in clock ticks. */
        g_autofree char *stat_file = g_build_filename(dir, "stat", NULL);
        g_autofree char *pid_stat = g_build_filename(dir, "10", "stat", NULL);
        assert_true(g_file_set_contents(stat_file, "cpu  1 2 3 4\nbtime 1700000000\nprocesses 9\n", -1, NULL));
        long hz = sysconf(_SC_CLK_TCK);
        g_autofree char *stat = g_strdup_printf("10 (python3) S 1 10 10 0 -1 4194304 1 0 0 0 0 0 0 0 20 0 1 0 %ld "
                                                "1000 100 18446744073709551615\n", 250 * hz);
        assert_true(g_file_set_contents(pid_stat, stat, -1, NULL));
        g_autofree char *same_start = jc_proc_command_line(dir, 10, "python3", 1700000250.0);
        assert_string_equal(same_start, "/usr/bin/python3 train.py --epochs 10");
        /* Started 2 s later: another process under the same PID and name. */
        assert_null(jc_proc_command_line(dir, 10, "python3", 1700000252.0));
        /* A process whose stat cannot be read cannot be told the same. */
        assert_null(jc_proc_command_line(dir, 11, "a-very-long-pro", 1700000250.0));

        /* A sample's processes: each read once, by its name key. */
        jc_sample s = { .values = g_variant_ref_sink(g_variant_new_parsed(
                                "{'process.10.name': <'python3'>, 'process.10.gpu_mem': <uint64 1024>,"
                                " 'process.10.start_time': <1700000250.0>, 'process.11.name': <'a-very-long-pro'>,"
                                " 'process.11.start_time': <1.0>,"
                                " 'process.12.name': <'kworker/0:1'>, 'process.99.name': <'gone'>,"
                                " 'process.13.user': <'postgres'>, 'gpu.load': <12.5>}")) };
        jc_sample_read_commands(&s, dir, NULL);
        assert_string_equal(jc_sample_command(&s, 10), "/usr/bin/python3 train.py --epochs 10");
        assert_null(jc_sample_command(&s, 12));
        assert_null(jc_sample_command(&s, 99));
        /* Only processes jetsond names are read. */
        assert_null(jc_sample_command(&s, 13));
        assert_int_equal(g_hash_table_size(s.commands), 1);

        /* The next sample: the same process (name, start time) keeps the
         * line read before, /proc not read again (its line changed here,
         * unseen); one that started since is read anew. */
        static const char changed[] = "/usr/bin/python3\0eval.py\0";
        fake_process(dir, 10, "python3", changed, sizeof(changed) - 1);
        jc_sample next = { .values = g_variant_ref(s.values) };
        jc_sample_read_commands(&next, dir, &s);
        assert_string_equal(jc_sample_command(&next, 10), "/usr/bin/python3 train.py --epochs 10");
        g_autofree char *later_stat = g_strdup_printf("10 (python3) S 1 10 10 0 -1 4194304 1 0 0 0 0 0 0 0 20 0 1 0 "
                                                      "%ld 1000 100 18446744073709551615\n", 260 * hz);
        assert_true(g_file_set_contents(pid_stat, later_stat, -1, NULL));
        jc_sample started = { .values = g_variant_ref_sink(g_variant_new_parsed(
                                      "{'process.10.name': <'python3'>, 'process.10.start_time': <1700000260.0>}")) };
        jc_sample_read_commands(&started, dir, &s);
        assert_string_equal(jc_sample_command(&started, 10), "/usr/bin/python3 eval.py");
        g_variant_unref(started.values);
        g_hash_table_unref(started.commands);
        g_variant_unref(next.values);
        g_hash_table_unref(next.commands);
        g_variant_unref(s.values);
        g_hash_table_unref(s.commands);
        g_autofree char *rm = g_strdup_printf("rm -rf '%s'", dir);
        assert_int_equal(system(rm), 0);
}

/* A real child: its own command line through /proc, as ps shows it. */
static void test_child_command_line(void **state)
{
        (void) state;
        char *argv[] = { "/bin/sleep", "30", NULL };
        GPid child;
        assert_true(g_spawn_async(NULL, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &child, NULL));
        char *line = NULL;
        for (int tries = 0; tries < 3000 && !line; tries++) {
                line = jc_proc_command_line("/proc", (unsigned) child, "sleep", -1);
                if (!line)
                        g_usleep(1000);
        }
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        assert_non_null(line);
        assert_string_equal(line, "/bin/sleep 30");
        g_free(line);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_child),
                cmocka_unit_test(test_other_user),
                cmocka_unit_test(test_command_line),
                cmocka_unit_test(test_child_command_line),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
