/* jetsonctl's read commands against jetsond on every fake board: the
 * text output against golden files written from the fixtures' known
 * values (tests/fixtures/BOARD.expected.md), and --json parsed and
 * checked field by field. Without the simulator the fixture does not
 * change, so the readings are static: CPU loads are absent (no /proc/stat
 * delta) except in test_status_with_loads, which supplies one. */
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "jctest.h"
#include "jetsond-dbus.h"

static const char *const BOARDS[] = { "agx-orin-jp62", "orin-nano-jp62", "xavier-nx-jp51", "nano-jp46", "x86-pc" };

static void golden_for_every_board(void **state, const char *command, const char *suffix)
{
        for (size_t i = 0; i < G_N_ELEMENTS(BOARDS); i++) {
                testbus *tb = jc_start(state, BOARDS[i], NULL);
                g_autofree char *out = jc_ok(command, NULL);
                g_autofree char *name = g_strdup_printf("%s.%s", BOARDS[i], suffix);
                jc_check_golden(name, out);
                testbus_stop_cleanly(tb);
                testbus_free(tb);
                *state = NULL;
        }
}

static void test_status_every_board(void **state)
{
        golden_for_every_board(state, "status", "status");
}

static void test_board_every_board(void **state)
{
        golden_for_every_board(state, "board", "board");
}

/* No command is status. */
static void test_default_command_is_status(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        g_autofree char *a = jc_ok("status", NULL);
        g_autofree char *b = jc_ok("--no-color", NULL);
        assert_string_equal(a, b);
}

/* Colour only adds SGR sequences: without them the text is the plain one
 * (a pipe, as in every other test, is never coloured). */
static void test_color(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        g_autofree char *plain = jc_ok("status", NULL);
        g_autofree char *colored = jc_ok("status", "--color=always", NULL);
        assert_non_null(strstr(colored, "\033[1mNVIDIA Jetson AGX Orin Developer Kit\033[0m\n"));
        assert_non_null(strstr(colored, "[\033[32m####\033[0m\033[90m................\033[0m]")); /* EMC 20 % */
        g_autoptr(GRegex) sgr = g_regex_new("\033\\[[0-9;]*m", 0, 0, NULL);
        g_autofree char *stripped = g_regex_replace_literal(sgr, colored, -1, 0, "", 0, NULL);
        assert_string_equal(stripped, plain);
        g_autofree char *never = jc_ok("status", "--color=always", "--no-color", NULL);
        assert_string_equal(never, plain);
}

/* The fixture's second /proc/stat snapshot (1 s after the tree's) gives
 * the loads of the expected.md table (55 % overall, cpu1 85 %, cpu7
 * 100 %, ...) in exactly one sample: the one after it is written. jetsond
 * samples every 3 s here, so status runs well inside that sample's life;
 * its JSON timestamp proves both outputs came from it. */
