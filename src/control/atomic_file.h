/* Reading and atomically replacing in-root configuration files.
 *
 * A configuration file that jetsond rewrites is never truncated and written
 * in place: a crash or a full disk halfway would leave nvpmodel or the boot
 * (fstab) with half a file. The new text goes to a temporary file next to
 * the target, which is renamed over it only once it is complete and on
 * disk. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "sysroot.h"

/* Replaces the in-root file PATH with LEN bytes of CONTENT. Symlinks are
 * followed inside the sysroot, so the link /etc/nvpmodel.conf stays and
 * its target gets the new text. The new file keeps the old one's mode and,
 * when the process may, its owner; a file that did not exist gets
 * MODE_IF_NEW (applied with fchmod, so the umask does not change it). A
 * dangling symlink is not replaced (-ENOENT), nor is anything but a
 * regular file (-EISDIR, -EINVAL).
 *
 * Returns 0 or -errno. On errors the target is untouched and no temporary
 * file is left, except that a failing fsync of the directory after the
 * rename is reported although the new content is already in place. */
int jd_atomic_write(const jd_sysroot *sr, const char *path, const char *content, size_t len,
                    mode_t mode_if_new);

/* jd_atomic_write() in a worker thread, for the main loop: its fsyncs can
 * take seconds on a busy eMMC. CONTENT is copied; DONE gets the return
 * value, on the thread-default main context. */
typedef void (*jd_atomic_done)(int r, void *userdata);
void jd_atomic_write_async(const jd_sysroot *sr, const char *path, const char *content, size_t len,
                           mode_t mode_if_new, jd_atomic_done done, void *userdata);

/* Reads the whole in-root text file PATH (symlinks followed inside the
 * sysroot) into *OUT, NUL-terminated; free with g_free. Returns 0 or
 * -errno: -EFBIG if it is larger than MAX bytes, -EINVAL if it contains a
 * NUL byte or is not a regular file, -EISDIR for a directory. */
int jd_read_text(const jd_sysroot *sr, const char *path, size_t max, char **out);
