/* Hostile files (issue 17) seen through the service: jetsond on a copy of
 * a fake board takes its name and answers with FIFOs in place of its
 * config files, with a version.json nested 100 000 deep, and tells the
 * truth about an fstab line and an nvfancontrol.conf line cut short. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jetsond-dbus.h"
#include "testbus.h"

static char *root_path(testbus *tb, const char *rel)
{
        return g_build_filename(tb->root, rel, NULL);
}

static void put(testbus *tb, const char *rel, const char *text, gssize len)
{
        g_autofree char *path = root_path(tb, rel);
        unlink(path);
        g_autoptr(GError) error = NULL;
        if (!g_file_set_contents(path, text, len, &error))
                fail_msg("%s", error->message);
}

static testbus *new_board(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, "agx-orin-jp62");
        return tb;
}

static void assert_board_served(void)
{
        sd_bus *bus = testbus_connect();
        g_autofree char *model = testbus_get_string(bus, JD_OBJECT_PATH, JD_IFACE_BOARD, "Model");
        g_autofree char *l4t = testbus_get_string(bus, JD_OBJECT_PATH, JD_IFACE_BOARD, "L4T");
        assert_string_equal(model, "NVIDIA Jetson AGX Orin Developer Kit");
        assert_string_equal(l4t, "36.4.3");
        sd_bus_flush_close_unref(bus);
        testbus_must_call(JD_OBJECT_PATH, JD_IFACE_METRICS, "GetSnapshot", NULL);
}

static void test_fifos(void **state)
{
        testbus *tb = new_board(state);
        static const char *const files[] = { "etc/fstab", "etc/passwd", "etc/nvpmodel.conf", "etc/nvfancontrol.conf",
                                             "var/lib/dpkg/status", "var/lib/nvpmodel/status",
                                             "var/lib/nvfancontrol/status" };
        for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
                g_autofree char *path = root_path(tb, files[i]);
                unlink(path);
                if (mkfifo(path, 0644) != 0)
                        fail_msg("mkfifo %s", path);
        }
        uint64_t start = testbus_now_us();
        testbus_start_daemon(tb, NULL);
        uint64_t took = testbus_now_us() - start;
        /* As fast as on the plain board: nothing waits for a writer. */
        if (!testbus_daemon_wrapped() && took > 5000000)
                fail_msg("the name took %.1f s", (double) took / 1e6);
        assert_board_served();
        testbus_stop_cleanly(tb);
}

static void test_nested_version_json(void **state)
{
        testbus *tb = new_board(state);
        size_t n = 100000;
        g_autofree char *deep = g_malloc(n);
        memset(deep, '[', n);
        put(tb, "usr/local/cuda-12.6/version.json", deep, (gssize) n);
        testbus_start_daemon(tb, NULL);
        assert_board_served();
        testbus_stop_cleanly(tb);
}

/* VmHWM of PID in KiB: the most memory it ever held. */
static long peak_rss_kib(GPid pid)
{
        g_autofree char *path = g_strdup_printf("/proc/%d/status", (int) pid);
        g_autofree char *text = NULL;
        if (!g_file_get_contents(path, &text, NULL, NULL))
                return -1;
        const char *hwm = strstr(text, "\nVmHWM:");
        return hwm ? atol(hwm + 8) : -1;
}

/* A /proc/stat that goes on for 2 GiB (a sparse file after the real cpu
 * lines): jetsond reads its cpu lines and stays small. */
static void test_endless_proc_stat(void **state)
{
        testbus *tb = new_board(state);
        /* Its cpu lines only: no "intr" line says they are over. */
        g_autofree char *path = root_path(tb, "proc/stat");
        g_autofree char *text = NULL;
        assert_true(g_file_get_contents(path, &text, NULL, NULL));
        GString *cpu = g_string_new(NULL);
        for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
                if (g_str_has_prefix(l, "cpu"))
                        g_string_append_len(cpu, l, (gssize) (strchrnul(l, '\n') - l + 1));
        put(tb, "proc/stat", cpu->str, (gssize) cpu->len);
        g_string_free(cpu, TRUE);
        assert_int_equal(truncate(path, 2ll << 30), 0);
        testbus_start_daemon(tb, NULL);
        assert_board_served();
        /* A few more fast readings, each of which meets the endless file. */
        g_usleep(500000);
        long kib = peak_rss_kib(tb->daemon_pid);
        assert_true(kib > 0);
        if (!testbus_daemon_wrapped() && kib > 64 * 1024)
                fail_msg("jetsond grew to %ld MiB", kib / 1024);
        testbus_stop_cleanly(tb);
}

/* fstab(5) ignores a line with only a spec, and nvfancontrol a
 * FAN_PROFILE with no name: neither takes the next line's words. */
static void test_lines_cut_short(void **state)
{
        testbus *tb = new_board(state);
        put(tb, "etc/fstab", "/dev/root / ext4 defaults 0 1\n/dev/sda1\n/mnt/x swap sw 0 0\n", -1);
        put(tb, "proc/swaps",
            "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n/dev/sda1                               partition\t1048572\t\t0\t\t-2\n",
            -1);
        /* The board's nvfancontrol.conf is a link into etc/nvpower. */
        const char *rel = "etc/nvpower/nvfancontrol/nvfancontrol_p3701_0000.conf";
        g_autofree char *conf = testbus_root_file(tb, rel);
        assert_non_null(strstr(conf, "FAN_PROFILE quiet"));
        g_autofree char *hostile = g_strconcat(conf, "FAN_PROFILE\nphantom {\n}\n", NULL);
        put(tb, rel, hostile, -1);
        testbus_start_daemon(tb, NULL);

        sd_bus *bus = testbus_connect();
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = sd_bus_get_property(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_MEMORY, "Swaps", &error, &reply,
                                    "a(ssttib)");
        if (r < 0)
                fail_msg("Swaps: %s", error.message);
        assert_true(sd_bus_message_enter_container(reply, 'a', "(ssttib)") > 0);
        const char *path, *type;
        uint64_t size, used;
        int32_t prio;
        int on_boot;
        bool seen = false;
        while (sd_bus_message_read(reply, "(ssttib)", &path, &type, &size, &used, &prio, &on_boot) > 0) {
                if (strcmp(path, "/dev/sda1") == 0) {
                        seen = true;
                        assert_false(on_boot);
                }
        }
        assert_true(seen);
        sd_bus_message_unref(reply);

        char **profiles = NULL;
        r = sd_bus_get_property_strv(bus, JD_BUS_NAME, JD_FAN_PATH_PREFIX "0", JD_IFACE_FAN, "Profiles", &error,
                                     &profiles);
        if (r < 0)
                fail_msg("Profiles: %s", error.message);
        for (char **p = profiles; *p; p++)
                assert_string_not_equal(*p, "phantom");
        assert_true(g_strv_length(profiles) >= 2);
        g_strfreev(profiles);
        sd_bus_error_free(&error);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_fifos, testbus_teardown),
                cmocka_unit_test_teardown(test_nested_version_json, testbus_teardown),
                cmocka_unit_test_teardown(test_lines_cut_short, testbus_teardown),
                cmocka_unit_test_teardown(test_endless_proc_stat, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
