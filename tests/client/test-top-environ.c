/* jetsonctl top's environment screen's reader (client/top/top_environ.c):
 * NAME=VALUE strings from a proc directory, control bytes shown as '?', a
 * process that has gone, another user's process (not permitted), and a
 * real child's environment through /proc. */
#include <errno.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "top/top_environ.h"

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
        g_autoptr(GPtrArray) vars = jc_top_read_environ(dir, 123, &err);
        assert_non_null(vars);
        assert_int_equal(err, 0);
        assert_int_equal(vars->len, 3);
        assert_string_equal(g_ptr_array_index(vars, 0), "A=1");
        assert_string_equal(g_ptr_array_index(vars, 1), "B=x?y");
        assert_string_equal(g_ptr_array_index(vars, 2), "C=");
        /* Gone. */
        assert_null(jc_top_read_environ(dir, 124, &err));
        assert_int_equal(err, ENOENT);
        /* Unreadable: not permitted (root reads it anyway: then nothing to refuse). */
        assert_int_equal(g_chmod(file, 0), 0);
        g_autoptr(GPtrArray) denied = jc_top_read_environ(dir, 123, &err);
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
                vars = jc_top_read_environ("/proc", (unsigned) child, &err);
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
        GPtrArray *vars = jc_top_read_environ("/proc", 1, &err);
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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_child),
                cmocka_unit_test(test_other_user),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
