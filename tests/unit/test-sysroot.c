/* Path resolution under a sysroot: symlinks are followed inside it, and
 * anything that would leave it is absent. Built in a scratch tree. */
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "sysfile.h"

typedef struct {
        char *top;   /* contains root/ and outside/ */
        char *root;
        jd_sysroot *sr;
} scratch;

static void put(const char *root, const char *path, const char *content)
{
        g_autofree char *full = g_build_filename(root, path, NULL);
        g_autofree char *dir = g_path_get_dirname(full);
        assert_int_equal(g_mkdir_with_parents(dir, 0755), 0);
        assert_true(g_file_set_contents(full, content, -1, NULL));
}

static void link_(const char *root, const char *path, const char *target)
{
        g_autofree char *full = g_build_filename(root, path, NULL);
        g_autofree char *dir = g_path_get_dirname(full);
        assert_int_equal(g_mkdir_with_parents(dir, 0755), 0);
        assert_int_equal(symlink(target, full), 0);
}

static int setup(void **state)
{
        scratch *s = g_new0(scratch, 1);
        s->top = g_dir_make_tmp("jetsond-sysroot-XXXXXX", NULL);
        s->root = g_build_filename(s->top, "root", NULL);
        put(s->root, "sys/devices/platform/fan/hwmon/hwmon3/name", "pwmfan\n");
        put(s->root, "sys/devices/platform/fan/hwmon/hwmon3/pwm1", "128\n");
        link_(s->root, "sys/class/hwmon/hwmon3", "../../devices/platform/fan/hwmon/hwmon3");
        put(s->root, "sys/firmware/devicetree/base/model", "Board\n");
        /* Absolute targets are relative to the sysroot, as in a chroot. */
        link_(s->root, "proc/device-tree", "/sys/firmware/devicetree/base");
        /* Escapes: relative climbing out, and a chain that ends outside. */
        put(s->top, "outside/secret", "42\n");
        link_(s->root, "sys/class/hwmon/hwmon9", "../../../../outside");
        link_(s->root, "etc/escape", "../../outside/secret");
        link_(s->root, "etc/hop", "/etc/escape");
        link_(s->root, "etc/loop1", "loop2");
        link_(s->root, "etc/loop2", "loop1");
        put(s->root, "usr/sbin/nvpmodel", "#!/bin/sh\n");
        g_autofree char *tool = g_build_filename(s->root, "usr/sbin/nvpmodel", NULL);
        assert_int_equal(chmod(tool, 0755), 0);
        put(s->root, "usr/bin/notexec", "x");
        const char *why;
        s->sr = jd_sysroot_new(s->root, &why);
        assert_non_null(s->sr);
        *state = s;
        return 0;
}

static int teardown(void **state)
{
        scratch *s = *state;
        jd_sysroot_free(s->sr);
        const char *argv[] = { "rm", "-rf", s->top, NULL };
        g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
        g_free(s->root);
        g_free(s->top);
        g_free(s);
        return 0;
}

static void test_relative_links(void **state)
{
        scratch *s = *state;
        char out[PATH_MAX];
        assert_int_equal(jd_sysroot_resolve(s->sr, "/sys/class/hwmon/hwmon3/pwm1", out, sizeof(out)), 0);
        assert_string_equal(out, "/sys/devices/platform/fan/hwmon/hwmon3/pwm1");
        uint64_t v;
        assert_true(jd_read_u64(s->sr, &v, "/sys/class/hwmon/hwmon3/pwm1"));
        assert_int_equal(v, 128);
        /* ".." after a link walks up from the link's target. */
        assert_int_equal(jd_sysroot_resolve(s->sr, "/sys/class/hwmon/hwmon3/../hwmon3/name", out, sizeof(out)), 0);
        assert_string_equal(out, "/sys/devices/platform/fan/hwmon/hwmon3/name");
}

/* Paths to create: the existing part resolved (links followed inside the
 * sysroot), the rest appended; a dangling link on the way is refused. */
