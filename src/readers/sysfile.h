/* A sysfs/procfs attribute opened once and re-read with pread(2).
 *
 * Sampling many times a second for years, the cost that matters is the
 * syscalls: one pread per value instead of open+read+close, and no path
 * resolution after discovery. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sysroot.h"

typedef struct {
        int fd;         /* -1: absent */
        bool gone;      /* a read failed with ENODEV/ENOENT: the device left */
} jd_file;

#define JD_FILE_INIT ((jd_file) { .fd = -1, .gone = false })

/* Opens the in-root path built from FMT (read-only). Returns true if open. */
bool jd_file_open(jd_file *f, const jd_sysroot *sr, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
void jd_file_close(jd_file *f);
static inline bool jd_file_present(const jd_file *f) { return f->fd >= 0; }

/* Reads the whole attribute into BUF (NUL-terminated, at most size-1
 * bytes). Returns the length or -errno; the file stays open on errors
 * because power-gated sensors fail transiently. */
ssize_t jd_file_read(jd_file *f, char *buf, size_t size);
/* The same into *BUF (malloc'ed, *SIZE bytes, may start NULL and 0),
 * doubled while a read fills it, up to MAX bytes: a table grows with the
 * board, and a file still going at MAX is cut there (the caller's cap). */
ssize_t jd_file_read_grow(jd_file *f, char **buf, size_t *size, size_t max);

/* Reads one number; false if absent, unreadable or malformed. */
bool jd_file_u64(jd_file *f, uint64_t *out);
bool jd_file_i64(jd_file *f, int64_t *out);
/* Reads a one-line string with trailing whitespace removed; false if it
 * is empty or does not fit in SIZE (a cut name would be another name). */
bool jd_file_str(jd_file *f, char *out, size_t size);

/* One-shot helpers for discovery-time and slow reads (open, read, close). */
bool jd_read_u64(const jd_sysroot *sr, uint64_t *out, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
bool jd_read_i64(const jd_sysroot *sr, int64_t *out, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
bool jd_read_str(const jd_sysroot *sr, char *out, size_t size, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* How often a process that reads many times a second looks again at what
 * rarely changes (config and state files, the disk's free space): at most
 * once per INTERVAL_US, and at once after jd_recheck_now(). 0 (the
 * default, for one-shot reads and tests): every time. The daemon sets one
 * second and calls jd_recheck_now() after each change it makes, so its own
 * writes are seen by the next reading and changes made by others within a
 * second. */
void jd_recheck_set_interval(uint64_t interval_us);
void jd_recheck_now(void);
/* One thing rechecked: zero it; jd_recheck_due() says whether to look
 * again now (and counts it as done). */
typedef struct {
        uint64_t at_us, epoch;
} jd_recheck;
bool jd_recheck_due(jd_recheck *r);

/* A small regular file (config or state under /etc, /var/lib) re-read only
 * when it changes: one stat(2) per check (jd_recheck) instead of
 * resolving, opening and parsing it again. Not for sysfs/procfs, whose
 * mtime never moves. */
typedef struct {
        const jd_sysroot *sr;
        const char *path;       /* in-root path, not owned */
        char *host_path;        /* resolved lazily, re-resolved when it vanishes */
        size_t max;
        char *text;             /* NULL while absent */
        size_t len;
        unsigned long long dev, ino, size;
        long long mtime_s, mtime_ns;
        bool seen;              /* first get() always reports a change */
        jd_recheck recheck;
} jd_cached_file;

void jd_cached_file_init(jd_cached_file *f, const jd_sysroot *sr, const char *path, size_t max);
void jd_cached_file_clear(jd_cached_file *f);
/* The current text, or NULL if absent. *changed (optional) tells whether
 * it differs from the previous call's file. */
const char *jd_cached_file_get(jd_cached_file *f, bool *changed);
