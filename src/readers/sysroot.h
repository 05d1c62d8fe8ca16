/* The sysroot: every path jetsond reads, writes or executes is resolved
 * under one directory ("/" on a real board, a fake board tree in tests).
 *
 * Symlinks are followed with the sysroot acting as "/" (an absolute link
 * target such as /proc/device-tree -> /sys/firmware/devicetree/base stays
 * inside the tree), and a link that would climb out of the sysroot is
 * reported as -EXDEV, which every reader treats as "absent". */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct jd_sysroot jd_sysroot;

/* Returns NULL and sets *error (static string) if dir is missing or not a
 * readable directory. */
jd_sysroot *jd_sysroot_new(const char *dir, const char **error);
void jd_sysroot_free(jd_sysroot *sr);

/* The sysroot directory as given, canonicalised ("/" for the host). */
const char *jd_sysroot_dir(const jd_sysroot *sr);
bool jd_sysroot_is_host(const jd_sysroot *sr);

/* Resolves the absolute in-root PATH, following every symlink, into the
 * canonical in-root path (written to OUT, e.g. "/sys/devices/platform/x").
 * Returns 0 or -errno: -ENOENT, -ENOTDIR, -ELOOP, -ENAMETOOLONG, and
 * -EXDEV when the path escapes the sysroot. */
int jd_sysroot_resolve(const jd_sysroot *sr, const char *path, char *out, size_t out_size);

/* Like jd_sysroot_resolve() but writes the host path (sysroot prefix +
 * canonical path), ready for open(2), execve(2) or statvfs(3). */
int jd_sysroot_host_path(const jd_sysroot *sr, const char *path, char *out, size_t out_size);
/* The same for a path that may not exist yet (a file or directories to
 * create): its deepest existing ancestor resolved, then the missing
 * components as given. */
int jd_sysroot_host_path_to_create(const jd_sysroot *sr, const char *path, char *out, size_t out_size);

/* open(2) of an in-root regular file, O_CLOEXEC always added. Anything
 * else (a FIFO, a device, a socket) is refused with -EINVAL and a
 * directory with -EISDIR, without ever blocking in open(2). Returns fd
 * or -errno. */
int jd_sysroot_open(const jd_sysroot *sr, const char *path, int flags);

bool jd_sysroot_exists(const jd_sysroot *sr, const char *path);

/* Reads a (small) file into a NUL-terminated malloc'd buffer of at most
 * MAX bytes, the rest left unread (an EEPROM, a sysfs attribute); *len
 * gets the byte count (files may contain NULs). Returns NULL if absent or
 * unreadable. */
char *jd_sysroot_read_file(const jd_sysroot *sr, const char *path, size_t max, size_t *len);
/* The same for a text that means something only whole (a config or state
 * file, a package database): one larger than MAX is malformed, NULL. */
char *jd_sysroot_read_whole(const jd_sysroot *sr, const char *path, size_t max, size_t *len);

/* Who hears about a file jetsond will not read (not a regular file, or
 * larger than the most it reads of its kind): once per in-root path, from
 * whichever thread met it. The daemon logs it. */
typedef void (*jd_sysroot_complaint_fn)(const char *path, const char *why, void *data);
void jd_sysroot_set_complaints(jd_sysroot *sr, jd_sysroot_complaint_fn fn, void *data);

/* Who hears of every in-root path resolved (opened, tested, looked up)
 * or listed, as asked, from whichever thread: jetsond --capture records
 * them (src/capture). LISTED is true for a directory listing. */
typedef void (*jd_sysroot_record_fn)(const char *path, bool listed, void *data);
void jd_sysroot_set_recorder(jd_sysroot *sr, jd_sysroot_record_fn fn, void *data);

/* A file hidden or made read-only by the service's sandbox (the systemd
 * unit's ProtectSystem=, ProtectKernelTunables=, ReadWritePaths=,
 * InaccessiblePaths=, a capability bounding set without CAP_DAC_OVERRIDE,
 * or an LSM) must never read as a silent empty value. Such a refusal is
 * EROFS, or EACCES/EPERM for uid 0, which file modes alone never cause
 * (root overrides them). jd_sysroot_sandbox_errno() tells one (ERR
 * positive); jd_sysroot_strerror() is g_strerror(ERR), or for one of them
 * "not accessible under this service's sandbox (TEXT); see
 * jetsond.service", for the "PATH: %s" messages of failed writes (a
 * thread's own buffer, valid until its next call). Every open, path
 * resolution and listing here calls jd_sysroot_note_refusal(), which
 * tells the complaint function once per path: "PATH: not accessible
 * ...". Writers outside this file (atomic rewrites, the swap file) call
 * it too. */
bool jd_sysroot_sandbox_errno(int err);
const char *jd_sysroot_strerror(int err);
void jd_sysroot_note_refusal(const jd_sysroot *sr, const char *path, int err);

/* What the readers met under this sysroot: files found, looked for in
 * vain and refused, per reader (probe_log.h), for Manager.Diagnose. */
typedef struct jd_probe_log jd_probe_log;
jd_probe_log *jd_sysroot_probe_log(const jd_sysroot *sr);

/* Sorted ("cpu2" before "cpu10") entry names of an in-root directory,
 * without "." and "..". Returns the count (0 if absent); free with
 * jd_names_free(). */
size_t jd_sysroot_list(const jd_sysroot *sr, const char *dir, char ***names);
void jd_names_free(char **names, size_t n);

/* Looks up an executable in usr/sbin, usr/bin, sbin, bin under the
 * sysroot and writes its host path to OUT. Returns 0 or -ENOENT. */
int jd_sysroot_find_tool(const jd_sysroot *sr, const char *name, char *out, size_t out_size);
