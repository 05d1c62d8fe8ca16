/* The exporter's mapping from jetsond's keys to metric families and its
 * two text formats, without D-Bus or HTTP: exact lines for every kind of
 * family, unit conversions, escaping, grouping, the "jetsond is gone"
 * page, and the family table held to the key table of the Metrics XML. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "exposition.h"
#include "families.h"

/* An AGX Orin-like sample, keys interleaved as jetsond may send them. */
static exp_sample *orin_sample(void)
{
        exp_sample *s = exp_sample_new(1764000000123456ULL);
        exp_sample_add_double(s, "cpu.load", 12.5);
        exp_sample_add_double(s, "cpu.0.load", 34.7);
        exp_sample_add_double(s, "cpu.0.user", 30.2);
        exp_sample_add_double(s, "cpu.0.system", 4.5);
        exp_sample_add_double(s, "cpu.0.idle", 65.3);
        exp_sample_add_double(s, "cpu.idle", 87.5);
        exp_sample_add_uint(s, "cpu.0.freq", 1728000);
        exp_sample_add_bool(s, "cpu.0.online", true);
        exp_sample_add_string(s, "cpu.0.governor", "schedutil");
        exp_sample_add_double(s, "cpu.1.load", 0);
        exp_sample_add_bool(s, "cpu.7.online", false);
        exp_sample_add_uint(s, "gpu.gpc1.freq", 918000);
        exp_sample_add_uint(s, "power.VDD_IN.power", 5123);
        exp_sample_add_uint(s, "power.VDD_IN.voltage", 5000);
        exp_sample_add_uint(s, "power.VDD_IN.current", 1024);
        exp_sample_add_uint(s, "power.total", 5123);
        exp_sample_add_uint(s, "energy.total", 1234567);
        exp_sample_add_uint(s, "energy.VDD_IN", 1000);
        exp_sample_add_uint(s, "ram.total", 31000000);
        exp_sample_add_double(s, "temp.cpu", 46.5);
        exp_sample_add_double(s, "fan.0.speed", 40);
        exp_sample_add_uint(s, "fan.0.rpm", 2100);
        exp_sample_add_string(s, "fan.0.profile", "quiet");
        exp_sample_add_uint(s, "nvpmodel.mode", 0);
        exp_sample_add_string(s, "nvpmodel.name", "MAXN");
        exp_sample_add_string(s, "process.1234.name", "python3");
        exp_sample_add_string(s, "process.1234.user", "ai\"x\\y");
        exp_sample_add_uint(s, "process.1234.gpu_mem", 1024);
        exp_sample_add_double(s, "process.1234.cpu", 150);
        exp_sample_add_uint(s, "process.99.gpu_mem", 8);
        exp_sample_add_uint(s, "process.1234.dgpu.1.mem", 2048);
        exp_sample_add_double(s, "process.1234.dgpu.1.sm", 35);
        exp_sample_add_string(s, "process.1234.dgpu.1.type", "compute+graphics");
        exp_sample_add_double(s, "process.1234.start_time", 1764000000.25);
        exp_sample_add_uint(s, "process.1234.ppid", 1200);
        exp_sample_add_double(s, "dgpu.1.load", 37);
        exp_sample_add_uint(s, "dgpu.1.energy", 123456789);
        exp_sample_add_uint(s, "dgpu.1.power", 231000);
        exp_sample_add_uint(s, "dgpu.1.nvlink.17.rx", 524288000);
        exp_sample_add_uint(s, "dgpu.1.nvlink_tx_total", 1048576);
        exp_sample_add_uint(s, "dgpu.1.mig.5.mem_total", 10485760);
        exp_sample_add_string(s, "dgpu.1.mig.5.uuid", "MIG-cccc");
        exp_sample_add_uint(s, "uptime", 3600);
        exp_sample_add_uint(s, "net.rx_bytes", 123456789012ULL);
        exp_sample_add_uint(s, "some.future.key", 5);
        exp_sample_add_string(s, "temp.broken", "a string where a number belongs");
        return s;
}

static void orin_board(exp_board *b)
{
        *b = (exp_board){
                .model = g_strdup("NVIDIA Jetson AGX Orin Developer Kit"),
                .module = g_strdup("P3701-0005"),
                .soc = g_strdup("tegra234"),
                .l4t = g_strdup("36.4.3"),
                .jetpack = g_strdup("6.2"),
                .cuda_arch = g_strdup("8.7"),
                .default_mode = 2,
        };
}

