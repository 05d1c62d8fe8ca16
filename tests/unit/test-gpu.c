/* GPU on the JP4, JP5, JP6 and JetPack 7.2 Orin layouts, found by
 * device-tree node name, and on Thor (JetPack 7) by its devfreq node. */
#include <glib.h>
#include <math.h>
#include <unistd.h>

#include "fixture.h"
#include "gpu.h"

static const jd_gpu_sample *read_gpu(const char *board, jd_sysroot **sr, jd_gpu_reader **r)
{
        *sr = fixture_open(board);
        *r = jd_gpu_reader_new(*sr);
        assert_non_null(*r);
        return jd_gpu_reader_sample(*r);
}

static void done(jd_sysroot *sr, jd_gpu_reader *r)
{
        jd_gpu_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_agx_orin(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_gpu_reader *r;
        const jd_gpu_sample *g = read_gpu("agx-orin-jp62", &sr, &r);
        assert_true(g->present);
        /* 15340000.vic is a devfreq device too, but not a GPU. */
        assert_string_equal(g->name, "17000000.gpu");
        assert_dbl_equal(g->load.value, 34.7);
        assert_int_equal(g->cur_hz.value, 306000000);
        assert_int_equal(g->min_hz.value, 306000000);
        assert_int_equal(g->max_hz.value, 1300500000);
        assert_string_equal(g->governor, "nvhost_podgov");
        assert_true(g->railgate.present && g->railgate.value);
        assert_true(g->scaling_3d.value);
        assert_true(g->tpc_pg_mask.present);
        assert_int_equal(g->tpc_pg_mask.value, 0);
        assert_string_equal(g->power_control, "auto");
        assert_int_equal(g->n_gpc, 2);
        assert_int_equal(g->gpc_hz[0].value, 305990000);
        assert_int_equal(g->gpc_hz[1].value, 306010000);
        done(sr, r);
}

static void test_orin_nano(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_gpu_reader *r;
        const jd_gpu_sample *g = read_gpu("orin-nano-jp62", &sr, &r);
        assert_dbl_equal(g->load.value, 12.5);
        assert_int_equal(g->cur_hz.value, 510000000);
        assert_int_equal(g->max_hz.value, 918000000);
        assert_int_equal(g->n_gpc, 1);
        done(sr, r);
}

static void test_xavier_nx(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_gpu_reader *r;
        const jd_gpu_sample *g = read_gpu("xavier-nx-jp51", &sr, &r);
        assert_string_equal(g->name, "17000000.gv11b");
        assert_dbl_equal(g->load.value, 50.0);
        assert_int_equal(g->cur_hz.value, 599250000);
        assert_int_equal(g->min_hz.value, 114750000);
        assert_int_equal(g->max_hz.value, 1109250000);
        assert_int_equal(g->n_gpc, 0);
        done(sr, r);
}

static void test_nano(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_gpu_reader *r;
        const jd_gpu_sample *g = read_gpu("nano-jp46", &sr, &r);
        assert_string_equal(g->name, "57000000.gpu");
        assert_dbl_equal(g->load.value, 25.0);
        assert_int_equal(g->cur_hz.value, 76800000);
        assert_int_equal(g->max_hz.value, 921600000);
        assert_false(g->tpc_pg_mask.present); /* absent on Nano, not 0 */
        done(sr, r);
}

static void test_pc_has_none(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_gpu_reader *r;
        const jd_gpu_sample *g = read_gpu("x86-pc", &sr, &r);
        assert_false(g->present);
        assert_false(g->load.present);
        done(sr, r);
}

/* Thor: gpu-gpc-0 has no device-tree name and no load file (NVML gives
 * the load); its clocks, governor and the video clock of gpu-nvd-0 in Hz;
 * rail gating is its PCI device's runtime PM, 3D scaling its governor. */
static void test_thor(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-thor-jp71", &dir);
        jd_gpu_reader *r = jd_gpu_reader_new(sr);
        const jd_gpu_sample *g = jd_gpu_reader_sample(r);
        assert_true(g->present);
        assert_string_equal(g->name, "gpu-gpc-0");
        assert_false(g->has_load);
        assert_false(g->load.present);
        assert_int_equal(g->cur_hz.value, 1000000000);
        assert_int_equal(g->min_hz.value, 315000000);
        assert_int_equal(g->max_hz.value, 1575000000);
        assert_true(g->video_hz.present);
        assert_int_equal(g->video_hz.value, 1556000000);
        assert_string_equal(g->governor, "nvhost_podgov");
        assert_string_equal(g->power_control, "auto");
        assert_true(g->railgate.present && g->railgate.value);
        assert_true(g->scaling_3d.present && g->scaling_3d.value);
        assert_false(g->tpc_pg_mask.present);
        assert_int_equal(g->n_gpc, 0);
        char pci[256];
        assert_true(jd_gpu_thor_pci_dir(sr, pci, sizeof(pci)));
        assert_string_equal(pci, "/sys/devices/pci0000:00/0000:00:00.0/0000:01:00.0");

        /* jetson_clocks' or SetScaling3D(false)'s governor, and the GPU
         * kept powered: both read as off. */
        fixture_write_str(dir, "sys/class/devfreq/gpu-gpc-0/governor", "performance\n");
        fixture_write_str(dir, "sys/bus/pci/devices/0000:01:00.0/power/control", "on\n");
        jd_gpu_reader_sample_limits(r);
        assert_true(g->scaling_3d.present && !g->scaling_3d.value);
        assert_true(g->railgate.present && !g->railgate.value);
        jd_gpu_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* JetPack 7.2 on Orin: nvgpu's sysfs with its load file, but no
 * enable_3d_scaling: 3D scaling is the devfreq governor. */
static void test_orin_jp72(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp72", &dir);
        jd_gpu_reader *r = jd_gpu_reader_new(sr);
        const jd_gpu_sample *g = jd_gpu_reader_sample(r);
        assert_string_equal(g->name, "17000000.gpu");
        assert_true(g->has_load);
        assert_dbl_equal(g->load.value, 34.7);
        assert_false(g->video_hz.present);
        assert_true(g->scaling_3d.present && g->scaling_3d.value);
        assert_true(g->railgate.present && g->railgate.value);
        fixture_write_str(dir, "sys/class/devfreq/17000000.gpu/governor", "performance\n");
        jd_gpu_reader_sample_limits(r);
        assert_true(g->scaling_3d.present && !g->scaling_3d.value);
        jd_gpu_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* The GPU node may appear late in boot: the slow tier re-probes. */
static void test_late_gpu(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        g_autofree char *link = g_build_filename(dir, "sys/class/devfreq/17000000.gpu", NULL);
        g_autofree char *target = g_file_read_link(link, NULL);
        assert_int_equal(unlink(link), 0);
        jd_gpu_reader *r = jd_gpu_reader_new(sr);
        assert_false(jd_gpu_reader_sample(r)->present);
        assert_int_equal(symlink(target, link), 0);
        jd_gpu_reader_sample_limits(r);
        const jd_gpu_sample *g = jd_gpu_reader_sample(r);
        assert_true(g->present);
        assert_dbl_equal(g->load.value, 34.7);
        jd_gpu_reader_free(r);
        fixture_remove_copy(sr, dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_agx_orin), cmocka_unit_test(test_orin_nano),
                cmocka_unit_test(test_xavier_nx), cmocka_unit_test(test_nano),
                cmocka_unit_test(test_pc_has_none), cmocka_unit_test(test_late_gpu),
                cmocka_unit_test(test_thor), cmocka_unit_test(test_orin_jp72),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
