/* jetsond's own configuration, /etc/jetsond/jetsond.conf (GKeyFile,
 * resolved under the sysroot like every other path). Every key is
 * optional; the defaults are what the shipped systemd unit allows. */
#pragma once

#include "sysroot.h"

#define JD_STATE_DIR "/var/lib/jetsond"
/* What holds only for this boot (the running power mode after
 * SetDefaultMode): emptied by a reboot, kept across jetsond restarts
 * (RuntimeDirectoryPreserve=yes). */
#define JD_RUNTIME_DIR "/run/jetsond"
#define JD_CONFIG_PATH "/etc/jetsond/jetsond.conf"
/* jetsond's own unit, enabled by JetsonClocks.SetOnBoot(true). */
#define JD_UNIT_NAME "jetsond.service"
/* The range of each [Limits] key. */
#define JD_LIMIT_MIN 1
#define JD_LIMIT_MAX 1024

typedef struct {
        char swap_path[256];          /* [Swap] Path: the one swap file jetsond manages */
        unsigned swapoff_timeout_ms;  /* [Swap] OffTimeoutSec: swapoff moves pages back to RAM */
        unsigned tool_timeout_ms;     /* [Tools] TimeoutSec: nvpmodel, jetson_clocks, swap tools */
        unsigned unit_timeout_ms;     /* [Tools] UnitTimeoutSec: systemd start/stop of nvfancontrol */
        unsigned boot_delay_s;        /* [JetsonClocks] BootDelaySec: uptime before OnBoot applies */
        unsigned boot_grace_s;        /* [JetsonClocks] BootGraceSec: no OnBoot if started later than delay + grace */
        /* [Limits]: what one user may hold at once, so that no user takes
         * every capture or fast subscription from the others; "trusted":
         * root and the group "jetson". */
        unsigned captures_per_user;             /* CapturesPerUser */
        unsigned captures_per_trusted_user;     /* CapturesPerTrustedUser */
        unsigned fast_subscriptions_per_user;   /* FastSubscriptionsPerUser */
        unsigned fast_subscriptions_per_trusted_user; /* FastSubscriptionsPerTrustedUser */
} jd_config;

/* Loads the file if present; a malformed file or value is reported on
 * stderr and the default kept, so a typo never stops the service. */
void jd_config_load(jd_config *cfg, const jd_sysroot *sr);