static void test_status_with_loads(void **state)
{
        testbus *tb = jc_start(state, "agx-orin-jp62", (const char *[]) { "--interval=3000", NULL });
        g_autofree char *stat_b = NULL;
        assert_true(g_file_get_contents(FIXTURES_DIR "/proc-stat/agx-orin-jp62-b", &stat_b, NULL, NULL));
        /* Rewritten in place: jetsond keeps the file open and re-reads it
         * with pread, so a new inode (g_file_set_contents) would go unseen. */
        g_autofree char *stat_path = g_build_filename(tb->root, "proc/stat", NULL);
        FILE *f = fopen(stat_path, "w");
        assert_non_null(f);
        assert_int_equal(fputs(stat_b, f) >= 0, 1);
        assert_int_equal(fclose(f), 0);

        /* Wait for the sample that has the loads. */
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        g_autofree char *loaded = NULL;
        while (!loaded) {
                jc_result r = jc_run("get", "--value", "cpu.load", NULL);
                if (r.status == 0)
                        loaded = g_strdup(r.out);
                jc_result_clear(&r);
                if (!loaded && testbus_now_us() > deadline)
                        fail_msg("no sample with cpu.load within 30 s of a new /proc/stat");
                if (!loaded)
                        g_usleep(50000);
        }
        assert_string_equal(loaded, "55\n");

        g_autofree char *json = jc_ok("status", "--json", NULL);
        g_autofree char *text = jc_ok("status", NULL);
        g_autofree char *json_after = jc_ok("status", "--json", NULL);
        g_autoptr(JsonNode) a = jc_parse_json(json), b = jc_parse_json(json_after);
        if (json_node_get_int(jc_json_at(a, "timestamp_usec")) != json_node_get_int(jc_json_at(b, "timestamp_usec")))
                fail_msg("jetsond took a new sample during the test (machine too slow for a 3 s window?)");
        jc_check_golden("agx-orin-jp62.status-loads", text);
        jc_assert_json_double(a, "values|cpu.load", 55.0);
        jc_assert_json_double(a, "values|cpu.1.load", 85.0);
        jc_assert_json_double(a, "values|cpu.7.load", 100.0);
        jc_assert_json_double(a, "values|cpu.5.load", 0.0);
        /* The split of the same window (fixtures/agx-orin-jp62.expected.md): cpu0 moved
         * user 36, nice 1, system 16 + irq 1 + softirq 1, idle 45 of 100
         * ticks; the aggregate user 439, nice 10 of 1200, idle 45 %. */
        jc_assert_json_double(a, "values|cpu.0.user", 36.0);
        jc_assert_json_double(a, "values|cpu.0.nice", 1.0);
        jc_assert_json_double(a, "values|cpu.0.system", 18.0);
        jc_assert_json_double(a, "values|cpu.0.idle", 45.0);
        jc_assert_json_double(a, "values|cpu.user", 36.58);
        jc_assert_json_double(a, "values|cpu.nice", 0.83);
        jc_assert_json_double(a, "values|cpu.idle", 45.0);
        double sys = json_node_get_double(jc_json_at(a, "values|cpu.system"));
        assert_true(sys > 17.575 && sys < 17.595); /* 211 of 1200, to 0.01 */
}

/* Issue 39: the simulator raises 3 over-current events on channel 2 and a
 * GPU thermal cap on the fake Orin and Thor; status says so in one line,
 * its JSON carries the summary keys, and the counted events are exactly 3. */
static void status_throttled(void **state, const char *board)
{
        testbus *tb = jc_start(state, board, (const char *[]) { "--interval=100", NULL });
        testbus_simulate_once(tb, (const char *[]) { "--oc-events", "2=3", "--cap", "gpu-throttle-alert=1", NULL });
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        for (;;) {
                /* over_current holds only for the reading that saw the counter
                 * rise: wait for the one after it, whose reasons are the cap. */
                jc_result r = jc_run("get", "--value", "throttle.oc_events_counted", NULL);
                jc_result q = jc_run("get", "--value", "throttle.reasons", NULL);
                bool done = r.status == 0 && strcmp(r.out, "3\n") == 0 && q.status == 0 &&
                            strcmp(q.out, "thermal_gpu\n") == 0;
                jc_result_clear(&r);
                jc_result_clear(&q);
                if (done)
                        break;
                if (testbus_now_us() > deadline)
                        fail_msg("%s: no sample with 3 counted over-current events within 30 s", board);
                g_usleep(50000);
        }
        g_autofree char *text = jc_ok("status", NULL);
        if (!strstr(text, "\nThrottle GPU thermal cap now; 3 over-current events since boot;\n")) {
                const char *line = strstr(text, "\nThrottle");
                fail_msg("%s: throttle line is %.100s", board, line ? line + 1 : "(none)");
        }
        g_autofree char *json = jc_ok("status", "--json", NULL);
        g_autoptr(JsonNode) a = jc_parse_json(json);
        jc_assert_json_string(a, "values|throttle.reasons", "thermal_gpu");
        jc_assert_json_bool(a, "values|throttle.active", TRUE);
        jc_assert_json_bool(a, "values|throttle.reason.thermal_gpu.active", TRUE);
        jc_assert_json_bool(a, "values|throttle.reason.over_current.active", FALSE);
        jc_assert_json_int(a, "values|throttle.oc2.events", 3);
        jc_assert_json_int(a, "values|throttle.oc2.events_counted", 3);
        jc_assert_json_int(a, "values|throttle.oc1.events_counted", 0);
        jc_assert_json_int(a, "values|throttle.cap.gpu-throttle-alert.state", 1);
        jc_assert_json_string(a, "values|throttle.oc2.counter", "ok");
}

/* The zone nearest to its trip point, in status' throttle summary and
 * next to each temperature; its JSON carries the trips per zone. The GPU
 * zone is heated past the others' margin, then past its trip. */