static GString *render(exp_format format)
{
        exp_sample *s = orin_sample();
        exp_board b;
        orin_board(&b);
        GString *out = exp_render(s, &b, format);
        exp_sample_unref(s);
        exp_board_clear(&b);
        return out;
}

/* LINE is a whole line of TEXT. */
static bool has_line(const GString *text, const char *line)
{
        g_autofree char *needle = g_strdup_printf("\n%s\n", line);
        g_autofree char *hay = g_strdup_printf("\n%s", text->str);
        return strstr(hay, needle) != NULL;
}

static void assert_line(const GString *text, const char *line)
{
        if (!has_line(text, line))
                fail_msg("missing line \"%s\" in:\n%s", line, text->str);
}

static unsigned count(const char *text, const char *needle)
{
        unsigned n = 0;
        for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
                n++;
        return n;
}

static void test_prometheus_lines(void **state)
{
        (void)state;
        GString *out = render(EXP_FORMAT_PROMETHEUS);
        assert_line(out, "jetson_up 1");
        assert_line(out, "jetson_cpu_total_load_ratio 0.125");
        assert_line(out, "jetson_cpu_load_ratio{cpu=\"0\"} 0.347");
        assert_line(out, "jetson_cpu_load_ratio{cpu=\"1\"} 0");
        assert_line(out, "jetson_cpu_user_ratio{cpu=\"0\"} 0.302");
        assert_line(out, "jetson_cpu_system_ratio{cpu=\"0\"} 0.045");
        assert_line(out, "jetson_cpu_idle_ratio{cpu=\"0\"} 0.653");
        assert_line(out, "jetson_cpu_total_idle_ratio 0.875");
        assert_line(out, "jetson_cpu_frequency_hertz{cpu=\"0\"} 1728000000");
        assert_line(out, "jetson_cpu_online{cpu=\"0\"} 1");
        assert_line(out, "jetson_cpu_online{cpu=\"7\"} 0");
        assert_line(out, "jetson_cpu_governor_info{cpu=\"0\",governor=\"schedutil\"} 1");
        assert_line(out, "jetson_gpu_gpc_frequency_hertz{gpc=\"1\"} 918000000");
        assert_line(out, "jetson_rail_power_watts{rail=\"VDD_IN\"} 5.123");
        assert_line(out, "jetson_rail_voltage_volts{rail=\"VDD_IN\"} 5");
        assert_line(out, "jetson_rail_current_amperes{rail=\"VDD_IN\"} 1.024");
        assert_line(out, "jetson_board_power_watts 5.123");
        assert_line(out, "jetson_board_energy_joules_total 1234.567");
        assert_line(out, "jetson_rail_energy_joules_total{rail=\"VDD_IN\"} 1");
        assert_line(out, "jetson_ram_total_bytes 31744000000");
        assert_line(out, "jetson_temperature_celsius{zone=\"cpu\"} 46.5");
        assert_line(out, "jetson_fan_speed_ratio{fan=\"0\"} 0.4");
        assert_line(out, "jetson_fan_rpm{fan=\"0\"} 2100");
        assert_line(out, "jetson_fan_profile_info{fan=\"0\",profile=\"quiet\"} 1");
        assert_line(out, "jetson_nvpmodel_mode{name=\"MAXN\"} 0");
        assert_line(out, "jetson_nvpmodel_default_mode 2");
        assert_line(out, "jetson_process_gpu_memory_bytes{pid=\"1234\",name=\"python3\",user=\"ai\\\"x\\\\y\"} 1048576");
        /* A process whose name and user jetsond left out: no empty labels. */
        assert_line(out, "jetson_process_gpu_memory_bytes{pid=\"99\"} 8192");
        assert_line(out, "jetson_process_cpu_ratio{pid=\"1234\",name=\"python3\",user=\"ai\\\"x\\\\y\"} 1.5");
        /* Discrete GPUs: the NVML index as "gpu"; a process on one has both. */
        assert_line(out, "jetson_dgpu_load_ratio{gpu=\"1\"} 0.37");
        assert_line(out, "jetson_dgpu_power_watts{gpu=\"1\"} 231");
        assert_line(out, "jetson_dgpu_energy_joules_total{gpu=\"1\"} 123456.789");
        assert_line(out, "jetson_dgpu_nvlink_link_receive_bytes_per_second{gpu=\"1\",link=\"17\"} 524288000");
        assert_line(out, "jetson_dgpu_nvlink_transmitted_bytes_total{gpu=\"1\"} 1048576");
        assert_line(out, "jetson_dgpu_mig_memory_total_bytes{gpu=\"1\",mig=\"5\"} 10737418240");
        assert_line(out, "jetson_dgpu_mig_uuid_info{gpu=\"1\",mig=\"5\",uuid=\"MIG-cccc\"} 1");
        assert_line(out, "jetson_process_dgpu_memory_bytes{pid=\"1234\",gpu=\"1\",name=\"python3\",user=\"ai\\\"x\\\\y\"} "
                         "2097152");
        assert_line(out, "jetson_process_dgpu_sm_ratio{pid=\"1234\",gpu=\"1\",name=\"python3\",user=\"ai\\\"x\\\\y\"} 0.35");
        /* The start as a time; the contexts as an info family; the
         * parent is no metric. */
        assert_line(out, "jetson_process_start_time_seconds{pid=\"1234\",name=\"python3\",user=\"ai\\\"x\\\\y\"} "
                         "1764000000.25");
        assert_line(out, "jetson_process_dgpu_type_info{pid=\"1234\",gpu=\"1\",name=\"python3\",user=\"ai\\\"x\\\\y\","
                         "type=\"compute+graphics\"} 1");
        assert_null(strstr(out->str, "1200"));
        assert_line(out, "jetson_uptime_seconds 3600");
        assert_line(out, "jetson_network_receive_bytes_total 123456789012");
        assert_line(out, "jetson_sample_timestamp_seconds 1764000000.123456");
        assert_line(out, "jetson_info{model=\"NVIDIA Jetson AGX Orin Developer Kit\",module=\"P3701-0005\","
                         "soc=\"tegra234\",l4t=\"36.4.3\",jetpack=\"6.2\",cuda_arch=\"8.7\"} 1");
        /* Metadata as Prometheus text names it: after the samples. */
        assert_line(out, "# TYPE jetson_board_energy_joules_total counter");
        assert_line(out, "# HELP jetson_board_energy_joules_total Energy of the board power, integrated since "
                         "jetsond started");
        assert_line(out, "# TYPE jetson_cpu_governor_info gauge");
        assert_line(out, "# TYPE jetson_info gauge");
        assert_line(out, "# TYPE jetson_temperature_celsius gauge");
        /* Unknown keys and mistyped values are left out, the strings that
         * are labels are no metric of their own. */
        assert_null(strstr(out->str, "future"));
        assert_null(strstr(out->str, "broken"));
        assert_null(strstr(out->str, "jetson_nvpmodel_name"));
        assert_null(strstr(out->str, "# UNIT"));
        assert_null(strstr(out->str, "# EOF"));
        g_string_free(out, TRUE);
}

