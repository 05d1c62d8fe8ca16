/* jetsond.conf (src/config.c): the shipped example (config/jetsond.conf)
 * with every key uncommented reads back as the built-in defaults, so its
 * documented values are the real ones; bad values keep the default. */
#include <glib.h>
#include <string.h>

#include "config.h"
#include "fixture.h"

static void load(const char *text, jd_config *cfg)
{
        char *dir;
        jd_sysroot *sr = fixture_copy("x86-pc", &dir);
        if (text) {
                g_autofree char *etc = fixture_host_path(dir, "etc/jetsond");
                assert_int_equal(g_mkdir_with_parents(etc, 0755), 0);
                fixture_write_str(dir, "etc/jetsond/jetsond.conf", text);
        }
        jd_config_load(cfg, sr);
        fixture_remove_copy(sr, dir);
}

static void test_example_is_the_defaults(void **state)
{
        (void) state;
        g_autofree char *example = NULL;
        assert_true(g_file_get_contents(SOURCE_DIR "/config/jetsond.conf", &example, NULL, NULL));
        /* "#Key=value" lines become "Key=value"; comments stay. */
        g_autoptr(GRegex) re = g_regex_new("^#(\\w+=)", G_REGEX_MULTILINE, 0, NULL);
        g_autofree char *active = g_regex_replace(re, example, -1, 0, "\\1", 0, NULL);
        assert_string_not_equal(active, example);
        jd_config defaults, from_example;
        load(NULL, &defaults);
        load(active, &from_example);
        assert_string_equal(from_example.swap_path, defaults.swap_path);
        assert_int_equal(from_example.swapoff_timeout_ms, defaults.swapoff_timeout_ms);
        assert_int_equal(from_example.tool_timeout_ms, defaults.tool_timeout_ms);
        assert_int_equal(from_example.unit_timeout_ms, defaults.unit_timeout_ms);
        assert_int_equal(from_example.boot_delay_s, defaults.boot_delay_s);
        assert_int_equal(from_example.boot_grace_s, defaults.boot_grace_s);
        assert_int_equal(from_example.captures_per_user, 4);
        assert_int_equal(from_example.captures_per_user, defaults.captures_per_user);
        assert_int_equal(from_example.captures_per_trusted_user, defaults.captures_per_trusted_user);
        assert_int_equal(from_example.fast_subscriptions_per_user, defaults.fast_subscriptions_per_user);
        assert_int_equal(from_example.fast_subscriptions_per_trusted_user,
                         defaults.fast_subscriptions_per_trusted_user);
        /* ... and each key is really read: other values show. */
        jd_config changed;
        load("[Swap]\nPath=/data/swapfile\nOffTimeoutSec=5\n[Tools]\nTimeoutSec=6\nUnitTimeoutSec=7\n"
             "[JetsonClocks]\nBootDelaySec=8\nBootGraceSec=9\n[Limits]\nCapturesPerUser=1\nCapturesPerTrustedUser=2\n"
             "FastSubscriptionsPerUser=3\nFastSubscriptionsPerTrustedUser=1024\n", &changed);
        assert_string_equal(changed.swap_path, "/data/swapfile");
        assert_int_equal(changed.swapoff_timeout_ms, 5000);
        assert_int_equal(changed.tool_timeout_ms, 6000);
        assert_int_equal(changed.unit_timeout_ms, 7000);
        assert_int_equal(changed.boot_delay_s, 8);
        assert_int_equal(changed.boot_grace_s, 9);
        assert_int_equal(changed.captures_per_user, 1);
        assert_int_equal(changed.captures_per_trusted_user, 2);
        assert_int_equal(changed.fast_subscriptions_per_user, 3);
        assert_int_equal(changed.fast_subscriptions_per_trusted_user, 1024);
}

static void test_bad_values_keep_the_default(void **state)
{
        (void) state;
        jd_config defaults, bad;
        load(NULL, &defaults);
        load("[Swap]\nPath=relative/file\nOffTimeoutSec=0\n[Tools]\nTimeoutSec=86401\nUnitTimeoutSec=ten\n", &bad);
        assert_string_equal(bad.swap_path, defaults.swap_path);
        assert_int_equal(bad.swapoff_timeout_ms, defaults.swapoff_timeout_ms);
        assert_int_equal(bad.tool_timeout_ms, defaults.tool_timeout_ms);
        assert_int_equal(bad.unit_timeout_ms, defaults.unit_timeout_ms);
        /* [Limits]: 1 to 1024, whole numbers. */
        load("[Limits]\nCapturesPerUser=0\nCapturesPerTrustedUser=1025\nFastSubscriptionsPerUser=four\n"
             "FastSubscriptionsPerTrustedUser=-3\n", &bad);
        assert_int_equal(bad.captures_per_user, defaults.captures_per_user);
        assert_int_equal(bad.captures_per_trusted_user, defaults.captures_per_trusted_user);
        assert_int_equal(bad.fast_subscriptions_per_user, defaults.fast_subscriptions_per_user);
        assert_int_equal(bad.fast_subscriptions_per_trusted_user, defaults.fast_subscriptions_per_trusted_user);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_example_is_the_defaults),
                cmocka_unit_test(test_bad_values_keep_the_default),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
