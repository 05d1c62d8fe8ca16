/* org.jetsond.Jetson1.Metrics: the Sample signal, GetSnapshot, the
 * per-connection Subscribe() requests and their SampleAt streams, one per
 * period (streams.h), the compact form (GetKeys, GetValues, the ValuesAt
 * streams of SubscribeValues) and the capture streams of OpenCapture()
 * (metrics_capture.c) (introspection/org.jetsond.Jetson1.Metrics.xml,
 * capture.md). Every message is built through sd-bus. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caller_uid.h"
#include "errors.h"
#include "metrics_capture.h"
#include "compact_keys.h"
#include "jetsond-dbus.h"
#include "log.h"
#include "peer_watch.h"
#include "pid_methods.h"
#include "sensors_message.h"
#include "service.h"
#include "streams.h"
#include "values_message.h"

typedef struct {
        jd_iface base;
        GHashTable *subscriptions;    /* unique name -> subscription */
        jd_capture_set *captures;     /* OpenCapture()'s streams */
        jd_compact compact;           /* the key list of the values */
        uint64_t compact_serial;      /* the snapshot COMPACT holds the values of */
        jd_streams streams;           /* Sample and each subscribed period's stream */
} metrics_iface;

typedef struct {
        metrics_iface *metrics;
        char *sender;
        uint64_t interval_us;
        jd_stream_kind kind;          /* SampleAt (Subscribe) or ValuesAt (SubscribeValues) */
        bool fast;                    /* faster than DefaultInterval: counted for its uid */
        uid_t uid;                    /* the subscriber's, when fast */
        jd_peer_watch *watch;         /* the subscriber leaving the bus ends the request */
} subscription;

static void subscription_free(gpointer p)
{
        subscription *s = p;
        jd_peer_watch_remove(s->watch);
        g_free(s->sender);
        g_free(s);
}

/* The board is read at the fastest stream's period. */
static void recompute_interval(metrics_iface *self)
{
        jd_service_set_interval(self->base.svc, jd_streams_fastest(&self->streams));
}

/* Drops S's request (its stream goes when it was the last) and S. */
static void drop_subscription(metrics_iface *self, subscription *s)
{
        jd_streams_remove(&self->streams, s->kind, s->interval_us);
        g_hash_table_remove(self->subscriptions, s->sender);
        recompute_interval(self);
}

static void on_subscriber_gone(void *userdata)
{
        subscription *s = userdata;
        jd_log_debug("Subscriber %s left the bus", s->sender);
        drop_subscription(s->metrics, s);
}

/* What Subscribe() and OpenCapture() check first: an interval between
 * MIN and the upper bound, and a caller with a unique name (whose leaving
 * the bus ends the request). Returns the caller, or NULL with ERROR set. */
static const char *check_request(sd_bus_message *m, uint64_t interval, unsigned long long min, sd_bus_error *error)
{
        if (interval < min || interval > JD_INTERVAL_MAX_USEC) {
                sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                  "Interval %" PRIu64 " µs is out of range (%llu to %llu)", interval, min,
                                  JD_INTERVAL_MAX_USEC);
                return NULL;
        }
        const char *sender = sd_bus_message_get_sender(m);
        if (!sender)
                sd_bus_error_setf(error, SD_BUS_ERROR_NOT_SUPPORTED, "%s() needs a bus connection with a unique name",
                                  sd_bus_message_get_member(m));
        return sender;
}

/* The fast subscriptions of UID other than SENDER's own, which a new
 * request replaces. */
static unsigned fast_subscriptions_of(metrics_iface *self, uid_t uid, const char *sender)
{
        unsigned n = 0;
        GHashTableIter it;
        gpointer value;
        g_hash_table_iter_init(&it, self->subscriptions);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const subscription *s = value;
                n += s->fast && s->uid == uid && strcmp(s->sender, sender) != 0;
        }
        return n;
}

/* Subscribe() or SubscribeValues() at INTERVAL for M's sender; CALLER is
 * known for a fast one (NULL: at DefaultInterval or slower, never
 * refused). */