/* Every family has exactly one TYPE line and its samples follow it
 * without another family in between, though jetsond interleaves keys. */
static void test_families_grouped(void **state)
{
        (void)state;
        for (int f = 0; f < 2; f++) {
                GString *out = render(f ? EXP_FORMAT_OPENMETRICS : EXP_FORMAT_PROMETHEUS);
                g_auto(GStrv) lines = g_strsplit(out->str, "\n", -1);
                g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
                g_autofree char *current = NULL;
                for (char **l = lines; *l && **l; l++) {
                        if (g_str_has_prefix(*l, "# TYPE ")) {
                                char *name = g_strndup(*l + 7, strcspn(*l + 7, " "));
                                assert_false(g_hash_table_contains(seen, name));
                                g_hash_table_add(seen, name);
                                g_free(current);
                                current = g_strdup(name);
                        } else if (**l != '#') {
                                assert_non_null(current);
                                /* The sample's name is the family's, plus
                                 * _total or _info in OpenMetrics. */
                                assert_true(g_str_has_prefix(*l, current));
                                char next = (*l)[strlen(current)];
                                assert_true(next == ' ' || next == '{' || next == '_');
                        }
                }
                assert_true(g_hash_table_contains(seen, f ? "jetson_cpu_load_ratio" : "jetson_cpu_load_ratio"));
                g_string_free(out, TRUE);
        }
}

