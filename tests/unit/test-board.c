/* Board identity on every fake board, and the fallbacks that must never
 * fail: module from the compatible string without an EEPROM, JetPack
 * "unknown" for an L4T missing from the table, a PC with no device tree. */
#include <math.h>
#include <string.h>

#include "board.h"
#include "fixture.h"

static void test_agx_orin(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("agx-orin-jp62");
        jd_board b;
        jd_board_read(&b, sr);
        assert_true(b.is_jetson);
        assert_string_equal(b.model, "NVIDIA Jetson AGX Orin Developer Kit");
        assert_string_equal(b.part_number, "699-13701-0005-500 M.0");
        assert_string_equal(b.p_number, "p3701-0005");
        assert_string_equal(b.module, "NVIDIA Jetson AGX Orin (64GB ram)");
        assert_string_equal(b.soc, "tegra234");
        assert_string_equal(b.cuda_arch, "8.7");
        assert_string_equal(b.codename, "");
        assert_string_equal(b.board_ids, "");
        assert_string_equal(b.l4t, "36.4.3");
        assert_string_equal(b.jetpack, "6.2");
        assert_string_equal(b.kernel_release, "5.15.148-tegra");
        assert_string_equal(b.machine, "aarch64");
        assert_string_equal(b.distribution, "Ubuntu 22.04.5 LTS");
        assert_string_equal(b.cpu_model, "ARM Cortex-A78AE");
        assert_string_equal(b.serial, "1424021012345");
        assert_string_equal(jd_board_library(&b, "cuda"), "12.6.68");
        assert_string_equal(jd_board_library(&b, "cudnn"), "9.3.0.75");
        assert_string_equal(jd_board_library(&b, "tensorrt"), "10.3.0.30");
        assert_string_equal(jd_board_library(&b, "vpi"), "3.2.4");
        assert_string_equal(jd_board_library(&b, "opencv"), "4.8.0");
        assert_string_equal(jd_board_library(&b, "opencv_cuda"), "yes");
        assert_string_equal(jd_board_library(&b, "vulkan"), "1.3.204.1");
        jd_sysroot_free(sr);
}

static void test_orin_nano(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("orin-nano-jp62");
        jd_board b;
        jd_board_read(&b, sr);
        assert_string_equal(b.model, "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super");
        assert_string_equal(b.p_number, "p3767-0005");
        assert_string_equal(b.module, "NVIDIA Jetson Orin Nano (Developer kit)");
        assert_string_equal(b.soc, "tegra234");
        assert_string_equal(b.l4t, "36.4.3");
        assert_string_equal(b.jetpack, "6.2");
        jd_sysroot_free(sr);
}

static void test_xavier_nx(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("xavier-nx-jp51");
        jd_board b;
        jd_board_read(&b, sr);
        assert_string_equal(b.model, "NVIDIA Jetson Xavier NX Developer Kit");
        assert_string_equal(b.part_number, "699-13668-0000-300 B.0");
        assert_string_equal(b.p_number, "p3668-0000");
        assert_string_equal(b.module, "NVIDIA Jetson Xavier NX (Developer kit)");
        assert_string_equal(b.soc, "tegra194");
        assert_string_equal(b.cuda_arch, "7.2");
        assert_string_equal(b.codename, "Jakku");
        assert_string_equal(b.l4t, "35.3.1");
        assert_string_equal(b.jetpack, "5.1.1");
        assert_string_equal(b.cpu_model, "NVIDIA Carmel");
        assert_string_equal(b.kernel_release, "5.10.104-tegra");
        assert_string_equal(jd_board_library(&b, "opencv_cuda"), "no");
        assert_string_equal(jd_board_library(&b, "cudnn"), "8.6.0.166");
        jd_sysroot_free(sr);
}

static void test_nano(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("nano-jp46");
        jd_board b;
        jd_board_read(&b, sr);
        assert_string_equal(b.model, "NVIDIA Jetson Nano Developer Kit");
        /* No readable EEPROM: the module comes from the compatible string. */
        assert_string_equal(b.part_number, "");
        assert_string_equal(b.p_number, "p3448-0000");
        assert_string_equal(b.module, "NVIDIA Jetson Nano (4 GB ram)");
        assert_string_equal(b.board_ids, "p3448");
        assert_string_equal(b.soc, "tegra210");
        assert_string_equal(b.cuda_arch, "5.3");
        assert_string_equal(b.codename, "Porg");
        assert_string_equal(b.l4t, "32.7.1");
        assert_string_equal(b.jetpack, "4.6.1");
        assert_string_equal(b.kernel_release, "4.9.337-tegra");
        assert_string_equal(b.cpu_model, "ARM Cortex-A57");
        assert_string_equal(jd_board_library(&b, "cuda"), "10.2.300");
        assert_string_equal(jd_board_library(&b, "vulkan"), "1.1.70");
        jd_sysroot_free(sr);
}

