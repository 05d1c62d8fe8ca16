/* The GPU process list of status (client/commands/gpu_procs.c): a row per process
 * and GPU, the SoC's share of process.PID.gpu_mem, the order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <glib.h>

#include "commands/gpu_procs.h"

static jc_sample sample_of(const char *values);

static GArray *rows_of(const char *values)
{
        jc_sample s = sample_of(values);
        GArray *rows = jc_gpu_process_rows(&s, JC_TOP_SORT_GPU_MEM);
        g_variant_unref(s.values);
        return rows;
}

static jc_sample sample_of(const char *values)
{
        jc_sample s = { 0 };
        s.values = g_variant_parse(G_VARIANT_TYPE("a{sv}"), values, NULL, NULL, NULL);
        assert_non_null(s.values);
        return s;
}

#define ROW(rows, i) (&g_array_index((rows), jc_gpu_process_row, (i)))

static void test_discrete_and_soc(void **state)
{
        (void) state;
        /* 4242 trains on both discrete GPUs; 2345 draws on GPU 0 only;
         * 77 holds nvmap memory (a Jetson) and some on GPU 1 too; 9 is an
         * nvmap client without a size. */
        g_autoptr(GArray) rows = rows_of(
                "{'process.4242.name': <'python3'>, 'process.4242.user': <'alice'>, 'process.4242.cpu': <85.0>,"
                " 'process.4242.gpu_mem': <uint64 1150976>,"
                " 'process.4242.dgpu.0.mem': <uint64 1048576>, 'process.4242.dgpu.0.sm': <35.0>,"
                " 'process.4242.dgpu.1.mem': <uint64 102400>, 'process.4242.dgpu.1.sm': <2.0>,"
                " 'process.2345.name': <'firefox-esr'>, 'process.2345.gpu_mem': <uint64 262144>,"
                " 'process.2345.dgpu.0.mem': <uint64 262144>,"
                " 'process.77.name': <'app'>, 'process.77.gpu_mem': <uint64 300000>,"
                " 'process.77.dgpu.1.mem': <uint64 100000>,"
                " 'process.9.name': <'idle'>,"
                " 'process.bad.name': <'x'>, 'process.5.dgpu.x.mem': <uint64 1>}");
        assert_int_equal(rows->len, 6);
        /* Largest GPU memory first. */
        assert_int_equal(ROW(rows, 0)->pid, 4242);
        assert_int_equal(ROW(rows, 0)->gpu, 0);
        assert_int_equal(ROW(rows, 0)->mem_kib, 1048576);
        assert_true(ROW(rows, 0)->has_sm && ROW(rows, 0)->sm == 35.0);
        assert_true(ROW(rows, 0)->has_cpu && ROW(rows, 0)->cpu == 85.0);
        assert_string_equal(ROW(rows, 0)->user, "alice");
        assert_int_equal(ROW(rows, 1)->pid, 2345);
        assert_false(ROW(rows, 1)->has_sm);
        assert_false(ROW(rows, 1)->has_cpu);
        /* 77: 200000 KiB beyond its discrete GPU's is the SoC's. */
        assert_int_equal(ROW(rows, 2)->pid, 77);
        assert_int_equal(ROW(rows, 2)->gpu, JC_GPU_SOC);
        assert_int_equal(ROW(rows, 2)->mem_kib, 200000);
        assert_int_equal(ROW(rows, 3)->pid, 4242);
        assert_int_equal(ROW(rows, 3)->gpu, 1);
        assert_int_equal(ROW(rows, 4)->pid, 77);
        assert_int_equal(ROW(rows, 4)->gpu, 1);
        assert_string_equal(ROW(rows, 4)->name, "app");
        /* A process on no discrete GPU is the SoC's, size or not. */
        assert_int_equal(ROW(rows, 5)->pid, 9);
        assert_int_equal(ROW(rows, 5)->gpu, JC_GPU_SOC);
        assert_false(ROW(rows, 5)->has_mem);
}

static void test_empty(void **state)
{
        (void) state;
        g_autoptr(GArray) rows = rows_of("{'gpu.load': <34.7>, 'dgpu.0.load': <37.0>}");
        assert_int_equal(rows->len, 0);
}

static const char *const PROCESSES =
        "{'process.20.name': <'python3'>, 'process.20.user': <'nvidia'>, 'process.20.gpu_mem': <uint64 262144>,"
        " 'process.20.cpu': <12.5>, 'process.20.rss': <uint64 1048576>,"
        " 'process.3.name': <'Xorg'>, 'process.3.user': <'root'>, 'process.3.gpu_mem': <uint64 20608>,"
        " 'process.3.cpu': <40.0>, 'process.3.rss': <uint64 98304>,"
        " 'process.100.name': <'gone'>, 'process.100.gpu_mem': <uint64 65536>,"
        " 'process.x.name': <'not a pid'>, 'cpu.load': <5.0>}";

static void check_order(jc_top_sort sort, const uint32_t *want, size_t n)
{
        jc_sample s = sample_of(PROCESSES);
        GArray *list = jc_gpu_process_rows(&s, sort);
        assert_int_equal(list->len, n);
        for (size_t i = 0; i < n; i++)
                assert_int_equal(g_array_index(list, jc_gpu_process_row, i).pid, want[i]);
        g_array_unref(list);
        g_variant_unref(s.values);
}

/* top's sort keys, on a Jetson's processes (all on the SoC's GPU). */
static void test_sort_keys(void **state)
{
        (void) state;
        jc_sample s = sample_of(PROCESSES);
        GArray *list = jc_gpu_process_rows(&s, JC_TOP_SORT_GPU_MEM);
        const jc_gpu_process_row *p = &g_array_index(list, jc_gpu_process_row, 0);
        assert_int_equal(p->pid, 20);
        assert_string_equal(p->name, "python3");
        assert_string_equal(p->user, "nvidia");
        assert_true(p->has_cpu && p->has_rss && p->has_mem);
        assert_int_equal(p->gpu, JC_GPU_SOC);
        assert_int_equal(p->rss_kib, 1048576);
        /* A process that exited keeps its GPU memory line but has no CPU
         * or RSS: absent, not 0. */
        p = &g_array_index(list, jc_gpu_process_row, 1);
        assert_int_equal(p->pid, 100);
        assert_false(p->has_cpu || p->has_rss);
        assert_string_equal(p->user, "");
        g_array_unref(list);
        g_variant_unref(s.values);

        check_order(JC_TOP_SORT_GPU_MEM, (const uint32_t[]) { 20, 100, 3 }, 3);
        check_order(JC_TOP_SORT_CPU, (const uint32_t[]) { 3, 20, 100 }, 3);     /* no CPU value: last */
        check_order(JC_TOP_SORT_RSS, (const uint32_t[]) { 20, 3, 100 }, 3);
        check_order(JC_TOP_SORT_PID, (const uint32_t[]) { 3, 20, 100 }, 3);
        assert_string_equal(jc_top_sort_name(JC_TOP_SORT_CPU), "CPU%");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_discrete_and_soc),
                cmocka_unit_test(test_empty),
                cmocka_unit_test(test_sort_keys),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
