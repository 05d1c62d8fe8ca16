#include "systemd_unit.h"

#include <errno.h>
#include <glib.h>
#include <string.h>

#include "log.h"

#define SYSTEMD_NAME "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER "org.freedesktop.systemd1.Manager"
#define SYSTEMD_UNIT "org.freedesktop.systemd1.Unit"

struct jd_unit {
        sd_bus *bus;
        char *name;
        unsigned timeout_ms;
        void (*changed)(void *userdata);
        void *userdata;

        jd_opt_bool active;
        char *path;                   /* the unit's object path, once known */
        sd_bus_slot *owner_match, *job_match, *props_match;
        sd_bus_slot *query;           /* GetUnit or Get(ActiveState) in flight */

        /* The job in flight. */
        bool running, start;
        sd_bus_slot *call;
        char job_path[128];           /* "" until StartUnit/StopUnit answers */
        guint timer, idle;
        jd_result result;
        jd_result_fn done;
        void *done_userdata;
};

static void query_state(jd_unit *u);

static void set_active(jd_unit *u, jd_opt_bool active)
{
        bool differs = active.present != u->active.present || (active.present && active.value != u->active.value);
        u->active = active;
        if (differs && u->changed)
                u->changed(u->userdata);
}

jd_opt_bool jd_unit_active(const jd_unit *u)
{
        return u->active;
}

/* ---- the active state ------------------------------------------------ */

/* "activating" and "reloading" count as running: the service owns the
 * fan from the moment it starts. */
static bool state_is_active(const char *state)
{
        return strcmp(state, "active") == 0 || strcmp(state, "activating") == 0 ||
               strcmp(state, "reloading") == 0;
}

static int on_active_state(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        jd_unit *u = userdata;
        u->query = sd_bus_slot_unref(u->query);
        const char *state = NULL;
        if (sd_bus_message_is_method_error(reply, NULL) ||
            sd_bus_message_read(reply, "v", "s", &state) < 0) {
                set_active(u, (jd_opt_bool) { 0 });
                return 0;
        }
        set_active(u, (jd_opt_bool) { .present = true, .value = state_is_active(state) });
        return 0;
}

static int on_unit_properties(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        const char *iface = NULL;
        if (sd_bus_message_read(m, "s", &iface) >= 0 && strcmp(iface, SYSTEMD_UNIT) == 0)
                query_state(userdata);
        return 0;
}

static void get_active_state(jd_unit *u)
{
        u->query = sd_bus_slot_unref(u->query);
        int r = sd_bus_call_method_async(u->bus, &u->query, SYSTEMD_NAME, u->path, "org.freedesktop.DBus.Properties",
                                         "Get", on_active_state, u, "ss", SYSTEMD_UNIT, "ActiveState");
        if (r < 0)
                jd_log(LOG_WARNING, "Cannot ask systemd about %s: %s", u->name, strerror(-r));
}

static int on_get_unit(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        jd_unit *u = userdata;
        u->query = sd_bus_slot_unref(u->query);
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        if (e) {
                /* Not loaded means not running; anything else (no systemd)
                 * means we do not know. */
                bool not_loaded = sd_bus_error_has_name(e, "org.freedesktop.systemd1.NoSuchUnit");
                set_active(u, (jd_opt_bool) { .present = not_loaded, .value = false });
                return 0;
        }
        const char *path = NULL;
        if (sd_bus_message_read(reply, "o", &path) < 0)
                return 0;
        if (!u->path || strcmp(u->path, path) != 0) {
                g_free(u->path);
                u->path = g_strdup(path);
                u->props_match = sd_bus_slot_unref(u->props_match);
                sd_bus_match_signal_async(u->bus, &u->props_match, SYSTEMD_NAME, path,
                                          "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                          on_unit_properties, NULL, u);
        }
        get_active_state(u);
        return 0;
}

/* GetUnit, not LoadUnit: asking must not load the unit as a side effect. */
static void query_state(jd_unit *u)
{
        u->query = sd_bus_slot_unref(u->query);
        int r = sd_bus_call_method_async(u->bus, &u->query, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER, "GetUnit",
                                         on_get_unit, u, "s", u->name);
        if (r < 0)
                jd_log(LOG_WARNING, "Cannot ask systemd about %s: %s", u->name, strerror(-r));
}

/* systemd sends unit and job signals only to subscribed clients. */
static void subscribe(jd_unit *u)
{
        sd_bus_call_method_async(u->bus, NULL, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER, "Subscribe", NULL, NULL,
                                 "");
        query_state(u);
}

static int on_systemd_owner(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        jd_unit *u = userdata;
        const char *name, *old_owner, *new_owner;
        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0)
                return 0;
        if (*new_owner)
                subscribe(u);
        else
                set_active(u, (jd_opt_bool) { 0 });
        return 0;
}

