#include "metrics_capture.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "caller_uid.h"
#include "errors.h"
#include "capture_pids.h"
#include "documented_keys.h"
#include "jetsond-dbus.h"
#include "log.h"
#include "peer_watch.h"

#define MAX_CAPTURES_PER_CONNECTION 4
#define MAX_CAPTURE_PATTERNS 256

struct jd_capture_set {
        jd_service *svc;
        GPtrArray *streams;           /* capture_stream * */
};

/* A capture and the connection that opened it: leaving the bus ends it. */
typedef struct {
        jd_capture_set *set;
        jd_capture *capture;
        char *owner;
        uid_t uid;                    /* the owner's, for the limit per user */
        jd_peer_watch *watch;         /* the owner leaving the bus ends the capture */
} capture_stream;

static void capture_stream_free(gpointer p)
{
        capture_stream *c = p;
        jd_engine_close_capture(c->set->svc->engine, c->capture);
        jd_peer_watch_remove(c->watch);
        g_free(c->owner);
        g_free(c);
}

static void on_capture_owner_gone(void *userdata)
{
        capture_stream *c = userdata;
        jd_log_debug("Capture of %s ended: it left the bus", c->owner);
        g_ptr_array_remove(c->set->streams, c);
}

void jd_capture_set_reap(jd_capture_set *set)
{
        for (guint i = 0; i < set->streams->len;) {
                capture_stream *c = g_ptr_array_index(set->streams, i);
                if (jd_capture_ended(c->capture)) {
                        jd_log_debug("Capture of %s ended: its reader closed the stream", c->owner);
                        g_ptr_array_remove_index(set->streams, i);
                } else {
                        i++;
                }
        }
}

static bool is_numeric(const jd_value *v)
{
        return v->type != JD_VALUE_STRING;
}

/* Appends to COLUMNS the time column of each tier that has one of them
 * (capture.tier_times: jd_capture_time_column), in their order. The
 * names are interned: a handful that never change. */
static void add_time_columns(GPtrArray *columns)
{
        g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
        guint n = columns->len;
        for (guint i = 0; i < n; i++) {
                char name[64];
                if (jd_capture_time_column(g_ptr_array_index(columns, i), name, sizeof(name)) &&
                    g_hash_table_add(seen, (gpointer) g_intern_string(name)))
                        g_ptr_array_add(columns, (gpointer) g_intern_string(name));
        }
}

/* The columns: every numeric key of the latest sample matching a
 * pattern, pattern by pattern, each key once, then the tier times if
 * asked for. Sets ERROR for a pattern that matches nothing. */
static GPtrArray *resolve_columns(const jd_service *svc, char **patterns, sd_bus_error *error)
{
        bool tier_times = false;
        const jd_values *lists[JD_SNAPSHOT_MAX_LISTS];
        size_t n_lists = jd_snapshot_lists(&svc->snapshot, lists);
        GPtrArray *columns = g_ptr_array_new();
        g_autoptr(GHashTable) taken = g_hash_table_new(g_str_hash, g_str_equal);
        char *all[] = { (char *) "*", NULL };
        char **pats = patterns && patterns[0] ? patterns : all;
        for (size_t p = 0; pats[p]; p++) {
                if (strcmp(pats[p], JD_CAPTURE_TIER_TIMES) == 0) {
                        tier_times = true; /* once every column is known */
                        continue;
                }
                bool matched = false;
                for (size_t l = 0; l < n_lists; l++)
                        for (size_t i = 0; i < lists[l]->n; i++) {
                                const jd_value *v = &lists[l]->items[i];
                                if (!is_numeric(v) || !g_pattern_match_simple(pats[p], v->key))
                                        continue;
                                matched = true;
                                if (g_hash_table_add(taken, (gpointer) v->key))
                                        g_ptr_array_add(columns, (gpointer) v->key);
                        }
                /* A documented key the board lacks for the moment (the
                 * GPU gated, a rail not read yet) is a column all the
                 * same: NaN until it is there. A pattern cannot be: which
                 * keys it would stand for is not known. */
                if (!matched && (strcmp(pats[p], JD_CAPTURE_MISSED_COLUMN) == 0 ||
                                 (!strpbrk(pats[p], "*?") && jd_documented_numeric_key(pats[p])))) {
                        matched = true;
                        if (g_hash_table_add(taken, pats[p]))
                                g_ptr_array_add(columns, pats[p]);
                }
                if (!matched) {
                        sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                          "No numeric sample key matches \"%s\", and it is not a numeric key that "
                                          "Metrics.xml documents (GetSnapshot lists the keys)",
                                          pats[p]);
                        g_ptr_array_unref(columns);
                        return NULL;
                }
        }
        if (tier_times && columns->len == 0) {
                sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                  "\"%s\" adds the tiers' time columns to those of keys: ask for keys too",
                                  JD_CAPTURE_TIER_TIMES);
                g_ptr_array_unref(columns);
                return NULL;
        }
        if (tier_times)
                add_time_columns(columns);
        return columns;
}

