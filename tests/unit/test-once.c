/* jetsond --once --json, run as a separate process the way a person would. */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "fixture.h"

typedef struct {
        int exit_code;
        char *out, *err;
} run_result;

static run_result run(const char *const *args)
{
        run_result r = { 0 };
        g_autoptr(GPtrArray) argv = g_ptr_array_new();
        g_ptr_array_add(argv, (char *) JETSOND_PATH);
        for (; *args; args++)
                g_ptr_array_add(argv, (char *) *args);
        g_ptr_array_add(argv, NULL);
        int status = 0;
        g_autoptr(GError) error = NULL;
        assert_true(g_spawn_sync(NULL, (char **) argv->pdata, NULL, 0, NULL, NULL, &r.out, &r.err, &status, &error));
        r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return r;
}

static JsonObject *parse(JsonParser *p, const char *text)
{
        g_autoptr(GError) error = NULL;
        if (!json_parser_load_from_data(p, text, -1, &error))
                fail_msg("invalid JSON: %s", error->message);
        return json_node_get_object(json_parser_get_root(p));
}

static void test_agx_orin_json(void **state)
{
        (void) state;
        g_autofree char *root = g_build_filename(FIXTURES_DIR, "agx-orin-jp62", NULL);
        const char *args[] = { "--sysroot", root, "--once", "--json", "--interval", "50", NULL };
        run_result r = run(args);
        assert_int_equal(r.exit_code, 0);
        g_autoptr(JsonParser) p = json_parser_new();
        JsonObject *o = parse(p, r.out);
        JsonObject *board = json_object_get_object_member(o, "board");
        assert_string_equal(json_object_get_string_member(board, "model"), "NVIDIA Jetson AGX Orin Developer Kit");
        assert_string_equal(json_object_get_string_member(board, "jetpack"), "6.2");
        assert_true(json_object_get_boolean_member(board, "is_jetson"));
        JsonObject *libs = json_object_get_object_member(board, "libraries");
        assert_string_equal(json_object_get_string_member(libs, "cuda"), "12.6.68");
        assert_true(json_object_get_int_member(o, "timestamp_usec") > 1600000000000000LL);

        JsonObject *v = json_object_get_object_member(o, "values");
        assert_true(json_object_get_boolean_member(v, "cpu.0.online"));
        assert_true(json_object_has_member(v, "cpu.11.freq"));
        assert_true(json_object_has_member(v, "gpu.load"));
        assert_true(json_object_has_member(v, "emc.freq"));
        assert_true(json_object_has_member(v, "ram.total"));
        assert_true(json_object_has_member(v, "power.VDD_GPU_SOC.power"));
        assert_true(json_object_has_member(v, "temp.cpu"));
        assert_false(json_object_has_member(v, "temp.cv0")); /* power-gated: offline */
        assert_true(json_object_get_boolean_member(v, "power.total_is_sum"));
        assert_int_equal(json_object_get_int_member(v, "nvpmodel.mode"), 0);
        assert_string_equal(json_object_get_string_member(v, "nvpmodel.name"), "MAXN");
        JsonObject *nvp = json_object_get_object_member(o, "nvpmodel");
        assert_int_equal(json_array_get_length(json_object_get_array_member(nvp, "modes")), 4);
        /* The member names of jetsonctl nvpmodel --json (docs/json.md). */
        assert_int_equal(json_object_get_int_member(nvp, "default_mode"), 2);
        assert_string_equal(json_object_get_string_member(nvp, "default_mode_name"), "MODE_30W");
        assert_int_equal(json_object_get_int_member(nvp, "mode"), 0);
        assert_string_equal(json_object_get_string_member(nvp, "mode_name"), "MAXN");
        assert_true(json_object_get_null_member(board, "board_ids"));
        assert_true(json_object_get_boolean_member(json_object_get_object_member(board, "libraries"), "opencv_cuda"));
        assert_true(json_array_get_length(json_object_get_array_member(o, "swaps")) > 0);
        assert_int_equal(json_array_get_length(json_object_get_array_member(o, "fans")), 1);
        g_free(r.out);
        g_free(r.err);
}

/* Jetson AGX Thor with its fake NVML file: the board's own GPU as gpu.*
 * (load and temperature from NVML, clocks from devfreq, rail gating from
 * runtime PM), never as a discrete dgpu.0; VIN is the board's total. */
