/* nvpmodel power modes from /etc/nvpmodel.conf and the current mode from
 * /var/lib/nvpmodel/status, without running the tool (which can hang). */
#pragma once

/* nvpmodel's saved state: the current mode, and the mode applied at the
 * next boot while it exists (fact sheet §8). */
#define JD_NVPMODEL_STATUS "/var/lib/nvpmodel/status"
/* SetDefaultMode removes that file so the new default applies at boot;
 * jetsond first notes the mode still running here, in the status file's
 * format ("pmode:0003"). A reboot empties /run, so the note never outlives
 * the boot it describes; a status file newer than the note supersedes it. */
#define JD_NVPMODEL_RUNNING_NOTE "/run/jetsond/nvpmodel-running"   /* in JD_RUNTIME_DIR */

#include "opt.h"
#include "parse.h"
#include "sysfile.h"

typedef struct {
        unsigned id;
        char name[48];
} jd_nvpmodel_mode;

typedef struct {
        bool present;                 /* a conf exists: the board has nvpmodel */
        jd_nvpmodel_mode *modes;      /* every POWER_MODEL of the conf */
        size_t n_modes, cap_modes;
        jd_opt_u64 default_id;        /* < PM_CONFIG DEFAULT=n > */
        jd_opt_u64 current_id;        /* status "pmode:0002" */
        char current_name[48];        /* "" if the id is not in the conf */
        char fan_mode[32];            /* status "fmode:quiet" */
} jd_nvpmodel_sample;

typedef struct jd_nvpmodel_reader jd_nvpmodel_reader;

jd_nvpmodel_reader *jd_nvpmodel_reader_new(const jd_sysroot *sr);
void jd_nvpmodel_reader_free(jd_nvpmodel_reader *r);
/* Re-reads the status file (or, while it is missing, jetsond's note of
 * the running mode), and the conf if it changed on disk. */
const jd_nvpmodel_sample *jd_nvpmodel_reader_sample(jd_nvpmodel_reader *r);

/* nvpmodel.conf's header lines, the one grammar of the reader and of the
 * SetDefaultMode editor: "<", a kind, KEY=VALUE fields and ">" on a line
 * of their own, separated by blanks (spaces or tabs; blanks and a CR
 * around the line are allowed; "<KIND" and "VALUE>" may touch the
 * brackets). Anything else (a comment, a header cut short, a "<" inside a
 * longer line) is no header. A header has any number of fields (issue
 * 31: a JetPack conf may list more per-mode columns than older ones):
 * they stay in the line and are walked when asked for, so none is cut
 * and nothing is allocated. */
typedef struct {
        jd_span kind;                 /* "POWER_MODEL", "PM_CONFIG", "PARAM" */
        jd_span fields;               /* the KEY=VALUE fields, blanks between */
        size_t n;                     /* how many */
} jd_nvpmodel_header;

bool jd_nvpmodel_parse_header(const char *line, jd_nvpmodel_header *h);
/* The value of the one field KEY; false if there is none or more than one. */
bool jd_nvpmodel_header_value(const jd_nvpmodel_header *h, const char *key, jd_span *value);

/* Modes from POWER_MODEL headers (ID and NAME; a name too long for its
 * slot leaves the mode out), the default from the one PM_CONFIG header
 * with one numeric DEFAULT (none known if there are several). */
bool jd_parse_nvpmodel_conf(const char *conf, jd_nvpmodel_sample *out);
/* Frees the modes jd_parse_nvpmodel_conf gave OUT (it starts zeroed). */
void jd_nvpmodel_sample_clear(jd_nvpmodel_sample *out);
bool jd_parse_nvpmodel_status(const char *status, jd_nvpmodel_sample *out);
const char *jd_nvpmodel_mode_name(const jd_nvpmodel_sample *s, unsigned id);
