#include "caller_uid.h"

#include <errno.h>
#include <gio/gio.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "log.h"
#include "peer_watch.h"

typedef struct {
        sd_bus_message *m;
        jd_caller_uid_fn done;
        void *data;
} waiter;

/* One sender: known, or being found out for the calls that wait. */
typedef struct {
        unsigned refs;                /* the table's, and the query's while it runs */
        char *name;
        const jd_sysroot *sr;
        jd_peer_watch *watch;         /* the sender leaving the bus drops the entry */
        sd_bus_slot *call;            /* GetConnectionUnixUser */
        bool known, gone;
        jd_caller_uid caller;
        GPtrArray *waiters;           /* waiter *: calls made before the answer */
} entry;

/* Unique name -> entry; main loop only. */
static GHashTable *senders;
/* Queries started and not finished: a worker reads under the sysroot,
 * which must outlive it, and each waiter's DATA is its caller's. */
static unsigned pending;

static void entry_unref(gpointer p)
{
        entry *e = p;
        if (--e->refs > 0)
                return;
        jd_peer_watch_remove(e->watch);
        sd_bus_slot_unref(e->call);
        g_ptr_array_unref(e->waiters);
        g_free(e->name);
        g_free(e);
}

/* Whether UID is trusted: root, or in the group JD_TRUSTED_GROUP of the
 * board's passwd and group files (NULL: absent). A user that only NSS
 * knows (LDAP, systemd-homed) is not in these files: not trusted, as
 * jetsond reads the board's files and no service. */
static bool trusted_in(uid_t uid, const char *passwd, const char *group)
{
        return uid == 0 || (passwd && group && jd_uid_in_group(passwd, group, (uint32_t) uid, JD_TRUSTED_GROUP));
}

static void in_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
        (void) source, (void) cancellable;
        entry *e = data;
        size_t len;
        g_autofree char *passwd = jd_sysroot_read_whole(e->sr, "/etc/passwd", 1 << 22, &len);
        g_autofree char *group = jd_sysroot_read_whole(e->sr, "/etc/group", 1 << 22, &len);
        e->caller.trusted = trusted_in(e->caller.uid, passwd, group);
        g_task_return_boolean(task, TRUE);
}

/* The query ends: every waiting call is answered, with ERROR if it failed
 * (then the sender is forgotten, and a later call asks again). */
static void query_finish(entry *e, const char *error)
{
        pending--;
        e->call = sd_bus_slot_unref(e->call);
        if (e->gone && !error)
                error = "The caller left the bus";
        e->known = !error;
        if (error && !e->gone)
                g_hash_table_remove(senders, e->name);
        else if (e->known)
                jd_log_debug("Caller %s is uid %" PRIu32 "%s", e->name, (uint32_t) e->caller.uid,
                             e->caller.trusted ? ", trusted" : "");
        g_autoptr(GPtrArray) waiters = e->waiters;
        e->waiters = g_ptr_array_new();
        for (guint i = 0; i < waiters->len; i++) {
                waiter *w = g_ptr_array_index(waiters, i);
                w->done(w->m, error ? NULL : &e->caller, error, w->data);
                sd_bus_message_unref(w->m);
                g_free(w);
        }
        entry_unref(e);
}

static void on_thread_done(GObject *source, GAsyncResult *result, gpointer data)
{
        (void) source, (void) result;
        query_finish(data, NULL);
}

static int on_uid(sd_bus_message *answer, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        entry *e = userdata;
        uint32_t uid;
        if (sd_bus_message_is_method_error(answer, NULL) || sd_bus_message_read(answer, "u", &uid) < 0) {
                const sd_bus_error *be = sd_bus_message_get_error(answer);
                g_autofree char *why = g_strdup_printf("The bus did not say which user called: %s",
                                                       be && be->message ? be->message : "a malformed answer");
                query_finish(e, why);
                return 0;
        }
        e->caller.uid = (uid_t) uid;
        GTask *task = g_task_new(NULL, NULL, on_thread_done, e);
        g_task_set_task_data(task, e, NULL);
        g_task_run_in_thread(task, in_thread);
        g_object_unref(task);
        return 0;
}

static void on_sender_gone(void *userdata)
{
        entry *e = userdata;
        jd_log_debug("Caller %s left the bus", e->name);
        e->gone = true;
        g_hash_table_remove(senders, e->name);
}

int jd_caller_uid_query(sd_bus_message *m, const jd_sysroot *sr, jd_caller_uid_fn done, void *data,
                        sd_bus_error *error)
{
        const char *sender = sd_bus_message_get_sender(m);
        if (!sender)
                return sd_bus_error_setf(error, SD_BUS_ERROR_NOT_SUPPORTED,
                                         "%s() needs a bus connection with a unique name",
                                         sd_bus_message_get_member(m));
        if (!senders)
                senders = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, entry_unref);
        entry *e = g_hash_table_lookup(senders, sender);
        if (e && e->known) {
                done(m, &e->caller, NULL, data);
                return 1;
        }
        if (!e) {
                sd_bus *bus = sd_bus_message_get_bus(m);
                e = g_new0(entry, 1);
                e->refs = 1;
                e->name = g_strdup(sender);
                e->sr = sr;
                e->waiters = g_ptr_array_new();
                int r = 0;
                e->watch = jd_peer_watch_add(bus, sender, on_sender_gone, e, &r);
                if (e->watch)
                        r = sd_bus_call_method_async(bus, &e->call, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                     "org.freedesktop.DBus", "GetConnectionUnixUser", on_uid, e, "s",
                                                     sender);
                if (r < 0) {
                        entry_unref(e);
                        return sd_bus_error_set_errnof(error, -r, "Cannot ask the bus who called: %s", strerror(-r));
                }
                e->refs++;
                pending++;
                g_hash_table_insert(senders, e->name, e);
        }
        waiter *w = g_new(waiter, 1);
        *w = (waiter) { sd_bus_message_ref(m), done, data };
        g_ptr_array_add(e->waiters, w);
        return 1;
}

const jd_caller_uid *jd_caller_uid_known(const char *sender)
{
        const entry *e = senders && sender ? g_hash_table_lookup(senders, sender) : NULL;
        return e && e->known ? &e->caller : NULL;
}

void jd_caller_uid_shutdown(void)
{
        /* The bus answers (or fails the calls when it is gone) and the
         * workers end; then the tracks go, before the bus does. */
        while (pending > 0)
                g_main_context_iteration(NULL, TRUE);
        g_clear_pointer(&senders, g_hash_table_unref);
}
