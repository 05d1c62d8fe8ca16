/* Atomic replacement of in-root files (through the sysroot's symlinks) and
 * whole-file text reads, on private copies of a fixture board. */
#include <errno.h>
#include <glib.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "fixture.h"

#define NVPMODEL_TARGET "etc/nvpmodel/nvpmodel_p3701_0005.conf"

static char *host(const char *dir, const char *relpath)
{
        return g_build_filename(dir, relpath, NULL);
}

static char *slurp(const char *dir, const char *relpath)
{
        g_autofree char *path = host(dir, relpath);
        char *text = NULL;
        if (!g_file_get_contents(path, &text, NULL, NULL))
                fail_msg("cannot read %s", path);
        return text;
}

/* Names in the copy's directory RELDIR that start with '.': a temporary
 * file left behind. */
static size_t hidden_files(const char *dir, const char *reldir)
{
        g_autofree char *path = host(dir, reldir);
        GDir *d = g_dir_open(path, 0, NULL);
        assert_non_null(d);
        size_t n = 0;
        for (const char *name; (name = g_dir_read_name(d));)
                n += name[0] == '.';
        g_dir_close(d);
        return n;
}

static void test_write_through_symlink(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        g_autofree char *link = host(dir, "etc/nvpmodel.conf");
        g_autofree char *target = host(dir, NVPMODEL_TARGET);
        /* An unusual mode and owner, to see them kept rather than defaulted. */
        assert_int_equal(chmod(target, 0604), 0);
        bool root = geteuid() == 0;
        if (root)
                assert_int_equal(chown(target, 1234, 5678), 0);
        struct stat before;
        assert_int_equal(stat(target, &before), 0);

        const char text[] = "< PM_CONFIG DEFAULT=1 >\n";
        assert_int_equal(jd_atomic_write(sr, "/etc/nvpmodel.conf", text, strlen(text), 0600), 0);

        struct stat lst, st;
        assert_int_equal(lstat(link, &lst), 0);
        assert_true(S_ISLNK(lst.st_mode));
        g_autofree char *points_to = g_file_read_link(link, NULL);
        assert_string_equal(points_to, "/etc/nvpmodel/nvpmodel_p3701_0005.conf");
        assert_int_equal(stat(target, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0604);
        assert_true(st.st_ino != before.st_ino); /* replaced, not rewritten in place */
        if (root) {
                assert_int_equal(st.st_uid, 1234);
                assert_int_equal(st.st_gid, 5678);
        }
        g_autofree char *got = slurp(dir, NVPMODEL_TARGET);
        assert_string_equal(got, text);
        assert_int_equal(hidden_files(dir, "etc/nvpmodel"), 0);
        assert_int_equal(hidden_files(dir, "etc"), 0);

        /* Read back through the link as the daemon would. */
        char *read = NULL;
        assert_int_equal(jd_read_text(sr, "/etc/nvpmodel.conf", 1024, &read), 0);
        assert_string_equal(read, text);
        g_free(read);

        /* An empty file is a valid content too. */
        assert_int_equal(jd_atomic_write(sr, "/etc/nvpmodel.conf", "", 0, 0600), 0);
        g_autofree char *empty = slurp(dir, NVPMODEL_TARGET);
        assert_string_equal(empty, "");
        fixture_remove_copy(sr, dir);
}

static void test_write_new_file(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        /* The daemon runs with a restrictive UMask: the mode must not depend on it. */
        mode_t old_umask = umask(0777);
        int r = jd_atomic_write(sr, "/etc/jetsond-test.conf", "a\nb", 3, 0640);
        umask(old_umask);
        assert_int_equal(r, 0);
        g_autofree char *path = host(dir, "etc/jetsond-test.conf");
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0640);
        g_autofree char *got = slurp(dir, "etc/jetsond-test.conf");
        assert_string_equal(got, "a\nb");
        assert_int_equal(hidden_files(dir, "etc"), 0);

        /* Through a directory symlink with an absolute target: /lnk -> /etc. */
        g_autofree char *lnk = host(dir, "lnk");
        assert_int_equal(symlink("/etc", lnk), 0);
        assert_int_equal(jd_atomic_write(sr, "/lnk/jetsond-test2.conf", "x", 1, 0644), 0);
        g_autofree char *got2 = slurp(dir, "etc/jetsond-test2.conf");
        assert_string_equal(got2, "x");
        fixture_remove_copy(sr, dir);
}

