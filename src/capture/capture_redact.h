/* What a capture hides before it leaves the machine (docs/capture.md):
 * serial numbers (device tree, DMI, the module EEPROM's, everywhere they
 * recur), MAC addresses, the host name, the machine-id, the names and
 * full names of people's accounts (uid 1000 and up; every uid kept), and
 * the command lines and environments of other users' processes. Lengths
 * of serials, MACs and ids are kept, their characters made '0'. */
#pragma once

#include <sys/types.h>

#include "capture_tree.h"

typedef struct jc_redaction jc_redaction;

/* OWN_UID: the user taking the capture (whose processes and root's keep
 * their command lines). Adds one line per kind of secret to REPORT, with
 * how many were hidden, never the secret itself. Returns what it did,
 * for later versions of the files (a time series). */
jc_redaction *jc_redact(jc_tree *t, uid_t own_uid, GPtrArray *report);
/* The same serials, MACs, host and user names hidden in a later version
 * of the in-root file PATH (without its leading "/"). */
void jc_redaction_apply(const jc_redaction *r, const char *path, GByteArray *data);
void jc_redaction_free(jc_redaction *r);
