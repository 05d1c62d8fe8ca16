/* polkit authorization for method calls: asynchronous (the loop keeps
 * serving while polkitd decides), the caller's unique bus name as the
 * subject, the message's allow-interactive-authorization flag honoured,
 * and failing closed: no polkit, an error or a vanished caller all mean
 * no. Handlers validate their arguments before asking. */
#pragma once

#include <glib.h>
#include <systemd/sd-bus.h>

/* Runs once the caller is authorized; must send the reply to CALL. */
typedef void (*jd_authorized_fn)(sd_bus_message *call, void *userdata);

/* Connects to polkit's authority on the system bus (the one
 * DBUS_SYSTEM_BUS_ADDRESS names). Failure is logged, not fatal: every
 * check is then denied. */
void jd_auth_init(sd_bus *bus);
/* Cancels pending checks (their callers get AccessDenied) and waits for
 * their callbacks, so nothing is left behind. */
void jd_auth_shutdown(void);

/* Asks polkit whether the sender of M may perform ACTION; if so runs
 * FN(M, USERDATA), otherwise replies AccessDenied or
 * InteractiveAuthorizationRequired. Returns what an sd-bus method
 * handler returns (1: the reply is deferred, or a negative errno). */
int jd_auth_then(sd_bus_message *m, const char *action, jd_authorized_fn fn, void *userdata,
                 sd_bus_error *error);