static void test_openmetrics(void **state)
{
        (void)state;
        GString *out = render(EXP_FORMAT_OPENMETRICS);
        assert_true(g_str_has_suffix(out->str, "\n# EOF\n"));
        assert_int_equal(count(out->str, "# EOF"), 1);
        assert_line(out, "# TYPE jetson_board_energy_joules counter");
        assert_line(out, "# UNIT jetson_board_energy_joules joules");
        assert_line(out, "# HELP jetson_board_energy_joules Energy of the board power, integrated since jetsond "
                         "started");
        assert_line(out, "jetson_board_energy_joules_total 1234.567");
        assert_line(out, "# TYPE jetson_cpu_governor info");
        assert_line(out, "jetson_cpu_governor_info{cpu=\"0\",governor=\"schedutil\"} 1");
        assert_line(out, "# TYPE jetson info");
        assert_line(out, "# UNIT jetson_temperature_celsius celsius");
        assert_line(out, "# UNIT jetson_fan_rpm rpm");
        assert_line(out, "# TYPE jetson_up gauge");
        /* No UNIT for unitless families. */
        assert_null(strstr(out->str, "# UNIT jetson_up "));
        g_string_free(out, TRUE);
}

/* In OpenMetrics every family with a UNIT ends its name with it. */
static void test_unit_suffixes(void **state)
{
        (void)state;
        for (size_t i = 0; i < fam_table_len; i++) {
                const fam_family *f = &fam_table[i];
                if (!f->name)
                        continue;
                assert_true(g_str_has_prefix(f->name, "jetson_"));
                assert_false(g_str_has_suffix(f->name, "_total"));
                if (f->unit) {
                        g_autofree char *suffix = g_strdup_printf("_%s", f->unit);
                        if (!g_str_has_suffix(f->name, suffix))
                                fail_msg("%s does not end in %s", f->name, suffix);
                }
                assert_non_null(f->help);
        }
}

static void test_down(void **state)
{
        (void)state;
        exp_board b;
        orin_board(&b);
        GString *out = exp_render(NULL, &b, EXP_FORMAT_PROMETHEUS);
        assert_string_equal(out->str, "# HELP jetson_up 1 if jetsond is on the bus and its latest sample is "
                                      "current, else 0\n# TYPE jetson_up gauge\njetson_up 0\n");
        g_string_free(out, TRUE);
        out = exp_render(NULL, NULL, EXP_FORMAT_OPENMETRICS);
        assert_true(g_str_has_suffix(out->str, "\njetson_up 0\n# EOF\n"));
        assert_int_equal(count(out->str, "\njetson"), 1);
        g_string_free(out, TRUE);
        exp_board_clear(&b);
}

static void test_numbers(void **state)
{
        (void)state;
        exp_sample *s = exp_sample_new(5);
        exp_sample_add_uint(s, "energy.A", 0);
        exp_sample_add_uint(s, "energy.B", 5);
        exp_sample_add_uint(s, "energy.C", 1500);
        exp_sample_add_uint(s, "energy.D", UINT64_MAX);
        exp_sample_add_double(s, "temp.nan", NAN);
        exp_sample_add_double(s, "temp.hot", INFINITY);
        exp_sample_add_double(s, "temp.cold", -INFINITY);
        exp_sample_add_double(s, "temp.small", -12.25);
        exp_sample_add_uint(s, "ram.total", UINT64_MAX);
        exp_sample_add_uint(s, "fan.0.pwm", 255);
        GString *out = exp_render(s, NULL, EXP_FORMAT_PROMETHEUS);
        assert_line(out, "jetson_rail_energy_joules_total{rail=\"A\"} 0");
        assert_line(out, "jetson_rail_energy_joules_total{rail=\"B\"} 0.005");
        assert_line(out, "jetson_rail_energy_joules_total{rail=\"C\"} 1.5");
        assert_line(out, "jetson_rail_energy_joules_total{rail=\"D\"} 18446744073709551.615");
        assert_line(out, "jetson_temperature_celsius{zone=\"nan\"} NaN");
        assert_line(out, "jetson_temperature_celsius{zone=\"hot\"} +Inf");
        assert_line(out, "jetson_temperature_celsius{zone=\"cold\"} -Inf");
        assert_line(out, "jetson_temperature_celsius{zone=\"small\"} -12.25");
        assert_line(out, "jetson_ram_total_bytes 1.88894659314786e+22");
        assert_line(out, "jetson_fan_pwm{fan=\"0\"} 255");
        assert_line(out, "jetson_sample_timestamp_seconds 0.000005");
        /* No board known yet: no info line, no default mode. */
        assert_null(strstr(out->str, "jetson_info"));
        assert_null(strstr(out->str, "default_mode"));
        g_string_free(out, TRUE);
        exp_sample_unref(s);
}

