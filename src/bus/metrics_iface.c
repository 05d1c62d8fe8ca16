/* org.jetsond.Jetson1.Metrics: the Sample signal, GetSnapshot, the
 * per-connection Subscribe() requests that set the sampling period, the
 * compact form (GetKeys, GetValues, the Values signal, SubscribeValues)
 * and the capture streams of OpenCapture() (metrics_capture.c)
 * (introspection/org.jetsond.Jetson1.Metrics.xml, capture.md). Each
 * message body of a sample is built once and every signal and answer of
 * that sample reuses it (wire.h). */
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
#include "pid_methods.h"
#include "sensors_message.h"
#include "service.h"
#include "values_message.h"
#include "wire.h"

/* A message body of the latest snapshot, built at most once per snapshot
 * (svc->snapshot_serial) and reused by every signal and answer until the
 * next: never older than the newest sample. */
typedef struct {
        uint64_t serial;              /* the snapshot it holds; 0: none yet */
        GByteArray *body;
        uint64_t builds;
} cached_body;

typedef struct {
        jd_iface base;
        GHashTable *subscriptions;    /* unique name -> subscription */
        jd_capture_set *captures;     /* OpenCapture()'s streams */
        cached_body sample;           /* "ta{sv}": Sample, GetSnapshot */
        cached_body values;           /* "tuad": Values, GetValues */
        jd_compact compact;           /* the key list of the values */
        GByteArray *header;           /* scratch for each answer's own header */
        GByteArray *signal_header[2]; /* Sample's and Values', built once */
        uint64_t sample_interval_us;  /* Sample signals at least this far apart... */
        uint64_t values_interval_us;  /* ...Values signals; UINT64_MAX: no one asked */
        uint64_t last_sample_us;      /* CLOCK_MONOTONIC of the last Sample */
        uint64_t written, fallbacks;  /* messages of a cached body: written by jd_wire_send(), built by sd-bus */
} metrics_iface;

typedef struct {
        metrics_iface *metrics;
        char *sender;
        uint64_t interval_us;
        bool values;                  /* SubscribeValues(): Values signals, not Sample */
        bool fast;                    /* faster than DefaultInterval: counted for its uid */
        uid_t uid;                    /* the subscriber's, when fast */
        sd_bus_track *track;          /* empties when the subscriber leaves the bus */
} subscription;

static void subscription_free(gpointer p)
{
        subscription *s = p;
        sd_bus_track_unref(s->track);
        g_free(s->sender);
        g_free(s);
}

/* Sample signals at the smallest Subscribe() request, never slower than
 * the default; Values signals at the smallest SubscribeValues() request;
 * the board sampled at the smaller of the two. */
static void recompute_interval(metrics_iface *self)
{
        jd_service *svc = self->base.svc;
        uint64_t sample = svc->default_interval_us, values = UINT64_MAX;
        GHashTableIter it;
        gpointer value;
        g_hash_table_iter_init(&it, self->subscriptions);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                const subscription *s = value;
                uint64_t *slot = s->values ? &values : &sample;
                if (s->interval_us < *slot)
                        *slot = s->interval_us;
        }
        self->sample_interval_us = sample;
        self->values_interval_us = values;
        jd_service_set_interval(svc, MIN(sample, values));
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
static int subscribe(metrics_iface *self, sd_bus_message *m, uint64_t interval, bool values,
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
                int r = sd_bus_track_new(self->base.svc->bus, &s->track, on_subscriber_gone, s);
                if (r >= 0)
                        r = sd_bus_track_add_sender(s->track, m);
                if (r < 0) {
                        subscription_free(s);
                        return r;
                }
                g_hash_table_insert(self->subscriptions, s->sender, s);
        }
        s->interval_us = interval;
        s->values = values;
        s->fast = caller != NULL;
        s->uid = caller ? caller->uid : 0;
        recompute_interval(self);
        return sd_bus_reply_method_return(m, NULL);
}

/* A fast Subscribe() waiting for its caller's uid (caller_uid.c). */
typedef struct {
        metrics_iface *metrics;
        uint64_t interval;
        bool values;
} subscribe_request;

static void on_subscriber_known(sd_bus_message *m, const jd_caller_uid *caller, const char *why, void *data)
{
        subscribe_request *req = data;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = caller ? subscribe(req->metrics, m, req->interval, req->values, caller, &error)
                       : sd_bus_error_setf(&error, SD_BUS_ERROR_FAILED, "%s", why);
        jd_reply_deferred_error(m, r, &error);
        g_free(req);
}

