/* polkit authorization for method calls: asynchronous (the loop keeps
 * serving while polkitd decides), the caller's unique bus name as the
 * subject, the message's allow-interactive-authorization flag honoured,
 * and failing closed: no polkit, an error or a vanished caller all mean
 * no. Handlers validate their arguments before asking. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <systemd/sd-bus.h>

/* Runs once polkit has answered. If AUTHORIZED, the callee must send the
 * reply to CALL; otherwise the error has been sent already and the
 * callee only cleans up. */
typedef void (*jd_authorized_fn)(sd_bus_message *call, bool authorized, void *userdata);

/* Connects to polkit's authority on the system bus (the one
 * DBUS_SYSTEM_BUS_ADDRESS names). Failure is logged, not fatal: every
 * check is then denied. */
void jd_auth_init(sd_bus *bus);
/* jetsond --user (user_mode.h): polkit is never asked; read-serial is
 * granted (the caller is the user, reading what the user may read) and
 * every other action refused with Error.ReadOnly. */
void jd_auth_init_user(sd_bus *bus);
/* Cancels pending checks (their callers get AccessDenied) and waits for
 * their callbacks, so nothing is left behind. */
void jd_auth_shutdown(void);

/* Asks polkit whether the sender of M may perform ACTION, replies
 * AccessDenied or InteractiveAuthorizationRequired if not, and then runs
 * FN. Returns what an sd-bus method handler returns: 1 (the reply is
 * deferred; FN will run) or a negative errno / ERROR set (FN will not
 * run). */
int jd_auth_then(sd_bus_message *m, const char *action, jd_authorized_fn fn, void *userdata,
                 sd_bus_error *error);
