/* The compact form's key list (src/bus/compact_keys.c): its values, NaN
 * for what a sample lacks, and when a new list and generation come. */
#include <glib.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "compact_keys.h"

static jd_value num(const char *key, char type, double v)
{
        jd_value x = { .type = (jd_value_type) type };
        g_strlcpy(x.key, key, sizeof(x.key));
        switch (type) {
        case 'b': x.b = v != 0; break;
        case 'u': x.u = (uint32_t) v; break;
        case 'i': x.i = (int32_t) v; break;
        case 't': x.t = (uint64_t) v; break;
        case 'd': x.d = v; break;
        }
        return x;
}

static jd_value str(const char *key, const char *s)
{
        jd_value x = { .type = JD_VALUE_STRING };
        g_strlcpy(x.key, key, sizeof(x.key));
        g_strlcpy(x.s, s, sizeof(x.s));
        return x;
}

static double at(const jd_compact *c, const char *key)
{
        for (guint i = 0; i < c->keys->len; i++)
                if (strcmp(g_ptr_array_index(c->keys, i), key) == 0)
                        return g_array_index(c->values, double, i);
        fail_msg("%s is not in the list", key);
        return 0;
}

static void test_compact_keys(void **state)
{
        (void) state;
        jd_compact c;
        jd_compact_init(&c);
        jd_value a[] = { num("cpu.load", 'd', 12.5), num("cpu.0.online", 'b', 1), str("cpu.0.governor", "ondemand"),
                         num("ram.total", 't', 9007199254740992.0), num("gpu.freq", 'u', 1300500), num("k5", 'i', -2),
                         num("k6", 'd', 6), num("k7", 'd', 7) };
        jd_values l = { .items = a, .n = G_N_ELEMENTS(a) };
        const jd_values *lists[] = { &l };
        assert_true(jd_compact_update(&c, lists, 1));
        uint32_t gen = c.generation;
        assert_true(gen != 0);
        /* Numeric keys only, in the sample's order; booleans as 0/1. */
        assert_int_equal(c.keys->len, 7);
        assert_string_equal(g_ptr_array_index(c.keys, 0), "cpu.load");
        assert_string_equal(g_ptr_array_index(c.keys, 2), "ram.total");
        assert_true(at(&c, "cpu.load") == 12.5 && at(&c, "cpu.0.online") == 1 &&
                    at(&c, "ram.total") == 9007199254740992.0 && at(&c, "gpu.freq") == 1300500 && at(&c, "k5") == -2);

        /* The same keys with new values: same list. */
        a[0].d = 50;
        assert_false(jd_compact_update(&c, lists, 1));
        assert_int_equal(c.generation, gen);
        assert_true(at(&c, "cpu.load") == 50);

        /* The same keys in another order (tiers arrive in any order):
         * same list, values where their keys are. */
        jd_value swapped[] = { a[6], a[5], a[4], a[3], a[2], a[1], a[0], a[7] };
        l.items = swapped;
        assert_false(jd_compact_update(&c, lists, 1));
        assert_true(at(&c, "cpu.load") == 50 && at(&c, "k6") == 6 && at(&c, "k7") == 7);

        /* One key gone (a gated GPU): NaN, same list. */
        jd_value gated[] = { a[0], a[1], a[2], a[3], a[5], a[6], a[7] };
        l.items = gated, l.n = G_N_ELEMENTS(gated);
        assert_false(jd_compact_update(&c, lists, 1));
        assert_int_equal(c.generation, gen);
        assert_int_equal(c.keys->len, 7);
        assert_true(isnan(at(&c, "gpu.freq")));

        /* A new key (a process appeared): a new list, a new generation,
         * the old keys that are gone left out. */
        jd_value grown[] = { a[0], a[1], a[2], a[3], a[5], a[6], a[7], num("process.9.rss", 't', 10) };
        l.items = grown, l.n = G_N_ELEMENTS(grown);
        assert_true(jd_compact_update(&c, lists, 1));
        assert_true(c.generation != gen);
        gen = c.generation;
        assert_int_equal(c.keys->len, 7);
        assert_true(at(&c, "process.9.rss") == 10);

        /* A quarter of the list gone is kept; more makes a new list. */
        jd_value fewer[] = { a[0], a[1], a[3], a[5], a[6] };   /* 2 of 7 gone */
        l.items = fewer, l.n = G_N_ELEMENTS(fewer);
        assert_true(jd_compact_update(&c, lists, 1));
        assert_true(c.generation != gen);
        assert_int_equal(c.keys->len, 5);
        gen = c.generation;
        jd_value one_less[] = { a[0], a[1], a[3], a[5] };        /* 1 of 5 gone */
        l.items = one_less, l.n = G_N_ELEMENTS(one_less);
        assert_false(jd_compact_update(&c, lists, 1));
        assert_int_equal(c.generation, gen);
        assert_true(isnan(at(&c, "k6")));
        jd_compact_clear(&c);
}

