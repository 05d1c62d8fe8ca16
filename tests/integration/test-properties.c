/* Every property of every exported object, on every fake board, against
 * the values the fixtures were built with (the BOARD.expected.md files of tests/fixtures);
 * and the interfaces a board lacks are not exported at all. */
#include <string.h>

#include "jetsond-dbus.h"
#include "testbus.h"

typedef struct {
        const char *board;
        const char *model, *module, *part_number, *p_number, *board_ids, *soc, *cuda_arch, *codename;
        const char *l4t, *jetpack, *machine, *distribution, *kernel_release, *cuda;
        unsigned n_libraries;
        /* NVPModel: n_modes 0 = not exported */
        unsigned n_modes, mode, default_mode;
        const char *mode_name;
        bool jetson_clocks;
        /* Fan 0: NULL = no fan object */
        const char *fan_name, *fan_profile, *fan_control, *fan_governor;
        unsigned fan_profiles;
} board_case;

static const board_case boards[] = {
        { "agx-orin-jp62", "NVIDIA Jetson AGX Orin Developer Kit", "NVIDIA Jetson AGX Orin (64GB ram)",
          "699-13701-0005-500 M.0", "p3701-0005", "", "tegra234", "8.7", "", "36.4.3", "6.2", "aarch64",
          "Ubuntu 22.04.5 LTS", "5.15.148-tegra", "12.6.68", 7, 4, 0, 2, "MAXN", true, "pwmfan", "cool",
          "close_loop", "pid", 3 },
        { "orin-nano-jp62", "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super",
          "NVIDIA Jetson Orin Nano (Developer kit)", "699-13767-0005-300 L.3", "p3767-0005", "", "tegra234",
          "8.7", "", "36.4.3", "6.2", "aarch64", "Ubuntu 22.04.5 LTS", "5.15.148-tegra", NULL, 7, 4, 1, 1,
          "25W", true, "pwmfan", "quiet", NULL, NULL, 0 },
        { "xavier-nx-jp51", "NVIDIA Jetson Xavier NX Developer Kit", "NVIDIA Jetson Xavier NX (Developer kit)",
          "699-13668-0000-300 B.0", "p3668-0000", "", "tegra194", "7.2", "Jakku", "35.3.1", "5.1.1", "aarch64",
          "Ubuntu 20.04.6 LTS", "5.10.104-tegra", NULL, 7, 9, 1, 2, "MODE_15W_4CORE", true, "pwmfan", "cool",
          NULL, NULL, 0 },
        { "nano-jp46", "NVIDIA Jetson Nano Developer Kit", "NVIDIA Jetson Nano (4 GB ram)", "", "p3448-0000",
          "p3448", "tegra210", "5.3", "Porg", "32.7.1", "4.6.1", "aarch64", "Ubuntu 18.04.6 LTS",
          "4.9.337-tegra", "10.2.300", 7, 2, 0, 0, "MAXN", true, "tegra_pwmfan", "temp_control",
          "temp_control", "", 2 },
        { "agx-orin-jp72", "NVIDIA Jetson AGX Orin Developer Kit", "NVIDIA Jetson AGX Orin (64GB ram)",
          "699-13701-0005-500 M.0", "p3701-0005", "", "tegra234", "8.7", "", "39.2.0", "7.2 GA", "aarch64",
          "Ubuntu 24.04.4 LTS", "6.8.12-1021-tegra", "13.2.86", 7, 4, 0, 2, "MAXN", true, "pwmfan", "cool",
          "close_loop", "pid", 3 },
        { "agx-thor-jp71", "NVIDIA Jetson AGX Thor Developer Kit", "NVIDIA Jetson AGX Thor (Developer kit)",
          "699-13834-0008-400 G.5", "p3834-0008", "", "tegra264", "11.0", "", "38.4.0", "7.1", "aarch64",
          "Ubuntu 24.04.3 LTS", "6.8.12-tegra", "13.0.48", 7, 4, 1, 1, "120W", true, "pwmfan", "quiet",
          "close_loop", "pid", 3 },
        { "x86-pc", "LENOVO 20L7S0ET00", "", "", "", "", "", "", "", "", "", "x86_64",
          "Debian GNU/Linux 12 (bookworm)", "6.1.0-28-amd64", NULL, 1, 0, 0, 0, NULL, false, NULL, NULL, NULL,
          NULL, 0 },
};

static void assert_prop_string(sd_bus *bus, const char *path, const char *iface, const char *prop,
                               const char *expected)
{
        if (!expected)
                return;
        char *v = testbus_get_string(bus, path, iface, prop);
        if (strcmp(v, expected) != 0)
                fail_msg("%s.%s = \"%s\", expected \"%s\"", iface, prop, v, expected);
        g_free(v);
}

static bool has_interface(sd_bus *bus, const char *path, const char *iface)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, JD_BUS_NAME, path, "org.freedesktop.DBus.Properties", "GetAll", &e,
                                   &reply, "s", iface);
        /* Not exported: UnknownInterface, or UnknownObject for a path
         * with no interface at all. Any other error is a bug. */
        bool ok = r >= 0;
        if (!ok && !sd_bus_error_has_names(&e, SD_BUS_ERROR_UNKNOWN_INTERFACE, SD_BUS_ERROR_UNKNOWN_OBJECT))
                fail_msg("GetAll %s on %s: %s", iface, path, e.name);
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return ok;
}

