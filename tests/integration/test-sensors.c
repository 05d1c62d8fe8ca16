/* The Metrics Sensors property: every thermal zone in zone order with its
 * own type (a power-gated one too), hwmon channels after the zones, rails
 * in channel order, and every sensor key of the sample listed; and the
 * largest free block keys (ram.lfb_size, ram.lfb_count). */
#include <string.h>

#include "jetsond-dbus.h"
#include "snapshot.h"
#include "testbus.h"

typedef struct {
        const char *key, *kind, *label;
} sensor;

/* Sensors as "key kind label;" items, one string to compare. */
static char *sensors_text(sd_bus *bus)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = sd_bus_get_property(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "Sensors", &error, &reply,
                                    "a(sss)");
        if (r < 0)
                fail_msg("Sensors: %s", error.message ? error.message : strerror(-r));
        GString *text = g_string_new(NULL);
        const char *key, *kind, *label;
        assert_true(sd_bus_message_enter_container(reply, 'a', "(sss)") >= 0);
        while ((r = sd_bus_message_read(reply, "(sss)", &key, &kind, &label)) > 0)
                g_string_append_printf(text, "%s %s %s;", key, kind, label);
        assert_true(r >= 0);
        sd_bus_message_unref(reply);
        sd_bus_error_free(&error);
        return g_string_free(text, FALSE);
}

/* Every temp.* and power.*.power key of the snapshot is listed. */
static void assert_lists_sample(const char *text, const testbus_snapshot *s)
{
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, s->types);
        while (g_hash_table_iter_next(&it, &key, NULL)) {
                const char *k = key;
                g_autofree char *item = NULL;
                if (g_str_has_prefix(k, "temp."))
                        item = g_strdup_printf(";%s ", k);
                else if (g_str_has_prefix(k, "power.") && g_str_has_suffix(k, ".power"))
                        item = g_strdup_printf(";%.*s rail ", (int) (strlen(k) - strlen(".power")), k);
                g_autofree char *padded = g_strconcat(";", text, NULL);
                if (item && !strstr(padded, item))
                        fail_msg("%s is not in Sensors: %s", k, text);
        }
}

static void test_orin(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", NULL);
        sd_bus *bus = testbus_connect();
        g_autofree char *text = sensors_text(bus);
        /* Zone order, gated cv0-cv2 included (their keys are absent); the
         * NC channels of the two INA3221 are not rails. */
        assert_string_equal(text,
                            "temp.cpu thermal_zone cpu-thermal;temp.gpu thermal_zone gpu-thermal;"
                            "temp.cv0 thermal_zone cv0-thermal;temp.cv1 thermal_zone cv1-thermal;"
                            "temp.cv2 thermal_zone cv2-thermal;temp.soc0 thermal_zone soc0-thermal;"
                            "temp.soc1 thermal_zone soc1-thermal;temp.soc2 thermal_zone soc2-thermal;"
                            "temp.tj thermal_zone tj-thermal;power.VDD_GPU_SOC rail VDD_GPU_SOC;"
                            "power.VDD_CPU_CV rail VDD_CPU_CV;power.VIN_SYS_5V0 rail VIN_SYS_5V0;"
                            "power.VDDQ_VDD2_1V8AO rail VDDQ_VDD2_1V8AO;");
        g_autoptr(testbus_snapshot) s = testbus_get_snapshot(bus);
        assert_lists_sample(text, s);
        assert_false(g_hash_table_contains(s->types, "temp.cv0"));
        /* buddyinfo: 14204 free 4 MiB blocks. */
        assert_int_equal((int) testbus_number(s, "ram.lfb"), 14204);
        assert_int_equal((int) testbus_number(s, "ram.lfb_size"), 4096);
        assert_int_equal((int) testbus_number(s, "ram.lfb_count"), 14204);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

/* The zones (upper-case types on JetPack 5) come before every hwmon
 * channel, whose keys share the temp. prefix. */
static char *start_and_check_order(void **state, const char *board)
{
        testbus_start(state, board, NULL);
        sd_bus *bus = testbus_connect();
        char *text = sensors_text(bus);
        g_autoptr(testbus_snapshot) s = testbus_get_snapshot(bus);
        assert_lists_sample(text, s);
        const char *first_hwmon = strstr(text, " hwmon ");
        const char *last_zone = g_strrstr(text, " thermal_zone ");
        assert_non_null(first_hwmon);
        assert_non_null(last_zone);
        assert_true(last_zone < first_hwmon);
        sd_bus_flush_close_unref(bus);
        return text;
}

static void test_xavier(void **state)
{
        g_autofree char *text = start_and_check_order(state, "xavier-nx-jp51");
        assert_non_null(strstr(text, "temp.cpu thermal_zone CPU-therm;temp.gpu thermal_zone GPU-therm;"));
        assert_non_null(strstr(text, "temp.tboard thermal_zone Tboard_tegra;"));
        assert_null(strstr(text, "PMIC"));      /* a constant: not reported */
        assert_non_null(strstr(text, "power.VDD_IN rail VDD_IN;power.VDD_CPU_GPU_CV rail"));
        testbus_stop_cleanly(*state);
}

static void test_thor(void **state)
{
        g_autofree char *text = start_and_check_order(state, "agx-thor-jp71");
        /* The INA238 input after the INA3221 rails. */
        assert_non_null(strstr(text, "power.VIN_SYS_5V0 rail VIN_SYS_5V0;power.VIN rail VIN;"));
        testbus_stop_cleanly(*state);
}

/* A PC: RAPL zones are rails, ACPI and x86_pkg_temp zones temperatures. */
static void test_pc(void **state)
{
        testbus *tb = testbus_start(state, "x86-pc", NULL);
        sd_bus *bus = testbus_connect();
        g_autofree char *text = sensors_text(bus);
        g_autoptr(testbus_snapshot) s = testbus_get_snapshot(bus);
        assert_lists_sample(text, s);
        assert_non_null(strstr(text, "temp.acpitz thermal_zone acpitz;"));
        assert_non_null(strstr(text, "power.RAPL_PACKAGE_0 rail RAPL_PACKAGE_0;"));
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_orin, testbus_teardown),
                cmocka_unit_test_teardown(test_xavier, testbus_teardown),
                cmocka_unit_test_teardown(test_thor, testbus_teardown),
                cmocka_unit_test_teardown(test_pc, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
