/* Following jetsond's signals until Ctrl-C: what watch, top and
 * tegrastats share. An sd-event loop on the client's bus that SIGINT and
 * SIGTERM end with status 0 (JC_EXIT_OK), and that jetsond leaving the bus
 * ends with JC_EXIT_FAILURE: sd_event_loop() returns the command's exit
 * status. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <systemd/sd-event.h>

#include "jetsonctl.h"

typedef struct {
        sd_event *event;
        sd_bus_slot *owner_slot, *signal_slot;
        sigset_t blocked;
        bool jetsond_left;      /* the loop ended because jetsond left the bus */
} jc_follow;

/* Blocks SIGINT, SIGTERM and EXTRA_SIGNAL (0: none) for sd-event's
 * signalfd, makes the loop, attaches C's bus, watches jetsond's name and
 * calls HANDLER (USERDATA) for each of jetsond's Metrics signals MEMBER
 * ("Sample", "Values"). The match comes before any Subscribe(), so no
 * signal is missed. A negative errno on failure (call jc_follow_close()
 * all the same). */
int jc_follow_open(jc_ctx *c, jc_follow *f, int extra_signal, const char *member, sd_bus_message_handler_t handler,
                   void *userdata);
/* Runs the loop until it ends; says why on stderr when that is a failure
 * ("jetsonctl: DOING: ...", or that jetsond left the bus) and returns the
 * command's exit status. */
int jc_follow_run(jc_follow *f, const char *doing);
void jc_follow_close(jc_ctx *c, jc_follow *f);
