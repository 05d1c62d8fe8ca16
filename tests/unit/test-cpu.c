/* CPU on every board: cores and their online state, frequencies, and
 * loads from two prepared /proc/stat snapshots. The snapshots are built
 * so that averaging per-core loads gives a different (wrong) aggregate. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpu.h"
#include "fixture.h"

/* Every pread(2) the readers make goes through here (the test's own
 * definition comes before libc's), counted while COUNTING is set. With
 * _FILE_OFFSET_BITS=64 this defines the pread64 the readers call. */
static bool counting;
static unsigned preads;

ssize_t pread(int fd, void *buf, size_t count, off_t offset)
{
        if (counting)
                preads++;
        return syscall(SYS_pread64, fd, buf, count, offset);
}

typedef struct {
        const char *board;
        size_t n_cores;
        double aggregate;
        double loads[12];    /* online cores in order; -1 = offline */
        uint64_t cur[12];
} cpu_case;

static const cpu_case cases[] = {
        { "agx-orin-jp62", 12, 55.0,
          { 55, 85, 90, 15, 65, 0, 0, 100, 80, 95, 20, 95 },
          { 729600, 1190400, 2201600, 1497600, 729600, 2201600, 960000, 1036800, 729600, 1344000, 2201600, 1728000 } },
        { "orin-nano-jp62", 6, 65.0, { 90, 0, 100, 80, 45, 95 },
          { 729600, 1344000, 960000, 1190400, 729600, 1344000 } },
        { "xavier-nx-jp51", 6, 60.0, { 100, 0, 90, 70, -1, -1 }, { 1420800, 1190400, 1267200, 1420800 } },
        { "nano-jp46", 4, 55.0, { 15, 100, 0, 80 }, { 1326000, 1326000, 1326000, 1326000 } },
        { "x86-pc", 8, 55.0, { 50, 65, 100, 0, 20, 30, 100, 40 },
          { 1900123, 800021, 2100456, 799987, 3400002, 1201345, 900000, 4000111 } },
};

/* The split of a window covers all of it, and its idle part is what the
 * load leaves. */
static void assert_split_matches(const jd_cpu_times *t, double load)
{
        assert_true(t->present);
        assert_dbl_equal(t->user + t->nice + t->system + t->idle, 100.0);
        assert_dbl_equal(t->idle, 100.0 - load);
}

static void test_loads_and_freqs(void **state)
{
        (void) state;
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                const cpu_case *c = &cases[i];
                char *dir;
                jd_sysroot *sr = fixture_copy(c->board, &dir);
                jd_cpu_reader *r = jd_cpu_reader_new(sr);
                const jd_cpu_sample *s = jd_cpu_reader_sample(r);
                assert_int_equal(s->n_cores, c->n_cores);
                assert_false(s->load.present); /* one reading: no interval yet */

                char name[128];
                snprintf(name, sizeof(name), "proc-stat/%s-b", c->board);
                g_autofree char *b = fixture_read_aux(name);
                fixture_write_str(dir, "proc/stat", b);
                s = jd_cpu_reader_sample(r);
                assert_true(s->load.present);
                if (fabs(s->load.value - c->aggregate) > 1e-6)
                        fail_msg("%s: aggregate %f, want %f", c->board, s->load.value, c->aggregate);
                assert_split_matches(&s->times, s->load.value);
                for (size_t k = 0; k < c->n_cores; k++) {
                        const jd_cpu_core *core = &s->cores[k];
                        assert_int_equal(core->id, k);
                        if (c->loads[k] < 0) {
                                assert_false(core->online);
                                assert_false(core->load.present);
                                assert_false(core->cur_khz.present);
                                assert_false(core->times.present);
                                continue;
                        }
                        assert_true(core->online);
                        assert_dbl_equal(core->load.value, c->loads[k]);
                        assert_split_matches(&core->times, core->load.value);
                        assert_int_equal(core->cur_khz.value, c->cur[k]);
                }
                jd_cpu_reader_free(r);
                fixture_remove_copy(sr, dir);
        }
}

/* Each field of a window in its own share: system takes irq and softirq,
 * idle takes iowait; steal, guest and guest_nice are not in the total. */