static guint captures_of(const jd_capture_set *set, const char *owner)
{
        guint n = 0;
        for (guint i = 0; i < set->streams->len; i++)
                n += strcmp(((capture_stream *) g_ptr_array_index(set->streams, i))->owner, owner) == 0;
        return n;
}

static guint captures_of_uid(const jd_capture_set *set, uid_t uid)
{
        guint n = 0;
        for (guint i = 0; i < set->streams->len; i++)
                n += ((capture_stream *) g_ptr_array_index(set->streams, i))->uid == uid;
        return n;
}

/* The limit per user, checked last, on the main loop, just before the
 * capture opens: two calls of one user in flight at once cannot both
 * pass it. */
static int check_user_limit(jd_capture_set *set, const char *sender, uid_t *uid, sd_bus_error *error)
{
        const jd_caller_uid *caller = jd_caller_uid_known(sender);
        if (!caller)
                return sd_bus_error_setf(error, SD_BUS_ERROR_FAILED, "The caller left the bus");
        const jd_config *cfg = &set->svc->config;
        unsigned limit = caller->trusted ? cfg->captures_per_trusted_user : cfg->captures_per_user;
        if (captures_of_uid(set, caller->uid) >= limit)
                return sd_bus_error_setf(error, JD_ERROR_BUSY,
                                         "User %" PRIu32 " has %u captures open already: the limit per %suser "
                                         "([Limits] %s in %s)",
                                         (uint32_t) caller->uid, limit, caller->trusted ? "trusted " : "",
                                         caller->trusted ? "CapturesPerTrustedUser" : "CapturesPerUser",
                                         JD_CONFIG_PATH);
        *uid = caller->uid;
        return 0;
}

/* Opens the capture of COLUMNS for M's sender and answers with NAMES
 * (the columns as the caller names them; NULL: COLUMNS themselves). */
