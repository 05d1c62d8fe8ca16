/* Throttling (issue 39): over-current counters and thermal caps on the fake
 * Orin and Thor, the summary, a counter that goes back, vanishes or reads
 * garbage, and NVML's clock event reasons as names. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "fixture.h"
#include "throttle.h"

static const jd_cooling_cap *find_cap(const jd_throttle_sample *s, const char *type)
{
        for (size_t i = 0; i < s->n_caps; i++)
                if (strcmp(s->caps[i].type, type) == 0)
                        return &s->caps[i];
        return NULL;
}

/* Every Orin and Thor fake has three armed channels at 0 and its throttle
 * alerts at 0: reasons reported, none active; the fan is no cap. */
static void test_boards_idle(void **state)
{
        (void) state;
        static const char *const boards[] = { "agx-orin-jp62", "orin-nano-jp62", "agx-orin-jp72", "agx-thor-jp71" };
        for (size_t b = 0; b < sizeof(boards) / sizeof(boards[0]); b++) {
                jd_sysroot *sr = fixture_open(boards[b]);
                jd_throttle_reader *r = jd_throttle_reader_new(sr);
                const jd_throttle_sample *s = jd_throttle_reader_sample(r);
                assert_int_equal(s->n_oc, 3);
                for (size_t i = 0; i < 3; i++) {
                        assert_int_equal(s->oc[i].channel, i + 1);
                        assert_true(s->oc[i].events.present);
                        assert_int_equal(s->oc[i].events.value, 0);
                        assert_true(s->oc[i].armed.present && s->oc[i].armed.value);
                        assert_int_equal(s->oc[i].state, JD_OC_COUNTER_OK);
                }
                assert_non_null(find_cap(s, "gpu-throttle-alert"));
                assert_null(find_cap(s, "pwm-fan"));
                for (int k = 0; k < JD_THROTTLE_REASONS; k++) {
                        assert_true(s->has_reason[k]);
                        assert_false(s->active[k]);
                }
                char text[64];
                jd_throttle_reasons_text(s, text, sizeof(text));
                assert_string_equal(text, "none");
                jd_throttle_reader_free(r);
                jd_sysroot_free(sr);
        }
}

/* The PC has none of it: no reason to report. */
static void test_board_without(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("x86-pc");
        jd_throttle_reader *r = jd_throttle_reader_new(sr);
        const jd_throttle_sample *s = jd_throttle_reader_sample(r);
        assert_int_equal(s->n_oc, 0);
        assert_false(s->has_reason[JD_THROTTLE_OVER_CURRENT]);
        jd_throttle_reader_free(r);
        jd_sysroot_free(sr);
}

/* Xavier (tegra19x_oc_event): six channels counted from ocN_irq_cnt, with
 * no throt_en, so "armed" is absent, never false. */
static void test_xavier_irq_counters(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("xavier-nx-jp51", &dir);
        fixture_write_str(dir, "/sys/class/hwmon/hwmon1/oc2_irq_cnt", "4\n");
        jd_throttle_reader *r = jd_throttle_reader_new(sr);
        const jd_throttle_sample *s = jd_throttle_reader_sample(r);
        assert_int_equal(s->n_oc, 6);
        assert_true(s->has_reason[JD_THROTTLE_OVER_CURRENT]);
        for (size_t i = 0; i < 6; i++) {
                assert_int_equal(s->oc[i].channel, i + 1);
                assert_false(s->oc[i].armed.present);
        }
        assert_int_equal(s->oc_events_since_boot.value, 4);
        assert_int_equal(s->oc_events_counted, 0); /* the baseline */
        fixture_write_str(dir, "/sys/class/hwmon/hwmon1/oc2_irq_cnt", "7\n");
        s = jd_throttle_reader_sample(r);
        assert_int_equal(s->oc[1].counted, 3);
        assert_int_equal(s->oc_events_counted, 3);
        assert_true(s->active[JD_THROTTLE_OVER_CURRENT]);
        s = jd_throttle_reader_sample(r);
        assert_false(s->active[JD_THROTTLE_OVER_CURRENT]);
        jd_throttle_reader_free(r);
        fixture_remove_copy(sr, dir);
}

