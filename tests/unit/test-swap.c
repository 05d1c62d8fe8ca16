/* Swap devices: zram recognised by name, file swap with its fstab entry. */
#include <string.h>

#include "fixture.h"
#include "swap.h"

static const jd_swap_sample *read_board(const char *board, jd_sysroot **sr, jd_swap_reader **r)
{
        *sr = fixture_open(board);
        *r = jd_swap_reader_new(*sr);
        return jd_swap_reader_sample(*r);
}

static void test_boards(void **state)
{
        (void) state;
        static const struct {
                const char *board;
                size_t n_zram;
        } cases[] = { { "agx-orin-jp62", 12 }, { "orin-nano-jp62", 6 }, { "xavier-nx-jp51", 6 }, { "nano-jp46", 4 } };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                jd_sysroot *sr;
                jd_swap_reader *r;
                const jd_swap_sample *s = read_board(cases[i].board, &sr, &r);
                size_t zram = 0;
                for (size_t k = 0; k < s->n; k++) {
                        if (strcmp(s->swaps[k].type, "zram") == 0) {
                                zram++;
                                assert_true(strncmp(s->swaps[k].path, "/dev/zram", 9) == 0);
                                /* nvzramconfig.service is enabled on these boards */
                                assert_true(s->swaps[k].on_boot);
                        }
                }
                assert_int_equal(zram, cases[i].n_zram);
                jd_swap_reader_free(r);
                jd_sysroot_free(sr);
        }
}

static void test_file_and_partition(void **state)
{
        (void) state;
        jd_sysroot *sr;
        jd_swap_reader *r;
        const jd_swap_sample *s = read_board("xavier-nx-jp51", &sr, &r);
        const jd_swap *f = NULL;
        for (size_t k = 0; k < s->n; k++)
                if (strcmp(s->swaps[k].path, "/swfile") == 0)
                        f = &s->swaps[k];
        assert_non_null(f);
        assert_string_equal(f->type, "file");
        assert_int_equal(f->size_bytes, 2097148ull * 1024);
        assert_int_equal(f->used_bytes, 0);
        assert_int_equal(f->priority, -2);
        assert_true(f->on_boot);
        jd_swap_reader_free(r);
        jd_sysroot_free(sr);

        s = read_board("x86-pc", &sr, &r);
        assert_int_equal(s->n, 1);
        assert_string_equal(s->swaps[0].path, "/dev/nvme0n1p3");
        assert_string_equal(s->swaps[0].type, "partition");
        assert_int_equal(s->swaps[0].size_bytes, 16777212ull * 1024);
        assert_true(s->swaps[0].on_boot);
        jd_swap_reader_free(r);
        jd_sysroot_free(sr);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_boards),
                cmocka_unit_test(test_file_and_partition),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