static int subscribe(metrics_iface *self, sd_bus_message *m, uint64_t interval, jd_stream_kind kind,
                     const jd_caller_uid *caller, sd_bus_error *error)
{
        const char *sender = sd_bus_message_get_sender(m);
        if (caller) {
                const jd_config *cfg = &self->base.svc->config;
                unsigned limit = caller->trusted ? cfg->fast_subscriptions_per_trusted_user
                                                 : cfg->fast_subscriptions_per_user;
                if (fast_subscriptions_of(self, caller->uid, sender) >= limit)
                        return sd_bus_error_setf(error, JD_ERROR_BUSY,
                                                 "User %" PRIu32 " has %u subscriptions faster than the default "
                                                 "interval already: the limit per %suser ([Limits] %s in %s)",
                                                 (uint32_t) caller->uid, limit, caller->trusted ? "trusted " : "",
                                                 caller->trusted ? "FastSubscriptionsPerTrustedUser"
                                                                 : "FastSubscriptionsPerUser",
                                                 JD_CONFIG_PATH);
        }
        subscription *s = g_hash_table_lookup(self->subscriptions, sender);
        if (!s) {
                s = g_new0(subscription, 1);
                s->metrics = self;
                s->sender = g_strdup(sender);
                int r = 0;
                s->watch = jd_peer_watch_add(self->base.svc->bus, sender, on_subscriber_gone, s, &r);
                if (!s->watch) {
                        subscription_free(s);
                        return r;
                }
                g_hash_table_insert(self->subscriptions, s->sender, s);
        } else {
                jd_streams_remove(&self->streams, s->kind, s->interval_us);
        }
        jd_streams_add(&self->streams, kind, interval);
        s->interval_us = interval;
        s->kind = kind;
        s->fast = caller != NULL;
        s->uid = caller ? caller->uid : 0;
        recompute_interval(self);
        return sd_bus_reply_method_return(m, NULL);
}

/* A fast Subscribe() waiting for its caller's uid (caller_uid.c). */
typedef struct {
        metrics_iface *metrics;
        uint64_t interval;
        jd_stream_kind kind;
} subscribe_request;

static void on_subscriber_known(sd_bus_message *m, const jd_caller_uid *caller, const char *why, void *data)
{
        subscribe_request *req = data;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = caller ? subscribe(req->metrics, m, req->interval, req->kind, caller, &error)
                       : sd_bus_error_setf(&error, SD_BUS_ERROR_FAILED, "%s", why);
        jd_reply_deferred_error(m, r, &error);
        g_free(req);
}

static int method_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        metrics_iface *self = userdata;
        jd_stream_kind kind = strcmp(sd_bus_message_get_member(m), "SubscribeValues") == 0 ? JD_STREAM_VALUES_AT
                                                                                          : JD_STREAM_SAMPLE_AT;
        uint64_t interval;
        int r = sd_bus_message_read(m, "t", &interval);
        if (r < 0)
                return r;
        if (!check_request(m, interval, JD_INTERVAL_MIN_USEC, error))
                return -EINVAL;
        if (interval >= self->base.svc->default_interval_us)
                return subscribe(self, m, interval, kind, NULL, error);
        /* Faster than the default: counted for the caller's uid, asked of
         * the bus without blocking (known at once after the first call). */
        subscribe_request *req = g_new(subscribe_request, 1);
        *req = (subscribe_request) { self, interval, kind };
        r = jd_caller_uid_query(m, self->base.svc->sr, on_subscriber_known, req, error);
        if (r < 0)
                g_free(req);
        return r;
}

static int method_unsubscribe(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        metrics_iface *self = userdata;
        const char *sender = sd_bus_message_get_sender(m);
        subscription *s = sender ? g_hash_table_lookup(self->subscriptions, sender) : NULL;
        if (s)
                drop_subscription(self, s);
        return sd_bus_reply_method_return(m, NULL);
}

/* The sample's timestamp and values, from the latest readings. */
static int append_sample(sd_bus_message *m, metrics_iface *self)
{
        const jd_service *svc = self->base.svc;
        const jd_values *lists[JD_SNAPSHOT_MAX_LISTS];
        size_t n = jd_snapshot_lists(&svc->snapshot, lists);
        int r = sd_bus_message_append_basic(m, 't', &svc->sample->timestamp_us);
        if (r >= 0)
                r = jd_append_values(m, lists, n);
        return r;
}