static void write_edp(const char *dir, const char *counts)
{
        g_autofree char *text = g_strdup_printf("           CPU0       CPU1       CPU2       CPU3\n"
                                                " 83:          0          0          0          0     GICv2  83 Level     700e2000.soctherm\n"
                                                " 84: %s     GICv2  84 Level     soctherm_edp\n"
                                                "IPI0:       1804       1811       1797       1826       Rescheduling interrupts\n",
                                                counts);
        fixture_write_str(dir, "/proc/interrupts", text);
}

/* Nano/TX1: channel 0 is the soctherm_edp interrupt, every OC pin's,
 * summed over the CPUs; read on settings ticks only. */
static void test_nano_edp_interrupts(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("nano-jp46", &dir);
        jd_throttle_reader *r = jd_throttle_reader_new(sr);
        const jd_throttle_sample *s = jd_throttle_reader_sample(r);
        assert_int_equal(s->n_oc, 1);
        assert_int_equal(s->oc[0].channel, 0);
        assert_false(s->oc[0].armed.present);
        assert_true(s->oc_events_since_boot.present);
        assert_int_equal(s->oc_events_since_boot.value, 0);
        write_edp(dir, "2 0 1 0");
        s = jd_throttle_reader_sample(r);
        assert_int_equal(s->oc_events_counted, 3);
        assert_true(s->active[JD_THROTTLE_OVER_CURRENT]);
        write_edp(dir, "2x 0 1 0");
        s = jd_throttle_reader_sample(r);
        assert_int_equal(s->oc[0].state, JD_OC_COUNTER_UNREADABLE);
        assert_int_equal(s->oc_events_counted, 3);
        /* Between settings ticks the last reading stands. */
        jd_recheck_set_interval(3600000000u);
        jd_recheck_now();
        write_edp(dir, "5 0 1 0");
        s = jd_throttle_reader_sample(r);
        assert_int_equal(s->oc_events_counted, 6);
        write_edp(dir, "9 0 1 0");
        s = jd_throttle_reader_sample(r);
        assert_int_equal(s->oc_events_counted, 6);
        assert_false(s->active[JD_THROTTLE_OVER_CURRENT]);
        jd_recheck_set_interval(0);
        jd_throttle_reader_free(r);
        fixture_remove_copy(sr, dir);
}

static void test_interrupts_count(void **state)
{
        (void) state;
        uint64_t v = 0;
        assert_true(jd_interrupts_count(" 84:   1   2   3   4   GICv2  84 Level     soctherm_edp\n", "soctherm_edp", &v));
        assert_int_equal(v, 10);
        assert_true(jd_interrupts_count("x\n 84:   7  GICv2  84 Level  soctherm_edp  \r\n", "soctherm_edp", &v));
        assert_int_equal(v, 7);
        assert_false(jd_interrupts_count(" 84:   1   2   GICv2  84 Level  my_soctherm_edp\n", "soctherm_edp", &v));
        assert_false(jd_interrupts_count(" 84:   GICv2  84 Level  soctherm_edp\n", "soctherm_edp", &v));
        assert_false(jd_interrupts_count(" 84:   1x   2   GICv2  84 Level  soctherm_edp\n", "soctherm_edp", &v));
        assert_false(jd_interrupts_count(" 84:   99999999999999999999  GICv2 soctherm_edp\n", "soctherm_edp", &v));
        assert_false(jd_interrupts_count("", "soctherm_edp", &v));
}

static const char *oc_path(const char *board, int ch, char *buf, size_t size)
{
        snprintf(buf, size, "/sys/class/hwmon/%s/oc%d_event_cnt", strcmp(board, "agx-thor-jp71") == 0 ? "hwmon6" : "hwmon4",
                 ch);
        return buf;
}

