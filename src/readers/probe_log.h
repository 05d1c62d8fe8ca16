/* What the readers met while looking for the board's parts: for
 * Manager.Diagnose (jetsonctl doctor), which must say why a value is
 * missing without looking at the hardware again.
 *
 * Every sysroot has one (jd_sysroot_probe_log). The sysroot notes into it,
 * for the reader the calling thread works for (jd_probe_attribute: the
 * sampler names each reader as it creates and reads it, the board reader
 * itself):
 *  - every refusal (EACCES, EPERM, EROFS) of an open, a path resolution or
 *    a listing, by exact path, whenever it happens;
 *  - while the thread traces (a reader's creation and its first reading),
 *    the files it opened ("found") and the paths it looked for in vain
 *    ("missed"), each as a place: a file under /sys by its directory, any
 *    other file by itself, every number that ends a name as "N"
 *    ("/sys/devices/system/cpu/cpuN/cpufreq").
 * A thread that traces nothing costs one thread-local load per open; a
 * refusal takes a lock. Each list keeps its first JD_PROBE_LOG_MAX
 * entries and counts the rest. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define JD_PROBE_LOG_MAX 32

typedef struct jd_probe_log jd_probe_log;

typedef struct {
        char *path;
        int err;                      /* positive errno */
} jd_probe_refusal;

/* One reader's lists, copied out (jd_probe_log_copy). */
typedef struct {
        char **found;                 /* places, in the order first met */
        size_t n_found, more_found;   /* more_*: met beyond JD_PROBE_LOG_MAX */
        char **missed;
        size_t n_missed, more_missed;
        jd_probe_refusal *refused;
        size_t n_refused, more_refused;
} jd_probe_entry;

jd_probe_log *jd_probe_log_new(void);
void jd_probe_log_free(jd_probe_log *log);

/* The reader the calling thread works for from now on (a string that
 * outlives the log: a literal), NULL for none; with TRACE, files found
 * and missed are noted too. Returns the previous reader, and its trace
 * flag in *WAS_TRACING (may be NULL), to put back. */
const char *jd_probe_attribute(const char *reader, bool trace, bool *was_tracing);
/* The calling thread's reader (NULL: none) and whether it traces. */
const char *jd_probe_current(bool *tracing);

/* What the sysroot tells: PATH (in-root) opened (ERR 0), or failed with
 * ERR (positive errno); LISTED for a directory listing. Noted for the
 * calling thread's reader, if any, as the rules above say. */
void jd_probe_log_note(jd_probe_log *log, const char *path, int err, bool listed);

/* The place a path is noted as (see above), into OUT. */
void jd_probe_place(const char *path, char *out, size_t size);

/* Copies READER's lists into OUT (zeroed when it met nothing); free with
 * jd_probe_entry_clear. Safe from any thread. */
void jd_probe_log_copy(jd_probe_log *log, const char *reader, jd_probe_entry *out);
void jd_probe_entry_clear(jd_probe_entry *e);
