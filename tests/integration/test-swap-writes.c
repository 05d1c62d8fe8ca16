/* Memory.CreateSwap / RemoveSwap with the fake mkswap, swapon and swapoff:
 * the file, its mode and size, the tools run, /proc/swaps and /etc/fstab
 * before and after (byte for byte), the size bounds, Busy, FileNotFound,
 * polkit's manage-swap (python-dbusmock's polkitd), and the undo when a
 * step fails. */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "testbus.h"

#define SWAP_PATH "/var/lib/jetsond/swap/swapfile"
#define MIB (UINT64_C(1) << 20)

static const char *const ALLOW_SWAP[] = { JD_ACTION_MANAGE_SWAP, NULL };
static const char *const ALL_BUT_SWAP[] = { JD_ACTION_SET_FAN, JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_JETSON_CLOCKS,
                                            JD_ACTION_DROP_CACHES, JD_ACTION_READ_SERIAL, NULL };

#define call(method, ...) testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_MEMORY, method, __VA_ARGS__)

static char *swap_host_path(testbus *tb)
{
        return g_build_filename(tb->root, SWAP_PATH, NULL);
}

/* The Swaps property as "path on_boot" lines. */
static char *swaps_property(void)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        if (sd_bus_get_property(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_MEMORY, "Swaps", &e, &reply,
                                "a(ssttib)") < 0)
                fail_msg("Swaps: %s", e.message);
        GString *out = g_string_new("");
        assert_true(sd_bus_message_enter_container(reply, 'a', "(ssttib)") > 0);
        const char *path, *type;
        uint64_t size, used;
        int32_t prio;
        int boot;
        while (sd_bus_message_read(reply, "(ssttib)", &path, &type, &size, &used, &prio, &boot) > 0)
                g_string_append_printf(out, "%s %s %d\n", path, type, boot);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return g_string_free(out, FALSE);
}

static void test_create_and_remove(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "xavier-nx-jp51", ALLOW_SWAP, NULL);
        g_autofree char *fstab_before = testbus_root_file(tb, "etc/fstab");

        g_autofree char *err = call("CreateSwap", "tb", 64 * MIB, 1);
        assert_string_equal(err, "");
        g_autofree char *host = swap_host_path(tb);
        struct stat st;
        assert_int_equal(stat(host, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_int_equal(st.st_size, 64 * MIB);
        /* Allocated, not sparse: swapon refuses files with holes. */
        assert_true((uint64_t) st.st_blocks * 512 >= 64 * MIB);
        g_autofree char *calls = testbus_root_file(tb, ".fake/calls.log");
        assert_string_equal(calls, "mkswap " SWAP_PATH "\nswapon " SWAP_PATH "\n");
        g_autofree char *fstab_after = testbus_root_file(tb, "etc/fstab");
        g_autofree char *fstab_expected = g_strconcat(fstab_before, SWAP_PATH " none swap sw 0 0\n", NULL);
        assert_string_equal(fstab_after, fstab_expected);
        g_autofree char *swaps = swaps_property();
        assert_non_null(strstr(swaps, SWAP_PATH " file 1\n"));
        assert_non_null(strstr(swaps, "/swfile file 1\n"));     /* the board's own, untouched */

        /* Only one: a second one is Busy and changes nothing. */
        g_autofree char *busy = call("CreateSwap", "tb", 128 * MIB, 0);
        assert_string_equal(busy, JD_ERROR_BUSY);
        assert_int_equal(stat(host, &st), 0);
        assert_int_equal(st.st_size, 64 * MIB);

        g_autofree char *err2 = call("RemoveSwap", "");
        assert_string_equal(err2, "");
        assert_int_equal(access(host, F_OK), -1);
        g_autofree char *calls2 = testbus_root_file(tb, ".fake/calls.log");
        assert_string_equal(calls2, "mkswap " SWAP_PATH "\nswapon " SWAP_PATH "\nswapoff " SWAP_PATH "\n");
        g_autofree char *fstab_final = testbus_root_file(tb, "etc/fstab");
        assert_string_equal(fstab_final, fstab_before);
        g_autofree char *swaps2 = swaps_property();
        assert_null(strstr(swaps2, SWAP_PATH));
        assert_non_null(strstr(swaps2, "/swfile file 1\n"));

        g_autofree char *gone = call("RemoveSwap", "");
        assert_string_equal(gone, SD_BUS_ERROR_FILE_NOT_FOUND);
        testbus_stop_cleanly(tb);
}

/* An fstab with more swap lines than a sample holds swaps (JD_MAX_SWAPS):
 * the new one, appended after all of them, is still reported on boot. */
static void test_create_with_full_fstab(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "xavier-nx-jp51", ALLOW_SWAP, NULL);
        GString *fstab = g_string_new("/dev/root / ext4 defaults 0 1\n");
        for (int i = 0; i < 100; i++)
                g_string_append_printf(fstab, "/swap%d none swap sw 0 0\n", i);
        g_autofree char *path = g_build_filename(tb->root, "etc/fstab", NULL);
        assert_true(g_file_set_contents(path, fstab->str, (gssize) fstab->len, NULL));
        g_autofree char *err = call("CreateSwap", "tb", 64 * MIB, 1);
        assert_string_equal(err, "");
        g_autofree char *after = testbus_root_file(tb, "etc/fstab");
        g_autofree char *expected = g_strconcat(fstab->str, SWAP_PATH " none swap sw 0 0\n", NULL);
        assert_string_equal(after, expected);
        g_autofree char *swaps = swaps_property();
        if (!strstr(swaps, SWAP_PATH " file 1\n"))
                fail_msg("not on boot after 100 other swap lines:\n%s", swaps);
        g_string_free(fstab, TRUE);
}