static void test_x86_pc(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("x86-pc");
        jd_board b;
        jd_board_read(&b, sr);
        assert_false(b.is_jetson);
        assert_string_equal(b.model, "LENOVO 20L7S0ET00");
        assert_string_equal(b.module, "");
        assert_string_equal(b.soc, "");
        assert_string_equal(b.cuda_arch, "");
        assert_string_equal(b.l4t, "");
        assert_string_equal(b.jetpack, "");
        assert_string_equal(b.serial, "");
        assert_string_equal(b.machine, "x86_64");
        assert_string_equal(b.kernel_release, "6.1.0-28-amd64");
        assert_string_equal(b.distribution, "Debian GNU/Linux 12 (bookworm)");
        assert_string_equal(b.cpu_model, "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz");
        assert_null(jd_board_library(&b, "cuda"));
        assert_string_equal(jd_board_library(&b, "vulkan"), "1.3.239.0");
        jd_sysroot_free(sr);
}

/* A PC named nowhere (no DMI, or DMI's placeholders) is named by its
 * architecture; one field of DMI alone is the name. */
static void test_pc_without_dmi(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("x86-pc", &dir);
        jd_board b;
        fixture_write_str(dir, "sys/devices/virtual/dmi/id/sys_vendor", "To Be Filled By O.E.M.\n");
        jd_board_read(&b, sr);
        assert_string_equal(b.model, "20L7S0ET00");
        fixture_write_str(dir, "sys/devices/virtual/dmi/id/product_name", "System Product Name\n");
        jd_board_read(&b, sr);
        assert_string_equal(b.model, "x86_64 PC");
        fixture_unlink(dir, "sys/devices/virtual/dmi/id/sys_vendor");
        fixture_unlink(dir, "sys/devices/virtual/dmi/id/product_name");
        jd_board_read(&b, sr);
        assert_string_equal(b.model, "x86_64 PC");
        assert_false(b.is_jetson);
        fixture_remove_copy(sr, dir);
}

/* Every new BSP starts missing from the table: report its L4T, JetPack from
 * the nvidia-jetpack package if installed, else unknown. Never fail. */
static void test_unknown_l4t(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        fixture_write_str(dir, "etc/nv_tegra_release",
                          "# R36 (release), REVISION: 9.1, GCID: 1, BOARD: generic, EABI: aarch64, DATE: x\n");
        jd_board b;
        jd_board_read(&b, sr);
        assert_string_equal(b.l4t, "36.9.1");
        assert_string_equal(b.jetpack, "6.2"); /* nvidia-jetpack 6.2+b77 */

        fixture_write_str(dir, "var/lib/dpkg/status", "Package: bash\nStatus: install ok installed\nVersion: 5.1\n");
        jd_board_read(&b, sr);
        assert_string_equal(b.l4t, "36.9.1");
        assert_string_equal(b.jetpack, "");
        assert_string_equal(b.model, "NVIDIA Jetson AGX Orin Developer Kit");

        /* No release file: the l4t-core package tells; without it nothing. */
        fixture_unlink(dir, "etc/nv_tegra_release");
        fixture_write_str(dir, "var/lib/dpkg/status",
                          "Package: nvidia-l4t-core\nStatus: install ok installed\nVersion: 36.4.4-20250616085344\n");
        jd_board_read(&b, sr);
        assert_string_equal(b.l4t, "36.4.4");
        assert_string_equal(b.jetpack, "6.2.1");
        fixture_remove_copy(sr, dir);
}

/* A blank (erased) EEPROM reads 0xFF: not a part number. */
static void test_erased_eeprom(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("xavier-nx-jp51", &dir);
        char rom[256];
        memset(rom, 0xff, sizeof(rom));
        fixture_write(dir, "sys/bus/i2c/devices/0-0050/eeprom", rom, sizeof(rom));
        jd_board b;
        jd_board_read(&b, sr);
        assert_string_equal(b.part_number, "");
        assert_string_equal(b.p_number, "p3668-0000"); /* from compatible */
        assert_string_equal(b.module, "NVIDIA Jetson Xavier NX (Developer kit)");
        fixture_remove_copy(sr, dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_agx_orin),   cmocka_unit_test(test_orin_nano),
                cmocka_unit_test(test_xavier_nx),  cmocka_unit_test(test_nano),
                cmocka_unit_test(test_x86_pc), cmocka_unit_test(test_pc_without_dmi),     cmocka_unit_test(test_unknown_l4t),
                cmocka_unit_test(test_erased_eeprom),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
