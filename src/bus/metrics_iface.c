/* org.jetsond.Jetson1.Metrics: the Sample signal, GetSnapshot, and the
 * per-connection Subscribe() requests that set the sampling period
 * (introspection/org.jetsond.Jetson1.Metrics.xml). */
#include <string.h>

#include "jetsond-dbus.h"
#include "log.h"
#include "service.h"
#include "values_message.h"

typedef struct {
        jd_iface base;
        GHashTable *subscriptions;    /* unique name -> subscription */
} metrics_iface;

typedef struct {
        metrics_iface *metrics;
        char *sender;
        uint64_t interval_us;
        sd_bus_track *track;          /* empties when the subscriber leaves the bus */
} subscription;

static void subscription_free(gpointer p)
{
        subscription *s = p;
        sd_bus_track_unref(s->track);
        g_free(s->sender);
        g_free(s);
}

/* The smallest live request, but never slower than the default. */
static void recompute_interval(metrics_iface *self)
{
        jd_service *svc = self->base.svc;
        uint64_t interval = svc->default_interval_us;
        GHashTableIter it;
        gpointer value;
        g_hash_table_iter_init(&it, self->subscriptions);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const subscription *s = value;
                if (s->interval_us < interval)
                        interval = s->interval_us;
        }
        jd_service_set_interval(svc, interval);
}

static int on_subscriber_gone(sd_bus_track *track, void *userdata)
{
        (void) track;
        subscription *s = userdata;
        metrics_iface *self = s->metrics;
        jd_log_debug("Subscriber %s left the bus", s->sender);
        g_hash_table_remove(self->subscriptions, s->sender);
        recompute_interval(self);
        return 0;
}

static int method_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        metrics_iface *self = userdata;
        uint64_t interval;
        int r = sd_bus_message_read(m, "t", &interval);
        if (r < 0)
                return r;
        if (interval < JD_INTERVAL_MIN_USEC || interval > JD_INTERVAL_MAX_USEC)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Interval %" PRIu64 " µs is out of range (%llu to %llu)", interval,
                                         JD_INTERVAL_MIN_USEC, JD_INTERVAL_MAX_USEC);
        const char *sender = sd_bus_message_get_sender(m);
        if (!sender)
                return sd_bus_error_set(error, SD_BUS_ERROR_NOT_SUPPORTED,
                                        "Subscribe() needs a bus connection with a unique name");
        subscription *s = g_hash_table_lookup(self->subscriptions, sender);
        if (!s) {
                s = g_new0(subscription, 1);
                s->metrics = self;
                s->sender = g_strdup(sender);
                r = sd_bus_track_new(self->base.svc->bus, &s->track, on_subscriber_gone, s);
                if (r >= 0)
                        r = sd_bus_track_add_sender(s->track, m);
                if (r < 0) {
                        subscription_free(s);
                        return r;
                }
                g_hash_table_insert(self->subscriptions, s->sender, s);
        }
        s->interval_us = interval;
        recompute_interval(self);
        return sd_bus_reply_method_return(m, NULL);
}

static int method_unsubscribe(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        metrics_iface *self = userdata;
        const char *sender = sd_bus_message_get_sender(m);
        if (sender && g_hash_table_remove(self->subscriptions, sender))
                recompute_interval(self);
        return sd_bus_reply_method_return(m, NULL);
}

static int method_get_snapshot(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        metrics_iface *self = userdata;
        jd_service *svc = self->base.svc;
        sd_bus_message *reply = NULL;
        int r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_append_basic(reply, 't', &svc->sample->timestamp_us);
        if (r >= 0)
                r = jd_append_values(reply, &svc->values);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}

static int get_interval(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) error;
        const jd_service *svc = ((metrics_iface *) userdata)->base.svc;
        uint64_t v = strcmp(property, "Interval") == 0 ? svc->interval_us : svc->default_interval_us;
        return sd_bus_message_append_basic(reply, 't', &v);
}

static const sd_bus_vtable metrics_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_SIGNAL_WITH_ARGS("Sample", SD_BUS_ARGS("t", timestamp_usec, "a{sv}", values), 0),
        SD_BUS_METHOD_WITH_ARGS("GetSnapshot", SD_BUS_NO_ARGS, SD_BUS_RESULT("t", timestamp_usec, "a{sv}", values),
                                method_get_snapshot, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Subscribe", SD_BUS_ARGS("t", interval_usec), SD_BUS_NO_RESULT, method_subscribe,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Unsubscribe", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_unsubscribe,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Interval", "t", get_interval, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DefaultInterval", "t", get_interval, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
};

/* Broadcast: dbus-daemon forwards it only to connections with a matching
 * rule, so an unwatched signal costs one message to the bus. */
static void metrics_update(jd_iface *base)
{
        jd_service *svc = base->svc;
        sd_bus_message *m = NULL;
        int r = sd_bus_message_new_signal(svc->bus, &m, JD_OBJECT_PATH, JD_IFACE_METRICS, "Sample");
        if (r >= 0)
                r = sd_bus_message_append_basic(m, 't', &svc->sample->timestamp_us);
        if (r >= 0)
                r = jd_append_values(m, &svc->values);
        if (r >= 0)
                r = sd_bus_send(svc->bus, m, NULL);
        if (r < 0)
                jd_log_warning("Cannot emit Sample: %s", strerror(-r));
        sd_bus_message_unref(m);
}

static void metrics_destroy(jd_iface *base)
{
        metrics_iface *self = (metrics_iface *) base;
        g_hash_table_unref(self->subscriptions);
        g_free(self);
}

jd_iface *jd_metrics_iface_new(jd_service *svc, GError **error)
{
        metrics_iface *self = g_new0(metrics_iface, 1);
        self->base.svc = svc;
        self->base.update = metrics_update;
        self->base.destroy = metrics_destroy;
        self->subscriptions = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, subscription_free);
        int r = sd_bus_add_object_vtable(svc->bus, &self->base.slot, JD_OBJECT_PATH, JD_IFACE_METRICS,
                                         metrics_vtable, self);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_METRICS);
                metrics_destroy(&self->base);
                return NULL;
        }
        return &self->base;
}