static void test_host_path_to_create(void **state)
{
        scratch *s = *state;
        char out[PATH_MAX];
        assert_int_equal(jd_sysroot_host_path_to_create(s->sr, "/proc/device-tree/new/file", out, sizeof(out)), 0);
        g_autofree char *want = g_build_filename(s->root, "sys/firmware/devicetree/base/new/file", NULL);
        assert_string_equal(out, want);
        assert_int_equal(jd_sysroot_host_path_to_create(s->sr, "/var/lib/jetsond/swap/swapfile", out, sizeof(out)), 0);
        g_autofree char *want2 = g_build_filename(s->root, "var/lib/jetsond/swap/swapfile", NULL);
        assert_string_equal(out, want2);
        /* Existing paths come back as jd_sysroot_host_path gives them. */
        assert_int_equal(jd_sysroot_host_path_to_create(s->sr, "/sys/class/hwmon/hwmon3/pwm1", out, sizeof(out)), 0);
        g_autofree char *want3 = g_build_filename(s->root, "sys/devices/platform/fan/hwmon/hwmon3/pwm1", NULL);
        assert_string_equal(out, want3);
        link_(s->root, "var/dangling", "/nowhere/at/all");
        assert_int_equal(jd_sysroot_host_path_to_create(s->sr, "/var/dangling/file", out, sizeof(out)), -ENOENT);
        assert_int_equal(jd_sysroot_host_path_to_create(s->sr, "/etc/hop/file", out, sizeof(out)), -EXDEV);
}

static void test_absolute_link_stays_inside(void **state)
{
        scratch *s = *state;
        char out[PATH_MAX];
        assert_int_equal(jd_sysroot_resolve(s->sr, "/proc/device-tree/model", out, sizeof(out)), 0);
        assert_string_equal(out, "/sys/firmware/devicetree/base/model");
        char model[32];
        assert_true(jd_read_str(s->sr, model, sizeof(model), "/proc/device-tree/model"));
        assert_string_equal(model, "Board");
}

static void test_escape_is_absent(void **state)
{
        scratch *s = *state;
        char out[PATH_MAX];
        uint64_t v = 0;
        assert_int_equal(jd_sysroot_resolve(s->sr, "/sys/class/hwmon/hwmon9/secret", out, sizeof(out)), -EXDEV);
        assert_false(jd_read_u64(s->sr, &v, "/sys/class/hwmon/hwmon9/secret"));
        assert_int_equal(jd_sysroot_resolve(s->sr, "/etc/escape", out, sizeof(out)), -EXDEV);
        assert_int_equal(jd_sysroot_resolve(s->sr, "/etc/hop", out, sizeof(out)), -EXDEV);
        assert_int_equal(jd_sysroot_resolve(s->sr, "/../outside/secret", out, sizeof(out)), -EXDEV);
        assert_false(jd_read_u64(s->sr, &v, "/etc/hop"));
        assert_false(jd_sysroot_exists(s->sr, "/etc/escape"));
        assert_int_equal(v, 0);
        /* Listing a class dir still works; the escaping entry just has nothing behind it. */
        char **names;
        size_t n = jd_sysroot_list(s->sr, "/sys/class/hwmon/hwmon9", &names);
        assert_int_equal(n, 0);
}

static void test_loops_and_missing(void **state)
{
        scratch *s = *state;
        char out[PATH_MAX];
        assert_int_equal(jd_sysroot_resolve(s->sr, "/etc/loop1", out, sizeof(out)), -ELOOP);
        assert_int_equal(jd_sysroot_resolve(s->sr, "/nope/file", out, sizeof(out)), -ENOENT);
        assert_int_equal(jd_sysroot_resolve(s->sr, "/sys/firmware/devicetree/base/model/x", out, sizeof(out)),
                         -ENOTDIR);
        assert_int_equal(jd_sysroot_open(s->sr, "relative/path", 0), -EINVAL);
}

