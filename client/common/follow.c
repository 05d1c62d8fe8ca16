#include "follow.h"

#include <stdio.h>
#include <string.h>

#include "jetsond-dbus.h"

static int on_stop_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        (void) si, (void) userdata;
        sd_event_exit(sd_event_source_get_event(s), JC_EXIT_OK);
        return 0;
}

/* jetsond stopped, crashed or restarts: its signals, and any Subscribe()
 * request of ours, are gone. */
static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        jc_follow *f = userdata;
        const char *name, *old_owner, *new_owner;
        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || *new_owner)
                return 0;
        f->jetsond_left = true;
        sd_event_exit(f->event, JC_EXIT_FAILURE);
        return 0;
}

int jc_follow_open(jc_ctx *c, jc_follow *f, int extra_signal, const char *member, sd_bus_message_handler_t handler,
                   void *userdata)
{
        *f = (jc_follow) { 0 };
        sigemptyset(&f->blocked);
        sigaddset(&f->blocked, SIGINT);
        sigaddset(&f->blocked, SIGTERM);
        if (extra_signal)
                sigaddset(&f->blocked, extra_signal);
        sigprocmask(SIG_BLOCK, &f->blocked, NULL);
        int r = sd_event_default(&f->event);
        if (r >= 0)
                r = sd_event_add_signal(f->event, NULL, SIGINT, on_stop_signal, NULL);
        if (r >= 0)
                r = sd_event_add_signal(f->event, NULL, SIGTERM, on_stop_signal, NULL);
        if (r >= 0)
                r = sd_bus_attach_event(c->bus, f->event, SD_EVENT_PRIORITY_NORMAL);
        if (r >= 0)
                r = sd_bus_add_match(c->bus, &f->owner_slot,
                                     "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                                     "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" JD_BUS_NAME "'",
                                     on_owner_changed, f);
        if (r >= 0)
                r = sd_bus_match_signal(c->bus, &f->signal_slot, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, member,
                                        handler, userdata);
        return r;
}

int jc_follow_run(jc_follow *f, const char *doing)
{
        int r = sd_event_loop(f->event);
        if (r < 0)
                fprintf(stderr, "jetsonctl: %s: %s\n", doing, strerror(-r));
        else if (f->jetsond_left)
                fprintf(stderr, "jetsonctl: jetsond left the bus\n");
        return r < 0 ? JC_EXIT_FAILURE : r;
}

void jc_follow_close(jc_ctx *c, jc_follow *f)
{
        f->signal_slot = sd_bus_slot_unref(f->signal_slot);
        f->owner_slot = sd_bus_slot_unref(f->owner_slot);
        if (c->bus)
                sd_bus_detach_event(c->bus);
        f->event = sd_event_unref(f->event);
        sigprocmask(SIG_UNBLOCK, &f->blocked, NULL);
}
