/* jetsonctl top's numbers (client/top_data.c): average power from the
 * energy counters, and the GPU processes sorted by each column. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <glib.h>

#include "top_data.h"

/* A sample from GVariant text, e.g. "{'energy.total': <uint64 1000>}". */
static jc_sample sample_at(uint64_t usec, const char *values)
{
        jc_sample s = { .timestamp_usec = usec };
        /* g_variant_parse() returns a reference of our own (not floating). */
        s.values = g_variant_parse(G_VARIANT_TYPE("a{sv}"), values, NULL, NULL, NULL);
        assert_non_null(s.values);
        return s;
}

static void feed(jc_top_energy *e, uint64_t usec, const char *values)
{
        jc_sample s = sample_at(usec, values);
        jc_top_energy_add(e, &s);
        g_variant_unref(s.values);
}

static void test_average_power(void **state)
{
        (void) state;
        jc_top_energy *e = jc_top_energy_new();
        double mw;
        feed(e, 10000000, "{'energy.VDD_IN': <uint64 50000>, 'energy.total': <uint64 50000>}");
        assert_false(jc_top_energy_average(e, "energy.VDD_IN", &mw)); /* one sample: no average yet */
        feed(e, 10400000, "{'energy.VDD_IN': <uint64 52000>}");
        assert_false(jc_top_energy_average(e, "energy.VDD_IN", &mw)); /* 0.4 s: too short */
        /* 5 J in 2 s is 2.5 W, whatever the power readings said between. */
        feed(e, 12000000, "{'energy.VDD_IN': <uint64 55000>, 'power.VDD_IN.power': <uint32 9999>}");
        assert_true(jc_top_energy_average(e, "energy.VDD_IN", &mw));
        assert_float_equal(mw, 2500.0, 1e-9);
        assert_false(jc_top_energy_average(e, "energy.total", &mw)); /* not in the later samples */
        assert_false(jc_top_energy_average(e, "energy.OTHER", &mw));
        /* jetsond restarted: its counters start again from 0, and so does
         * the average. */
        feed(e, 13000000, "{'energy.VDD_IN': <uint64 100>}");
        assert_false(jc_top_energy_average(e, "energy.VDD_IN", &mw));
        feed(e, 14000000, "{'energy.VDD_IN': <uint64 1100>}");
        assert_true(jc_top_energy_average(e, "energy.VDD_IN", &mw));
        assert_float_equal(mw, 1000.0, 1e-9);
        /* A value of another type is not a counter. */
        feed(e, 15000000, "{'energy.VDD_IN': <'x'>}");
        assert_true(jc_top_energy_average(e, "energy.VDD_IN", &mw));
        jc_top_energy_free(e);
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
        jc_sample s = sample_at(1, PROCESSES);
        GArray *list = jc_top_processes(&s, sort);
        assert_int_equal(list->len, n);
        for (size_t i = 0; i < n; i++)
                assert_int_equal(g_array_index(list, jc_top_process, i).pid, want[i]);
        g_array_unref(list);
        g_variant_unref(s.values);
}

static void test_processes(void **state)
{
        (void) state;
        jc_sample s = sample_at(1, PROCESSES);
        GArray *list = jc_top_processes(&s, JC_TOP_SORT_GPU_MEM);
        const jc_top_process *p = &g_array_index(list, jc_top_process, 0);
        assert_int_equal(p->pid, 20);
        assert_string_equal(p->name, "python3");
        assert_string_equal(p->user, "nvidia");
        assert_true(p->has_cpu && p->has_rss && p->has_gpu_mem);
        assert_int_equal(p->rss_kib, 1048576);
        /* A process that exited keeps its GPU memory line but has no CPU
         * or RSS: absent, not 0. */
        p = &g_array_index(list, jc_top_process, 1);
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
                cmocka_unit_test(test_average_power),
                cmocka_unit_test(test_processes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