static void test_list_sorted_naturally(void **state)
{
        scratch *s = *state;
        put(s->root, "sys/devices/system/cpu/cpu10/x", "");
        put(s->root, "sys/devices/system/cpu/cpu2/x", "");
        put(s->root, "sys/devices/system/cpu/cpu1/x", "");
        char **names;
        size_t n = jd_sysroot_list(s->sr, "/sys/devices/system/cpu", &names);
        assert_int_equal(n, 3);
        assert_string_equal(names[0], "cpu1");
        assert_string_equal(names[1], "cpu2");
        assert_string_equal(names[2], "cpu10");
        jd_names_free(names, n);
}

/* jetsond --capture's hook: every path asked for, as asked, and every
 * listing apart; nothing once the recorder is gone. */
static void record_into(const char *path, bool listed, void *data)
{
        g_string_append_printf(data, "%s %s\n", listed ? "list" : "path", path);
}

static void test_recorder(void **state)
{
        scratch *s = *state;
        g_autoptr(GString) seen = g_string_new(NULL);
        jd_sysroot_set_recorder(s->sr, record_into, seen);
        g_free(jd_sysroot_read_file(s->sr, "/proc/device-tree/model", 64, NULL));
        assert_false(jd_sysroot_exists(s->sr, "/etc/loop1"));
        char **names;
        size_t n = jd_sysroot_list(s->sr, "/sys/class/hwmon", &names);
        jd_names_free(names, n);
        jd_sysroot_set_recorder(s->sr, NULL, NULL);
        assert_true(jd_sysroot_exists(s->sr, "/sys/class/hwmon/hwmon3/name"));
        assert_string_equal(seen->str, "path /proc/device-tree/model\n"
                                       "path /etc/loop1\n"
                                       "list /sys/class/hwmon\n"
                                       "path /sys/class/hwmon\n");
}

static void test_find_tool(void **state)
{
        scratch *s = *state;
        char path[PATH_MAX];
        assert_int_equal(jd_sysroot_find_tool(s->sr, "nvpmodel", path, sizeof(path)), 0);
        g_autofree char *expected = g_build_filename(s->root, "usr/sbin/nvpmodel", NULL);
        char *real = realpath(expected, NULL);
        assert_string_equal(path, real);
        free(real);
        assert_int_equal(jd_sysroot_find_tool(s->sr, "notexec", path, sizeof(path)), -ENOENT);
        assert_int_equal(jd_sysroot_find_tool(s->sr, "swapon", path, sizeof(path)), -ENOENT);
        assert_int_equal(jd_sysroot_find_tool(s->sr, "../bin/sh", path, sizeof(path)), -EINVAL);
}

/* A sensor file that is a FIFO (or a device) must not block open(2) or
 * read(2) in a tier thread: it is refused at once, and a directory too.
 * alarm() turns a hang into a failure instead of a test timeout. */
static void test_odd_files_refused(void **state)
{
        scratch *s = *state;
        g_autofree char *fifo = g_build_filename(s->root, "sys/class/hwmon/hwmon3/curr1_input", NULL);
        assert_int_equal(mkfifo(fifo, 0644), 0);
        alarm(5);
        assert_int_equal(jd_sysroot_open(s->sr, "/sys/class/hwmon/hwmon3/curr1_input", O_RDONLY), -EINVAL);
        uint64_t v;
        assert_false(jd_read_u64(s->sr, &v, "/sys/class/hwmon/hwmon3/curr1_input"));
        assert_int_equal(jd_sysroot_open(s->sr, "/sys/class/hwmon/hwmon3", O_RDONLY), -EISDIR);
        alarm(0);
        /* A regular file opens blocking, as before. */
        int fd = jd_sysroot_open(s->sr, "/sys/class/hwmon/hwmon3/pwm1", O_RDONLY);
        assert_true(fd >= 0);
        assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
        close(fd);
}

/* What the sandbox refuses is said once per path, whoever asks and however
 * often; other failures are not. Root without CAP_DAC_OVERRIDE meets a
 * mode-000 file and directory as it would under the unit. */
static void count_complaint(const char *path, const char *why, void *data)
{
        GString *told = data;
        g_string_append_printf(told, "%s%s\n", path, why);
}