static void find_cap_path(const char *dir, const char *type, char *out, size_t size)
{
        for (int i = 0; i < 32; i++) {
                char p[96];
                snprintf(p, sizeof(p), "sys/class/thermal/cooling_device%d/type", i);
                char *host = fixture_host_path(dir, p);
                FILE *f = fopen(host, "r");
                g_free(host);
                char t[64] = "";
                if (!f)
                        continue;
                if (!fgets(t, sizeof(t), f))
                        t[0] = '\0';
                fclose(f);
                t[strcspn(t, "\n")] = '\0';
                if (strcmp(t, type) == 0) {
                        snprintf(out, size, "/sys/class/thermal/cooling_device%d/cur_state", i);
                        return;
                }
        }
        fail_msg("no cooling device %s", type);
}

/* L4T 32's balanced throttling on the fake Nano: cpu-balanced is the CPU's
 * cap, emergency-/aux-balanced the SoC's; a state above 0 holds, 0 not. */
static void test_nano_balanced_caps(void **state)
{
        (void) state;
        char *dir, cap[96];
        jd_sysroot *sr = fixture_copy("nano-jp46", &dir);
        jd_throttle_reader *r = jd_throttle_reader_new(sr);
        const jd_throttle_sample *s = jd_throttle_reader_sample(r);
        const jd_cooling_cap *c = find_cap(s, "cpu-balanced");
        assert_non_null(c);
        assert_int_equal(c->reason, JD_THROTTLE_THERMAL_CPU);
        assert_int_equal(find_cap(s, "emergency-balanced")->reason, JD_THROTTLE_THERMAL_SOC);
        assert_int_equal(find_cap(s, "aux-balanced")->reason, JD_THROTTLE_THERMAL_SOC);
        assert_true(s->has_reason[JD_THROTTLE_THERMAL_CPU] && s->has_reason[JD_THROTTLE_THERMAL_SOC]);
        assert_false(s->has_reason[JD_THROTTLE_THERMAL_GPU]);
        assert_false(s->active[JD_THROTTLE_THERMAL_CPU] || s->active[JD_THROTTLE_THERMAL_SOC]);
        find_cap_path(dir, "cpu-balanced", cap, sizeof(cap));
        fixture_write_str(dir, cap, "1\n");
        s = jd_throttle_reader_sample(r);
        assert_true(s->active[JD_THROTTLE_THERMAL_CPU]);
        assert_false(s->active[JD_THROTTLE_THERMAL_SOC]);
        char text[64];
        jd_throttle_reasons_text(s, text, sizeof(text));
        assert_string_equal(text, "thermal_cpu");
        fixture_write_str(dir, cap, "0\n");
        find_cap_path(dir, "emergency-balanced", cap, sizeof(cap));
        fixture_write_str(dir, cap, "2\n");
        s = jd_throttle_reader_sample(r);
        assert_false(s->active[JD_THROTTLE_THERMAL_CPU]);
        assert_true(s->active[JD_THROTTLE_THERMAL_SOC]);
        jd_throttle_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* An OC event and a GPU thermal cap on Orin and Thor: the event is counted
 * once and is the active reason for that reading only; the cap holds while
 * its state is above 0. */
static void test_event_and_cap(void **state)
{
        (void) state;
        static const char *const boards[] = { "agx-orin-jp62", "agx-thor-jp71" };
        for (size_t b = 0; b < 2; b++) {
                char *dir, p[96], cap[96];
                jd_sysroot *sr = fixture_copy(boards[b], &dir);
                jd_throttle_reader *r = jd_throttle_reader_new(sr);
                jd_throttle_reader_sample(r);
                fixture_write_str(dir, oc_path(boards[b], 2, p, sizeof(p)), "3\n");
                find_cap_path(dir, "gpu-throttle-alert", cap, sizeof(cap));
                fixture_write_str(dir, cap, "1\n");
                const jd_throttle_sample *s = jd_throttle_reader_sample(r);
                assert_int_equal(s->oc[1].counted, 3);
                assert_true(s->oc[1].fired);
                assert_int_equal(s->oc_events_counted, 3);
                assert_int_equal(s->oc_events_since_boot.value, 3);
                assert_true(s->active[JD_THROTTLE_OVER_CURRENT]);
                assert_true(s->active[JD_THROTTLE_THERMAL_GPU]);
                assert_false(s->active[JD_THROTTLE_THERMAL_CPU]);
                char text[64];
                jd_throttle_reasons_text(s, text, sizeof(text));
                assert_string_equal(text, "over_current,thermal_gpu");
                s = jd_throttle_reader_sample(r);
                assert_false(s->active[JD_THROTTLE_OVER_CURRENT]);
                assert_true(s->active[JD_THROTTLE_THERMAL_GPU]);
                assert_int_equal(s->oc_events_counted, 3);
                jd_throttle_reader_free(r);
                fixture_remove_copy(sr, dir);
        }
}

/* Bad input: garbage adds nothing and says "unreadable"; a lower value
 * (driver reload) says "went_back" and counts the new value, never a
 * wrapped difference; a vanished file says so. counted never decreases. */
static void test_bad_counters(void **state)
{
        (void) state;
        char *dir, p[96];
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        oc_path("agx-orin-jp62", 1, p, sizeof(p));
        fixture_write_str(dir, p, "5\n");
        jd_throttle_reader *r = jd_throttle_reader_new(sr);
        const jd_throttle_sample *s = jd_throttle_reader_sample(r);
        assert_int_equal(s->oc[0].counted, 0); /* the first reading is the baseline */
        assert_int_equal(s->oc_events_since_boot.value, 5);
        fixture_write_str(dir, p, "garbage\n");
        s = jd_throttle_reader_sample(r);
        assert_int_equal(s->oc[0].state, JD_OC_COUNTER_UNREADABLE);
        assert_false(s->oc[0].events.present);
        assert_int_equal(s->oc[0].counted, 0);
        assert_false(s->active[JD_THROTTLE_OVER_CURRENT]);
        fixture_write_str(dir, p, "7\n");
        s = jd_throttle_reader_sample(r);
        assert_int_equal(s->oc[0].state, JD_OC_COUNTER_OK);
        assert_int_equal(s->oc[0].counted, 2);
        fixture_write_str(dir, p, "1\n");
        s = jd_throttle_reader_sample(r);
        assert_int_equal(s->oc[0].state, JD_OC_COUNTER_WENT_BACK);
        assert_int_equal(s->oc[0].counted, 3);
        assert_string_equal(jd_oc_counter_state_name(s->oc[0].state), "went_back");
        assert_int_equal(s->oc[0].resets, 1);
        assert_int_equal(s->oc[0].failed_reads, 1);
        fixture_write_str(dir, p, "18446744073709551615x\n");
        s = jd_throttle_reader_sample(r);
        assert_int_equal(s->oc[0].state, JD_OC_COUNTER_UNREADABLE);
        assert_int_equal(s->oc[0].counted, 3);
        fixture_unlink(dir, p);
        s = jd_throttle_reader_sample(r);
        assert_false(s->oc[0].events.present);
        assert_int_equal(s->oc[0].counted, 3);
        jd_throttle_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* The OC hwmon's device directory (under devices/) and its class link. */
static void oc_paths(const char *dir, const char *hwmon, char **device, char **link)
{
        /* JetPack 6's tegra234-oc-event device, Thor's soctherm-oc. */
        g_autofree char *orin = g_build_filename(dir, "sys/devices/platform/soctherm-oc-event", NULL);
        *device = g_build_filename(dir, g_file_test(orin, G_FILE_TEST_IS_DIR) ? "sys/devices/platform/soctherm-oc-event/hwmon"
                                                                              : "sys/devices/platform/soctherm-oc/hwmon",
                                   hwmon, NULL);
        *link = g_build_filename(dir, "sys/class/hwmon", hwmon, NULL);
}

/* The class link's target for DEVICE: "../../devices/platform/..." */
static const char *oc_link_target(const char *device)
{
        static char target[256];
        const char *sys = strstr(device, "/sys/devices/");
        assert_non_null(sys);
        snprintf(target, sizeof(target), "../..%s", sys + strlen("/sys"));
        return target;
}

/* A driver unbind: the hwmon's files and its class link go away. */
static void oc_unload(const char *dir, const char *hwmon)
{
        g_autofree char *device = NULL, *link = NULL;
        oc_paths(dir, hwmon, &device, &link);
        GDir *d = g_dir_open(device, 0, NULL);
        assert_non_null(d);
        for (const char *name; (name = g_dir_read_name(d));) {
                g_autofree char *f = g_build_filename(device, name, NULL);
                assert_int_equal(g_unlink(f), 0);
        }
        g_dir_close(d);
        assert_int_equal(g_rmdir(device), 0);
        assert_int_equal(g_unlink(link), 0);
}

/* A bind: the driver back as HWMON, its three counters restarted at 0. */
static void oc_load(const char *dir, const char *hwmon)
{
        g_autofree char *device = NULL, *link = NULL;
        oc_paths(dir, hwmon, &device, &link);
        assert_int_equal(g_mkdir_with_parents(device, 0755), 0);
        g_autofree char *name = g_build_filename(device, "name", NULL);
        assert_true(g_file_set_contents(name, "soctherm_oc\n", -1, NULL));
        for (int ch = 1; ch <= 3; ch++) {
                g_autofree char *cnt = g_strdup_printf("%s/oc%d_event_cnt", device, ch);
                g_autofree char *en = g_strdup_printf("%s/oc%d_throt_en", device, ch);
                assert_true(g_file_set_contents(cnt, "0\n", -1, NULL));
                assert_true(g_file_set_contents(en, "1\n", -1, NULL));
        }
        assert_int_equal(symlink(oc_link_target(device), link), 0);
}

/* A driver reload brings soctherm_oc back as another hwmonN (on Orin and
 * Thor): while it is away its channels read "vanished" and add nothing;
 * it is found again by name within RELOOK_EVERY (5) settings ticks (every
 * reading here), its restarted counter is a reset, never a difference,
 * and events after it are counted on top. A plain rename (the same files
 * under another number) is followed too, with no reset. */
static void test_renumbered(void **state)
{
        (void) state;
        static const struct {
                const char *board, *hwmon;
        } boards[] = { { "agx-orin-jp62", "hwmon4" }, { "agx-thor-jp71", "hwmon6" } };
        for (size_t b = 0; b < 2; b++) {
                char *dir, p[96];
                jd_sysroot *sr = fixture_copy(boards[b].board, &dir);
                snprintf(p, sizeof(p), "/sys/class/hwmon/%s/oc2_event_cnt", boards[b].hwmon);
                fixture_write_str(dir, p, "5\n");
                jd_throttle_reader *r = jd_throttle_reader_new(sr);
                const jd_throttle_sample *s = jd_throttle_reader_sample(r);
                fixture_write_str(dir, p, "8\n");
                s = jd_throttle_reader_sample(r);
                assert_int_equal(s->oc[1].counted, 3);

                oc_unload(dir, boards[b].hwmon);
                for (int i = 0; i < 3; i++) {
                        s = jd_throttle_reader_sample(r);
                        assert_int_equal(s->n_oc, 3);
                        for (size_t c = 0; c < 3; c++) {
                                assert_int_equal(s->oc[c].state, JD_OC_COUNTER_VANISHED);
                                assert_false(s->oc[c].events.present);
                        }
                        assert_false(s->oc_events_since_boot.present);
                        assert_int_equal(s->oc_events_counted, 3);
                        assert_false(s->active[JD_THROTTLE_OVER_CURRENT]);
                }
                assert_int_equal(s->oc[1].failed_reads, 3);

                oc_load(dir, "hwmon11");
                fixture_write_str(dir, "/sys/class/hwmon/hwmon11/oc2_event_cnt", "2\n"); /* 2 events since the reload */
                int readings = 0;
                do
                        s = jd_throttle_reader_sample(r);
                while (s->oc[1].state == JD_OC_COUNTER_VANISHED && ++readings < 10);
                assert_true(readings < 5); /* the fourth gone tick at most: the listing is every fifth */
                assert_int_equal(s->oc[1].state, JD_OC_COUNTER_WENT_BACK);
                assert_int_equal(s->oc[1].resets, 1);
                assert_int_equal(s->oc[1].counted, 5);
                assert_int_equal(s->oc[1].events.value, 2);
                assert_true(s->oc[1].armed.present && s->oc[1].armed.value);
                assert_int_equal(s->oc[0].state, JD_OC_COUNTER_OK); /* 0 after 0: no reset */
                assert_int_equal(s->oc[0].resets, 0);
                assert_int_equal(s->oc_events_counted, 5);
                assert_true(s->active[JD_THROTTLE_OVER_CURRENT]);
                fixture_write_str(dir, "/sys/class/hwmon/hwmon11/oc2_event_cnt", "6\n");
                s = jd_throttle_reader_sample(r);
                assert_int_equal(s->oc[1].state, JD_OC_COUNTER_OK);
                assert_int_equal(s->oc[1].counted, 9);

                /* Renamed, the same files: followed, no reset, nothing twice. */
                g_autofree char *old_dev = NULL, *old_link = NULL, *new_dev = NULL, *new_link = NULL;
                oc_paths(dir, "hwmon11", &old_dev, &old_link);
                oc_paths(dir, "hwmon17", &new_dev, &new_link);
                assert_int_equal(g_rename(old_dev, new_dev), 0);
                assert_int_equal(g_unlink(old_link), 0);
                assert_int_equal(symlink(oc_link_target(new_dev), new_link), 0);
                s = jd_throttle_reader_sample(r);
                assert_int_equal(s->oc[1].state, JD_OC_COUNTER_OK);
                assert_int_equal(s->oc[1].counted, 9);
                fixture_write_str(dir, "/sys/class/hwmon/hwmon17/oc2_event_cnt", "7\n");
                s = jd_throttle_reader_sample(r);
                assert_int_equal(s->oc[1].counted, 10);
                assert_int_equal(s->oc[1].resets, 1);
                assert_int_equal(s->oc_events_counted, 10);
                jd_throttle_reader_free(r);
                fixture_remove_copy(sr, dir);
        }
}

/* Channels are those the directory lists, in number order: a twelfth is
 * read too (no fixed number of channels). */
static void test_more_channels(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        g_autofree char *hw = fixture_host_path(dir, "sys/class/hwmon/hwmon4");
        g_autofree char *extra = g_build_filename(hw, "oc12_event_cnt", NULL);
        assert_true(g_file_set_contents(extra, "5\n", -1, NULL));
        jd_throttle_reader *r = jd_throttle_reader_new(sr);
        const jd_throttle_sample *s = jd_throttle_reader_sample(r);
        assert_int_equal(s->n_oc, 4);
        assert_int_equal(s->oc[2].channel, 3);
        assert_int_equal(s->oc[3].channel, 12);
        assert_int_equal(s->oc[3].events.value, 5);
        assert_false(s->oc[3].armed.present); /* no oc12_throt_en: unknown, not false */
        jd_throttle_reader_free(r);
        fixture_remove_copy(sr, dir);
}

static void test_nvml_names(void **state)
{
        (void) state;
        char t[64];
        jd_nvml_clock_reasons_text(0x4 | 0x40, t, sizeof(t));
        assert_string_equal(t, "sw_power_cap,hw_thermal");
        jd_nvml_clock_reasons_text(0, t, sizeof(t));
        assert_string_equal(t, "none");
        jd_nvml_clock_reasons_text(0x1 | 0x400, t, sizeof(t));
        assert_string_equal(t, "idle,0x400");
        char small[16];
        jd_nvml_clock_reasons_text(0x4 | 0x40, small, sizeof(small));
        assert_string_equal(small, "0x44"); /* never a cut name */
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_boards_idle),
                cmocka_unit_test(test_board_without),
                cmocka_unit_test(test_xavier_irq_counters),
                cmocka_unit_test(test_nano_edp_interrupts),
                cmocka_unit_test(test_nano_balanced_caps),
                cmocka_unit_test(test_interrupts_count),
                cmocka_unit_test(test_event_and_cap),
                cmocka_unit_test(test_bad_counters),
                cmocka_unit_test(test_more_channels),
                cmocka_unit_test(test_renumbered),
                cmocka_unit_test(test_nvml_names),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
