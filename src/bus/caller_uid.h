/* Who a caller is, for the limits per user (metrics_capture.c,
 * metrics_iface.c): the uid of a method call's sender and whether it is
 * trusted (root, or a member of the group "jetson"). The uid is asked of
 * the bus (GetConnectionUnixUser) without blocking; whether the uid is in
 * "jetson" is read from /etc/passwd and /etc/group under the sysroot in a
 * worker thread, never on the main loop. The answer is kept per unique
 * bus name (a connection's uid cannot change) and dropped when that name
 * leaves the bus. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

#include "sysroot.h"

/* The group whose members have the trusted limits (polkit/, docs/install.md). */
#define JD_TRUSTED_GROUP "jetson"

typedef struct {
        uid_t uid;
        bool trusted;                 /* root, or a member of JD_TRUSTED_GROUP */
} jd_caller_uid;

/* Runs on the main loop with the call M: CALLER known, or NULL and ERROR
 * says why (the bus did not answer, the caller left). DONE owns DATA. */
typedef void (*jd_caller_uid_fn)(sd_bus_message *m, const jd_caller_uid *caller, const char *error, void *data);

/* Finds out who sent M: DONE runs now when the sender is known already,
 * else later. 1, or a negative errno with *ERROR set (DONE will not run,
 * DATA not taken). */
int jd_caller_uid_query(sd_bus_message *m, const jd_sysroot *sr, jd_caller_uid_fn done, void *data,
                        sd_bus_error *error);
/* The known answer for the unique name SENDER, or NULL. */
const jd_caller_uid *jd_caller_uid_known(const char *sender);
/* At shutdown, before the sysroot, the service and the bus go: lets every
 * query finish, then forgets every sender. */
void jd_caller_uid_shutdown(void);