static int open_capture_for(jd_capture_set *set, sd_bus_message *m, const jd_capture_rates *rates, GPtrArray *columns,
                            char **names, sd_bus_error *error)
{
        jd_service *svc = set->svc;
        const char *sender = sd_bus_message_get_sender(m);
        if (captures_of(set, sender) >= MAX_CAPTURES_PER_CONNECTION)
                return sd_bus_error_setf(error, JD_ERROR_BUSY, "This connection has %d captures open already",
                                         MAX_CAPTURES_PER_CONNECTION);
        uid_t uid = 0;
        int r = check_user_limit(set, sender, &uid, error);
        if (r < 0)
                return r;
        if (columns->len == 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "No column left: the processes the keys name are not of your PID namespace");
        capture_stream *c = g_new0(capture_stream, 1);
        c->set = set;
        c->owner = g_strdup(sender);
        c->uid = uid;
        int fd = -1;
        r = jd_engine_open_capture(svc->engine, rates, (const char *const *) columns->pdata,
                                       (const char *const *) names, columns->len, &fd,
                                       &c->capture);
        if (r == -EBUSY)
                r = sd_bus_error_setf(error, JD_ERROR_BUSY, "%d captures are open already", JD_MAX_CAPTURES);
        if (r >= 0 && !(c->watch = jd_peer_watch_add(svc->bus, sender, on_capture_owner_gone, c, &r)))
                r = r < 0 ? r : -ENOMEM;
        sd_bus_message *reply = NULL;
        if (r >= 0)
                r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_append(reply, "h", fd);
        if (r >= 0 && names) {
                r = sd_bus_message_append_strv(reply, names);
        } else if (r >= 0) {
                g_ptr_array_add(columns, NULL);
                r = sd_bus_message_append_strv(reply, (char **) columns->pdata);
                g_ptr_array_remove_index(columns, columns->len - 1);
        }
        if (fd >= 0)
                close(fd); /* the reply holds its own copy */
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
        if (r < 0) {
                if (c->capture)
                        capture_stream_free(c);
                else {
                        g_free(c->owner);
                        g_free(c);
                }
                return r;
        }
        g_ptr_array_add(set->streams, c);
        jd_log_debug("Capture for %s: %u columns every %" PRIu64 " µs (medium %" PRIu64 ", slow %" PRIu64 ")",
                     sender, columns->len, rates->interval_us, rates->medium_us, rates->slow_us);
        return 1;
}

/* A capture with process columns, once the caller's PID namespace is
 * known (capture_pids.c): its patterns resolved as jetsond names the
 * processes, the columns answered as the caller does. */
static void open_capture_translated(sd_bus_message *m, jd_capture_pids *p, void *data)
{
        jd_capture_set *set = data;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = -EINVAL;
        if (p->invalid) {
                sd_bus_error_setf(&error, SD_BUS_ERROR_INVALID_ARGS, "%s", p->invalid);
        } else {
                g_autoptr(GPtrArray) columns = resolve_columns(set->svc,
                                                               p->host_patterns ? p->host_patterns : p->patterns,
                                                               &error);
                if (columns) {
                        g_auto(GStrv) names = jd_capture_pids_names(p, columns);
                        r = open_capture_for(set, m, &p->rates, columns, names, &error);
                }
        }
        jd_reply_deferred_error(m, r, &error);
        jd_capture_pids_free(p);
}

/* The PIDs of the latest sample's process.PID keys. */
static GArray *sample_pids(const jd_service *svc)
{
        const jd_values *lists[JD_SNAPSHOT_MAX_LISTS];
        size_t n_lists = jd_snapshot_lists(&svc->snapshot, lists);
        GArray *pids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        uint32_t last = 0;
        for (size_t l = 0; l < n_lists; l++)
                for (size_t i = 0; i < lists[l]->n; i++) {
                        const char *key = lists[l]->items[i].key;
                        uint32_t pid = strncmp(key, "process.", 8) == 0 ? (uint32_t) strtoul(key + 8, NULL, 10) : 0;
                        if (pid && pid != last)
                                g_array_append_val(pids, pid);
                        last = pid ? pid : last;
                }
        return pids;
}

/* An OpenCapture() call waiting for its caller's uid (caller_uid.c). */
typedef struct {
        jd_capture_set *set;
        jd_capture_rates rates;
        char **patterns;
} open_request;

static int open_known_caller(jd_capture_set *set, sd_bus_message *m, const jd_capture_rates *rates, char **patterns,
                             sd_bus_error *error)
{
        jd_service *svc = set->svc;
        g_autoptr(GPtrArray) columns = resolve_columns(svc, patterns, error);
        if (!columns)
                return -EINVAL;
        if (!jd_capture_has_process_columns(columns))
                return open_capture_for(set, m, rates, columns, NULL, error);
        /* Process columns: named as the caller's namespace names them. */
        char *all[] = { (char *) "*", NULL };
        g_autoptr(GArray) pids = sample_pids(svc);
        return jd_capture_pids_start(m, svc->sr, rates, patterns && patterns[0] ? patterns : all,
                                     (const uint32_t *) (const void *) pids->data, pids->len,
                                     open_capture_translated, set, error);
}