static void test_thor_json(void **state)
{
        (void) state;
        g_autofree char *root = g_build_filename(FIXTURES_DIR, "agx-thor-jp71", NULL);
        g_setenv("FAKE_NVML_CONFIG", FIXTURES_DIR "/agx-thor-jp71.nvml.json", TRUE);
        const char *args[] = { "--sysroot", root, "--once", "--json", "--nvml-library", FAKE_NVML_PATH, NULL };
        run_result r = run(args);
        g_unsetenv("FAKE_NVML_CONFIG");
        assert_int_equal(r.exit_code, 0);
        g_autoptr(JsonParser) p = json_parser_new();
        JsonObject *o = parse(p, r.out);
        JsonObject *board = json_object_get_object_member(o, "board");
        assert_string_equal(json_object_get_string_member(board, "module"), "NVIDIA Jetson AGX Thor (Developer kit)");
        assert_string_equal(json_object_get_string_member(board, "soc"), "tegra264");
        assert_string_equal(json_object_get_string_member(board, "jetpack"), "7.1");
        assert_string_equal(json_object_get_string_member(board, "l4t"), "38.4.0");
        JsonObject *v = json_object_get_object_member(o, "values");
        assert_true(json_object_get_double_member(v, "gpu.load") == 42.0);
        assert_true(json_object_get_double_member(v, "gpu.temp") == 36.0);
        assert_int_equal(json_object_get_int_member(v, "gpu.freq"), 1000000);
        assert_int_equal(json_object_get_int_member(v, "gpu.video_freq"), 1556000);
        assert_int_equal(json_object_get_int_member(v, "gpu.max_freq"), 1575000);
        assert_true(json_object_get_boolean_member(v, "gpu.railgate"));
        assert_true(json_object_get_boolean_member(v, "gpu.3d_scaling"));
        assert_int_equal(json_object_get_int_member(v, "power.VIN.power"), 35800);
        assert_int_equal(json_object_get_int_member(v, "power.total"), 35800);
        assert_false(json_object_get_boolean_member(v, "power.total_is_sum"));
        assert_int_equal(json_object_get_int_member(v, "emc.freq"), 3200000);
        assert_int_equal(json_object_get_int_member(v, "fan.0.rpm"), 1786);
        /* NVML's processes join the list: 2 GiB of python3's. */
        assert_int_equal(json_object_get_int_member(v, "process.5555.gpu_mem"), 2097152);
        g_autoptr(GList) keys = json_object_get_members(v);
        for (GList *k = keys; k; k = k->next)
                if (strstr(k->data, "dgpu"))
                        fail_msg("Thor's own GPU as a discrete one: %s", (const char *) k->data);
        g_free(r.out);
        g_free(r.err);
}

static void test_x86_has_no_jetson_parts(void **state)
{
        (void) state;
        g_autofree char *root = g_build_filename(FIXTURES_DIR, "x86-pc", NULL);
        const char *args[] = { "--sysroot", root, "--once", "--json", "--interval", "20", NULL };
        run_result r = run(args);
        assert_int_equal(r.exit_code, 0);
        g_autoptr(JsonParser) p = json_parser_new();
        JsonObject *o = parse(p, r.out);
        assert_false(json_object_get_boolean_member(json_object_get_object_member(o, "board"), "is_jetson"));
        JsonObject *v = json_object_get_object_member(o, "values");
        /* The tree is static: /proc/stat does not move, so no load is claimed. */
        assert_false(json_object_has_member(v, "cpu.load"));
        assert_true(json_object_get_boolean_member(v, "cpu.7.online"));
        assert_int_equal(json_object_get_int_member(v, "ram.total"), 16225104);
        g_autoptr(GList) keys = json_object_get_members(v);
        for (GList *k = keys; k; k = k->next) {
                const char *key = k->data;
                static const char *const jetson_only[] = { "gpu.", "emc.", "engine.", "power.", "energy.",
                                                           "nvpmodel.", "jetson_clocks.", "iram.", "fan." };
                /* Power and energy on a PC: only the RAPL zones. */
                if (g_str_has_prefix(key, "power.RAPL_") || g_str_has_prefix(key, "energy.RAPL_"))
                        continue;
                for (size_t i = 0; i < G_N_ELEMENTS(jetson_only); i++)
                        if (g_str_has_prefix(key, jetson_only[i]))
                                fail_msg("x86 sample has Jetson key %s", key);
        }
        /* x86-pc.expected.md: five zones; the static tree's counters stand
         * still between the two readings, so 0 mW, and no board total. */
        const char *rapl[] = { "RAPL_PACKAGE_0", "RAPL_PACKAGE_0_CORE", "RAPL_PACKAGE_0_UNCORE",
                               "RAPL_PACKAGE_0_DRAM", "RAPL_PSYS" };
        for (size_t i = 0; i < G_N_ELEMENTS(rapl); i++) {
                g_autofree char *power = g_strdup_printf("power.%s.power", rapl[i]);
                g_autofree char *energy = g_strdup_printf("energy.%s", rapl[i]);
                assert_true(json_object_has_member(v, power));
                assert_int_equal(json_object_get_int_member(v, power), 0);
                assert_int_equal(json_object_get_int_member(v, energy), 0);
        }
        assert_false(json_object_has_member(v, "power.total"));
        assert_true(json_object_get_null_member(o, "nvpmodel"));
        g_free(r.out);
        g_free(r.err);
}

static void test_bad_sysroot(void **state)
{
        (void) state;
        const char *missing[] = { "--sysroot", "/nonexistent/board", "--once", "--json", NULL };
        run_result r = run(missing);
        assert_int_equal(r.exit_code, 2);
        assert_string_equal(r.out, "");
        assert_non_null(strstr(r.err, "/nonexistent/board"));
        /* exactly one line */
        assert_int_equal(strchr(r.err, '\n') - r.err, (long) strlen(r.err) - 1);
        g_free(r.out);
        g_free(r.err);

        const char *file[] = { "--sysroot", "/etc/passwd", "--once", NULL };
        r = run(file);
        assert_int_equal(r.exit_code, 2);
        g_free(r.out);
        g_free(r.err);

        const char *interval[] = { "--once", "--interval", "0", NULL };
        r = run(interval);
        assert_int_equal(r.exit_code, 2);
        g_free(r.out);
        g_free(r.err);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_agx_orin_json),
                cmocka_unit_test(test_thor_json),
                cmocka_unit_test(test_x86_has_no_jetson_parts),
                cmocka_unit_test(test_bad_sysroot),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
