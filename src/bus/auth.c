#include "auth.h"

#include <polkit/polkit.h>
#include <string.h>

#include "jetsond-dbus.h"
#include "log.h"
#include "peer_watch.h"
#include "user_mode.h"

typedef struct {
        sd_bus_message *call;
        char *action;
        gboolean interactive;
        jd_peer_watch *caller;        /* to notice a caller that left while polkit thought */
        jd_authorized_fn fn;
        void *userdata;
} pending_check;

static struct {
        sd_bus *bus;
        GDBusConnection *system_bus;  /* the connection polkit-gobject uses */
        PolkitAuthority *authority;
        GCancellable *cancellable;
        unsigned pending;
        bool user;                    /* jetsond --user: no polkit */
} auth;

void jd_auth_init(sd_bus *bus)
{
        g_autoptr(GError) error = NULL;
        auth.bus = bus;
        auth.cancellable = g_cancellable_new();
        /* polkit-gobject talks over GLib's shared system bus connection,
         * which by default raises SIGTERM when the bus goes away; jetsond
         * would then exit 0 as if asked to stop. The sd-bus connection
         * notices the loss and exits 1, so systemd restarts the service. */
        /* Held until shutdown: GLib frees the shared connection with
         * its last reference, and a new one would raise SIGTERM again. */
        auth.system_bus = g_bus_get_sync(G_BUS_TYPE_SYSTEM, NULL, NULL);
        if (auth.system_bus)
                g_dbus_connection_set_exit_on_close(auth.system_bus, FALSE);
        auth.authority = polkit_authority_get_sync(NULL, &error);
        if (!auth.authority)
                jd_log_warning("Cannot reach polkit, every privileged call will be denied: %s",
                               error->message);
}

void jd_auth_init_user(sd_bus *bus)
{
        auth.bus = bus;
        auth.user = true;
}

void jd_auth_shutdown(void)
{
        if (!auth.cancellable)
                return;
        g_cancellable_cancel(auth.cancellable);
        while (auth.pending > 0)
                g_main_context_iteration(NULL, TRUE);
        g_clear_object(&auth.cancellable);
        g_clear_object(&auth.authority);
        g_clear_object(&auth.system_bus);
        auth.bus = NULL;
}

static void pending_free(pending_check *p)
{
        sd_bus_message_unref(p->call);
        jd_peer_watch_remove(p->caller);
        g_free(p->action);
        g_free(p);
        auth.pending--;
}

static void on_checked(GObject *source, GAsyncResult *res, gpointer data)
{
        pending_check *p = data;
        g_autoptr(GError) error = NULL;
        g_autoptr(PolkitAuthorizationResult) result =
                polkit_authority_check_authorization_finish(POLKIT_AUTHORITY(source), res, &error);
        const char *sender = sd_bus_message_get_sender(p->call);
        bool authorized = false;

        if (jd_peer_watch_gone(p->caller)) {
                /* Nobody to answer, and a change nobody waits for any more
                 * is not one to make. */
                jd_log_info("Caller %s left before polkit answered for %s; nothing done", sender, p->action);
        } else if (result && polkit_authorization_result_get_is_authorized(result)) {
                authorized = true;
        } else if (result && polkit_authorization_result_get_is_challenge(result) && !p->interactive) {
                sd_bus_reply_method_errorf(p->call, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                                           "Interactive authentication required to perform %s", p->action);
        } else {
                if (error)
                        jd_log_warning("polkit check of %s for %s failed: %s", p->action, sender, error->message);
                sd_bus_reply_method_errorf(p->call, SD_BUS_ERROR_ACCESS_DENIED, "Not authorized to perform %s",
                                           p->action);
        }
        p->fn(p->call, authorized, p->userdata);
        pending_free(p);
}

int jd_auth_then(sd_bus_message *m, const char *action, jd_authorized_fn fn, void *userdata,
                 sd_bus_error *error)
{
        if (auth.user) {
                /* The caller is the user's own process (a session bus
                 * admits no other), and jetsond reads with that user's
                 * rights: a read reveals nothing the caller could not read
                 * itself. A change is refused; the filter of user_mode.c
                 * answers the contract's writes before they get here, this
                 * answers any other. */
                bool read = strcmp(action, JD_ACTION_READ_SERIAL) == 0;
                if (!read) {
                        sd_bus_error refusal = SD_BUS_ERROR_NULL;
                        jd_user_mode_error(&refusal, sd_bus_message_get_interface(m), sd_bus_message_get_member(m));
                        sd_bus_reply_method_error(m, &refusal);
                        sd_bus_error_free(&refusal);
                }
                fn(m, read, userdata);
                return 1;
        }
        const char *sender = sd_bus_message_get_sender(m);
        if (!sender || !auth.authority || g_cancellable_is_cancelled(auth.cancellable))
                return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED, "Not authorized to perform %s",
                                         action);
        pending_check *p = g_new0(pending_check, 1);
        auth.pending++;
        p->call = sd_bus_message_ref(m);
        p->action = g_strdup(action);
        p->interactive = sd_bus_message_get_allow_interactive_authorization(m) > 0;
        p->fn = fn;
        p->userdata = userdata;
        int r = 0;
        p->caller = jd_peer_watch_add(auth.bus, sender, NULL, NULL, &r);
        if (!p->caller) {
                pending_free(p);
                return r;
        }
        g_autoptr(PolkitSubject) subject = polkit_system_bus_name_new(sender);
        polkit_authority_check_authorization(
                auth.authority, subject, action, NULL,
                p->interactive ? POLKIT_CHECK_AUTHORIZATION_FLAGS_ALLOW_USER_INTERACTION
                               : POLKIT_CHECK_AUTHORIZATION_FLAGS_NONE,
                auth.cancellable, on_checked, p);
        return 1;
}