static void wait_status_line(const char *want)
{
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        for (;;) {
                g_autofree char *text = jc_ok("status", NULL);
                if (strstr(text, want))
                        return;
                if (testbus_now_us() > deadline)
                        fail_msg("no status with \"%s\" within 30 s:\n%s", want, text);
                g_usleep(100000);
        }
}

/* In place: jetsond keeps the file open and rereads it. */
static void write_in_place(const char *path, const char *text)
{
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
}

static void test_status_trip_points(void **state)
{
        testbus *tb = jc_start(state, "agx-orin-jp62", (const char *[]) { "--interval=100", NULL });
        g_autofree char *text = jc_ok("status", NULL);
        assert_non_null(strstr(text, "\nTemp    cpu 46.5°C (trip 99.0, crit 104.5)  gpu 44.0°C (trip 99.0, crit 104.5)\n"));
        assert_non_null(strstr(text, "tj 46.5°C (crit 104.5)\n"));
        assert_non_null(strstr(text, "\n         cpu 46.5°C, 52.5°C below its throttle trip 99.0°C\n"));

        g_autofree char *json = jc_ok("status", "--json", NULL);
        g_autoptr(JsonNode) a = jc_parse_json(json);
        jc_assert_json_double(a, "temperatures|gpu|temp_c", 44.0);
        jc_assert_json_double(a, "temperatures|gpu|throttle_trip_c", 99.0);
        jc_assert_json_double(a, "temperatures|gpu|critical_trip_c", 104.5);
        jc_assert_json_double(a, "temperatures|tj|critical_trip_c", 104.5);
        JsonObject *tj = json_node_get_object(jc_json_at(a, "temperatures|tj"));
        assert_false(json_object_has_member(tj, "throttle_trip_c"));

        g_autofree char *zone = g_build_filename(tb->root, "sys/devices/virtual/thermal/thermal_zone1/temp", NULL);
        write_in_place(zone, "92500\n");
        wait_status_line("gpu 92.5°C, 6.5°C below its throttle trip 99.0°C\n");
        write_in_place(zone, "100500\n");
        wait_status_line("gpu 100.5°C, 1.5°C above its throttle trip 99.0°C\n");
}

static void test_status_throttled_orin(void **state) { status_throttled(state, "agx-orin-jp62"); }
static void test_status_throttled_thor(void **state) { status_throttled(state, "agx-thor-jp71"); }

static void test_status_json(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        g_autofree char *out = jc_ok("status", "--json", NULL);
        /* One document on one line. */
        assert_non_null(strchr(out, '\n'));
        assert_string_equal(strchr(out, '\n'), "\n");
        g_autoptr(JsonNode) j = jc_parse_json(out);
        jc_assert_json_string(j, "board.model", "NVIDIA Jetson AGX Orin Developer Kit");
        jc_assert_json_string(j, "board.module", "NVIDIA Jetson AGX Orin (64GB ram)");
        jc_assert_json_string(j, "board.jetpack", "6.2");
        jc_assert_json_string(j, "board.l4t", "36.4.3");
        jc_assert_json_string(j, "board.soc", "tegra234");
        jc_assert_json_int(j, "nvpmodel.mode", 0);
        jc_assert_json_string(j, "nvpmodel.mode_name", "MAXN");
        jc_assert_json_int(j, "nvpmodel.default_mode", 2);
        jc_assert_json_string(j, "nvpmodel.default_mode_name", "MODE_30W");
        jc_assert_json_bool(j, "jetson_clocks.active", FALSE);
        jc_assert_json_bool(j, "jetson_clocks.on_boot", FALSE);
        assert_int_equal(json_array_get_length(json_node_get_array(jc_json_at(j, "fans"))), 1);
        jc_assert_json_int(j, "fans.[0].index", 0);
        jc_assert_json_string(j, "fans.[0].name", "pwmfan");
        jc_assert_json_double(j, "fans.[0].speed_percent", 40.0);
        jc_assert_json_int(j, "fans.[0].rpm", 2100);
        jc_assert_json_string(j, "fans.[0].profile", "cool");
        /* The sample: types as the contract's key table says. */
        jc_assert_json_int(j, "values|ram.total", 64302080);
        jc_assert_json_int(j, "values|ram.used", 3662848);
        jc_assert_json_int(j, "values|ram.lfb", 14204);
        jc_assert_json_int(j, "values|swap.total", 32151024);
        jc_assert_json_double(j, "values|gpu.load", 34.7);
        jc_assert_json_int(j, "values|gpu.freq", 306000);
        jc_assert_json_double(j, "values|emc.load", 20.0);
        jc_assert_json_int(j, "values|cpu.1.freq", 1190400);
        jc_assert_json_bool(j, "values|cpu.0.online", TRUE);
        jc_assert_json_string(j, "values|cpu.0.governor", "schedutil");
        jc_assert_json_int(j, "values|power.total", 7113);
        jc_assert_json_bool(j, "values|power.total_is_sum", TRUE);
        jc_assert_json_int(j, "values|power.VDD_GPU_SOC.power", 2392);
        jc_assert_json_double(j, "values|temp.cpu", 46.5);
        jc_assert_json_double(j, "values|temp.soc1", 43.906);
        jc_assert_json_bool(j, "values|engine.DLA1.online", TRUE);
        jc_assert_json_string(j, "values|process.5377.name", "(my) app");
        /* Absent stays absent: offline zones, loads without a delta. */
        JsonObject *values = json_node_get_object(jc_json_at(j, "values"));
        assert_false(json_object_has_member(values, "temp.cv0"));
        assert_false(json_object_has_member(values, "cpu.load"));
        gint64 stamp = json_node_get_int(jc_json_at(j, "timestamp_usec"));
        gint64 now = g_get_real_time();
        assert_true(stamp > now - 60 * G_USEC_PER_SEC && stamp <= now);
}

