#include "peer_watch.h"

#include <glib.h>
#include <string.h>

#include "log.h"

typedef struct {
        char *name;
        sd_bus_slot *match, *call;
        GPtrArray *watches;           /* jd_peer_watch *, not owned */
        bool gone;
} peer;

struct jd_peer_watch {
        peer *p;                      /* NULL once its GONE ran */
        jd_peer_gone_fn gone;
        void *data;
};

static GHashTable *peers;             /* unique name -> peer */

static void peer_free(peer *p)
{
        sd_bus_slot_unref(p->match);
        sd_bus_slot_unref(p->call);
        g_ptr_array_unref(p->watches);
        g_free(p->name);
        g_free(p);
}

static void peer_drop(peer *p)
{
        g_hash_table_remove(peers, p->name);
        if (g_hash_table_size(peers) == 0)
                g_clear_pointer(&peers, g_hash_table_unref);
}

/* Each watch's GONE, once, then the peer goes; a callback may remove any
 * watch, its own included, so each is taken off the list before it runs.
 * Called from the bus's own callbacks (sd-bus holds the slot being
 * dispatched), so that a request the bus delivers after the name left is
 * answered with the leaver's requests already gone. */
static void dispatch_gone(peer *p)
{
        while (p->watches->len) {
                jd_peer_watch *w = g_ptr_array_remove_index(p->watches, 0); /* no free function */
                w->p = NULL;
                if (w->gone)
                        w->gone(w->data);
        }
        peer_drop(p);
}

static void mark_gone(peer *p, const char *why)
{
        if (p->gone)
                return;
        jd_log_debug("%s: %s", p->name, why);
        p->gone = true;
        dispatch_gone(p);
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        const char *name, *old_owner, *new_owner;
        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) >= 0 && !*new_owner)
                mark_gone(userdata, "left the bus");
        return 0;
}

static int on_match_added(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        if (e) {
                jd_log_warning("Cannot follow %s on the bus (%s); its requests end now", ((peer *) userdata)->name,
                               e->message ? e->message : e->name);
                mark_gone(userdata, "not followed");
        }
        return 0;
}

/* GetNameOwner, asked after the match was queued, so that a name leaving
 * in between is seen one way or the other. */
static int on_owner(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        peer *p = userdata;
        p->call = sd_bus_slot_unref(p->call);
        if (sd_bus_message_is_method_error(m, NULL))
                mark_gone(p, "gone before it was followed");
        return 0;
}

static peer *peer_new(sd_bus *bus, const char *name, int *errno_out)
{
        peer *p = g_new0(peer, 1);
        p->name = g_strdup(name);
        p->watches = g_ptr_array_new();
        g_autofree char *rule = g_strdup_printf("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/"
                                                "DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
                                                "arg0='%s'",
                                                name);
        int r = sd_bus_add_match_async(bus, &p->match, rule, on_owner_changed, on_match_added, p);
        if (r >= 0)
                r = sd_bus_call_method_async(bus, &p->call, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                             "org.freedesktop.DBus", "GetNameOwner", on_owner, p, "s", name);
        if (r < 0) {
                *errno_out = r;
                peer_free(p);
                return NULL;
        }
        return p;
}

jd_peer_watch *jd_peer_watch_add(sd_bus *bus, const char *name, jd_peer_gone_fn gone, void *data, int *errno_out)
{
        if (!peers)
                peers = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify) peer_free);
        peer *p = g_hash_table_lookup(peers, name);
        if (!p) {
                p = peer_new(bus, name, errno_out);
                if (!p) {
                        if (g_hash_table_size(peers) == 0)
                                g_clear_pointer(&peers, g_hash_table_unref);
                        return NULL;
                }
                g_hash_table_insert(peers, p->name, p);
        }
        jd_peer_watch *w = g_new(jd_peer_watch, 1);
        *w = (jd_peer_watch) { p, gone, data };
        g_ptr_array_add(p->watches, w);
        return w;
}

void jd_peer_watch_remove(jd_peer_watch *w)
{
        if (!w)
                return;
        peer *p = w->p;
        if (p) {
                g_ptr_array_remove(p->watches, w);
                /* Its last watch: the match and the call go (a peer that
                 * is running its GONE callbacks drops itself after them). */
                if (p->watches->len == 0 && !p->gone)
                        peer_drop(p);
        }
        g_free(w);
}

bool jd_peer_watch_gone(const jd_peer_watch *w)
{
        return !w->p || w->p->gone;
}

unsigned jd_peer_watch_names(void)
{
        return peers ? g_hash_table_size(peers) : 0;
}

void jd_peer_watch_shutdown(void)
{
        if (!peers)
                return;
        GHashTableIter it;
        gpointer value;
        g_hash_table_iter_init(&it, peers);
        while (g_hash_table_iter_next(&it, NULL, &value)) {
                peer *p = value;
                for (guint i = 0; i < p->watches->len; i++)
                        ((jd_peer_watch *) g_ptr_array_index(p->watches, i))->p = NULL;
        }
        g_clear_pointer(&peers, g_hash_table_unref);
}
