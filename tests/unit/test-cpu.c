/* CPU on every board: cores and their online state, frequencies, and
 * loads from two prepared /proc/stat snapshots. The snapshots are built
 * so that averaging per-core loads gives a different (wrong) aggregate. */
#include <glib.h>
#include <math.h>
#include <stdio.h>

#include "cpu.h"
#include "fixture.h"

typedef struct {
        const char *board;
        size_t n_cores;
        double aggregate;
        double loads[12];    /* online cores in order; -1 = offline */
        uint64_t cur[12];
} cpu_case;

static const cpu_case cases[] = {
        { "agx-orin-jp62", 12, 55.0,
          { 55, 85, 90, 15, 65, 0, 0, 100, 80, 95, 20, 95 },
          { 729600, 1190400, 2201600, 1497600, 729600, 2201600, 960000, 1036800, 729600, 1344000, 2201600, 1728000 } },
        { "orin-nano-jp62", 6, 65.0, { 90, 0, 100, 80, 45, 95 },
          { 729600, 1344000, 960000, 1190400, 729600, 1344000 } },
        { "xavier-nx-jp51", 6, 60.0, { 100, 0, 90, 70, -1, -1 }, { 1420800, 1190400, 1267200, 1420800 } },
        { "nano-jp46", 4, 55.0, { 15, 100, 0, 80 }, { 1326000, 1326000, 1326000, 1326000 } },
        { "x86-pc", 8, 55.0, { 50, 65, 100, 0, 20, 30, 100, 40 },
          { 1900123, 800021, 2100456, 799987, 3400002, 1201345, 900000, 4000111 } },
};

static void test_loads_and_freqs(void **state)
{
        (void) state;
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const cpu_case *c = &cases[i];
                char *dir;
                jd_sysroot *sr = fixture_copy(c->board, &dir);
                jd_cpu_reader *r = jd_cpu_reader_new(sr);
                const jd_cpu_sample *s = jd_cpu_reader_sample(r);
                assert_int_equal(s->n_cores, c->n_cores);
                assert_false(s->load.present); /* one reading: no interval yet */

                char name[128];
                snprintf(name, sizeof(name), "proc-stat/%s-b", c->board);
                g_autofree char *b = fixture_read_aux(name);
                fixture_write_str(dir, "proc/stat", b);
                s = jd_cpu_reader_sample(r);
                assert_true(s->load.present);
                if (fabs(s->load.value - c->aggregate) > 1e-6)
                        fail_msg("%s: aggregate %f, want %f", c->board, s->load.value, c->aggregate);
                for (size_t k = 0; k < c->n_cores; k++) {
                        const jd_cpu_core *core = &s->cores[k];
                        assert_int_equal(core->id, k);
                        if (c->loads[k] < 0) {
                                assert_false(core->online);
                                assert_false(core->load.present);
                                assert_false(core->cur_khz.present);
                                continue;
                        }
                        assert_true(core->online);
                        assert_dbl_equal(core->load.value, c->loads[k]);
                        assert_int_equal(core->cur_khz.value, c->cur[k]);
                }
                jd_cpu_reader_free(r);
                fixture_remove_copy(sr, dir);
        }
}

static void test_limits(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("agx-orin-jp62");
        jd_cpu_reader *r = jd_cpu_reader_new(sr);
        const jd_cpu_sample *s = jd_cpu_reader_last(r);
        const jd_cpu_core *c = &s->cores[11];
        assert_int_equal(c->id, 11); /* numeric order: cpu2 before cpu10 */
        assert_int_equal(c->min_khz.value, 729600);
        assert_int_equal(c->max_khz.value, 2201600);
        assert_int_equal(c->hw_min_khz.value, 115200);
        assert_int_equal(c->hw_max_khz.value, 2201600);
        assert_string_equal(c->governor, "schedutil");
        assert_int_equal(c->n_idle, 2);
        assert_string_equal(c->idle[0].name, "WFI");
        assert_string_equal(c->idle[1].name, "c7");
        assert_false(c->idle[1].disabled.value);
        jd_cpu_reader_free(r);
        jd_sysroot_free(sr);
}

/* A core taken offline (nvpmodel parks cores) and brought back. */
static void test_hotplug(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("orin-nano-jp62", &dir);
        jd_cpu_reader *r = jd_cpu_reader_new(sr);
        jd_cpu_reader_sample(r);
        fixture_write_str(dir, "sys/devices/system/cpu/cpu5/online", "0\n");
        const jd_cpu_sample *s = jd_cpu_reader_sample(r);
        assert_false(s->cores[5].online);
        assert_false(s->cores[5].cur_khz.present);
        assert_false(s->load.present); /* history reset on an online-set change */
        fixture_write_str(dir, "sys/devices/system/cpu/cpu5/online", "1\n");
        s = jd_cpu_reader_sample(r);
        assert_true(s->cores[5].online);
        assert_int_equal(s->cores[5].cur_khz.value, 1344000);
        jd_cpu_reader_free(r);
        fixture_remove_copy(sr, dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_loads_and_freqs),
                cmocka_unit_test(test_limits),
                cmocka_unit_test(test_hotplug),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
