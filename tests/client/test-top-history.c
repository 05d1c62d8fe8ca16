/* jetsonctl top's history and graph characters (client/top_history.c,
 * client/top_graph.c), without a bus or a terminal. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <glib.h>

#include "top_graph.h"
#include "top_history.h"

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
                cmocka_unit_test(test_squash),
                cmocka_unit_test(test_cells),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