static int method_subscribe(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        metrics_iface *self = userdata;
        bool values = strcmp(sd_bus_message_get_member(m), "SubscribeValues") == 0;
        uint64_t interval;
        int r = sd_bus_message_read(m, "t", &interval);
        if (r < 0)
                return r;
        if (!check_request(m, interval, JD_INTERVAL_MIN_USEC, error))
                return -EINVAL;
        if (interval >= self->base.svc->default_interval_us)
                return subscribe(self, m, interval, values, NULL, error);
        /* Faster than the default: counted for the caller's uid, asked of
         * the bus without blocking (known at once after the first call). */
        subscribe_request *req = g_new(subscribe_request, 1);
        *req = (subscribe_request) { self, interval, values };
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
        if (sender && g_hash_table_remove(self->subscriptions, sender))
                recompute_interval(self);
        return sd_bus_reply_method_return(m, NULL);
}

/* The sample's timestamp and values, from the latest readings: for
 * messages that jd_wire_send() could not write. */
static int append_sample(sd_bus_message *m, const jd_service *svc)
{
        const jd_values *lists[JD_SNAPSHOT_MAX_LISTS];
        size_t n = jd_snapshot_lists(&svc->snapshot, lists);
        int r = sd_bus_message_append_basic(m, 't', &svc->sample->timestamp_us);
        if (r >= 0)
                r = jd_append_values(m, lists, n);
        return r;
}

static int append_values(sd_bus_message *m, metrics_iface *self)
{
        const jd_compact *c = &self->compact;
        int r = sd_bus_message_append(m, "tu", self->base.svc->sample->timestamp_us, c->generation);
        if (r >= 0)
                r = sd_bus_message_append_array(m, 'd', c->values->data, c->values->len * sizeof(double));
        return r;
}

static const GByteArray *sample_body(metrics_iface *self)
{
        const jd_service *svc = self->base.svc;
        if (self->sample.serial != svc->snapshot_serial) {
                const jd_values *lists[JD_SNAPSHOT_MAX_LISTS];
                size_t n = jd_snapshot_lists(&svc->snapshot, lists);
                jd_wire_sample_body(self->sample.body, svc->sample->timestamp_us, lists, n);
                self->sample.serial = svc->snapshot_serial;
                self->sample.builds++;
        }
        return self->sample.body;
}

static const GByteArray *values_body(metrics_iface *self)
{
        const jd_service *svc = self->base.svc;
        if (self->values.serial != svc->snapshot_serial) {
                const jd_values *lists[JD_SNAPSHOT_MAX_LISTS];
                size_t n = jd_snapshot_lists(&svc->snapshot, lists);
                jd_compact_update(&self->compact, lists, n);
                jd_wire_compact_body(self->values.body, svc->sample->timestamp_us, self->compact.generation,
                                     (const double *) (const void *) self->compact.values->data,
                                     self->compact.values->len);
                self->values.serial = svc->snapshot_serial;
                self->values.builds++;
        }
        return self->values.body;
}

/* A method's answer: BODY (of SIGNATURE) after a header of its own,
 * written straight to the socket; else built through sd-bus by APPEND. */
static int reply_cached(sd_bus_message *m, metrics_iface *self, const GByteArray *body, const char *signature,
                        int (*append)(sd_bus_message *, metrics_iface *))
{
        if (!sd_bus_message_get_expect_reply(m))
                return 1;
        uint64_t cookie = 0;
        const char *sender = sd_bus_message_get_sender(m);
        if (sender && sd_bus_message_get_cookie(m, &cookie) >= 0 && cookie && cookie <= UINT32_MAX) {
                jd_wire_header(self->header, jd_wire_next_serial(), NULL, NULL, NULL, (uint32_t) cookie, sender,
                               signature, body->len);
                if (jd_wire_send(sd_bus_message_get_bus(m), self->header, body)) {
                        self->written++;
                        return 1;
                }
        }
        self->fallbacks++;
        sd_bus_message *reply = NULL;
        int r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = append(reply, self);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        return r;
}

static int append_sample_of(sd_bus_message *m, metrics_iface *self)
{
        return append_sample(m, self->base.svc);
}

static int method_get_snapshot(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        metrics_iface *self = userdata;
        return reply_cached(m, self, sample_body(self), "ta{sv}", append_sample_of);
}

