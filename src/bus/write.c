#include "write.h"

#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "auth.h"
#include "jetsond-dbus.h"
#include "log.h"

/* The change holding the first of DOMAINS that is taken. */
static const char *holder(const jd_service *svc, unsigned domains)
{
        for (unsigned bit = 0; bit < G_N_ELEMENTS(svc->busy_what); bit++)
                if ((domains & svc->busy_domains & (1u << bit)) && svc->busy_what[bit])
                        return svc->busy_what[bit];
        return "change";
}

bool jd_domains_lock(jd_service *svc, unsigned domains, const char *what)
{
        if (svc->busy_domains & domains)
                return false;
        svc->busy_domains |= domains;
        for (unsigned bit = 0; bit < G_N_ELEMENTS(svc->busy_what); bit++)
                if (domains & (1u << bit))
                        svc->busy_what[bit] = what;
        return true;
}

void jd_domains_unlock(jd_service *svc, unsigned domains)
{
        svc->busy_domains &= ~domains;
        for (unsigned bit = 0; bit < G_N_ELEMENTS(svc->busy_what); bit++)
                if (domains & (1u << bit))
                        svc->busy_what[bit] = NULL;
}

/* The caller's uid, pid and command, for the log lines of the write. */
static int on_credentials(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        jd_write *w = userdata;
        w->creds_call = sd_bus_slot_unref(w->creds_call);
        uint32_t uid = UINT32_MAX, pid = 0;
        const char *key;
        if (sd_bus_message_is_method_error(reply, NULL) || sd_bus_message_enter_container(reply, 'a', "{sv}") < 0)
                return 0;
        while (sd_bus_message_enter_container(reply, 'e', "sv") > 0) {
                int r = sd_bus_message_read(reply, "s", &key);
                if (r >= 0 && strcmp(key, "UnixUserID") == 0)
                        r = sd_bus_message_read(reply, "v", "u", &uid);
                else if (r >= 0 && strcmp(key, "ProcessID") == 0)
                        r = sd_bus_message_read(reply, "v", "u", &pid);
                else if (r >= 0)
                        r = sd_bus_message_skip(reply, "v");
                if (r < 0 || sd_bus_message_exit_container(reply) < 0)
                        return 0;
        }
        /* The command of the peer process (a real process on this host,
         * not part of the board: not under the sysroot). */
        sd_bus_creds *creds = NULL;
        const char *comm = NULL;
        if (pid && sd_bus_creds_new_from_pid(&creds, (pid_t) pid, SD_BUS_CREDS_COMM) >= 0)
                sd_bus_creds_get_comm(creds, &comm);
        g_snprintf(w->caller, sizeof(w->caller), ", uid %" PRIu32 ", pid %" PRIu32 "%s%s", uid, pid,
                   comm ? ", " : "", comm ? comm : "");
        sd_bus_creds_unref(creds);
        return 0;
}

void jd_write_log(const jd_write *w, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        g_autofree char *text = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        jd_log_info("%s (for %s%s)", text, sd_bus_message_get_sender(w->call), w->caller);
}

jd_write *jd_write_new(jd_service *svc, sd_bus_message *m, unsigned domains, const char *what,
                       sd_bus_error *error)
{
        if (!jd_domains_lock(svc, domains, what)) {
                sd_bus_error_setf(error, JD_ERROR_BUSY, "Another %s is in progress", holder(svc, domains));
                return NULL;
        }
        jd_write *w = g_new0(jd_write, 1);
        w->svc = svc;
        w->call = sd_bus_message_ref(m);
        w->domains = domains;
        if (sd_bus_call_method_async(sd_bus_message_get_bus(m), &w->creds_call, "org.freedesktop.DBus",
                                     "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetConnectionCredentials",
                                     on_credentials, w, "s", sd_bus_message_get_sender(m)) < 0)
                w->creds_call = NULL;
        return w;
}

static void jd_write_free(jd_write *w)
{
        jd_domains_unlock(w->svc, w->domains);
        sd_bus_slot_unref(w->creds_call);
        sd_bus_message_unref(w->reply);
        sd_bus_message_unref(w->call);
        g_free(w);
}

static int next_check(jd_write *w, sd_bus_error *error);

static void on_authorized(sd_bus_message *call, bool authorized, void *userdata)
{
        (void) call;
        jd_write *w = userdata;
        if (!authorized) {
                jd_write_free(w);
                return;
        }
        w->actions++;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = next_check(w, &error);
        if (r < 0) {
                sd_bus_reply_method_error(w->call, &error);
                sd_bus_error_free(&error);
                jd_write_free(w);
        }
}

static int next_check(jd_write *w, sd_bus_error *error)
{
        if (!*w->actions) {
                w->apply(w);
                return 1;
        }
        return jd_auth_then(w->call, *w->actions, on_authorized, w, error);
}

int jd_write_authorize(jd_write *w, const char *const *actions, jd_write_apply apply, sd_bus_error *error)
{
        w->actions = actions;
        w->apply = apply;
        int r = next_check(w, error);
        if (r < 0)
                jd_write_free(w);
        return r;
}

static const char *error_name(jd_outcome outcome)
{
        switch (outcome) {
        case JD_OK:
                return NULL;
        case JD_TIMEOUT:
                return JD_ERROR_TIMEOUT;
        case JD_REBOOT_REQUIRED:
                return JD_ERROR_REBOOT_REQUIRED;
        case JD_NOT_SUPPORTED:
                return JD_ERROR_NOT_SUPPORTED;
        case JD_BUSY:
                return JD_ERROR_BUSY;
        case JD_NOT_FOUND:
                return SD_BUS_ERROR_FILE_NOT_FOUND;
        case JD_FAILED:
                break;
        }
        return JD_ERROR_FAILED;
}

/* The reply goes out once the change shows in the properties and in a
 * Sample: a client that reads right after the reply sees it. */
static void on_resampled(void *data)
{
        jd_write *w = data;
        sd_bus_message *reply = w->reply;
        w->reply = NULL;
        jd_write_free(w); /* unlocks: the caller may change the same thing next */
        sd_bus_send(NULL, reply, NULL);
        sd_bus_message_unref(reply);
}

void jd_write_finish(jd_write *w, const jd_result *result)
{
        const char *name = error_name(result->outcome);
        sd_bus_error error = SD_BUS_ERROR_NULL;
        if (name) {
                jd_log_warning("%s.%s() from %s%s: %s", sd_bus_message_get_interface(w->call),
                               sd_bus_message_get_member(w->call), sd_bus_message_get_sender(w->call), w->caller,
                               result->message);
                sd_bus_error_set(&error, name, result->message);
                sd_bus_message_new_method_error(w->call, &w->reply, &error);
                sd_bus_error_free(&error);
        } else {
                jd_write_log(w, "%s", result->message);
                sd_bus_message_new_method_return(w->call, &w->reply);
        }
        jd_service_resample(w->svc, on_resampled, w);
}

void jd_write_finish_reply(jd_write *w, sd_bus_message *reply)
{
        w->reply = sd_bus_message_ref(reply);
        jd_service_resample(w->svc, on_resampled, w);
}
