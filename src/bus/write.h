/* A method call that changes the board, from arrival to reply:
 * arguments already validated by the handler, then a per-domain lock
 * (a second change to the same thing gets Error.Busy), polkit for every
 * action the method needs, the change itself, the reply (errors mapped
 * as introspection/errors.md says) and a fresh sample so properties and
 * the next Sample show the result. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "result.h"
#include "service.h"

typedef enum {
        JD_DOMAIN_FAN = 1 << 0,
        JD_DOMAIN_NVPMODEL = 1 << 1,
        JD_DOMAIN_JETSON_CLOCKS = 1 << 2,
        JD_DOMAIN_SWAP = 1 << 3,
        JD_DOMAIN_CACHES = 1 << 4,
        JD_DOMAIN_GPU = 1 << 5,
} jd_domain;

typedef struct jd_write jd_write;
typedef void (*jd_write_apply)(jd_write *w);

struct jd_write {
        jd_service *svc;
        sd_bus_message *call;
        sd_bus_message *reply;        /* built, sent once the change is sampled */
        unsigned domains;
        const char *const *actions;   /* still to check, NULL-terminated */
        jd_write_apply apply;
        /* The handler's validated arguments. */
        void *target;                 /* the interface object */
        uint64_t u;
        double d;
        bool b;
        char s[64];
        /* Who asked, for the log: from the bus (GetConnectionCredentials,
         * asked without waiting when the call arrives), "" until known. */
        char caller[96];
        sd_bus_slot *creds_call;
};

/* The per-domain locks, for changes jetsond starts itself (jetson_clocks
 * at boot) as well as for method calls: false if one is taken. WHAT (a
 * static string, "jetson_clocks change") is what Error.Busy names. */
bool jd_domains_lock(jd_service *svc, unsigned domains, const char *what);
void jd_domains_unlock(jd_service *svc, unsigned domains);

/* Locks DOMAINS for M, which makes WHAT (a static string, "fan change"):
 * NULL if one is taken, and Error.Busy in ERROR naming the change that
 * holds it. */
jd_write *jd_write_new(jd_service *svc, sd_bus_message *m, unsigned domains, const char *what,
                       sd_bus_error *error);
/* Asks polkit for each of ACTIONS (static, NULL-terminated) in turn, then
 * runs APPLY, which must end in jd_write_finish(). Returns what the
 * method handler returns. */
int jd_write_authorize(jd_write *w, const char *const *actions, jd_write_apply apply, sd_bus_error *error);
/* Resamples, then unlocks, replies (an empty reply for JD_OK, else the
 * mapped error) and frees W. */
void jd_write_finish(jd_write *w, const jd_result *result);
/* The same with a reply built by the caller (for out arguments). */
void jd_write_finish_reply(jd_write *w, sd_bus_message *reply);
/* Logs one line of what W did (info), naming the caller as every write's
 * log line does: "TEXT (for :1.42, uid 1000, pid 4242, jetsonctl)". */
void jd_write_log(const jd_write *w, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