/* ---- jobs ------------------------------------------------------------ */

static void finish(jd_unit *u)
{
        u->running = false;
        u->call = sd_bus_slot_unref(u->call);
        if (u->timer)
                g_source_remove(u->timer);
        u->timer = 0;
        if (u->result.outcome == JD_OK)
                set_active(u, (jd_opt_bool) { .present = true, .value = u->start });
        query_state(u);
        jd_result result = u->result;
        u->done(&result, u->done_userdata);
}

static void job_ended(jd_unit *u, const char *job_result)
{
        if (strcmp(job_result, "done") == 0)
                jd_result_set(&u->result, JD_OK, "%s %s", u->name, u->start ? "started" : "stopped");
        else
                jd_result_set(&u->result, JD_FAILED, "systemd could not %s %s: the job ended with \"%s\"",
                              u->start ? "start" : "stop", u->name, job_result);
        finish(u);
}

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        jd_unit *u = userdata;
        uint32_t id;
        const char *job, *unit, *result;
        /* systemd answers StartUnit before the job can end, and messages
         * from one sender arrive in order: the path is known by now. */
        if (!u->running || sd_bus_message_read(m, "uoss", &id, &job, &unit, &result) < 0)
                return 0;
        if (u->job_path[0] && strcmp(job, u->job_path) == 0)
                job_ended(u, result);
        return 0;
}

static int on_job_queued(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        jd_unit *u = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        if (e) {
                jd_result_set(&u->result, JD_FAILED, "systemd could not %s %s: %s", u->start ? "start" : "stop",
                              u->name, e->message ? e->message : e->name);
                finish(u);
                return 0;
        }
        const char *job = NULL;
        if (sd_bus_message_read(reply, "o", &job) < 0) {
                jd_result_set(&u->result, JD_FAILED, "systemd gave no job for %s", u->name);
                finish(u);
                return 0;
        }
        g_strlcpy(u->job_path, job, sizeof(u->job_path));
        return 0;
}

static gboolean on_timeout(gpointer userdata)
{
        jd_unit *u = userdata;
        u->timer = 0;
        jd_result_set(&u->result, JD_TIMEOUT, "%s did not %s within %u s", u->name, u->start ? "start" : "stop",
                      u->timeout_ms / 1000);
        finish(u);
        return G_SOURCE_REMOVE;
}

static gboolean on_call_failed(gpointer userdata)
{
        jd_unit *u = userdata;
        u->idle = 0;
        finish(u);
        return G_SOURCE_REMOVE;
}

void jd_unit_run(jd_unit *u, bool start, jd_result_fn done, void *userdata)
{
        g_return_if_fail(!u->running);
        u->running = true;
        u->start = start;
        u->done = done;
        u->done_userdata = userdata;
        u->job_path[0] = '\0';
        int r = sd_bus_call_method_async(u->bus, &u->call, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER,
                                         start ? "StartUnit" : "StopUnit", on_job_queued, u, "ss", u->name,
                                         "replace");
        if (r < 0) {
                jd_result_set(&u->result, JD_FAILED, "Cannot ask systemd to %s %s: %s", start ? "start" : "stop",
                              u->name, strerror(-r));
                u->idle = g_idle_add(on_call_failed, u);
                return;
        }
        u->timer = g_timeout_add(u->timeout_ms, on_timeout, u);
}

/* ---- life ------------------------------------------------------------ */