static void on_caller_known(sd_bus_message *m, const jd_caller_uid *caller, const char *why, void *data)
{
        open_request *req = data;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = caller ? open_known_caller(req->set, m, &req->rates, req->patterns, &error)
                       : sd_bus_error_setf(&error, SD_BUS_ERROR_FAILED, "%s", why);
        jd_reply_deferred_error(m, r, &error);
        g_strfreev(req->patterns);
        g_free(req);
}

int jd_capture_set_open(jd_capture_set *set, sd_bus_message *m, const jd_capture_rates *rates, char **patterns,
                        sd_bus_error *error)
{
        if (patterns && g_strv_length(patterns) > MAX_CAPTURE_PATTERNS)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "More than %d key patterns",
                                         MAX_CAPTURE_PATTERNS);
        if (captures_of(set, sd_bus_message_get_sender(m)) >= MAX_CAPTURES_PER_CONNECTION)
                return sd_bus_error_setf(error, JD_ERROR_BUSY, "This connection has %d captures open already",
                                         MAX_CAPTURES_PER_CONNECTION);
        /* The limit per user needs the caller's uid: asked of the bus
         * without blocking, known at once after the first call. */
        open_request *req = g_new0(open_request, 1);
        req->set = set;
        req->rates = *rates;
        req->patterns = g_strdupv(patterns);
        int r = jd_caller_uid_query(m, set->svc->sr, on_caller_known, req, error);
        if (r < 0) {
                g_strfreev(req->patterns);
                g_free(req);
        }
        return r;
}

/* One "t" option (µs) between MIN and JD_INTERVAL_MAX_USEC into *OUT. */
static int read_interval_option(sd_bus_message *m, const char *name, unsigned long long min, uint64_t *out,
                                sd_bus_error *error)
{
        const char *contents = NULL;
        int r = sd_bus_message_peek_type(m, NULL, &contents);
        if (r < 0)
                return r;
        if (!contents || strcmp(contents, "t") != 0)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Option \"%s\" must be a uint64 (\"t\") of microseconds, not \"%s\"", name,
                                         contents ? contents : "?");
        r = sd_bus_message_read(m, "v", "t", out);
        if (r < 0)
                return r;
        if (*out < min || *out > JD_INTERVAL_MAX_USEC)
                return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                         "Option \"%s\" %" PRIu64 " µs is out of range (%llu to %llu)", name, *out, min,
                                         JD_INTERVAL_MAX_USEC);
        return 0;
}

int jd_capture_read_options(sd_bus_message *m, jd_capture_rates *rates, sd_bus_error *error)
{
        int r = sd_bus_message_enter_container(m, 'a', "{sv}");
        while (r >= 0 && (r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *name = NULL;
                r = sd_bus_message_read(m, "s", &name);
                if (r < 0)
                        break;
                if (strcmp(name, JD_CAPTURE_OPTION_MEDIUM) == 0)
                        r = read_interval_option(m, name, JD_CAPTURE_MEDIUM_MIN_USEC, &rates->medium_us, error);
                else if (strcmp(name, JD_CAPTURE_OPTION_SLOW) == 0)
                        r = read_interval_option(m, name, JD_CAPTURE_SLOW_MIN_USEC, &rates->slow_us, error);
                else
                        r = sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
                                              "Unknown option \"%s\" (known: %s, %s)", name, JD_CAPTURE_OPTION_MEDIUM,
                                              JD_CAPTURE_OPTION_SLOW);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(m);
        return r < 0 ? r : 0;
}

jd_capture_set *jd_capture_set_new(jd_service *svc)
{
        jd_capture_set *set = g_new0(jd_capture_set, 1);
        set->svc = svc;
        set->streams = g_ptr_array_new_with_free_func(capture_stream_free);
        return set;
}

void jd_capture_set_free(jd_capture_set *set)
{
        if (!set)
                return;
        g_ptr_array_unref(set->streams);
        g_free(set);
}
