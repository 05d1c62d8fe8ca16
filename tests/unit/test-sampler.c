/* The sampler and its value list: every key has its documented type on
 * every board, tiers refresh only their readers, jetson_clocks is judged
 * with the tool's own rule, and a reading made anew in a kept one's
 * memory holds only the new sample. */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "reading.h"
#include "sampler.h"
#include "values.h"

static const char *const boards[] = { "agx-orin-jp62", "orin-nano-jp62", "xavier-nx-jp51", "nano-jp46", "x86-pc" };

/* The documented key table (docs/keys.md, Metrics introspection), as globs. */
static const struct {
        const char *glob;
        jd_value_type type;
} key_types[] = {
        { "cpu.load", 'd' }, { "cpu.*.load", 'd' }, { "cpu.*.online", 'b' }, { "cpu.*.governor", 's' },
        { "cpu.*freq", 'u' }, { "gpu.load", 'd' }, { "gpu.*freq", 'u' }, { "gpu.governor", 's' },
        { "gpu.railgate", 'b' }, { "gpu.3d_scaling", 'b' }, { "gpu.tpc_pg_mask", 'u' }, { "emc.load", 'd' },
        { "emc.*freq", 'u' }, { "engine.*.online", 'b' }, { "engine.*.freq", 'u' }, { "ram.lfb", 'u' },
        { "ram.*", 't' }, { "swap.*", 't' }, { "iram.*", 't' }, { "power.total_is_sum", 'b' },
        { "power.*", 'u' }, { "energy.*", 't' }, { "temp.*", 'd' }, { "temp_trip.*", 'd' },
        { "fan.*.speed", 'd' },
        { "fan.*.profile", 's' }, { "fan.*.pwm", 'u' }, { "fan.*.rpm", 'u' }, { "nvpmodel.mode", 'u' },
        { "nvpmodel.name", 's' }, { "jetson_clocks.active", 'b' }, { "process.*.name", 's' },
        { "process.*.user", 's' }, { "process.*.cpu", 'd' }, { "process.*.gpu_mem", 't' },
        { "process.*.rss", 't' }, { "process.*.ppid", 'u' }, { "process.*.start_time", 'd' },
        { "uptime", 't' }, { "disk.*", 't' }, { "net.*", 't' },
        { "throttle.oc*.events", 't' }, { "throttle.oc*.events_counted", 't' }, { "throttle.oc*.armed", 'b' },
        { "throttle.oc*.counter", 's' }, { "throttle.oc*.resets", 't' }, { "throttle.oc*.failed_reads", 't' }, { "throttle.cap.*state", 'u' }, { "throttle.reason.*.active", 'b' },
        { "throttle.active", 'b' }, { "throttle.reasons", 's' }, { "throttle.oc_events*", 't' },
};

static void test_key_types(void **state)
{
        (void) state;
        for (size_t b = 0; b < G_N_ELEMENTS(boards); b++) {
                jd_sysroot *sr = fixture_open(boards[b]);
                jd_sampler *s = jd_sampler_new(sr);
                jd_values v;
                jd_values_init(&v);
                jd_values_from_sample(&v, jd_sampler_sample(s, JD_TIER_ALL));
                assert_true(v.n > 10);
                for (size_t i = 0; i < v.n; i++) {
                        const jd_value *x = &v.items[i];
                        size_t k = 0;
                        while (k < G_N_ELEMENTS(key_types) && !g_pattern_match_simple(key_types[k].glob, x->key))
                                k++;
                        if (k == G_N_ELEMENTS(key_types))
                                fail_msg("%s: undocumented key %s", boards[b], x->key);
                        if (key_types[k].type != x->type)
                                fail_msg("%s: %s has type %c, documented %c", boards[b], x->key, x->type,
                                         key_types[k].type);
                        for (size_t j = 0; j < i; j++)
                                if (strcmp(v.items[j].key, x->key) == 0)
                                        fail_msg("%s: duplicate key %s", boards[b], x->key);
                }
                jd_values_clear(&v);
                jd_sampler_free(s);
                jd_sysroot_free(sr);
        }
}

static bool clocks_active(jd_sampler *s, bool *present)
{
        const jd_sample *x = jd_sampler_sample(s, JD_TIER_ALL);
        *present = x->jetson_clocks_active.present;
        return x->jetson_clocks_active.value;
}

static void copy_file(const char *dir, const char *from, const char *to)
{
        g_autofree char *src = g_build_filename(dir, from, NULL);
        g_autofree char *text = NULL;
        assert_true(g_file_get_contents(src, &text, NULL, NULL));
        fixture_write_str(dir, to, text);
}