static void test_sandbox_refusals(void **state)
{
        scratch *s = *state;
        assert_string_equal(jd_sysroot_strerror(EROFS),
                            "not accessible under this service's sandbox (Read-only file system); see jetsond.service");
        assert_string_equal(jd_sysroot_strerror(ENOENT), g_strerror(ENOENT));
        assert_true(jd_sysroot_sandbox_errno(EROFS));
        assert_false(jd_sysroot_sandbox_errno(ENOENT));
        if (geteuid() != 0)
                skip();
        assert_true(jd_sysroot_sandbox_errno(EACCES));
        g_autoptr(GString) told = g_string_new("");
        jd_sysroot_set_complaints(s->sr, count_complaint, told);
        put(s->root, "sys/hidden/temp", "42000\n");
        g_autofree char *dir = g_build_filename(s->root, "sys/hidden", NULL);
        g_autofree char *file = g_build_filename(dir, "temp", NULL);
        assert_int_equal(chmod(file, 0), 0);
        fixture_dac_capabilities(false);
        uint64_t v = 0;
        bool read1 = jd_read_u64(s->sr, &v, "/sys/hidden/temp");
        bool read2 = jd_read_u64(s->sr, &v, "/sys/hidden/temp");
        int w = jd_sysroot_open(s->sr, "/sys/hidden/temp", O_WRONLY);
        int missing = jd_sysroot_open(s->sr, "/sys/hidden/nothing", O_RDONLY);
        int mode = chmod(dir, 0);
        char **names = NULL;
        size_t n = jd_sysroot_list(s->sr, "/sys/hidden", &names);
        size_t n2 = jd_sysroot_list(s->sr, "/sys/hidden", &names);
        int through = jd_sysroot_open(s->sr, "/sys/hidden/temp", O_RDONLY);
        fixture_dac_capabilities(true);
        assert_int_equal(mode, 0);
        assert_false(read1 || read2);
        assert_int_equal(w, -EACCES);
        assert_int_equal(missing, -ENOENT);
        assert_int_equal(n + n2, 0);
        assert_int_equal(through, -EACCES);
        /* The file once (reads, the write and the open through the closed
         * directory are the same path), the directory's listing once,
         * nothing for the missing file. */
        assert_string_equal(told->str,
                            "/sys/hidden/temp: not accessible under this service's sandbox (Permission denied); "
                            "see jetsond.service\n"
                            "/sys/hidden: not accessible under this service's sandbox (Permission denied); "
                            "see jetsond.service\n");
        jd_sysroot_set_complaints(s->sr, NULL, NULL);
        assert_int_equal(chmod(dir, 0755), 0);
}

static void test_bad_sysroots(void **state)
{
        (void) state;
        const char *why = NULL;
        assert_null(jd_sysroot_new("/nonexistent/jetsond", &why));
        assert_non_null(why);
        why = NULL;
        assert_null(jd_sysroot_new("/etc/passwd", &why));
        assert_non_null(why);
        jd_sysroot *host = jd_sysroot_new("/", &why);
        assert_non_null(host);
        assert_true(jd_sysroot_is_host(host));
        jd_sysroot_free(host);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_relative_links, setup, teardown),
                cmocka_unit_test_setup_teardown(test_absolute_link_stays_inside, setup, teardown),
                cmocka_unit_test_setup_teardown(test_host_path_to_create, setup, teardown),
                cmocka_unit_test_setup_teardown(test_escape_is_absent, setup, teardown),
                cmocka_unit_test_setup_teardown(test_loops_and_missing, setup, teardown),
                cmocka_unit_test_setup_teardown(test_list_sorted_naturally, setup, teardown),
                cmocka_unit_test_setup_teardown(test_find_tool, setup, teardown),
                cmocka_unit_test_setup_teardown(test_recorder, setup, teardown),
                cmocka_unit_test_setup_teardown(test_odd_files_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_sandbox_refusals, setup, teardown),
                cmocka_unit_test(test_bad_sysroots),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
