/* sd-bus as a GSource (../shared/testing-on-a-private-bus.md §6).
 * sd_bus_get_timeout() is absolute CLOCK_MONOTONIC µs, the clock of
 * g_get_monotonic_time(); 0 means messages are already queued (after a
 * synchronous call), in which case sd_bus_get_events() leaves out POLLIN
 * and we must dispatch without waiting for the fd. */
#include "bus_source.h"

#include <poll.h>

/* Messages handled per dispatch, so timers are not starved by a flood;
 * leftovers show up as timeout 0 and are handled on the next iteration. */
#define MAX_PROCESS_PER_DISPATCH 64

typedef struct {
        GSource source;
        sd_bus *bus;
        gpointer tag;
        GIOCondition armed;
        uint64_t until;               /* sd-bus's timeout, as prepare found it */
        void (*on_disconnect)(void *);
        void *userdata;
} bus_source;

/* Asks sd-bus for its next timeout once per pass of the loop, in
 * prepare; check (after poll) compares the same one with the clock:
 * nothing touches the bus between the two. */
static gboolean bus_due(bus_source *b, gint *timeout_ms)
{
        uint64_t now = (uint64_t) g_get_monotonic_time();
        b->until = UINT64_MAX;
        if (sd_bus_get_timeout(b->bus, &b->until) < 0) {
                *timeout_ms = 0;        /* let process() report the error */
                return TRUE;
        }
        if (b->until == UINT64_MAX) {
                *timeout_ms = -1;
                return FALSE;
        }
        *timeout_ms = jd_ms_until(b->until, now);
        return b->until <= now;
}

static gboolean bus_prepare(GSource *source, gint *timeout_ms)
{
        bus_source *b = (bus_source *) source;
        int ev = sd_bus_get_events(b->bus);
        GIOCondition want = G_IO_ERR | G_IO_HUP;
        if (ev > 0 && (ev & POLLIN))
                want |= G_IO_IN;
        if (ev > 0 && (ev & POLLOUT))
                want |= G_IO_OUT;
        if (want != b->armed) {
                g_source_modify_unix_fd(source, b->tag, want);
                b->armed = want;
        }
        return bus_due(b, timeout_ms);
}

static gboolean bus_check(GSource *source)
{
        bus_source *b = (bus_source *) source;
        return g_source_query_unix_fd(source, b->tag) != 0 ||
               (b->until != UINT64_MAX && b->until <= (uint64_t) g_get_monotonic_time());
}

static gboolean bus_dispatch(GSource *source, GSourceFunc callback, gpointer data)
{
        (void) callback;
        (void) data;
        bus_source *b = (bus_source *) source;
        for (int i = 0; i < MAX_PROCESS_PER_DISPATCH; i++) {
                int r = sd_bus_process(b->bus, NULL);
                if (r < 0) {
                        if (b->on_disconnect)
                                b->on_disconnect(b->userdata);
                        return G_SOURCE_REMOVE;
                }
                if (r == 0)
                        break;
        }
        return G_SOURCE_CONTINUE;
}

static void bus_finalize(GSource *source)
{
        sd_bus_unref(((bus_source *) source)->bus);
}

static GSourceFuncs bus_source_funcs = {
        .prepare = bus_prepare,
        .check = bus_check,
        .dispatch = bus_dispatch,
        .finalize = bus_finalize,
};

GSource *jd_bus_source_new(sd_bus *bus, void (*on_disconnect)(void *), void *userdata)
{
        int fd = sd_bus_get_fd(bus);
        if (fd < 0)
                return NULL;
        GSource *source = g_source_new(&bus_source_funcs, sizeof(bus_source));
        bus_source *b = (bus_source *) source;
        b->bus = sd_bus_ref(bus);
        b->armed = G_IO_IN | G_IO_ERR | G_IO_HUP;
        b->tag = g_source_add_unix_fd(source, fd, b->armed);
        b->on_disconnect = on_disconnect;
        b->userdata = userdata;
        g_source_set_name(source, "sd-bus");
        /* Not blocked while it dispatches: GLib would take the fd out of
         * the poll set and put it back, waking the context twice and
         * polling once more for every message. sd_bus_process() is never
         * reached recursively: no method handler runs the main loop. */
        g_source_set_can_recurse(source, TRUE);
        return source;
}
