#include "follow.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bus.h"
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

char *jc_follow_rule(const char *member, uint64_t period_usec)
{
        GString *rule = g_string_new("type='signal',sender='" JD_BUS_NAME "',path='" JD_OBJECT_PATH
                                     "',interface='" JD_IFACE_METRICS "',member='");
        g_string_append(rule, member);
        g_string_append_c(rule, '\'');
        /* The bus compares arg0 as a string: jetsond writes the period
         * in decimal without leading zeros, as PRIu64 does. */
        if (period_usec)
                g_string_append_printf(rule, ",arg0='%" PRIu64 "'", period_usec);
        return g_string_free(rule, FALSE);
}

int jc_follow_open(jc_ctx *c, jc_follow *f, int extra_signal, const char *member, uint64_t period_usec,
                   sd_bus_message_handler_t handler, void *userdata)
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
        if (r >= 0) {
                g_autofree char *rule = jc_follow_rule(member, period_usec);
                r = sd_bus_add_match(c->bus, &f->signal_slot, rule, handler, userdata);
        }
        return r;
}

int jc_follow_default_interval(jc_ctx *c, const char *doing, uint64_t *usec)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = 0;
        g_autoptr(GVariant) reply = jc_call(c, JD_OBJECT_PATH, "org.freedesktop.DBus.Properties", "Get", false, &error,
                                            &r, "ss", JD_IFACE_METRICS, "DefaultInterval");
        if (!reply) {
                int ret = jc_report_error(doing, &error, r, NULL, NULL);
                sd_bus_error_free(&error);
                return ret;
        }
        g_autoptr(GVariant) value = NULL;
        g_variant_get(reply, "(v)", &value);
        if (!g_variant_is_of_type(value, G_VARIANT_TYPE_UINT64)) {
                fprintf(stderr, "jetsonctl: %s: DefaultInterval is of type %s, not t\n", doing,
                        g_variant_get_type_string(value));
                return JC_EXIT_FAILURE;
        }
        *usec = g_variant_get_uint64(value);
        return JC_EXIT_OK;
}

int jc_follow_stream(jc_ctx *c, jc_follow *f, int extra_signal, uint64_t period_usec, bool compact,
                     sd_bus_message_handler_t on_sample, sd_bus_message_handler_t on_at, void *userdata,
                     const char *doing)
{
        *f = (jc_follow) { 0 };
        sigemptyset(&f->blocked);
        uint64_t def = 0;
        int ret = jc_follow_default_interval(c, "subscribing to samples", &def);
        if (ret != JC_EXIT_OK)
                return ret;
        bool at = period_usec && period_usec != def;
        int r = at ? jc_follow_open(c, f, extra_signal, compact ? "ValuesAt" : "SampleAt", period_usec, on_at,
                                    userdata)
                   : jc_follow_open(c, f, extra_signal, "Sample", 0, on_sample, userdata);
        if (r < 0) {
                fprintf(stderr, "jetsonctl: %s: %s\n", doing, strerror(-r));
                return JC_EXIT_FAILURE;
        }
        f->at_period = at;
        if (!at)
                return JC_EXIT_OK;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        g_autoptr(GVariant) reply = jc_call(c, JD_OBJECT_PATH, JD_IFACE_METRICS,
                                            compact ? "SubscribeValues" : "Subscribe", false, &error, &r, "t",
                                            period_usec);
        if (!reply) {
                ret = jc_report_error("subscribing to samples", &error, r, NULL, NULL);
                sd_bus_error_free(&error);
                return ret;
        }
        f->subscribed = true;
        return JC_EXIT_OK;
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

void jc_follow_unsubscribe(jc_ctx *c, jc_follow *f)
{
        if (!f->subscribed || !c->bus)
                return;
        f->subscribed = false;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = 0;
        GVariant *done = jc_call(c, JD_OBJECT_PATH, JD_IFACE_METRICS, "Unsubscribe", false, &error, &r, NULL);
        if (done)
                g_variant_unref(done);
        sd_bus_error_free(&error);
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