/* The target as it was, and nothing left in its directory. */
static void assert_untouched(const char *dir, const char *original, const struct stat *before)
{
        g_autofree char *now = slurp(dir, NVPMODEL_TARGET);
        assert_string_equal(now, original);
        g_autofree char *target = host(dir, NVPMODEL_TARGET);
        struct stat st;
        assert_int_equal(stat(target, &st), 0);
        assert_int_equal(st.st_ino, before->st_ino);
        assert_int_equal(st.st_mode, before->st_mode);
        assert_int_equal(hidden_files(dir, "etc/nvpmodel"), 0);
        assert_int_equal(hidden_files(dir, "etc"), 0);
}

static void test_write_failures(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        g_autofree char *original = slurp(dir, NVPMODEL_TARGET);
        g_autofree char *target = host(dir, NVPMODEL_TARGET);
        struct stat before;
        assert_int_equal(stat(target, &before), 0);

        /* The target's directory is missing. */
        assert_int_equal(jd_atomic_write(sr, "/etc/missing/nvpmodel.conf", "x", 1, 0644), -ENOENT);
        /* The path is a directory. */
        assert_int_equal(jd_atomic_write(sr, "/etc/nvpmodel", "x", 1, 0644), -EISDIR);
        g_autofree char *d = host(dir, "etc/nvpmodel");
        assert_true(g_file_test(d, G_FILE_TEST_IS_DIR));
        /* Not an absolute path, or no file name. */
        assert_int_equal(jd_atomic_write(sr, "etc/fstab", "x", 1, 0644), -EINVAL);
        assert_int_equal(jd_atomic_write(sr, "/etc/", "x", 1, 0644), -EINVAL);
        assert_int_equal(jd_atomic_write(sr, "/etc/..", "x", 1, 0644), -EINVAL);
        /* A symlink out of the sysroot. */
        g_autofree char *escape = host(dir, "etc/escape.conf");
        assert_int_equal(symlink("../../../../../../../../tmp/jetsond-escape.conf", escape), 0);
        assert_int_equal(jd_atomic_write(sr, "/etc/escape.conf", "x", 1, 0644), -EXDEV);
        assert_int_equal(unlink(escape), 0);
        assert_untouched(dir, original, &before);

        /* A dangling symlink stays a symlink: /etc/nvpmodel.conf pointing at
         * another module's conf that is not there. */
        g_autofree char *link = host(dir, "etc/nvpmodel.conf");
        assert_int_equal(unlink(link), 0);
        assert_int_equal(symlink("/etc/nvpmodel/nvpmodel_p3701_0000.conf", link), 0);
        assert_int_equal(jd_atomic_write(sr, "/etc/nvpmodel.conf", "x", 1, 0644), -ENOENT);
        struct stat lst;
        assert_int_equal(lstat(link, &lst), 0);
        assert_true(S_ISLNK(lst.st_mode));
        g_autofree char *missing = host(dir, "etc/nvpmodel/nvpmodel_p3701_0000.conf");
        assert_false(g_file_test(missing, G_FILE_TEST_EXISTS));
        assert_int_equal(unlink(link), 0);
        assert_int_equal(symlink("/etc/nvpmodel/nvpmodel_p3701_0005.conf", link), 0);

        /* A failure after the temporary file exists (the disk "full" at 16
         * bytes): it is removed and the target is untouched. */
        struct rlimit old_limit, limit;
        assert_int_equal(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
        limit = old_limit;
        limit.rlim_cur = 16;
        void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &limit), 0);
        const char big[] = "< PM_CONFIG DEFAULT=1 >\n# more than sixteen bytes\n";
        int r = jd_atomic_write(sr, "/etc/nvpmodel.conf", big, strlen(big), 0644);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &old_limit), 0);
        signal(SIGXFSZ, old_handler);
        assert_int_equal(r, -EFBIG);
        assert_untouched(dir, original, &before);
        fixture_remove_copy(sr, dir);
}