static void test_create_without_boot_leaves_fstab(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "xavier-nx-jp51", ALLOW_SWAP, NULL);
        g_autofree char *fstab_before = testbus_root_file(tb, "etc/fstab");
        g_autofree char *err = call("CreateSwap", "tb", 64 * MIB, 0);
        assert_string_equal(err, "");
        g_autofree char *fstab_after = testbus_root_file(tb, "etc/fstab");
        assert_string_equal(fstab_after, fstab_before);
        g_autofree char *swaps = swaps_property();
        assert_non_null(strstr(swaps, SWAP_PATH " file 0\n"));
        testbus_stop_cleanly(tb);
}

/* Checked before polkit (which allows here): nothing runs. */
static void test_size_bounds(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "xavier-nx-jp51", ALLOW_SWAP, NULL);
        const uint64_t page = (uint64_t) sysconf(_SC_PAGESIZE);
        const uint64_t bad[] = { 0, 64 * MIB - page, 64 * MIB + 1, UINT64_C(1) << 62, UINT64_MAX };
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
                g_autofree char *err = call("CreateSwap", "tb", bad[i], 1);
                assert_string_equal(err, SD_BUS_ERROR_INVALID_ARGS);
        }
        g_autofree char *host = swap_host_path(tb);
        assert_int_equal(access(host, F_OK), -1);
        g_autofree char *calls = testbus_root_file(tb, ".fake/calls.log");
        assert_string_equal(calls, "<missing>");
        testbus_stop_cleanly(tb);
}

static void test_denied(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "xavier-nx-jp51", ALL_BUT_SWAP, NULL);
        g_autofree char *fstab_before = testbus_root_file(tb, "etc/fstab");
        g_autofree char *err = call("CreateSwap", "tb", 64 * MIB, 1);
        assert_string_equal(err, SD_BUS_ERROR_ACCESS_DENIED);
        g_autofree char *host = swap_host_path(tb);
        assert_int_equal(access(host, F_OK), -1);

        /* A file that exists (made by hand here) is not removed either. */
        g_autofree char *dir = g_path_get_dirname(host);
        assert_int_equal(g_mkdir_with_parents(dir, 0700), 0);
        fixture_write_str(tb->root, "var/lib/jetsond/swap/swapfile", "x");
        g_autofree char *err2 = call("RemoveSwap", "");
        assert_string_equal(err2, SD_BUS_ERROR_ACCESS_DENIED);
        assert_int_equal(access(host, F_OK), 0);

        g_autofree char *calls = testbus_root_file(tb, ".fake/calls.log");
        assert_string_equal(calls, "<missing>");
        g_autofree char *fstab_after = testbus_root_file(tb, "etc/fstab");
        assert_string_equal(fstab_after, fstab_before);
        testbus_stop_cleanly(tb);
}

/* swapon fails: the tool's message comes back and the file goes. */
static void test_failed_swapon_is_undone(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "xavier-nx-jp51", ALLOW_SWAP, NULL);
        fixture_write_str(tb->root, ".fake/swapon.fail", "swapon: " SWAP_PATH ": swapon failed: Operation not permitted\n");
        g_autofree char *fstab_before = testbus_root_file(tb, "etc/fstab");
        g_autofree char *message = NULL;
        g_autofree char *err = testbus_call(&message, JD_OBJECT_PATH, JD_IFACE_MEMORY, "CreateSwap", "tb", 64 * MIB, 1);
        assert_string_equal(err, JD_ERROR_FAILED);
        assert_non_null(strstr(message, "Operation not permitted"));
        g_autofree char *host = swap_host_path(tb);
        assert_int_equal(access(host, F_OK), -1);
        g_autofree char *fstab_after = testbus_root_file(tb, "etc/fstab");
        assert_string_equal(fstab_after, fstab_before);
        testbus_stop_cleanly(tb);
}

/* The fstab cannot be rewritten (here: it is a directory): the swap that
 * is already on is turned off again and the file goes. */
static void test_failed_fstab_is_undone(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "xavier-nx-jp51", ALLOW_SWAP, NULL);
        g_autofree char *fstab = g_build_filename(tb->root, "etc/fstab", NULL);
        assert_int_equal(unlink(fstab), 0);
        assert_int_equal(mkdir(fstab, 0755), 0);
        g_autofree char *err = call("CreateSwap", "tb", 64 * MIB, 1);
        assert_string_equal(err, JD_ERROR_FAILED);
        g_autofree char *calls = testbus_root_file(tb, ".fake/calls.log");
        assert_string_equal(calls, "mkswap " SWAP_PATH "\nswapon " SWAP_PATH "\nswapoff " SWAP_PATH "\n");
        g_autofree char *host = swap_host_path(tb);
        assert_int_equal(access(host, F_OK), -1);
        g_autofree char *swaps = swaps_property();
        assert_null(strstr(swaps, SWAP_PATH));
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_create_and_remove, testbus_teardown),
                cmocka_unit_test_teardown(test_create_with_full_fstab, testbus_teardown),
                cmocka_unit_test_teardown(test_create_without_boot_leaves_fstab, testbus_teardown),
                cmocka_unit_test_teardown(test_size_bounds, testbus_teardown),
                cmocka_unit_test_teardown(test_denied, testbus_teardown),
                cmocka_unit_test_teardown(test_failed_swapon_is_undone, testbus_teardown),
                cmocka_unit_test_teardown(test_failed_fstab_is_undone, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
