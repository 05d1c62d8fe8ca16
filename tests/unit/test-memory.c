/* RAM, GPU-shared memory, lfb and IRAM on each board. */
#include <math.h>

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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_agx_orin),
                cmocka_unit_test(test_nano),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
