/* The users and groups of a board, from its own /etc/passwd and /etc/group
 * texts (read under the sysroot, never the host's NSS): names for
 * process.PID.user, and who is in a group for the limits per user. Pure:
 * unit-tested in tests/unit/test-parsers.c. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Name for UID from a passwd file's text. Grammar (passwd(5)): one entry
 * a line, "name:password:uid:..." split at ':' within the line; the first
 * line whose uid field is UID in decimal names it; a name that does not
 * fit SIZE is no name (never cut). */
bool jd_passwd_name(const char *passwd, uint32_t uid, char *out, size_t size);
/* Whether UID (a passwd line "name:password:uid:gid:...") is in the group
 * GROUP_NAME of GROUP's text ("name:password:gid:member,member"): its
 * primary group, or its name among the members. False where either file
 * does not list it. */
bool jd_uid_in_group(const char *passwd, const char *group, uint32_t uid, const char *group_name);
