/* Hostile files (issue 17): on a copy of a fake board, files replaced by
 * FIFOs, a version.json nested 100 000 deep, a /proc/stat that does not
 * end, an fstab with more swap lines than a sample holds. Each must give
 * an answer (no hang, no crash, bounded memory) that tells the truth. A
 * test that hangs is ended by alarm() and fails. */
#include <fcntl.h>
#include <glib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board.h"
#include "fixture.h"
#include "libraries.h"
#include "sampler.h"
#include "swap.h"
#include "values.h"

static const char *library_version(const jd_board *b, const char *name)
{
        for (size_t i = 0; i < b->n_libraries; i++)
                if (strcmp(b->libraries[i].name, name) == 0)
                        return b->libraries[i].version;
        return NULL;
}

static void make_fifo(const char *dir, const char *path)
{
        g_autofree char *host = fixture_host_path(dir, path);
        unlink(host);
        if (mkfifo(host, 0644) != 0)
                fail_msg("mkfifo %s", host);
}

static void collect(const char *path, const char *why, void *data)
{
        g_ptr_array_add(data, g_strdup_printf("%s %s", path, why));
}

static size_t count_prefix(GPtrArray *told, const char *prefix)
{
        size_t n = 0;
        for (guint i = 0; i < told->len; i++)
                n += g_str_has_prefix(g_ptr_array_index(told, i), prefix);
        return n;
}

static void test_fifos(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        g_autoptr(GPtrArray) told = g_ptr_array_new_with_free_func(g_free);
        jd_sysroot_set_complaints(sr, collect, told);
        static const char *const files[] = { "/etc/fstab", "/etc/passwd", "/etc/nvpmodel.conf",
                                             "/etc/nvfancontrol.conf", "/var/lib/dpkg/status",
                                             "/var/lib/nvpmodel/status" };
        for (size_t i = 0; i < G_N_ELEMENTS(files); i++)
                make_fifo(dir, files[i]);
        /* Only fstab could say a swap comes back at boot. */
        fixture_unlink(dir, "/etc/systemd/system/multi-user.target.wants/nvzramconfig.service");
        alarm(50);
        jd_board b;
        jd_board_read(&b, sr);
        assert_string_not_equal(b.model, "");
        jd_sampler *s = jd_sampler_new(sr);
        assert_non_null(s);
        jd_sampler_sample(s, JD_TIER_ALL);
        const jd_sample *x = jd_sampler_sample(s, JD_TIER_ALL);
        /* The rest of the board is read as usual. */
        assert_true(x->cpu && x->cpu->n_cores == 12);
        assert_true(x->power && x->power->n > 0);
        /* Without its conf nvpmodel knows no modes; without fstab no swap is on at boot. */
        assert_int_equal(x->nvpmodel->n_modes, 0);
        for (size_t i = 0; i < x->swap->n; i++)
                assert_false(x->swap->swaps[i].on_boot);
        alarm(0);
        /* A FIFO met is told once, however often it was met (nvpmodel's
         * status is not even opened without its conf). */
        for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
                g_autofree char *prefix = g_strdup_printf("%s is not a regular file", files[i]);
                size_t n = count_prefix(told, prefix);
                bool surely_met = !g_str_has_suffix(files[i], "/status") || g_str_has_prefix(files[i], "/var/lib/dpkg");
                if (n > 1 || (surely_met && n != 1))
                        fail_msg("%s told %zu times", files[i], n);
        }
        jd_sampler_free(s);
        fixture_remove_copy(sr, dir);
}

static void test_nested_json(void **state)
{
        (void) state;
        size_t n = 100000;
        char *deep = g_malloc(n + 1);
        memset(deep, '[', n);
        deep[n] = '\0';
        char v[32] = "unset";
        assert_false(jd_json_depth_ok(deep, n, 32));
        assert_false(jd_parse_cuda_version_json(deep, n, v, sizeof(v)));
        assert_string_equal(v, "unset");

        const char *good = "{\"cuda\": {\"name\": \"CUDA [[[[ SDK \\\" {{{{\", \"version\": \"12.6.68\"}}";
        assert_true(jd_json_depth_ok(good, strlen(good), 2));
        assert_false(jd_json_depth_ok(good, strlen(good), 1));
        assert_true(jd_parse_cuda_version_json(good, strlen(good), v, sizeof(v)));
        assert_string_equal(v, "12.6.68");
        const char *long_version = "{\"cuda\": {\"version\": \"12.6.68-a-version-string-longer-than-its-slot\"}}";
        assert_false(jd_parse_cuda_version_json(long_version, strlen(long_version), v, sizeof(v)));

        /* The board with that file: read, the rest of it right. */
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        fixture_write(dir, "/usr/local/cuda/version.json", deep, n);
        jd_board b;
        jd_board_read(&b, sr);
        assert_string_equal(b.model, "NVIDIA Jetson AGX Orin Developer Kit");
        /* CUDA's version comes from the next source, dpkg's cuda-cudart. */
        const char *cuda = library_version(&b, "cuda");
        assert_non_null(cuda);
        assert_string_equal(cuda, "12.6.68");
        assert_string_equal(b.l4t, "36.4.3");
        fixture_remove_copy(sr, dir);
        g_free(deep);
}

