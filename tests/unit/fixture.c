#include "fixture.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

jd_sysroot *fixture_open(const char *board)
{
        g_autofree char *dir = g_build_filename(FIXTURES_DIR, board, NULL);
        const char *why = NULL;
        jd_sysroot *sr = jd_sysroot_new(dir, &why);
        if (!sr)
                fail_msg("fixture %s: %s", dir, why);
        return sr;
}

jd_sysroot *fixture_copy(const char *board, char **dir)
{
        g_autofree char *src = g_build_filename(FIXTURES_DIR, board, NULL);
        g_autoptr(GError) error = NULL;
        char *tmp = g_dir_make_tmp("jetsond-test-XXXXXX", &error);
        assert_non_null(tmp);
        g_autofree char *dst = g_build_filename(tmp, "root", NULL);
        const char *argv[] = { "cp", "-a", src, dst, NULL };
        int status = 0;
        assert_true(g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL,
                                 &status, &error));
        assert_true(g_spawn_check_exit_status(status, NULL));
        const char *why = NULL;
        jd_sysroot *sr = jd_sysroot_new(dst, &why);
        assert_non_null(sr);
        *dir = g_strdup(dst);
        g_free(tmp);
        return sr;
}

void fixture_remove_copy(jd_sysroot *sr, char *dir)
{
        jd_sysroot_free(sr);
        g_autofree char *parent = g_path_get_dirname(dir);
        const char *argv[] = { "rm", "-rf", parent, NULL };
        g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
        g_free(dir);
}

/* Host path of PATH inside the copy DIR, following its symlinks the way
 * the readers do (absolute targets stay inside the copy). */
static char *host_path(const char *dir, const char *path)
{
        const char *why;
        jd_sysroot *sr = jd_sysroot_new(dir, &why);
        assert_non_null(sr);
        g_autofree char *abs = g_strconcat("/", path, NULL);
        char host[4096];
        char *out = jd_sysroot_host_path(sr, abs, host, sizeof(host)) == 0 ? g_strdup(host)
                                                                              : g_build_filename(dir, path, NULL);
        jd_sysroot_free(sr);
        return out;
}

void fixture_write(const char *dir, const char *path, const char *content, size_t len)
{
        g_autofree char *full = host_path(dir, path);
        int fd = open(full, O_WRONLY | O_CREAT, 0644);
        if (fd < 0)
                fail_msg("open %s: %m", full);
        assert_int_equal(pwrite(fd, content, len, 0), (ssize_t) len);
        assert_int_equal(ftruncate(fd, (off_t) len), 0);
        close(fd);
}

void fixture_write_str(const char *dir, const char *path, const char *content)
{
        fixture_write(dir, path, content, strlen(content));
}

void fixture_unlink(const char *dir, const char *path)
{
        g_autofree char *full = host_path(dir, path);
        assert_int_equal(unlink(full), 0);
}

char *fixture_host_path(const char *dir, const char *path)
{
        return host_path(dir, path);
}

char *fixture_read_aux(const char *relpath)
{
        g_autofree char *full = g_build_filename(FIXTURES_DIR, relpath, NULL);
        char *text = NULL;
        if (!g_file_get_contents(full, &text, NULL, NULL))
                fail_msg("cannot read %s", full);
        return text;
}

void fixture_dac_capabilities(bool on)
{
        struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct d[2];
        const uint32_t dac = (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH);
        assert_int_equal(syscall(SYS_capget, &h, d), 0);
        d[0].effective = on ? d[0].effective | (d[0].permitted & dac) : d[0].effective & ~dac;
        assert_int_equal(syscall(SYS_capset, &h, d), 0);
}
