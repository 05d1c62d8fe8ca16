/* A followed tree's GPU figures (client/profiling/tree_gpu.c) from made-up
 * samples: GPU memory summed over the tree's processes, GPUs busy (the
 * discrete ones with a context, the integrated one where a process holds
 * nvmap memory beyond its discrete GPUs'), SM use summed and unknown while
 * a context has none; processes outside the tree left out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <glib.h>

#include "profiling/tree_gpu.h"

static jc_tree_figures figures(const char *text, const uint32_t *pids, size_t n)
{
        g_autoptr(GVariant) values = g_variant_parse(G_VARIANT_TYPE("a{sv}"), text, NULL, NULL, NULL);
        assert_non_null(values);
        jc_tree_figures f = { 0 };
        jc_tree_gpu_figures(values, pids, n, &f);
        return f;
}

#define PC                                                                                                     \
        "{'dgpu.0.load': <50.0>, 'dgpu.1.load': <10.0>,"                                                       \
        " 'process.10.gpu_mem': <uint64 1048576>, 'process.10.dgpu.0.mem': <uint64 1048576>,"                 \
        " 'process.10.dgpu.0.sm': <35.0>, 'process.10.dgpu.0.type': <'compute'>,"                              \
        " 'process.11.gpu_mem': <uint64 2048>, 'process.11.dgpu.1.mem': <uint64 1024>,"                        \
        " 'process.11.dgpu.1.sm': <2.0>,"                                                                      \
        " 'process.99.gpu_mem': <uint64 4096>, 'process.99.dgpu.0.mem': <uint64 4096>,"                        \
        " 'process.99.dgpu.0.sm': <50.0>}"

static void test_sums(void **state)
{
        (void) state;
        /* 12 uses no GPU; 0 is a process jetsond cannot see; 99 is not in the tree. */
        static const uint32_t tree[] = { 10, 11, 12, 0 };
        jc_tree_figures f = figures(PC, tree, 4);
        assert_true(f.have_gpu && f.have_sm);
        assert_int_equal(f.gpu_mem_kib, 1048576 + 2048);
        /* GPU 0, GPU 1, and 11's 1024 KiB beyond its discrete GPU's. */
        assert_int_equal(f.gpus_busy, 3);
        assert_true(f.sm_percent > 36.99 && f.sm_percent < 37.01);
        static const uint32_t one[] = { 10 };
        f = figures(PC, one, 1);
        assert_int_equal(f.gpu_mem_kib, 1048576);
        assert_int_equal(f.gpus_busy, 1);
}

static void test_none(void **state)
{
        (void) state;
        /* No context on a machine with discrete GPUs: none, known to be none. */
        static const uint32_t tree[] = { 12 };
        jc_tree_figures f = figures(PC, tree, 1);
        assert_true(f.have_gpu && f.have_sm);
        assert_int_equal(f.gpu_mem_kib, 0);
        assert_int_equal(f.gpus_busy, 0);
        assert_true(f.sm_percent == 0);
}

static void test_sm_not_read_yet(void **state)
{
        (void) state;
        /* NVML has not read 11's SM use on GPU 1 yet: the sum is unknown. */
        static const uint32_t tree[] = { 10, 11 };
        jc_tree_figures f = figures("{'dgpu.0.load': <50.0>, 'process.10.dgpu.0.mem': <uint64 8>,"
                                    " 'process.10.dgpu.0.sm': <35.0>, 'process.11.dgpu.1.mem': <uint64 8>}",
                                    tree, 2);
        assert_true(f.have_gpu);
        assert_false(f.have_sm);
        assert_int_equal(f.gpus_busy, 2);
}

static void test_jetson(void **state)
{
        (void) state;
        /* nvmap memory alone: the integrated GPU; no SM use without a discrete GPU. */
        static const uint32_t tree[] = { 5 };
        jc_tree_figures f = figures("{'gpu.load': <20.0>, 'process.5.gpu_mem': <uint64 512>}", tree, 1);
        assert_true(f.have_gpu);
        assert_false(f.have_sm);
        assert_int_equal(f.gpu_mem_kib, 512);
        assert_int_equal(f.gpus_busy, 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sums),
                cmocka_unit_test(test_none),
                cmocka_unit_test(test_sm_not_read_yet),
                cmocka_unit_test(test_jetson),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
