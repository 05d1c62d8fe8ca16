/* The real polkitd on the test's private system bus, with the shipped
 * actions (polkit/org.jetsond.Jetson1.policy), the shipped example that
 * lets group "jetson" write (the .rules one, or the .pkla one read through
 * Debian's polkitd-pkla as polkit 0.105 reads it) and the test rules of
 * polkit-test.rules, which log every check as "USER ACTION".
 *
 * polkitd runs in a private mount namespace (start-polkitd.sh) that puts
 * these over the system directories and a copy of /etc/group with a
 * "jetson" group (member: nobody) over /etc/group; the host's files and
 * groups are never changed. */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "testbus.h"

typedef struct {
        GPid pid;
        char *log;
        size_t log_seen;   /* bytes of the log already looked at */
} real_polkitd;

/* Starts polkitd for TB's bus with the .rules example, or the .pkla one
 * if PKLA; false (and why, printed) if this machine cannot run it. */
bool real_polkitd_start(real_polkitd *pk, testbus *tb, bool pkla);
void real_polkitd_stop(real_polkitd *pk);

/* The "USER ACTION" lines the test rules logged since the last call. */
GPtrArray *real_polkitd_asked(real_polkitd *pk);