static void test_time_split(void **state)
{
        (void) state;
        jd_cpu_ticks agg[2], core[2][2];
        assert_true(jd_parse_proc_stat("cpu  100 20 50 800 30 10 10 7 0 0\n"
                                       "cpu0 100 20 50 800 30 10 10 7 0 0\n"
                                       "cpu1 5 5 5 5 5 5 5\nintr 1 2\n", &agg[0], core[0], 2));
        assert_true(jd_parse_proc_stat("cpu  130 30 65 835 35 13 12 99 0 0\n"
                                       "cpu0 130 30 65 835 35 13 12 99 0 0\n"
                                       "cpu1 5 5 5 5 5 5 5\nintr 1 2\n", &agg[1], core[1], 2));
        jd_cpu_times t = jd_cpu_split(&agg[0], &agg[1]);
        assert_true(t.present);
        assert_dbl_equal(t.user, 30.0);
        assert_dbl_equal(t.nice, 10.0);
        assert_dbl_equal(t.system, 20.0);
        assert_dbl_equal(t.idle, 40.0);
        assert_dbl_equal(jd_cpu_load(&agg[0], &agg[1]).value, 60.0);
        /* No movement: no window, as for the load. */
        assert_false(jd_cpu_split(&core[0][1], &core[1][1]).present);

        /* One field going back (a counter reset) is no window either, even
         * when the total still rises. */
        jd_cpu_ticks back = agg[1];
        back.nice = agg[0].nice - 1;
        assert_false(jd_cpu_split(&agg[0], &back).present);

        /* The AGX Orin fixture's cpu0 from -a to -b: user +36, nice +1,
         * system +16, irq +1, softirq +1, idle +45 of 100 ticks. */
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_cpu_reader *r = jd_cpu_reader_new(sr);
        jd_cpu_reader_sample(r);
        g_autofree char *b = fixture_read_aux("proc-stat/agx-orin-jp62-b");
        fixture_write_str(dir, "proc/stat", b);
        const jd_cpu_sample *s = jd_cpu_reader_sample(r);
        const jd_cpu_times *c0 = &s->cores[0].times;
        assert_true(c0->present);
        assert_dbl_equal(c0->user, 36.0);
        assert_dbl_equal(c0->nice, 1.0);
        assert_dbl_equal(c0->system, 18.0);
        assert_dbl_equal(c0->idle, 45.0);
        /* Held, as the load, while the counters stand still. */
        s = jd_cpu_reader_sample(r);
        assert_true(s->cores[0].times.present);
        assert_dbl_equal(s->cores[0].times.user, 36.0);
        jd_cpu_reader_free(r);
        fixture_remove_copy(sr, dir);
}

static void test_limits(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("agx-orin-jp62");
        jd_cpu_reader *r = jd_cpu_reader_new(sr);
        const jd_cpu_sample *s = jd_cpu_reader_last(r);
        const jd_cpu_core *c = &s->cores[11];
        assert_int_equal(c->id, 11); /* numeric order: cpu2 before cpu10 */
        assert_int_equal(c->min_khz.value, 729600);
        assert_int_equal(c->max_khz.value, 2201600);
        assert_int_equal(c->hw_min_khz.value, 115200);
        assert_int_equal(c->hw_max_khz.value, 2201600);
        assert_string_equal(c->governor, "schedutil");
        assert_int_equal(c->n_idle, 2);
        assert_string_equal(c->idle[0].name, "WFI");
        assert_string_equal(c->idle[1].name, "c7");
        assert_false(c->idle[1].disabled.value);
        jd_cpu_reader_free(r);
        jd_sysroot_free(sr);
}

/* /proc/stat with IDLE ticks added to every cpu line's idle field: a
 * window in which every core only idled. */
static char *add_idle(const char *stat, uint64_t idle)
{
        GString *out = g_string_new(NULL);
        g_auto(GStrv) lines = g_strsplit(stat, "\n", -1);
        for (char **l = lines; *l && **l; l++) {
                g_auto(GStrv) f = g_strsplit_set(*l, " ", -1);
                /* "cpu  a b c idle ..." has an empty field after "cpu". */
                int field = 0;
                for (char **w = f; *w; w++) {
                        if (**w && g_str_has_prefix(*l, "cpu") && field++ == 4) {
                                g_autofree char *old = *w;
                                *w = g_strdup_printf("%" G_GUINT64_FORMAT, g_ascii_strtoull(old, NULL, 10) + idle);
                        }
                }
                g_autofree char *joined = g_strjoinv(" ", f);
                g_string_append_printf(out, "%s\n", joined);
        }
        return g_string_free(out, FALSE);
}

