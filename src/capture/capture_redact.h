/* What a capture hides before it leaves the machine (docs/capture.md):
 * serial numbers (device tree, DMI, the module EEPROM's, everywhere they
 * recur), MAC addresses, the host name, the machine-id, the names and
 * full names of people's accounts (uid 1000 and up; every uid kept), and
 * the command lines and environments of other users' processes. Lengths
 * of serials, MACs and ids are kept, their characters made '0'. */
#pragma once

#include <sys/types.h>

#include "capture_tree.h"

/* OWN_UID: the user taking the capture (whose processes and root's keep
 * their command lines). Adds one line per kind of secret to REPORT, with
 * how many were hidden, never the secret itself. */
void jc_redact(jc_tree *t, uid_t own_uid, GPtrArray *report);
