/* Uptime, disk and network counters on a board tree. */
#include <glib.h>

#include "fixture.h"
#include "system.h"

static void test_boards(void **state)
{
        (void) state;
        static const char *const boards[] = { "agx-orin-jp62", "orin-nano-jp62", "xavier-nx-jp51", "nano-jp46", "x86-pc" };
        for (size_t i = 0; i < G_N_ELEMENTS(boards); i++) {
                jd_sysroot *sr = fixture_open(boards[i]);
                jd_system_reader *r = jd_system_reader_new(sr);
                const jd_system_sample *s = jd_system_reader_sample(r);
                assert_int_equal(s->uptime_s.value, 12345);
                assert_true(s->disk_read_bytes.present);
                assert_true(s->disk_write_bytes.present);
                assert_true(s->net_rx_bytes.present);
                assert_true(s->disk_total_bytes.present);
                assert_true(s->disk_available_bytes.value <= s->disk_total_bytes.value);
                jd_system_reader_free(r);
                jd_sysroot_free(sr);
        }
}

/* Only whole disks count: partitions, loop and zram devices would count twice. */
static void test_counters_change(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("x86-pc", &dir);
        fixture_write_str(dir, "proc/diskstats",
                          " 259       0 nvme0n1 100 0 2000 10 50 0 4000 20 0 0 0 0 0 0 0 0 0\n"
                          " 259       1 nvme0n1p1 90 0 1800 10 40 0 3000 20 0 0 0 0 0 0 0 0 0\n"
                          "   7       0 loop0 5 0 10 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n");
        fixture_write_str(dir, "proc/net/dev",
                          "Inter-| Receive | Transmit\n face |bytes packets|bytes packets\n"
                          "    lo: 1000 10 0 0 0 0 0 0 1000 10 0 0 0 0 0 0\n"
                          "wlp2s0: 5000 50 0 0 0 0 0 0 7000 70 0 0 0 0 0 0\n");
        jd_system_reader *r = jd_system_reader_new(sr);
        const jd_system_sample *s = jd_system_reader_sample(r);
        assert_int_equal(s->disk_read_bytes.value, 2000 * 512);
        assert_int_equal(s->disk_write_bytes.value, 4000 * 512);
        assert_int_equal(s->net_rx_bytes.value, 5000);
        assert_int_equal(s->net_tx_bytes.value, 7000);
        jd_system_reader_free(r);
        fixture_remove_copy(sr, dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_boards),
                cmocka_unit_test(test_counters_change),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
