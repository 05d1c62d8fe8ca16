/* The power mode still running after SetDefaultMode (NVPModel.Mode in
 * introspection/): SetDefaultMode removes nvpmodel's status file so the new
 * default applies at boot, and notes the mode it named in /run/jetsond, so
 * Mode stays known until the reboot, also across a restart of jetsond; a
 * status file written after the note (nvpmodel run by hand) supersedes it. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "testbus.h"

/* Orin Nano: mode 1 (25W) current and default. */
#define BOARD "orin-nano-jp62"
#define NVPMODEL_STATUS "var/lib/nvpmodel/status"
#define NOTE "run/jetsond/nvpmodel-running"

/* Mode as jetsond publishes it, once it equals WANT (at most 30 s: the
 * slow tier looks at the files once a second). */
static void wait_mode(uint32_t want)
{
        sd_bus *bus = testbus_connect();
        uint32_t mode = 0;
        for (int i = 0; i < 300; i++) {
                mode = testbus_get_u32(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode");
                if (mode == want)
                        break;
                usleep(100000);
        }
        sd_bus_flush_close_unref(bus);
        assert_int_equal(mode, want);
}

static char *mode_name(void)
{
        sd_bus *bus = testbus_connect();
        char *name = testbus_get_string(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "ModeName");
        sd_bus_flush_close_unref(bus);
        return name;
}

static void write_root_file(testbus *tb, const char *rel, const char *text)
{
        g_autofree char *path = g_build_filename(tb->root, rel, NULL);
        assert_true(g_file_set_contents(path, text, -1, NULL));
}

static void remove_root_file(testbus *tb, const char *rel)
{
        g_autofree char *path = g_build_filename(tb->root, rel, NULL);
        assert_int_equal(unlink(path), 0);
}

static void test_mode_known_until_reboot(void **state)
{
        const char *const allowed[] = { JD_ACTION_SET_NVPMODEL, NULL };
        testbus *tb = testbus_start(state, BOARD, NULL);
        testbus_start_polkit(tb, allowed);
        wait_mode(1);

        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "u", 2);
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status, "<missing>");
        g_autofree char *note = testbus_root_file(tb, NOTE);
        assert_string_equal(note, "pmode:0001\n");
        /* Still mode 1 after several looks at the files. */
        sleep(2);
        wait_mode(1);
        g_autofree char *name = mode_name();
        assert_string_equal(name, "25W");

        /* A restart of jetsond within the same boot keeps it. */
        assert_int_equal(testbus_stop_daemon(tb), 0);
        testbus_start_daemon(tb, NULL);
        wait_mode(1);

        /* A second new default: the status file is gone already, the
         * note stays. */
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "u", 0);
        g_autofree char *note2 = testbus_root_file(tb, NOTE);
        assert_string_equal(note2, "pmode:0001\n");
        wait_mode(1);
        testbus_stop_cleanly(tb);
}

static void test_status_after_the_note_wins(void **state)
{
        const char *const allowed[] = { JD_ACTION_SET_NVPMODEL, NULL };
        testbus *tb = testbus_start(state, BOARD, NULL);
        testbus_start_polkit(tb, allowed);
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "u", 2);
        wait_mode(1);

        /* nvpmodel run by hand: a new status file, newer than the note. */
        usleep(20000);
        write_root_file(tb, NVPMODEL_STATUS, "pmode:0000 fmode:quiet\n");
        wait_mode(0);
        /* Then removed by hand: the note describes an older state, so the
         * mode is unknown rather than guessed. */
        remove_root_file(tb, NVPMODEL_STATUS);
        wait_mode(UINT32_MAX);
        g_autofree char *name = mode_name();
        assert_string_equal(name, "");

        /* A new note (SetMode writes the status, SetDefaultMode notes it
         * again) makes it known again. */
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 0);
        wait_mode(0);
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "u", 1);
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status, "<missing>");
        sleep(2);
        wait_mode(0);
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_mode_known_until_reboot, testbus_teardown),
                cmocka_unit_test_teardown(test_status_after_the_note_wins, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