/* A PC: no nvpmodel, no jetson_clocks, no fan -> null, null, []. */
static void test_status_json_pc(void **state)
{
        jc_start(state, "x86-pc", NULL);
        g_autofree char *out = jc_ok("--json", "status", NULL);
        g_autoptr(JsonNode) j = jc_parse_json(out);
        jc_assert_json_string(j, "board.model", "LENOVO 20L7S0ET00");
        assert_true(JSON_NODE_HOLDS_NULL(jc_json_at(j, "board.jetpack")));   /* absent: null, never "" */
        assert_true(JSON_NODE_HOLDS_NULL(jc_json_at(j, "nvpmodel")));
        assert_true(JSON_NODE_HOLDS_NULL(jc_json_at(j, "jetson_clocks")));
        assert_int_equal(json_array_get_length(json_node_get_array(jc_json_at(j, "fans"))), 0);
        JsonObject *values = json_node_get_object(jc_json_at(j, "values"));
        assert_false(json_object_has_member(values, "gpu.load"));
}

static void test_board_json(void **state)
{
        jc_start(state, "nano-jp46", NULL);
        g_autofree char *out = jc_ok("board", "--json", NULL);
        g_autoptr(JsonNode) j = jc_parse_json(out);
        jc_assert_json_string(j, "model", "NVIDIA Jetson Nano Developer Kit");
        jc_assert_json_string(j, "module", "NVIDIA Jetson Nano (4 GB ram)");
        assert_true(JSON_NODE_HOLDS_NULL(jc_json_at(j, "part_number")));
        jc_assert_json_string(j, "p_number", "p3448-0000");
        jc_assert_json_string(j, "board_ids", "p3448");
        jc_assert_json_string(j, "soc", "tegra210");
        jc_assert_json_string(j, "cuda_arch", "5.3");
        jc_assert_json_string(j, "codename", "Porg");
        jc_assert_json_string(j, "l4t", "32.7.1");
        jc_assert_json_string(j, "jetpack", "4.6.1");
        jc_assert_json_string(j, "machine", "aarch64");
        jc_assert_json_string(j, "distribution", "Ubuntu 18.04.6 LTS");
        jc_assert_json_string(j, "kernel_release", "4.9.337-tegra");
        jc_assert_json_string(j, "libraries.cuda", "10.2.300");
        assert_int_equal(json_object_get_size(json_node_get_object(jc_json_at(j, "libraries"))), 7);
        jc_assert_json_bool(j, "libraries.opencv_cuda", FALSE);   /* "no" on the bus: a boolean here */
}

