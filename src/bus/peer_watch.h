/* Noticing that a bus peer (a unique name) left, without blocking: what
 * the Subscribe() requests, the captures, the polkit checks and the
 * caller cache need, in place of sd_bus_track, whose every new name
 * waits on the main loop for dbus-daemon's GetNameOwner answer (a flood
 * of new connections would stall every stream). One match on
 * NameOwnerChanged for the name and one GetNameOwner, both asynchronous,
 * per unique name, whatever the number of watches on it; they go when
 * its last watch does. A name that had left before it was watched, or
 * that dbus-daemon refuses to watch (a full match table), counts as
 * gone. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

typedef struct jd_peer_watch jd_peer_watch;

/* Runs on the main loop, from the bus's dispatch of the name's leaving,
 * at most once per watch, never inside jd_peer_watch_add(): may call
 * jd_peer_watch_remove() on any watch, its own included. */
typedef void (*jd_peer_gone_fn)(void *data);

/* Watches the unique NAME on BUS: GONE (may be NULL) runs when it leaves.
 * NULL with a negative errno in *ERRNO_OUT when the calls cannot be
 * queued. */
jd_peer_watch *jd_peer_watch_add(sd_bus *bus, const char *name, jd_peer_gone_fn gone, void *data, int *errno_out);
/* Ends the watch; GONE will not run after this. NULL is allowed. */
void jd_peer_watch_remove(jd_peer_watch *w);
/* Whether the name is known to have left. */
bool jd_peer_watch_gone(const jd_peer_watch *w);
/* How many names are watched now: what a flood must not leave behind. */
unsigned jd_peer_watch_names(void);
/* At shutdown, after every owner of a watch is gone and before the bus
 * goes: drops the names still followed. */
void jd_peer_watch_shutdown(void);