static void check_libraries(sd_bus *bus, const board_case *c)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        assert_true(sd_bus_get_property(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_BOARD, "Libraries", &e, &reply,
                                        "a{ss}") >= 0);
        assert_true(sd_bus_message_enter_container(reply, 'a', "{ss}") > 0);
        const char *k, *v;
        unsigned n = 0;
        bool cuda_seen = false;
        while (sd_bus_message_read(reply, "{ss}", &k, &v) > 0) {
                n++;
                if (strcmp(k, "cuda") == 0) {
                        cuda_seen = true;
                        if (c->cuda)
                                assert_string_equal(v, c->cuda);
                }
        }
        assert_int_equal(n, c->n_libraries);
        if (c->cuda)
                assert_true(cuda_seen);
        sd_bus_message_unref(reply);
}

static void check_nvpmodel(sd_bus *bus, const board_case *c)
{
        assert_int_equal(has_interface(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL), c->n_modes > 0);
        if (!c->n_modes)
                return;
        assert_int_equal(testbus_get_u32(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), c->mode);
        assert_int_equal(testbus_get_u32(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "DefaultMode"), c->default_mode);
        assert_prop_string(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "ModeName", c->mode_name);
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        assert_true(sd_bus_get_property(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Modes", &e, &reply,
                                        "a(us)") >= 0);
        assert_true(sd_bus_message_enter_container(reply, 'a', "(us)") > 0);
        uint32_t id;
        const char *name;
        unsigned n = 0;
        bool current_listed = false;
        while (sd_bus_message_read(reply, "(us)", &id, &name) > 0) {
                assert_int_equal(id, n); /* the fixtures number modes 0..n-1 in file order */
                if (id == c->mode) {
                        assert_string_equal(name, c->mode_name);
                        current_listed = true;
                }
                n++;
        }
        assert_int_equal(n, c->n_modes);
        assert_true(current_listed);
        sd_bus_message_unref(reply);
}

static void check_fan(sd_bus *bus, const board_case *c)
{
        const char *path = JD_FAN_PATH_PREFIX "0";
        assert_int_equal(has_interface(bus, path, JD_IFACE_FAN), c->fan_name != NULL);
        /* Never a second fan on these boards. */
        assert_false(has_interface(bus, JD_FAN_PATH_PREFIX "1", JD_IFACE_FAN));
        if (!c->fan_name)
                return;
        assert_prop_string(bus, path, JD_IFACE_FAN, "Name", c->fan_name);
        assert_prop_string(bus, path, JD_IFACE_FAN, "Profile", c->fan_profile);
        /* Every fake board's fan starts at its default profile. */
        assert_prop_string(bus, path, JD_IFACE_FAN, "DefaultProfile", c->fan_profile);
        assert_prop_string(bus, path, JD_IFACE_FAN, "Control", c->fan_control);
        assert_prop_string(bus, path, JD_IFACE_FAN, "Governor", c->fan_governor);
        if (c->fan_profiles) {
                sd_bus_error e = SD_BUS_ERROR_NULL;
                char **profiles = NULL;
                assert_true(sd_bus_get_property_strv(bus, JD_BUS_NAME, path, JD_IFACE_FAN, "Profiles", &e,
                                                     &profiles) >= 0);
                assert_int_equal(g_strv_length(profiles), c->fan_profiles);
                /* "manual" is always offered last. */
                assert_string_equal(profiles[c->fan_profiles - 1], "manual");
                assert_true(g_strv_contains((const char *const *) profiles, c->fan_profile));
                g_strfreev(profiles);
        }
}

static void test_board(void **state)
{
        const board_case *c = *state;
        testbus *tb = testbus_new(NULL);
        *state = tb; /* teardown() stops everything, also after a failure */
        testbus_make_root(tb, c->board);
        testbus_start_daemon(tb, NULL);
        sd_bus *bus = testbus_connect();
        const char *p = JD_OBJECT_PATH, *i = JD_IFACE_BOARD;

        assert_prop_string(bus, p, i, "Model", c->model);
        assert_prop_string(bus, p, i, "Module", c->module);
        assert_prop_string(bus, p, i, "PartNumber", c->part_number);
        assert_prop_string(bus, p, i, "PNumber", c->p_number);
        assert_prop_string(bus, p, i, "BoardIds", c->board_ids);
        assert_prop_string(bus, p, i, "SoC", c->soc);
        assert_prop_string(bus, p, i, "CudaArch", c->cuda_arch);
        assert_prop_string(bus, p, i, "Codename", c->codename);
        assert_prop_string(bus, p, i, "L4T", c->l4t);
        assert_prop_string(bus, p, i, "JetPack", c->jetpack);
        assert_prop_string(bus, p, i, "Machine", c->machine);
        assert_prop_string(bus, p, i, "Distribution", c->distribution);
        assert_prop_string(bus, p, i, "KernelRelease", c->kernel_release);
        check_libraries(bus, c);
        check_nvpmodel(bus, c);
        assert_int_equal(has_interface(bus, p, JD_IFACE_JETSON_CLOCKS), c->jetson_clocks);
        check_fan(bus, c);
        assert_true(has_interface(bus, p, JD_IFACE_METRICS));
        assert_true(has_interface(bus, p, JD_IFACE_MEMORY));

        sd_bus_flush_close_unref(bus);
        int status = testbus_stop_daemon(tb);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int teardown(void **state)
{
        /* Still the board case if the test failed before starting a bus. */
        const board_case *c = *state;
        if (c < boards || c >= boards + G_N_ELEMENTS(boards))
                testbus_free(*state);
        return 0;
}

int main(void)
{
        struct CMUnitTest tests[G_N_ELEMENTS(boards)];
        for (size_t n = 0; n < G_N_ELEMENTS(boards); n++) {
                tests[n] = (struct CMUnitTest) cmocka_unit_test_prestate_setup_teardown(test_board, NULL, teardown,
                                                                                        (void *) &boards[n]);
                tests[n].name = boards[n].board;
        }
        return _cmocka_run_group_tests("properties", tests, G_N_ELEMENTS(tests), NULL, NULL);
}
