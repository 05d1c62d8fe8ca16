/* RAM, GPU-shared memory, lfb and IRAM on each board; swap traffic from
 * /proc/vmstat. */
#include <math.h>
#include <unistd.h>

#include "fixture.h"
#include "memory.h"

static const jd_memory_sample *read_board(const char *board, jd_sysroot **sr, jd_memory_reader **r)
{
        *sr = fixture_open(board);
        *r = jd_memory_reader_new(*sr);
        return jd_memory_reader_sample(*r);
}

static void test_agx_orin(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_memory_reader *r;
        const jd_memory_sample *m = read_board("agx-orin-jp62", &sr, &r);
        assert_int_equal(m->total.value, 64302080);
        assert_int_equal(m->free.value, 58234880);
        assert_int_equal(m->available.value, 60012544);
        assert_int_equal(m->buffers.value, 98304);
        assert_int_equal(m->cached.value, 2306048 + 143360);
        assert_int_equal(m->used.value, 64302080 - 58234880 - 98304 - 2306048);
        assert_false(m->shared.present); /* NvMapMemUsed 0: the sampler uses the nvmap total */
        assert_int_equal(m->lfb.value, 181 + 702 + 13321);
        assert_false(m->iram_total.present);
        jd_memory_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_nano(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_memory_reader *r;
        const jd_memory_sample *m = read_board("nano-jp46", &sr, &r);
        assert_int_equal(m->total.value, 4059136);
        assert_int_equal(m->shared.value, 471460);
        assert_int_equal(m->lfb.value, 230 + 150);
        assert_int_equal(m->iram_total.value, 252);
        assert_int_equal(m->iram_used.value, 0);
        jd_memory_reader_free(r);
        jd_sysroot_free(sr);

        m = read_board("xavier-nx-jp51", &sr, &r);
        assert_int_equal(m->shared.value, 614400);
        jd_memory_reader_free(r);
        jd_sysroot_free(sr);

        m = read_board("x86-pc", &sr, &r);
        assert_int_equal(m->total.value, 16225104);
        assert_int_equal(m->used.value, 16225104 - 9437184 - 262144 - 3145728);
        assert_false(m->shared.present);
        jd_memory_reader_free(r);
        jd_sysroot_free(sr);
}

/* pswpin/pswpout pages times the page size, in KiB (the fixtures'
 * <board>.expected.md: 4 KiB pages); read only when asked (the sampler
 * asks at the slow tier's rate), kept until the next time. */
static void test_swap_traffic(void **state)
{
        (void) state;
        uint64_t page_kib = (uint64_t) sysconf(_SC_PAGESIZE) / 1024;
        static const struct {
                const char *board;
                uint64_t pages_in, pages_out;
        } cases[] = {
                { "agx-orin-jp62", 360, 1440 }, { "orin-nano-jp62", 84, 336 }, { "xavier-nx-jp51", 144, 576 },
                { "nano-jp46", 0, 0 },          { "x86-pc", 5120, 6144 },      { "agx-thor-jp71", 0, 0 },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                jd_sysroot *sr;
                jd_memory_reader *r;
                const jd_memory_sample *m = read_board(cases[i].board, &sr, &r);
                assert_false(m->swap_in.present); /* not read with meminfo */
                jd_memory_reader_sample_swap_traffic(r);
                m = jd_memory_reader_sample(r);
                assert_true(m->swap_in.present && m->swap_out.present);
                assert_int_equal(m->swap_in.value, cases[i].pages_in * page_kib);
                assert_int_equal(m->swap_out.value, cases[i].pages_out * page_kib);
                jd_memory_reader_free(r);
                jd_sysroot_free(sr);
        }
}

static void test_parse_vmstat(void **state)
{
        (void) state;
        uint64_t in = 0, out = 0;
        assert_true(jd_parse_vmstat_swap("nr_free_pages 5\npswpin 12\npswpout 34\nswap_ra 7\n", &in, &out));
        assert_int_equal(in, 12);
        assert_int_equal(out, 34);
        /* swap_ra and friends are other counters; one of the two missing is no reading */
        assert_false(jd_parse_vmstat_swap("swap_ra 7\npswpout 34\n", &in, &out));
        assert_false(jd_parse_vmstat_swap("pswpin x\npswpout 34\n", &in, &out));
        assert_false(jd_parse_vmstat_swap("pswpin 1 2\npswpout 34\n", &in, &out));
        assert_false(jd_parse_vmstat_swap("", &in, &out));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_agx_orin),
                cmocka_unit_test(test_nano),
                cmocka_unit_test(test_swap_traffic),
                cmocka_unit_test(test_parse_vmstat),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
