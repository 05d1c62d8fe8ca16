/* jetsonctl top's history and graph characters (client/top/top_history.c,
 * client/top/top_graph.c), without a bus or a terminal. */
#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <glib.h>

#include "top/top_graph.h"
#include "top/top_history.h"

static void feed(jc_top_history *h, const char *values)
{
        jc_sample s = { .timestamp_usec = 1 };
        s.values = g_variant_parse(G_VARIANT_TYPE("a{sv}"), values, NULL, NULL, NULL);
        assert_non_null(s.values);
        jc_top_history_add(h, &s);
        g_variant_unref(s.values);
}

static void test_history(void **state)
{
        (void) state;
        jc_top_history *h = jc_top_history_new();
        double v[4];
        assert_false(jc_top_history_get(h, "gpu.load", 4, v));
        feed(h, "{'gpu.load': <35.0>, 'ram.used': <uint64 100>, 'gpu.freq': <uint32 306000>, 'x': <'text'>}");
        feed(h, "{'gpu.load': <40.0>, 'ram.used': <uint64 200>}");
        feed(h, "{'ram.used': <uint64 300>, 'jetson_clocks.active': <true>}");
        assert_int_equal(jc_top_history_count(h), 3);
        /* Oldest first; before the first sample and where absent: NAN,
         * never 0. */
        assert_true(jc_top_history_get(h, "gpu.load", 4, v));
        assert_true(isnan(v[0]));
        assert_float_equal(v[1], 35.0, 1e-6);
        assert_float_equal(v[2], 40.0, 1e-6);
        assert_true(isnan(v[3]));
        assert_true(jc_top_history_get(h, "ram.used", 3, v));
        assert_float_equal(v[0], 100, 1e-6);
        assert_float_equal(v[2], 300, 1e-6);
        assert_true(jc_top_history_get(h, "gpu.freq", 1, v));
        assert_true(isnan(v[0]));
        /* Strings and booleans are not graphed. */
        assert_false(jc_top_history_get(h, "x", 1, v));
        assert_false(jc_top_history_get(h, "jetson_clocks.active", 1, v));
        /* A key back after a gap: the gap stays NAN. */
        feed(h, "{'gpu.load': <50.0>}");
        assert_true(jc_top_history_get(h, "gpu.load", 3, v));
        assert_float_equal(v[0], 40.0, 1e-6);
        assert_true(isnan(v[1]));
        assert_float_equal(v[2], 50.0, 1e-6);
        /* The ring wraps: the latest JC_TOP_HISTORY_LEN stay, in order; a
         * key silent for a whole ring (an ended process) is dropped. */
        for (int i = 0; i < JC_TOP_HISTORY_LEN + 70; i++) {
                g_autofree char *text = g_strdup_printf("{'gpu.load': <%d.0>}", i);
                feed(h, text);
        }
        g_autofree double *all = g_new(double, JC_TOP_HISTORY_LEN + 1);
        assert_true(jc_top_history_get(h, "gpu.load", JC_TOP_HISTORY_LEN + 1, all));
        assert_true(isnan(all[0]));
        assert_float_equal(all[1], 70.0, 1e-6);
        assert_float_equal(all[JC_TOP_HISTORY_LEN], JC_TOP_HISTORY_LEN + 69, 1e-6);
        assert_false(jc_top_history_get(h, "ram.used", 1, v));
        jc_top_history_free(h);
}

/* A sample of N GPU processes, each with every process key jetsond sends
 * on a PC (cpu, rss, gpu_mem, ppid, start_time, a GPU's mem and sm), and
 * a few board keys. */
static void feed_processes(jc_top_history *h, unsigned n, unsigned i)
{
        GString *text = g_string_new("{'cpu.load': <1.0>, 'ram.used': <uint64 5>");
        for (unsigned p = 0; p < n; p++)
                g_string_append_printf(text, ", 'process.%u.cpu': <%u.0>, 'process.%u.rss': <uint64 10>,"
                                       " 'process.%u.gpu_mem': <uint64 20>, 'process.%u.ppid': <uint32 1>,"
                                       " 'process.%u.start_time': <1.5e9>, 'process.%u.dgpu.0.mem': <uint64 20>,"
                                       " 'process.%u.dgpu.0.sm': <3.0>, 'process.%u.name': <'x'>",
                                       1000 + p, i, 1000 + p, 1000 + p, 1000 + p, 1000 + p, 1000 + p, 1000 + p, 1000 + p);
        g_string_append(text, "}");
        feed(h, text->str);
        g_string_free(text, TRUE);
}