typedef struct {
        GMainLoop *loop;
        int r;
        bool called;
} async_result;

static void on_async_written(int r, void *userdata)
{
        async_result *a = userdata;
        a->r = r;
        a->called = true;
        g_main_loop_quit(a->loop);
}

/* The same write from a worker thread; the answer comes on the loop. */
static int write_async(const jd_sysroot *sr, const char *path, const char *content)
{
        async_result a = { .loop = g_main_loop_new(NULL, FALSE), .r = 1 };
        jd_atomic_write_async(sr, path, content, strlen(content), 0640, on_async_written, &a);
        assert_false(a.called);       /* never before the call returns */
        g_main_loop_run(a.loop);
        g_main_loop_unref(a.loop);
        assert_true(a.called);
        return a.r;
}

static void test_write_async(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        assert_int_equal(write_async(sr, "/etc/nvpmodel.conf", "< PM_CONFIG DEFAULT=1 >\n"), 0);
        g_autofree char *text = slurp(dir, NVPMODEL_TARGET);
        assert_string_equal(text, "< PM_CONFIG DEFAULT=1 >\n");
        g_autofree char *link = host(dir, "etc/nvpmodel.conf");
        assert_true(g_file_test(link, G_FILE_TEST_IS_SYMLINK));
        /* Errors come back the same way, and the target is untouched. */
        assert_int_equal(write_async(sr, "/no/such/dir/file", "x"), -ENOENT);
        fixture_remove_copy(sr, dir);
}

static void test_read_text(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        g_autofree char *original = slurp(dir, NVPMODEL_TARGET);
        size_t len = strlen(original);
        char *text = NULL;

        /* Exactly MAX bytes is fine, one more is too big. */
        assert_int_equal(jd_read_text(sr, "/etc/nvpmodel.conf", len, &text), 0);
        assert_string_equal(text, original);
        g_free(text);
        assert_int_equal(jd_read_text(sr, "/etc/nvpmodel.conf", len - 1, &text), -EFBIG);
        assert_null(text);

        fixture_write(dir, "etc/fstab", "a\0b\n", 4);
        assert_int_equal(jd_read_text(sr, "/etc/fstab", 1024, &text), -EINVAL);
        assert_null(text);
        fixture_write(dir, "etc/fstab", "", 0);
        assert_int_equal(jd_read_text(sr, "/etc/fstab", 1024, &text), 0);
        assert_string_equal(text, "");
        g_free(text);

        assert_int_equal(jd_read_text(sr, "/etc/absent", 1024, &text), -ENOENT);
        assert_null(text);
        assert_int_equal(jd_read_text(sr, "/etc/nvpmodel", 1024, &text), -EISDIR);
        assert_null(text);
        /* A FIFO neither hangs the reader nor counts as a text file. */
        g_autofree char *fifo = host(dir, "etc/fifo");
        assert_int_equal(mkfifo(fifo, 0600), 0);
        assert_int_equal(jd_read_text(sr, "/etc/fifo", 1024, &text), -EINVAL);
        assert_null(text);
        fixture_remove_copy(sr, dir);

        /* procfs says size 0: the limit holds for what is actually read. */
        const char *why = NULL;
        jd_sysroot *host_root = jd_sysroot_new("/", &why);
        assert_non_null(host_root);
        assert_int_equal(jd_read_text(host_root, "/proc/self/status", 8, &text), -EFBIG);
        assert_null(text);
        assert_int_equal(jd_read_text(host_root, "/proc/self/status", 1 << 16, &text), 0);
        assert_non_null(strstr(text, "\nPid:"));
        g_free(text);
        jd_sysroot_free(host_root);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_write_through_symlink),
                cmocka_unit_test(test_write_new_file),
                cmocka_unit_test(test_write_failures),
                cmocka_unit_test(test_write_async),
                cmocka_unit_test(test_read_text),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