/* Values as values.c builds them carry what their key was spelled from;
 * the list matches them by that, and by the key for one it has not seen. */
static jd_value spelled(const char *fmt, uint64_t instance, const char *key, double v)
{
        jd_value x = num(key, 'd', v);
        x.fmt = fmt;
        x.num = instance;
        return x;
}

static void test_compact_spelled_keys(void **state)
{
        (void) state;
        static const char load[] = "cpu.%u.load", freq[] = "cpu.%u.freq";
        jd_compact c;
        jd_compact_init(&c);
        jd_value a[] = { spelled(load, 0, "cpu.0.load", 10), spelled(load, 1, "cpu.1.load", 11),
                         spelled(freq, 0, "cpu.0.freq", 20), spelled(freq, 1, "cpu.1.freq", 21) };
        jd_values l = { .items = a, .n = G_N_ELEMENTS(a) };
        const jd_values *lists[] = { &l };
        assert_true(jd_compact_update(&c, lists, 1));
        uint32_t gen = c.generation;
        /* Same spelling, new values, in another order: each where its key is. */
        jd_value b[] = { spelled(load, 1, "cpu.1.load", 41), spelled(load, 0, "cpu.0.load", 40),
                         spelled(freq, 1, "cpu.1.freq", 31), spelled(freq, 0, "cpu.0.freq", 30) };
        l.items = b;
        for (int round = 0; round < 2; round++) {    /* learnt positions, then matched by them */
                assert_false(jd_compact_update(&c, lists, 1));
                assert_int_equal(c.generation, gen);
                assert_true(at(&c, "cpu.0.load") == 40 && at(&c, "cpu.1.load") == 41 &&
                            at(&c, "cpu.0.freq") == 30 && at(&c, "cpu.1.freq") == 31);
        }
        /* The same keys built by hand (no spelling): matched by name. */
        jd_value hand[] = { num("cpu.0.load", 'd', 50), num("cpu.1.load", 'd', 51), num("cpu.0.freq", 'd', 60),
                            num("cpu.1.freq", 'd', 61) };
        l.items = hand;
        assert_false(jd_compact_update(&c, lists, 1));
        assert_true(at(&c, "cpu.0.load") == 50 && at(&c, "cpu.1.freq") == 61);
        /* Another instance of a known format is another key: a new list. */
        jd_value more[] = { b[1], b[0], b[3], b[2], spelled(load, 2, "cpu.2.load", 12) };
        l.items = more, l.n = G_N_ELEMENTS(more);
        assert_true(jd_compact_update(&c, lists, 1));
        assert_true(c.generation != gen);
        assert_true(at(&c, "cpu.2.load") == 12 && at(&c, "cpu.0.load") == 40);
        jd_compact_clear(&c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_compact_keys),
                cmocka_unit_test(test_compact_spelled_keys),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