/* The cpu lines of the file at HOST, then 2 GiB of NULs (sparse): no
 * "intr" or "ctxt" line that would tell the reader the cpu lines are over. */
static void keep_cpu_lines_then_nothing(const char *host)
{
        g_autofree char *text = NULL;
        assert_true(g_file_get_contents(host, &text, NULL, NULL));
        GString *cpu = g_string_new(NULL);
        for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (g_str_has_prefix(l, "cpu"))
                        g_string_append_len(cpu, l, (gssize) (strchrnul(l, '\n') - l + 1));
        assert_true(g_file_set_contents(host, cpu->str, (gssize) cpu->len, NULL));
        g_string_free(cpu, TRUE);
        assert_int_equal(truncate(host, 2ll << 30), 0);
}

static long max_rss_kib(void)
{
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        return ru.ru_maxrss;
}

static void test_endless_proc_stat(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        /* Real cpu lines, then 2 GiB of nothing (a sparse file): a file
         * that is still going long after any /proc/stat would end. */
        g_autofree char *host = fixture_host_path(dir, "/proc/stat");
        keep_cpu_lines_then_nothing(host);
        long before = max_rss_kib();
        alarm(50);
        jd_sampler *s = jd_sampler_new(sr);
        const jd_sample *x = jd_sampler_sample(s, JD_TIER_FAST);
        x = jd_sampler_sample(s, JD_TIER_FAST);
        alarm(0);
        assert_true(x->cpu && x->cpu->n_cores == 12);
        long grown = max_rss_kib() - before;
        if (grown > 64 * 1024)
                fail_msg("reading /proc/stat took %ld MiB more", grown / 1024);
        jd_sampler_free(s);
        fixture_remove_copy(sr, dir);
}

/* A config file larger than the most jetsond reads of it is malformed,
 * not cut: a cut fstab would be another fstab. */
static void test_oversized_config(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        g_autoptr(GPtrArray) told = g_ptr_array_new_with_free_func(g_free);
        jd_sysroot_set_complaints(sr, collect, told);
        /* Only fstab could say a swap comes back at boot. */
        fixture_unlink(dir, "/etc/systemd/system/multi-user.target.wants/nvzramconfig.service");
        GString *fstab = g_string_new("/dev/zram0 none swap sw 0 0\n");
        while (fstab->len <= (1u << 20))
                g_string_append(fstab, "# padding padding padding padding padding padding padding padding\n");
        fixture_write(dir, "/etc/fstab", fstab->str, fstab->len);
        jd_sampler *s = jd_sampler_new(sr);
        const jd_sample *x = jd_sampler_sample(s, JD_TIER_SLOW);
        assert_true(x->swap->n > 0);
        assert_string_equal(x->swap->swaps[0].path, "/dev/zram0");
        assert_false(x->swap->swaps[0].on_boot);
        assert_int_equal(count_prefix(told, "/etc/fstab is larger than 1048576 bytes"), 1);
        jd_sampler_free(s);
        g_string_free(fstab, TRUE);
        fixture_remove_copy(sr, dir);
}

/* A rail label longer than a rail's name slot: the rail is left out,
 * never shown under a cut name; the other rails stay. */
static void test_long_rail_label(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        fixture_write_str(dir, "/sys/devices/platform/bus@0/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1/in1_label",
                          "VDD_GPU_SOC_WITH_A_LABEL_LONGER_THAN_ITS_SLOT\n");
        jd_sampler *s = jd_sampler_new(sr);
        const jd_sample *x = jd_sampler_sample(s, JD_TIER_MEDIUM);
        assert_true(x->power->n >= 2);
        for (size_t i = 0; i < x->power->n; i++)
                assert_null(strstr(x->power->rails[i].name, "VDD_GPU_SOC"));
        jd_sampler_free(s);
        fixture_remove_copy(sr, dir);
}

static void test_many_swaps(void **state)
{
        (void) state;
        GString *fstab = g_string_new("/dev/root / ext4 defaults 0 1\n");
        for (int i = 0; i < 96; i++)
                g_string_append_printf(fstab, "/swap%d none swap sw 0 0\n", i);
        size_t n;
        char **specs = jd_fstab_swaps(fstab->str, &n);
        assert_int_equal(n, 96);
        assert_string_equal(specs[n - 1], "/swap95");
        assert_null(specs[n]);
        for (size_t i = 0; i < n; i++)
                free(specs[i]);
        free(specs);
        /* The last one, past any fixed limit, is on at boot. */
        assert_true(jd_fstab_has_swap(fstab->str, "/swap95"));
        assert_false(jd_fstab_has_swap(fstab->str, "/swap96"));
        g_string_free(fstab, TRUE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fifos),
                cmocka_unit_test(test_nested_json),
                cmocka_unit_test(test_endless_proc_stat),
                cmocka_unit_test(test_many_swaps),
                cmocka_unit_test(test_oversized_config),
                cmocka_unit_test(test_long_rail_label),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