static int method_get_values(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        metrics_iface *self = userdata;
        return reply_cached(m, self, values_body(self), "tuad", append_values);
}

static int method_get_keys(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        metrics_iface *self = userdata;
        values_body(self);            /* the list of the latest sample */
        const jd_compact *c = &self->compact;
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
        SD_BUS_SIGNAL_WITH_ARGS("Values", SD_BUS_ARGS("t", timestamp_usec, "u", generation, "ad", values), 0),
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

/* A signal of the cached BODY, written straight to the socket; else
 * built through sd-bus by APPEND. */
static void emit_cached(metrics_iface *self, GByteArray *header, const char *member, const GByteArray *body,
                        const char *signature, int (*append)(sd_bus_message *, metrics_iface *))
{
        jd_service *svc = self->base.svc;
        /* A signal's header differs from its last one only in its serial
         * and body length. */
        if (header->len == 0)
                jd_wire_header(header, jd_wire_next_serial(), JD_OBJECT_PATH, JD_IFACE_METRICS, member, 0, NULL,
                               signature, body->len);
        else
                jd_wire_header_renew(header, jd_wire_next_serial(), body->len);
        if (jd_wire_send(svc->bus, header, body)) {
                self->written++;
                return;
        }
        self->fallbacks++;
        sd_bus_message *m = NULL;
        int r = sd_bus_message_new_signal(svc->bus, &m, JD_OBJECT_PATH, JD_IFACE_METRICS, member);
        if (r >= 0)
                r = append(m, self);
        if (r >= 0)
                r = sd_bus_send(svc->bus, m, NULL);
        if (r < 0)
                jd_log_warning("Cannot emit %s: %s", member, strerror(-r));
        sd_bus_message_unref(m);
}

/* Broadcasts: dbus-daemon forwards them only to connections with a
 * matching rule, so an unwatched signal costs one message to the bus,
 * built once for every subscriber (and for GetSnapshot). Values go out
 * only while someone asked for them; a Sample on every tick unless the
 * ticks are faster than any Subscribe() asked for (only SubscribeValues()
 * did): then at its own interval, half a tick early at most. */
void jd_metrics_emit_sample(jd_iface *base, bool regular)
{
        metrics_iface *self = (metrics_iface *) base;
        jd_service *svc = base->svc;
        if (self->values_interval_us != UINT64_MAX)
                emit_cached(self, self->signal_header[1], "Values", values_body(self), "tuad", append_values);
        uint64_t now = (uint64_t) g_get_monotonic_time();
        if (regular && self->sample_interval_us > svc->interval_us && self->last_sample_us &&
            now + svc->interval_us / 2 < self->last_sample_us + self->sample_interval_us)
                return;
        self->last_sample_us = now;
        emit_cached(self, self->signal_header[0], "Sample", sample_body(self), "ta{sv}", append_sample_of);
}

static void metrics_destroy(jd_iface *base)
{
        metrics_iface *self = (metrics_iface *) base;
        /* How well the bodies were reused (test-compact reads it). */
        jd_log_debug("Message bodies: %" PRIu64 " Sample and %" PRIu64 " Values bodies built for %" PRIu64
                     " snapshots; %" PRIu64 " messages written from them, %" PRIu64 " built through sd-bus instead, "
                     "%lu partial writes",
                     self->sample.builds, self->values.builds, base->svc->snapshot_serial, self->written,
                     self->fallbacks, jd_wire_partial_writes);
        jd_capture_set_free(self->captures);
        g_hash_table_unref(self->subscriptions);
        g_byte_array_unref(self->sample.body);
        g_byte_array_unref(self->values.body);
        g_byte_array_unref(self->header);
        g_byte_array_unref(self->signal_header[0]);
        g_byte_array_unref(self->signal_header[1]);
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
        self->sample.body = g_byte_array_new();
        self->values.body = g_byte_array_new();
        self->header = g_byte_array_new();
        self->signal_header[0] = g_byte_array_new();
        self->signal_header[1] = g_byte_array_new();
        jd_compact_init(&self->compact);
        self->sample_interval_us = svc->default_interval_us;
        self->values_interval_us = UINT64_MAX;
        int r = sd_bus_add_object_vtable(svc->bus, &self->base.slot, JD_OBJECT_PATH, JD_IFACE_METRICS,
                                         metrics_vtable, self);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_METRICS);
                metrics_destroy(&self->base);
                return NULL;
        }
        return &self->base;
}
