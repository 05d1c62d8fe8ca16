/* A gzip-compressed POSIX (ustar + pax) archive written to a temporary file next
 * to its destination and renamed over it only when complete, so that a
 * capture cut short never leaves half an archive under the asked name. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct jc_tar jc_tar;

/* Returns NULL with *error (a static or errno text) on failure. */
jc_tar *jc_tar_open(const char *dest, const char **error);
/* NAME is relative ("sys/class/x"); a name or link target longer than
 * ustar's 100 bytes goes in a pax header. False if the write failed. */
bool jc_tar_add_dir(jc_tar *t, const char *name);
bool jc_tar_add_symlink(jc_tar *t, const char *name, const char *target);
bool jc_tar_add_file(jc_tar *t, const char *name, const void *data, size_t len);
/* Finishes, syncs and renames into place; 0 or -errno. Always frees T. */
int jc_tar_commit(jc_tar *t);
/* Removes the temporary file; frees T. */
void jc_tar_abandon(jc_tar *t);