/* The compact values of the latest snapshot. */
static const jd_compact *compact_values(metrics_iface *self)
{
        const jd_service *svc = self->base.svc;
        if (self->compact_serial != svc->snapshot_serial) {
                const jd_values *lists[JD_SNAPSHOT_MAX_LISTS];
                size_t n = jd_snapshot_lists(&svc->snapshot, lists);
                jd_compact_update(&self->compact, lists, n);
                self->compact_serial = svc->snapshot_serial;
        }
        return &self->compact;
}

static int append_values(sd_bus_message *m, metrics_iface *self)
{
        const jd_compact *c = compact_values(self);
        int r = sd_bus_message_append(m, "tu", self->base.svc->sample->timestamp_us, c->generation);
        if (r >= 0)
                r = sd_bus_message_append_array(m, 'd', c->values->data, c->values->len * sizeof(double));
        return r;
}

/* A method's answer: the latest sample, appended by APPEND. */
static int reply_sample(sd_bus_message *m, metrics_iface *self, int (*append)(sd_bus_message *, metrics_iface *))
{
        sd_bus_message *reply = NULL;
        int r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = append(reply, self);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}

static int method_get_snapshot(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        return reply_sample(m, userdata, append_sample);
}

static int method_get_values(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        return reply_sample(m, userdata, append_values);
}

static int method_get_keys(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        metrics_iface *self = userdata;
        const jd_compact *c = compact_values(self); /* the list of the latest sample */
        sd_bus_message *reply = NULL;
        int r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_append_basic(reply, 'u', &c->generation);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "s");
        for (guint i = 0; r >= 0 && i < c->keys->len; i++)
                r = sd_bus_message_append_basic(reply, 's', g_ptr_array_index(c->keys, i));
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}

/* OpenCapture(interval, keys) and OpenCaptureWithOptions(interval, keys,
 * options): the tiers' rates the caller's own (metrics_capture.c). */
static int method_open_capture(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        metrics_iface *self = userdata;
        jd_capture_rates rates = { 0 };
        g_auto(GStrv) patterns = NULL;
        int r = sd_bus_message_read(m, "t", &rates.interval_us);
        if (r >= 0)
                r = sd_bus_message_read_strv(m, &patterns);
        if (r < 0)
                return r;
        if (!check_request(m, rates.interval_us, JD_CAPTURE_INTERVAL_MIN_USEC, error))
                return -EINVAL;
        if (strcmp(sd_bus_message_get_member(m), "OpenCaptureWithOptions") == 0 &&
            (r = jd_capture_read_options(m, &rates, error)) < 0)
                return r;
        return jd_capture_set_open(self->captures, m, &rates, patterns, error);
}

void jd_metrics_reap_captures(jd_iface *base)
{
        jd_capture_set_reap(((metrics_iface *) base)->captures);
}

static int method_pids_to_caller(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return jd_method_pids_to_caller(m, ((metrics_iface *) userdata)->base.svc->sr, error);
}

static int method_pids_from_caller(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return jd_method_pids_from_caller(m, ((metrics_iface *) userdata)->base.svc->sr, error);
}

static int get_interval(sd_bus *bus, const char *path, const char *interface, const char *property,
                        sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) error;
        const jd_service *svc = ((metrics_iface *) userdata)->base.svc;
        uint64_t v = strcmp(property, "Interval") == 0 ? svc->interval_us : svc->default_interval_us;
        return sd_bus_message_append_basic(reply, 't', &v);
}

static int get_sensors(sd_bus *bus, const char *path, const char *interface, const char *property,
                       sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return jd_append_sensors(reply, ((metrics_iface *) userdata)->base.svc->sample);
}

