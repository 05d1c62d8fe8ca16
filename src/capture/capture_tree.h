/* The files, directory listings and symbolic links jetsond touched, read
 * again from the root as they are there, without ever following a link
 * out of the root, opening anything but a regular file or reading one
 * without end. What could not be taken is noted (why, per path). */
#pragma once

#include <glib.h>
#include <stdbool.h>

typedef enum { JC_DIR, JC_LINK, JC_FILE } jc_kind;

typedef struct {
        jc_kind kind;
        char *target;       /* JC_LINK: as the link has it */
        GByteArray *data;   /* JC_FILE: contents; NULL for a name only listed */
} jc_entry;

typedef struct {
        char *root;            /* host directory, "" for "/" */
        GHashTable *entries;   /* in-root path without the leading "/" -> jc_entry */
        GHashTable *notes;     /* in-root path -> why it is not (all) there */
        size_t max_file;       /* bytes kept of one file */
} jc_tree;

void jc_tree_init(jc_tree *t, const char *root_dir);
void jc_tree_clear(jc_tree *t);
/* An in-root absolute PATH with every directory and link on the way,
 * the file's contents if it is one. */
void jc_tree_add_path(jc_tree *t, const char *path);
/* The same for a directory, and the name and kind of each entry in it. */
void jc_tree_add_listing(jc_tree *t, const char *dir);
/* Reads the regular file HOST (never a FIFO or device, never through a
 * link, never blocking in open(2)), at most MAX bytes. NULL if it cannot;
 * *WHY (g_free) says what went wrong, if anything. */
GByteArray *jc_read_regular(const char *host, size_t max, char **why);
/* Sorted in-root paths (parents before children); g_free the array only. */
const char **jc_tree_paths(const jc_tree *t, guint *n);
/* Sorts paths so that a directory comes before what is in it. */
void jc_sort_paths(const char **paths, guint n);
