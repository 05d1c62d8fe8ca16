#include "write.h"

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
        return w;
}

static void jd_write_free(jd_write *w)
{
        jd_domains_unlock(w->svc, w->domains);
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
                jd_log_warning("%s.%s() from %s: %s", sd_bus_message_get_interface(w->call),
                               sd_bus_message_get_member(w->call), sd_bus_message_get_sender(w->call),
                               result->message);
                sd_bus_error_set(&error, name, result->message);
                sd_bus_message_new_method_error(w->call, &w->reply, &error);
                sd_bus_error_free(&error);
        } else {
                jd_log_info("%s (for %s)", result->message, sd_bus_message_get_sender(w->call));
                sd_bus_message_new_method_return(w->call, &w->reply);
        }
        jd_service_resample(w->svc, on_resampled, w);
}

void jd_write_finish_reply(jd_write *w, sd_bus_message *reply)
{
        w->reply = sd_bus_message_ref(reply);
        jd_service_resample(w->svc, on_resampled, w);
}