static void test_process_rings(void **state)
{
        (void) state;
        jc_top_history *h = jc_top_history_new();
        for (unsigned i = 0; i < 200; i++)
                feed_processes(h, 300, i);
        /* Only what the process screen graphs is kept, in short rings. */
        double v[300];
        assert_true(jc_top_history_get(h, "process.1000.cpu", 1, v));
        assert_true(jc_top_history_get(h, "process.1000.dgpu.0.sm", 1, v));
        assert_false(jc_top_history_get(h, "process.1000.ppid", 1, v));
        assert_false(jc_top_history_get(h, "process.1000.start_time", 1, v));
        assert_false(jc_top_history_get(h, "process.1000.dgpu.0.mem", 1, v));
        size_t full, bytes = jc_top_history_bytes(h, &full);
        /* 300 x 4 rings of 128 floats, and the board's two full ones */
        assert_int_equal(bytes, (300 * 4 * JC_TOP_PROCESS_HISTORY_LEN + 2 * JC_TOP_HISTORY_LEN) * sizeof(float));
        assert_int_equal(full, (300 * 7 + 2) * JC_TOP_HISTORY_LEN * sizeof(float));
        printf("figure: top's history for 300 GPU processes: %zu KiB, was %zu KiB with a full ring per numeric key\n",
               bytes / 1024, full / 1024);
        /* The short ring holds the last 128 samples: older ones NAN. */
        assert_true(jc_top_history_get(h, "process.1000.cpu", 200, v));
        assert_true(isnan(v[200 - 129]));
        assert_float_equal(v[200 - 128], 72.0, 1e-6);
        assert_float_equal(v[199], 199.0, 1e-6);
        /* A graph asks for 300: the ring grows, keeping what it had, and
         * fills as samples come. */
        jc_top_history_reserve(h, "process.1000.cpu", 300);
        assert_true(jc_top_history_get(h, "process.1000.cpu", 200, v));
        assert_true(isnan(v[200 - 129]));
        assert_float_equal(v[200 - 128], 72.0, 1e-6);
        assert_float_equal(v[199], 199.0, 1e-6);
        for (unsigned i = 200; i < 500; i++)
                feed_processes(h, 1, i);
        assert_true(jc_top_history_get(h, "process.1000.cpu", 300, v));
        assert_float_equal(v[0], 200.0, 1e-6);
        assert_float_equal(v[299], 499.0, 1e-6);
        /* The processes that ended are dropped after their short ring. */
        assert_false(jc_top_history_get(h, "process.1001.cpu", 1, v));
        assert_int_equal(jc_top_history_bytes(h, NULL), (300 + 3 * JC_TOP_PROCESS_HISTORY_LEN + 2 * JC_TOP_HISTORY_LEN)
                                                                * sizeof(float));
        jc_top_history_free(h);
}

static void test_squash(void **state)
{
        (void) state;
        /* Runs of 2, the newest complete: the odd oldest value is left
         * out; NANs are left out of a mean, a run of NANs is NAN. */
        double in[7] = { 99, 10, 20, NAN, 40, NAN, NAN }, out[3];
        jc_top_history_squash(in, 7, 2, out);
        assert_float_equal(out[0], 15, 1e-9);
        assert_float_equal(out[1], 40, 1e-9);
        assert_true(isnan(out[2]));
}

static void test_cells(void **state)
{
        (void) state;
        /* Braille: two samples, four dots a row, filled from the bottom. */
        double full_half[2] = { 100, 50 }, none[2] = { 0, NAN }, tiny[2] = { 0.1, 0 };
        /* 2 rows: 100 fills 8 dots, 50 fills 4 (the bottom row). */
        assert_int_equal(jc_graph_cell(JC_GRAPH_BRAILLE, full_half, 0, 2, 100), 0x28ff); /* ⣿ */
        assert_int_equal(jc_graph_cell(JC_GRAPH_BRAILLE, full_half, 1, 2, 100), 0x2847); /* ⡇ */
        assert_int_equal(jc_graph_cell(JC_GRAPH_BRAILLE, none, 0, 2, 100), ' ');
        /* A load above 0 shows one dot, not nothing. */
        assert_int_equal(jc_graph_cell(JC_GRAPH_BRAILLE, tiny, 0, 2, 100), 0x2840); /* ⡀ */
        /* Values above the scale are the scale. */
        double over[2] = { 500, 500 };
        assert_int_equal(jc_graph_cell(JC_GRAPH_BRAILLE, over, 1, 2, 100), 0x28ff);
        /* Blocks: eighths of one sample. */
        double half[1] = { 50 };
        assert_int_equal(jc_graph_cell(JC_GRAPH_BLOCK, half, 0, 1, 100), 0x2584); /* ▄ */
        assert_int_equal(jc_graph_cell(JC_GRAPH_BLOCK, half, 0, 2, 100), 0x2588); /* █ */
        assert_int_equal(jc_graph_cell(JC_GRAPH_BLOCK, half, 1, 2, 100), ' ');
        /* ASCII: '|' a full row, '.' part of one. */
        assert_int_equal(jc_graph_cell(JC_GRAPH_ASCII, half, 0, 2, 100), '|');
        assert_int_equal(jc_graph_cell(JC_GRAPH_ASCII, half, 0, 3, 100), '|');
        assert_int_equal(jc_graph_cell(JC_GRAPH_ASCII, half, 1, 3, 100), '.');
        assert_int_equal(jc_graph_per_cell(JC_GRAPH_BRAILLE), 2);
        assert_int_equal(jc_graph_per_cell(JC_GRAPH_BLOCK), 1);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_history),
                cmocka_unit_test(test_process_rings),
                cmocka_unit_test(test_squash),
                cmocka_unit_test(test_cells),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
