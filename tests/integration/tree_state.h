/* A directory tree as a comparable text: each entry's path, mode, and for
 * a file its inode, size, mtime and ctime. Any write or metadata change
 * moves ctime, which no program can set back, and a replaced file has a
 * new inode: what a refused call must not have touched. */
#pragma once

char *tree_state(const char *root);

/* Fails the test, with the lines that differ, when AFTER is not BEFORE. */
void tree_state_assert_unchanged(const char *before, const char *after, const char *what);
