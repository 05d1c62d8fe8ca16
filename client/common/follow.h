/* Following jetsond's signals until Ctrl-C: what watch, top and
 * tegrastats share. An sd-event loop on the client's bus that SIGINT and
 * SIGTERM end with status 0 (JC_EXIT_OK), and that jetsond leaving the bus
 * ends with JC_EXIT_FAILURE: sd_event_loop() returns the command's exit
 * status.
 *
 * Each command takes samples at the period it shows and no faster:
 * jetsond broadcasts Sample every DefaultInterval whatever anyone asked,
 * and a Subscribe(P) (SubscribeValues(P)) request gets SampleAt
 * (ValuesAt) signals whose first argument is P in decimal, which the bus
 * routes only to the connections whose match rule names that P. A
 * command that wants DefaultInterval listens to Sample and asks for
 * nothing. */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-event.h>

#include "jetsonctl.h"

typedef struct {
        sd_event *event;
        sd_bus_slot *owner_slot, *signal_slot;
        sigset_t blocked;
        bool jetsond_left;      /* the loop ended because jetsond left the bus */
        bool subscribed;        /* a Subscribe()/SubscribeValues() request of ours is live */
        bool at_period;         /* the stream is SampleAt/ValuesAt, not Sample */
} jc_follow;

/* The match rule for jetsond's Metrics signal MEMBER ("Sample",
 * "SampleAt", "ValuesAt"), with arg0 = PERIOD_USEC in decimal unless
 * PERIOD_USEC is 0 (g_free). */
char *jc_follow_rule(const char *member, uint64_t period_usec);

/* Blocks SIGINT, SIGTERM and EXTRA_SIGNAL (0: none) for sd-event's
 * signalfd, makes the loop, attaches C's bus, watches jetsond's name and
 * calls HANDLER (USERDATA) for each of jetsond's Metrics signals MEMBER
 * whose first argument is PERIOD_USEC in decimal (0: each MEMBER signal;
 * that is how Sample is taken). Call it before any Subscribe(), so no
 * signal is missed. A negative errno on failure (call jc_follow_close()
 * all the same). */
int jc_follow_open(jc_ctx *c, jc_follow *f, int extra_signal, const char *member, uint64_t period_usec,
                   sd_bus_message_handler_t handler, void *userdata);

/* jetsond's DefaultInterval (µs) into *USEC; the call also says whether
 * jetsond runs at all. On failure the error is printed ("jetsonctl:
 * DOING: ...") and its exit code returned. */
int jc_follow_default_interval(jc_ctx *c, const char *doing, uint64_t *usec);

/* The stream a command shows every PERIOD_USEC (0: DefaultInterval),
 * made the way the contract asks: DefaultInterval is read; at that period
 * jc_follow_open() takes Sample (ON_SAMPLE) and nothing is requested;
 * at any other, it takes SampleAt, or with COMPACT ValuesAt, for
 * PERIOD_USEC (ON_AT) and then calls Subscribe(PERIOD_USEC), or
 * SubscribeValues(PERIOD_USEC). The two handlers may be the same. F is
 * made here (jc_follow_close() it in any case). Returns an exit code,
 * the error printed: "jetsonctl: subscribing to samples: ..." for a
 * call jetsond refused (or jetsond not running), "jetsonctl: DOING:
 * ..." for the loop. */
int jc_follow_stream(jc_ctx *c, jc_follow *f, int extra_signal, uint64_t period_usec, bool compact,
                     sd_bus_message_handler_t on_sample, sd_bus_message_handler_t on_at, void *userdata,
                     const char *doing);

/* Runs the loop until it ends; says why on stderr when that is a failure
 * ("jetsonctl: DOING: ...", or that jetsond left the bus) and returns the
 * command's exit status. */
int jc_follow_run(jc_follow *f, const char *doing);
/* Drops our request, if any, now rather than when the connection closes
 * (which drops it too): jetsond may slow down at once. Errors do not
 * matter. */
void jc_follow_unsubscribe(jc_ctx *c, jc_follow *f);
void jc_follow_close(jc_ctx *c, jc_follow *f);