/* A reader faster than the kernel's jiffy sees /proc/stat unchanged
 * between two readings: the load of the last window in which the
 * counters moved stays, neither dropped nor 0, until they move again. */
static void test_load_held_until_counters_move(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("nano-jp46", &dir);
        jd_cpu_reader *r = jd_cpu_reader_new(sr);
        jd_cpu_reader_sample(r);
        g_autofree char *b = fixture_read_aux("proc-stat/nano-jp46-b");
        fixture_write_str(dir, "proc/stat", b);
        const jd_cpu_sample *s = jd_cpu_reader_sample(r);
        assert_dbl_equal(s->load.value, 55.0);
        for (int i = 0; i < 3; i++) {
                s = jd_cpu_reader_sample(r);
                assert_true(s->load.present);
                assert_dbl_equal(s->load.value, 55.0);
                assert_true(s->cores[1].load.present);
                assert_dbl_equal(s->cores[1].load.value, 100.0);
        }
        /* The counters move again: the window is b -> c, all idle. */
        g_autofree char *c = add_idle(b, 400);
        fixture_write_str(dir, "proc/stat", c);
        s = jd_cpu_reader_sample(r);
        assert_true(s->load.present);
        assert_dbl_equal(s->load.value, 0.0);
        assert_dbl_equal(s->cores[1].load.value, 0.0);
        jd_cpu_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* /proc/stat without the line of core ID: the kernel lists online cores only. */
static char *without_core(const char *stat, unsigned id)
{
        g_autofree char *prefix = g_strdup_printf("cpu%u ", id);
        GString *out = g_string_new(NULL);
        g_auto(GStrv) lines = g_strsplit(stat, "\n", -1);
        for (char **l = lines; *l && **l; l++)
                if (!g_str_has_prefix(*l, prefix))
                        g_string_append_printf(out, "%s\n", *l);
        return g_string_free(out, FALSE);
}

/* A core taken offline (nvpmodel parks cores) and brought back: it
 * leaves /proc/stat and its online file says 0. */
static void test_hotplug(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("orin-nano-jp62", &dir);
        g_autofree char *host = fixture_host_path(dir, "proc/stat");
        g_autofree char *stat = NULL;
        assert_true(g_file_get_contents(host, &stat, NULL, NULL));
        jd_cpu_reader *r = jd_cpu_reader_new(sr);
        jd_cpu_reader_sample(r);
        fixture_write_str(dir, "sys/devices/system/cpu/cpu5/online", "0\n");
        g_autofree char *parked = without_core(stat, 5);
        fixture_write_str(dir, "proc/stat", parked);
        const jd_cpu_sample *s = jd_cpu_reader_sample(r);
        assert_false(s->cores[5].online);
        assert_false(s->cores[5].cur_khz.present);
        assert_false(s->cores[5].load.present);
        assert_true(s->cores[4].online);
        assert_false(s->load.present); /* history reset on an online-set change */
        fixture_write_str(dir, "sys/devices/system/cpu/cpu5/online", "1\n");
        fixture_write_str(dir, "proc/stat", stat);
        s = jd_cpu_reader_sample(r);
        assert_true(s->cores[5].online);
        assert_int_equal(s->cores[5].cur_khz.value, 1344000);

        /* With /proc/stat unreadable the online files alone decide. */
        fixture_write_str(dir, "proc/stat", "");
        fixture_write_str(dir, "sys/devices/system/cpu/cpu3/online", "0\n");
        s = jd_cpu_reader_sample(r);
        assert_false(s->cores[3].online);
        assert_true(s->cores[5].online);
        assert_false(s->load.present);
        jd_cpu_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* The kernel links each CPU's cpufreq directory to its policy's
 * (cpuN/cpufreq -> ../cpufreq/policyM, one policy a cluster), which
 * link-cpufreq-policies.sh makes of a copied tree from its related_cpus:
 * AGX Orin's 12 cores in three clusters of 4, as on the board. */
static void link_policies(const char *dir)
{
        g_autofree char *cmd = g_strdup_printf("sh '%s/link-cpufreq-policies.sh' '%s'", FIXTURES_DIR, dir);
        assert_int_equal(system(cmd), 0);
        g_autofree char *link = g_build_filename(dir, "sys/devices/system/cpu/cpu5/cpufreq", NULL);
        g_autofree char *target = g_file_read_link(link, NULL);
        assert_string_equal(target, "../cpufreq/policy4");
}

/* Cores of one policy read its attributes once, through the first online
 * core, and all show the same values; a core going offline hands the
 * reading to the next one of its policy. */
static void test_policy_read_once(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        link_policies(dir);
        fixture_write_str(dir, "sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq", "1420800\n");
        fixture_write_str(dir, "sys/devices/system/cpu/cpufreq/policy8/scaling_max_freq", "1984000\n");
        fixture_write_str(dir, "sys/devices/system/cpu/cpufreq/policy8/scaling_governor", "performance\n");
        jd_cpu_reader *r = jd_cpu_reader_new(sr);

        counting = true;
        preads = 0;
        const jd_cpu_sample *s = jd_cpu_reader_sample(r);
        /* /proc/stat and one scaling_cur_freq a policy (12 + 1 unshared). */
        assert_int_equal(preads, 4);
        preads = 0;
        jd_cpu_reader_sample_limits(r);
        /* min, max and governor a policy; each core's 2 idle states. */
        assert_int_equal(preads, 3 * 3 + 12 * 2);
        counting = false;

        const uint64_t cur[3] = { 729600, 1420800, 729600 };
        for (size_t k = 0; k < 12; k++) {
                const jd_cpu_core *c = &s->cores[k];
                assert_true(c->cur_khz.present);
                assert_int_equal(c->cur_khz.value, cur[k / 4]);
                assert_int_equal(c->max_khz.value, k >= 8 ? 1984000 : 2201600);
                assert_int_equal(c->min_khz.value, 729600);
                assert_string_equal(c->governor, k >= 8 ? "performance" : "schedutil");
                assert_int_equal(c->n_idle, 2);
        }

        /* cpu4 parked: cpu5 reads policy4 now, and cpu4 shows nothing. */
        g_autofree char *host = fixture_host_path(dir, "proc/stat");
        g_autofree char *stat = NULL;
        assert_true(g_file_get_contents(host, &stat, NULL, NULL));
        g_autofree char *parked = without_core(stat, 4);
        fixture_write_str(dir, "proc/stat", parked);
        fixture_write_str(dir, "sys/devices/system/cpu/cpu4/online", "0\n");
        fixture_write_str(dir, "sys/devices/system/cpu/cpufreq/policy4/scaling_cur_freq", "1113600\n");
        counting = true;
        preads = 0;
        s = jd_cpu_reader_sample(r);
        /* /proc/stat, cpu4's online file, a scaling_cur_freq a policy. */
        assert_int_equal(preads, 5);
        counting = false;
        assert_false(s->cores[4].online);
        assert_false(s->cores[4].cur_khz.present);
        for (size_t k = 5; k < 8; k++)
                assert_int_equal(s->cores[k].cur_khz.value, 1113600);
        jd_cpu_reader_sample_limits(r);
        assert_false(s->cores[4].max_khz.present);
        assert_int_equal(s->cores[7].max_khz.value, 2201600);

        /* Back online: cpu4 leads its policy again, with the same values. */
        fixture_write_str(dir, "proc/stat", stat);
        fixture_write_str(dir, "sys/devices/system/cpu/cpu4/online", "1\n");
        s = jd_cpu_reader_sample(r);
        for (size_t k = 4; k < 8; k++)
                assert_int_equal(s->cores[k].cur_khz.value, 1113600);
        jd_cpu_reader_free(r);
        fixture_remove_copy(sr, dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_loads_and_freqs),
                cmocka_unit_test(test_time_split),
                cmocka_unit_test(test_limits),
                cmocka_unit_test(test_hotplug),
                cmocka_unit_test(test_load_held_until_counters_move),
                cmocka_unit_test(test_policy_read_once),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