static void test_get(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        g_autofree char *out = jc_ok("get", "--value", "gpu.load", "temp.cpu", "power.total", "nvpmodel.name",
                                     "jetson_clocks.active", "fan.0.rpm", "ram.total", "temp.soc1", NULL);
        assert_string_equal(out, "34.7\n46.5\n7113\nMAXN\nfalse\n2100\n64302080\n43.906\n");
        /* key=value as systemctl show writes it, quoted where a value has
         * blanks; a glob stands for its keys in the sample's order. */
        g_autofree char *kv = jc_ok("get", "gpu.load", "process.5377.name", "temp.*", NULL);
        assert_string_equal(kv, "gpu.load=34.7\nprocess.5377.name=\"(my) app\"\ntemp.cpu=46.5\ntemp.gpu=44\n"
                                "temp.soc0=44.125\ntemp.soc1=43.906\ntemp.soc2=45.5\ntemp.tj=46.5\n");
        g_autofree char *globbed = jc_ok("get", "--json", "fan.0.*", NULL);
        g_autoptr(JsonNode) g = jc_parse_json(globbed);
        assert_int_equal(json_object_get_size(json_node_get_object(g)), 4);
        jc_assert_json_string(g, "|fan.0.profile", "cool");
        /* A glob that matches nothing is an error, like an absent key. */
        jc_result none = jc_run("get", "gpu.load", "dgpu.*", NULL);
        assert_int_equal(none.status, 1);
        assert_string_equal(none.out, "");
        assert_string_equal(none.err, "jetsonctl: no key in the sample matches dgpu.* (see 'jetsonctl watch' for "
                                      "the keys this board has)\n");
        jc_result_clear(&none);

        g_autofree char *json = jc_ok("get", "--json", "fan.0.speed", "process.5377.name", NULL);
        g_autoptr(JsonNode) j = jc_parse_json(json);
        jc_assert_json_double(j, "|fan.0.speed", 40.0);
        jc_assert_json_string(j, "|process.5377.name", "(my) app");
        assert_int_equal(json_object_get_size(json_node_get_object(j)), 2);

        /* All or nothing: one absent key (an offline zone) fails the lot. */
        jc_result r = jc_run("get", "temp.cpu", "temp.cv0", NULL);
        assert_int_equal(r.status, 1);
        assert_string_equal(r.out, "");
        assert_string_equal(r.err, "jetsonctl: temp.cv0 is not in the sample (see 'jetsonctl watch' for the keys "
                                   "this board has)\n");
        jc_result_clear(&r);
        r = jc_run("get", NULL);
        assert_int_equal(r.status, 2);
        jc_result_clear(&r);
}

static void test_lists(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        static const char *const cmds[][2] = { { "fan", "fan" }, { "nvpmodel", "nvpmodel" }, { "clocks", "clocks" },
                                               { "swap", "swap" } };
        for (size_t i = 0; i < G_N_ELEMENTS(cmds); i++) {
                g_autofree char *out = jc_ok(cmds[i][0], NULL);
                g_autofree char *name = g_strdup_printf("agx-orin-jp62.%s", cmds[i][1]);
                jc_check_golden(name, out);
        }
        /* The explicit sub-commands print the same. */
        g_autofree char *a = jc_ok("fan", "list", NULL), *b = jc_ok("fan", NULL);
        assert_string_equal(a, b);
        g_autofree char *c = jc_ok("clocks", "show", NULL), *d = jc_ok("clocks", NULL);
        assert_string_equal(c, d);
}