static const sd_bus_vtable metrics_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_SIGNAL_WITH_ARGS("Sample", SD_BUS_ARGS("t", timestamp_usec, "a{sv}", values), 0),
        SD_BUS_METHOD_WITH_ARGS("GetSnapshot", SD_BUS_NO_ARGS, SD_BUS_RESULT("t", timestamp_usec, "a{sv}", values),
                                method_get_snapshot, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Subscribe", SD_BUS_ARGS("t", interval_usec), SD_BUS_NO_RESULT, method_subscribe,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_SIGNAL_WITH_ARGS("SampleAt", SD_BUS_ARGS("s", interval_usec, "t", timestamp_usec, "a{sv}", values),
                                0),
        SD_BUS_SIGNAL_WITH_ARGS("ValuesAt",
                                SD_BUS_ARGS("s", interval_usec, "t", timestamp_usec, "u", generation, "ad", values),
                                0),
        SD_BUS_METHOD_WITH_ARGS("GetKeys", SD_BUS_NO_ARGS, SD_BUS_RESULT("u", generation, "as", keys),
                                method_get_keys, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("GetValues", SD_BUS_NO_ARGS,
                                SD_BUS_RESULT("t", timestamp_usec, "u", generation, "ad", values), method_get_values,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("SubscribeValues", SD_BUS_ARGS("t", interval_usec), SD_BUS_NO_RESULT,
                                method_subscribe, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("Unsubscribe", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_unsubscribe,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("OpenCapture", SD_BUS_ARGS("t", interval_usec, "as", keys),
                                SD_BUS_RESULT("h", stream, "as", columns), method_open_capture,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("OpenCaptureWithOptions",
                                SD_BUS_ARGS("t", interval_usec, "as", keys, "a{sv}", options),
                                SD_BUS_RESULT("h", stream, "as", columns), method_open_capture,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("PidsToCaller", SD_BUS_ARGS("au", pids), SD_BUS_RESULT("au", caller_pids),
                                method_pids_to_caller, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("PidsFromCaller", SD_BUS_ARGS("au", caller_pids), SD_BUS_RESULT("au", pids),
                                method_pids_from_caller, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_PROPERTY("Interval", "t", get_interval, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("DefaultInterval", "t", get_interval, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY("Sensors", "a(sss)", get_sensors, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_VTABLE_END,
};

/* Sample, or one SampleAt or ValuesAt signal for every subscriber of its
 * period: the period first, for their match rules' arg0. */
static void emit_stream(const jd_stream *stream, void *data)
{
        metrics_iface *self = data;
        jd_service *svc = self->base.svc;
        bool values = stream->kind == JD_STREAM_VALUES_AT;
        const char *member = stream->kind == JD_STREAM_SAMPLE ? "Sample" : values ? "ValuesAt" : "SampleAt";
        sd_bus_message *m = NULL;
        int r = sd_bus_message_new_signal(svc->bus, &m, JD_OBJECT_PATH, JD_IFACE_METRICS, member);
        if (r >= 0 && stream->kind != JD_STREAM_SAMPLE)
                r = sd_bus_message_append_basic(m, 's', stream->arg0);
        if (r >= 0)
                r = values ? append_values(m, self) : append_sample(m, self);
        if (r >= 0)
                r = sd_bus_send(svc->bus, m, NULL);
        if (r < 0)
                jd_log_warning("Cannot emit %s: %s", member, strerror(-r));
        sd_bus_message_unref(m);
}

/* Broadcasts: dbus-daemon forwards each only to connections with a
 * matching rule, so a stream's signal costs one message to the bus
 * whatever the number of its subscribers, and a period no one asked for
 * costs nothing. */
void jd_metrics_emit_sample(jd_iface *base, bool regular)
{
        metrics_iface *self = (metrics_iface *) base;
        jd_streams_emit_due(&self->streams, (uint64_t) g_get_monotonic_time(), base->svc->interval_us, !regular,
                            emit_stream, self);
}

static void metrics_destroy(jd_iface *base)
{
        metrics_iface *self = (metrics_iface *) base;
        jd_capture_set_free(self->captures);
        g_hash_table_unref(self->subscriptions);
        jd_streams_clear(&self->streams);
        jd_compact_clear(&self->compact);
        g_free(self);
}

jd_iface *jd_metrics_iface_new(jd_service *svc, GError **error)
{
        metrics_iface *self = g_new0(metrics_iface, 1);
        self->base.svc = svc;
        self->base.destroy = metrics_destroy;
        self->subscriptions = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, subscription_free);
        self->captures = jd_capture_set_new(svc);
        jd_streams_init(&self->streams, svc->default_interval_us);
        jd_compact_init(&self->compact);
        int r = sd_bus_add_object_vtable(svc->bus, &self->base.slot, JD_OBJECT_PATH, JD_IFACE_METRICS,
                                         metrics_vtable, self);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_METRICS);
                metrics_destroy(&self->base);
                return NULL;
        }
        return &self->base;
}
