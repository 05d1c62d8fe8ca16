/* jetsond --user: a jetsond on the user's session bus, running as that
 * user. It reads what the user may read and changes nothing: every method
 * that would change the board (the introspection XML, a PolkitAction other
 * than read-serial) is answered with Error.ReadOnly before its arguments
 * or the hardware are looked at, and polkit is never asked (a session
 * bus's callers are the user's own processes; polkitd could not resolve
 * their names anyway). docs/user-mode.md. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

/* Answers every write method call arriving on BUS with Error.ReadOnly,
 * ahead of the object vtables; *SLOT keeps the filter. */
int jd_user_mode_refuse_writes(sd_bus *bus, sd_bus_slot **slot);

/* True if INTERFACE.MEMBER is one of the contract's write methods. */
bool jd_user_mode_is_write(const char *interface, const char *member);

/* Error.ReadOnly for a call of INTERFACE.MEMBER, with its message. */
int jd_user_mode_error(sd_bus_error *error, const char *interface, const char *member);
