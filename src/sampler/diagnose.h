/* Manager.Diagnose: for each family of sample keys, what jetsond found
 * and where, and for what is missing, why and what to do
 * (introspection/org.jetsond.Jetson1.Manager.xml; jetsonctl doctor).
 *
 * Nothing here reads the hardware again: the answer comes from what the
 * readers met (the sysroot's probe log: files found, looked for in vain,
 * refused), the latest sample's keys, the tiers' state, NVML's load
 * result and each GPU's NOT_SUPPORTED answers, and the board reader's
 * sources. The one look at files is the tool lookup (jd_diag_find_tools),
 * for a worker thread. Pure C, no D-Bus. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include "board.h"
#include "engine.h"
#include "gpu_poller.h"
#include "sysroot.h"

typedef enum { JD_DIAG_FOUND, JD_DIAG_PARTIAL, JD_DIAG_MISSING } jd_diag_state;

/* One NVML GPU as the latest snapshot has it. */
typedef struct {
        unsigned index;
        char name[96];
        bool integrated, lost, stale;
        unsigned unsupported;         /* jd_nvml_gpu.unsupported */
        unsigned present;             /* its keys in the sample */
} jd_diag_gpu;

#define JD_DIAG_MAX_FAMILIES 24

typedef struct {
        jd_board board;
        unsigned euid;                /* the service's */
        bool user;                    /* jetsond --user: the user's own, on the session bus */
        unsigned present[JD_DIAG_MAX_FAMILIES]; /* keys in the sample, per family */
        bool answered[JD_TIER_COUNT]; /* the tier has published a reading */
        bool stale[JD_TIER_COUNT];
        char stage[JD_TIER_COUNT][32]; /* the reader a stale tier is stuck in */
        bool nvml_used;
        jd_nvml_status nvml;
        jd_diag_gpu gpus[JD_MAX_DGPUS];
        size_t n_gpus;
        /* jd_diag_find_tools: host paths, "" when not installed */
        char nvpmodel_tool[256], jetson_clocks_tool[256];
} jd_diag_input;

typedef struct {
        const char *family;
        jd_diag_state state;
        const char *const *keys;      /* the key globs it covers, NULL-terminated */
        unsigned present;
        GPtrArray *sources;           /* char *: where it was found */
        const char *cause;            /* NULL when nothing is missing */
        char *detail;                 /* NULL when there is nothing to say */
        char *advice;                 /* NULL when there is nothing to do */
        GPtrArray *paths;             /* char *: the paths the cause concerns */
} jd_diag_record;

size_t jd_diag_family_count(void);
const char *jd_diag_family_name(size_t i);
/* The family (index) a sample key belongs to; -1 for none. */
int jd_diag_family_of_key(const char *key);
const char *jd_diag_state_name(jd_diag_state s);

/* Looks up the tools (nvpmodel, jetson_clocks) under SR: file checks, so
 * off the main loop. */
void jd_diag_find_tools(const jd_sysroot *sr, jd_diag_input *in);
/* The records, one per family in a fixed order (a GPtrArray of
 * jd_diag_record *, freeing them). */
GPtrArray *jd_diagnose(const jd_sysroot *sr, const jd_diag_input *in);
