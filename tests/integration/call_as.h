/* A method call made as another user of this machine (root only): a
 * forked child takes the user's uid, gid and supplementary groups and
 * calls on a connection of its own, as a real client would. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "glib-compat.h"

typedef struct {
        const char *name;                  /* for messages */
        const char *path, *iface, *member;
        int (*append)(sd_bus_message *m);  /* the arguments */
} bus_method;

typedef struct {
        char *error;    /* D-Bus error name, "" on success */
        char *text;     /* the error message, or the reply's strings */
} call_outcome;

void call_outcome_clear(call_outcome *o);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(call_outcome, call_outcome_clear)

/* Calls M as USER, with or without the allow-interactive-authorization
 * flag, waiting at most TIMEOUT_S for the reply. */
call_outcome call_as(const char *user, const bus_method *m, bool interactive, unsigned timeout_s);