static void test_lists_json(void **state)
{
        jc_start(state, "agx-orin-jp62", NULL);
        g_autofree char *fan = jc_ok("fan", "--json", NULL);
        g_autoptr(JsonNode) f = jc_parse_json(fan);
        jc_assert_json_string(f, "fans.[0].path", JD_FAN_PATH_PREFIX "0");
        jc_assert_json_string(f, "fans.[0].name", "pwmfan");
        jc_assert_json_double(f, "fans.[0].speed_percent", 40.0);
        jc_assert_json_string(f, "fans.[0].default_profile", "cool");
        jc_assert_json_int(f, "fans.[0].rpm", 2100);
        jc_assert_json_string(f, "fans.[0].profile", "cool");
        jc_assert_json_string(f, "fans.[0].profiles.[0]", "cool");
        jc_assert_json_string(f, "fans.[0].profiles.[1]", "quiet");
        jc_assert_json_string(f, "fans.[0].profiles.[2]", "manual");
        /* --json=pretty: the same document, indented; --json=short: on one
         * line; --json=off: text. */
        g_autofree char *pretty = jc_ok("fan", "--json=pretty", NULL);
        assert_true(strchr(pretty, '\n') < pretty + strlen(pretty) - 1);
        assert_non_null(strstr(pretty, "\n  \"fans\": [\n"));
        g_autoptr(JsonNode) p = jc_parse_json(pretty);
        jc_assert_json_string(p, "fans.[0].name", "pwmfan");
        g_autofree char *shrt = jc_ok("--json=short", "fan", NULL);
        assert_string_equal(shrt, fan);
        g_autofree char *off = jc_ok("--json", "fan", "--json=off", NULL);
        assert_true(g_str_has_prefix(off, "FAN "));
        jc_assert_json_string(f, "fans.[0].governor", "pid");
        jc_assert_json_string(f, "fans.[0].control", "close_loop");

        g_autofree char *nvp = jc_ok("nvpmodel", "list", "--json", NULL);
        g_autoptr(JsonNode) n = jc_parse_json(nvp);
        jc_assert_json_int(n, "mode", 0);
        jc_assert_json_string(n, "mode_name", "MAXN");
        jc_assert_json_int(n, "default_mode", 2);
        static const char *const names[] = { "MAXN", "MODE_15W", "MODE_30W", "MODE_50W" };
        assert_int_equal(json_array_get_length(json_node_get_array(jc_json_at(n, "modes"))), 4);
        for (int i = 0; i < 4; i++) {
                g_autofree char *id = g_strdup_printf("modes.[%d].id", i), *name = g_strdup_printf("modes.[%d].name", i);
                jc_assert_json_int(n, id, i);
                jc_assert_json_string(n, name, names[i]);
        }

        g_autofree char *clk = jc_ok("clocks", "--json", NULL);
        g_autoptr(JsonNode) c = jc_parse_json(clk);
        jc_assert_json_bool(c, "active", FALSE);
        jc_assert_json_bool(c, "on_boot", FALSE);

        g_autofree char *swap = jc_ok("swap", "--json", NULL);
        g_autoptr(JsonNode) s = jc_parse_json(swap);
        jc_assert_json_int(s, "swap_total_bytes", 32151024LL * 1024);
        jc_assert_json_int(s, "ram_total_bytes", 64302080LL * 1024);
        assert_int_equal(json_array_get_length(json_node_get_array(jc_json_at(s, "swaps"))), 12);
        jc_assert_json_string(s, "swaps.[0].path", "/dev/zram0");
        jc_assert_json_string(s, "swaps.[0].type", "zram");
        jc_assert_json_int(s, "swaps.[0].size_bytes", 2743554048LL);
        jc_assert_json_int(s, "swaps.[0].used_bytes", 2097152);
        jc_assert_json_int(s, "swaps.[0].priority", 5);
        jc_assert_json_bool(s, "swaps.[0].on_boot", TRUE);   /* nvzramconfig.service is enabled */
}

/* Xavier NX: /swfile is in fstab (on boot), cores 4 and 5 are offline. */
static void test_xavier_swap_and_offline_cores(void **state)
{
        jc_start(state, "xavier-nx-jp51", NULL);
        g_autofree char *swap = jc_ok("swap", NULL);
        jc_check_golden("xavier-nx-jp51.swap", swap);
        g_autofree char *online = jc_ok("get", "--value", "cpu.4.online", "cpu.5.online", "cpu.3.online", NULL);
        assert_string_equal(online, "false\nfalse\ntrue\n");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_status_every_board, testbus_teardown),
                cmocka_unit_test_teardown(test_board_every_board, testbus_teardown),
                cmocka_unit_test_teardown(test_default_command_is_status, testbus_teardown),
                cmocka_unit_test_teardown(test_color, testbus_teardown),
                cmocka_unit_test_teardown(test_status_with_loads, testbus_teardown),
                cmocka_unit_test_teardown(test_status_json, testbus_teardown),
                cmocka_unit_test_teardown(test_status_trip_points, testbus_teardown),
                cmocka_unit_test_teardown(test_status_throttled_orin, testbus_teardown),
                cmocka_unit_test_teardown(test_status_throttled_thor, testbus_teardown),
                cmocka_unit_test_teardown(test_status_json_pc, testbus_teardown),
                cmocka_unit_test_teardown(test_board_json, testbus_teardown),
                cmocka_unit_test_teardown(test_get, testbus_teardown),
                cmocka_unit_test_teardown(test_lists, testbus_teardown),
                cmocka_unit_test_teardown(test_lists_json, testbus_teardown),
                cmocka_unit_test_teardown(test_xavier_swap_and_offline_cores, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