/* Label values with newlines and backslashes stay on one line. */
static void test_escaping(void **state)
{
        (void)state;
        exp_sample *s = exp_sample_new(1);
        exp_sample_add_string(s, "fan.0.profile", "two\nlines \\ \"quoted\"");
        GString *out = exp_render(s, NULL, EXP_FORMAT_OPENMETRICS);
        assert_line(out, "jetson_fan_profile_info{fan=\"0\",profile=\"two\\nlines \\\\ \\\"quoted\\\"\"} 1");
        g_string_free(out, TRUE);
        exp_sample_unref(s);
}

/* The key column of the table in introspection/org.jetsond.Jetson1.
 * Metrics.xml, with its instance words as "*" ("gpcN" as "gpc*"). */
static GPtrArray *xml_keys(void)
{
        g_autofree char *xml = NULL;
        g_autoptr(GError) error = NULL;
        if (!g_file_get_contents(SOURCE_DIR "/introspection/org.jetsond.Jetson1.Metrics.xml", &xml, NULL, &error))
                fail_msg("%s", error->message);
        GPtrArray *keys = g_ptr_array_new_with_free_func(g_free);
        g_auto(GStrv) lines = g_strsplit(xml, "\n", -1);
        for (char **l = lines; *l; l++) {
                char *line = g_strstrip(*l);
                if (line[0] != '|' || strstr(line, "| key ") || strstr(line, "|==="))
                        continue;
                g_autofree char *key = g_strstrip(g_strndup(line + 1, strcspn(line + 1, "|")));
                g_auto(GStrv) parts = g_strsplit(key, ".", -1);
                for (char **p = parts; *p; p++) {
                        if (!strcmp(*p, "N") || !strcmp(*p, "NAME") || !strcmp(*p, "RAIL") || !strcmp(*p, "ZONE") ||
                            !strcmp(*p, "TYPE") || !strcmp(*p, "PID")) {
                                g_free(*p);
                                *p = g_strdup("*");
                        } else if (g_str_has_suffix(*p, "N") && g_ascii_islower((*p)[0])) {
                                (*p)[strlen(*p) - 1] = '*';
                        }
                }
                g_ptr_array_add(keys, g_strjoinv(".", parts));
        }
        return keys;
}

static void test_table_covers_every_key(void **state)
{
        (void)state;
        g_autoptr(GPtrArray) keys = xml_keys();
        assert_true(keys->len > 60);
        for (guint i = 0; i < keys->len; i++)
                if (!exp_key_known(keys->pdata[i]))
                        fail_msg("key %s of the Metrics XML has no metric family", (char *)keys->pdata[i]);
        /* And the other way: no family for a key jetsond does not have. */
        for (size_t f = 0; f < fam_table_len; f++) {
                bool found = false;
                for (guint i = 0; i < keys->len && !found; i++)
                        found = strcmp(keys->pdata[i], fam_table[f].key) == 0;
                if (!found)
                        fail_msg("family pattern %s is no key of the Metrics XML", fam_table[f].key);
        }
}

static void test_list(void **state)
{
        (void)state;
        GString *list = exp_list_families();
        assert_non_null(strstr(list->str, "jetson_board_energy_joules_total\tcounter\t-\tenergy.total\t"));
        assert_non_null(strstr(list->str, "jetson_process_gpu_memory_bytes\tgauge\tpid,name,user\tprocess.*.gpu_mem\t"));
        assert_non_null(strstr(list->str, "jetson_cpu_governor_info\tinfo\tcpu,governor\tcpu.*.governor\t"));
        assert_non_null(strstr(list->str, "jetson_up\tgauge\t"));
        assert_null(strstr(list->str, "nvpmodel.name"));
        g_string_free(list, TRUE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_prometheus_lines),  cmocka_unit_test(test_families_grouped),
                cmocka_unit_test(test_openmetrics),       cmocka_unit_test(test_unit_suffixes),
                cmocka_unit_test(test_down),              cmocka_unit_test(test_numbers),
                cmocka_unit_test(test_escaping),          cmocka_unit_test(test_table_covers_every_key),
                cmocka_unit_test(test_list),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