jd_unit *jd_unit_new(sd_bus *bus, const char *name, unsigned timeout_ms, void (*changed)(void *userdata),
                     void *userdata)
{
        jd_unit *u = g_new0(jd_unit, 1);
        u->bus = sd_bus_ref(bus);
        u->name = g_strdup(name);
        u->timeout_ms = timeout_ms;
        u->changed = changed;
        u->userdata = userdata;
        sd_bus_add_match_async(bus, &u->owner_match,
                               "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                               "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" SYSTEMD_NAME "'",
                               on_systemd_owner, NULL, u);
        sd_bus_match_signal_async(bus, &u->job_match, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER, "JobRemoved",
                                  on_job_removed, NULL, u);
        subscribe(u);
        return u;
}

void jd_unit_free(jd_unit *u)
{
        if (!u)
                return;
        if (u->timer)
                g_source_remove(u->timer);
        if (u->idle)
                g_source_remove(u->idle);
        sd_bus_slot_unref(u->call);
        sd_bus_slot_unref(u->query);
        sd_bus_slot_unref(u->owner_match);
        sd_bus_slot_unref(u->job_match);
        sd_bus_slot_unref(u->props_match);
        sd_bus_unref(u->bus);
        g_free(u->path);
        g_free(u->name);
        g_free(u);
}

/* ---- enabling a unit file, as systemctl enable/disable does ----------- */

typedef struct {
        sd_bus *bus;
        char name[64];
        bool enable;
        jd_result result;
        jd_result_fn done;
        void *userdata;
} unit_file_op;

static void unit_file_done(unit_file_op *op)
{
        op->done(&op->result, op->userdata);
        sd_bus_unref(op->bus);
        g_free(op);
}

static gboolean unit_file_done_later(gpointer data)
{
        unit_file_done(data);
        return G_SOURCE_REMOVE;
}

static int on_reloaded(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        unit_file_op *op = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        if (e)
                jd_result_set(&op->result, JD_FAILED, "systemd could not reload its units: %s", e->message);
        else
                jd_result_set(&op->result, JD_OK, "%s %s", op->name, op->enable ? "enabled" : "disabled");
        unit_file_done(op);
        return 0;
}

static int on_unit_file_changed(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        unit_file_op *op = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(reply);
        if (e) {
                if (sd_bus_error_has_name(e, SD_BUS_ERROR_SERVICE_UNKNOWN) ||
                    sd_bus_error_has_name(e, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                        jd_result_set(&op->result, JD_NOT_SUPPORTED, "systemd is not on the bus");
                else
                        jd_result_set(&op->result, JD_FAILED, "systemd could not %s %s: %s",
                                      op->enable ? "enable" : "disable", op->name, e->message);
                unit_file_done(op);
                return 0;
        }
        /* As systemctl does after changing unit files. */
        int r = sd_bus_call_method_async(op->bus, NULL, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER, "Reload",
                                         on_reloaded, op, NULL);
        if (r < 0) {
                jd_result_set(&op->result, JD_FAILED, "Cannot ask systemd to reload: %s", strerror(-r));
                unit_file_done(op);
        }
        return 0;
}

void jd_unit_file_set_enabled(sd_bus *bus, const char *name, bool enable, jd_result_fn done, void *userdata)
{
        unit_file_op *op = g_new0(unit_file_op, 1);
        op->bus = sd_bus_ref(bus);
        g_strlcpy(op->name, name, sizeof(op->name));
        op->enable = enable;
        op->done = done;
        op->userdata = userdata;
        sd_bus_message *m = NULL;
        int r = sd_bus_message_new_method_call(bus, &m, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER,
                                               enable ? "EnableUnitFiles" : "DisableUnitFiles");
        if (r >= 0)
                r = sd_bus_message_append_strv(m, (char *[]) { op->name, NULL });
        /* Not only for this boot (runtime false); EnableUnitFiles' force
         * false, as systemctl enable without --force. */
        if (r >= 0)
                r = enable ? sd_bus_message_append(m, "bb", 0, 0) : sd_bus_message_append(m, "b", 0);
        if (r >= 0)
                r = sd_bus_call_async(bus, NULL, m, on_unit_file_changed, op, 0);
        sd_bus_message_unref(m);
        if (r < 0) {
                jd_result_set(&op->result, JD_FAILED, "Cannot ask systemd to %s %s: %s", enable ? "enable" : "disable",
                              name, strerror(-r));
                g_idle_add(unit_file_done_later, op);
        }
}