static void test_jetson_clocks_rule(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_sampler *s = jd_sampler_new(sr);
        bool present;
        assert_false(clocks_active(s, &present));
        assert_true(present);

        const char *cpu = "sys/devices/system/cpu";
        for (int c = 0; c < 12; c++) {
                char from[128], to[128];
                snprintf(from, sizeof(from), "%s/cpu%d/cpufreq/scaling_max_freq", cpu, c);
                snprintf(to, sizeof(to), "%s/cpu%d/cpufreq/scaling_min_freq", cpu, c);
                copy_file(dir, from, to);
        }
        const char *gpu = "sys/devices/platform/bus@0/17000000.gpu/devfreq/17000000.gpu";
        char from[256], to[256];
        snprintf(from, sizeof(from), "%s/max_freq", gpu);
        snprintf(to, sizeof(to), "%s/min_freq", gpu);
        /* CPUs pinned but not the GPU: not active. */
        assert_false(clocks_active(s, &present));
        copy_file(dir, from, to);
        /* EMC below its maximum: not active. */
        assert_false(clocks_active(s, &present));
        copy_file(dir, "sys/kernel/debug/bpmp/debug/clk/emc/max_rate", "sys/kernel/debug/bpmp/debug/clk/emc/rate");
        assert_true(clocks_active(s, &present));
        /* An nvpmodel cap lowers the maximum the EMC must reach. */
        fixture_write_str(dir, "sys/kernel/debug/bpmp/debug/clk/emc/rate", "2133000000\n");
        assert_false(clocks_active(s, &present));
        fixture_write_str(dir, "sys/kernel/nvpmodel_emc_cap/emc_iso_cap", "2133000000\n");
        assert_true(clocks_active(s, &present));
        jd_sampler_free(s);
        fixture_remove_copy(sr, dir);

        /* A PC has no GPU to pin: nothing to judge. */
        sr = fixture_open("x86-pc");
        s = jd_sampler_new(sr);
        clocks_active(s, &present);
        assert_false(present);
        jd_sampler_free(s);
        jd_sysroot_free(sr);
}

static void test_tiers(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_sampler *s = jd_sampler_new(sr);
        assert_int_equal(jd_sampler_current(s)->nvpmodel->current_id.value, 0);
        fixture_write_str(dir, "var/lib/nvpmodel/status", "pmode:0002 fmode:cool\n");
        fixture_write_str(dir, "sys/devices/platform/bus@0/17000000.gpu/load", "500\n");
        const jd_sample *x = jd_sampler_sample(s, JD_TIER_FAST);
        assert_dbl_equal(x->gpu->load.value, 50.0);
        assert_int_equal(x->nvpmodel->current_id.value, 0); /* slow tier not run */
        x = jd_sampler_sample(s, JD_TIER_SLOW);
        assert_int_equal(x->nvpmodel->current_id.value, 2);
        assert_string_equal(x->nvpmodel->current_name, "MODE_30W");
        assert_true(x->timestamp_us > 1600000000000000ULL);
        jd_sampler_free(s);
        fixture_remove_copy(sr, dir);
}

static jd_reading *read_tier(jd_sampler *s, unsigned tier, jd_values *v, jd_reading *reuse)
{
        const jd_sample *x = jd_sampler_sample(s, tier);
        jd_values_begin(v);
        jd_values_add_sample(v, x);
        jd_values_end(v);
        return reuse ? jd_reading_renew(reuse, tier, x, v) : jd_reading_new(tier, x, v);
}

static void test_reading_renew(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_sampler *s = jd_sampler_new(sr);
        jd_values v;
        jd_values_init(&v);
        jd_reading *r = read_tier(s, JD_TIER_SLOW, &v, NULL);
        assert_non_null(r->part.thermal);
        assert_int_equal(r->part.nvpmodel->current_id.value, 0);

        /* Held elsewhere (the main loop's snapshot): not to be reused. */
        jd_reading *held = jd_reading_ref(r);
        assert_false(jd_reading_unshared(r));
        jd_reading_unref(held);
        assert_true(jd_reading_unshared(r));

        /* The next slow reading in the same memory: the new values, in
         * copies of its own, not the sampler's arrays. */
        fixture_write_str(dir, "var/lib/nvpmodel/status", "pmode:0002 fmode:cool\n");
        jd_reading *again = read_tier(s, JD_TIER_SLOW, &v, r);
        assert_ptr_equal(again, r);
        assert_int_equal(again->part.nvpmodel->current_id.value, 2);
        assert_ptr_equal(again->part.thermal, &again->thermal);
        assert_ptr_not_equal(again->thermal.zones, jd_sampler_current(s)->thermal->zones);
        assert_int_equal(again->values.n, v.n);
        assert_string_equal(jd_values_find(&again->values, "nvpmodel.name")->s, "MODE_30W");

        /* Made anew as a fast reading (by a sampler of that tier, as the
         * fast thread's): none of the slow parts are left. */
        size_t slow_values = v.n;
        jd_sampler *fs = jd_sampler_new_tiers(sr, JD_TIER_FAST, NULL);
        jd_reading *fast = read_tier(fs, JD_TIER_FAST, &v, again);
        assert_null(fast->part.nvpmodel);
        assert_null(fast->part.thermal);
        assert_non_null(fast->part.cpu);
        assert_int_equal(fast->tier, JD_TIER_FAST);
        assert_int_equal(fast->values.n, v.n);
        assert_true(v.n != slow_values);
        assert_null(jd_values_find(&fast->values, "nvpmodel.name"));
        jd_reading_unref(fast);

        jd_values_clear(&v);
        jd_sampler_free(fs);
        jd_sampler_free(s);
        fixture_remove_copy(sr, dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_key_types),
                cmocka_unit_test(test_jetson_clocks_rule),
                cmocka_unit_test(test_tiers),
                cmocka_unit_test(test_reading_renew),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
