#include "config.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "parse.h"

static void defaults(jd_config *cfg)
{
        jd_strlcpy(cfg->swap_path, JD_STATE_DIR "/swap/swapfile", sizeof(cfg->swap_path));
        cfg->swapoff_timeout_ms = 600000;
        cfg->tool_timeout_ms = 20000;
        cfg->unit_timeout_ms = 20000;
        cfg->boot_delay_s = 60;
        cfg->boot_grace_s = 300;
        cfg->captures_per_user = 4;
        cfg->captures_per_trusted_user = 8;
        cfg->fast_subscriptions_per_user = 4;
        cfg->fast_subscriptions_per_trusted_user = 16;
}

static void read_limit(GKeyFile *kf, const char *group, const char *key, unsigned *out)
{
        g_autoptr(GError) error = NULL;
        if (!g_key_file_has_key(kf, group, key, NULL))
                return;
        gint64 v = g_key_file_get_int64(kf, group, key, &error);
        if (error || v < JD_LIMIT_MIN || v > JD_LIMIT_MAX)
                jd_log_warning("%s: [%s] %s must be %d to %d; using the default, %u", JD_CONFIG_PATH, group, key,
                               JD_LIMIT_MIN, JD_LIMIT_MAX, *out);
        else
                *out = (unsigned) v;
}

static void read_seconds(GKeyFile *kf, const char *group, const char *key, unsigned *out, unsigned scale)
{
        g_autoptr(GError) error = NULL;
        if (!g_key_file_has_key(kf, group, key, NULL))
                return;
        gint64 v = g_key_file_get_int64(kf, group, key, &error);
        if (error || v < 1 || v > 86400)
                jd_log_warning("%s: [%s] %s must be 1 to 86400 seconds; using the default", JD_CONFIG_PATH, group, key);
        else
                *out = (unsigned) v * scale;
}

void jd_config_load(jd_config *cfg, const jd_sysroot *sr)
{
        defaults(cfg);
        size_t len;
        g_autofree char *text = jd_sysroot_read_whole(sr, JD_CONFIG_PATH, 65536, &len);
        if (!text)
                return;
        g_autoptr(GKeyFile) kf = g_key_file_new();
        g_autoptr(GError) error = NULL;
        if (!g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &error)) {
                jd_log_warning("%s: %s; using the defaults", JD_CONFIG_PATH, error->message);
                return;
        }
        g_autofree char *path = g_key_file_get_string(kf, "Swap", "Path", NULL);
        if (path) {
                /* Never a relative path, never one fstab would need escaped. */
                if (path[0] != '/' || strpbrk(path, " \t\n\\") || strlen(path) >= sizeof(cfg->swap_path))
                        jd_log_warning("%s: [Swap] Path must be an absolute path without spaces; using %s",
                                       JD_CONFIG_PATH, cfg->swap_path);
                else
                        jd_strlcpy(cfg->swap_path, path, sizeof(cfg->swap_path));
        }
        read_seconds(kf, "Swap", "OffTimeoutSec", &cfg->swapoff_timeout_ms, 1000);
        read_seconds(kf, "Tools", "TimeoutSec", &cfg->tool_timeout_ms, 1000);
        read_seconds(kf, "Tools", "UnitTimeoutSec", &cfg->unit_timeout_ms, 1000);
        read_seconds(kf, "JetsonClocks", "BootDelaySec", &cfg->boot_delay_s, 1);
        read_seconds(kf, "JetsonClocks", "BootGraceSec", &cfg->boot_grace_s, 1);
        read_limit(kf, "Limits", "CapturesPerUser", &cfg->captures_per_user);
        read_limit(kf, "Limits", "CapturesPerTrustedUser", &cfg->captures_per_trusted_user);
        read_limit(kf, "Limits", "FastSubscriptionsPerUser", &cfg->fast_subscriptions_per_user);
        read_limit(kf, "Limits", "FastSubscriptionsPerTrustedUser", &cfg->fast_subscriptions_per_trusted_user);
}
