/* Test helpers: open a fake board sysroot from tests/fixtures, or a
 * private writable copy of one for tests that change files. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "sysroot.h"

/* The committed, read-only tree. */
jd_sysroot *fixture_open(const char *board);
/* A copy in a fresh temporary directory; *dir receives its path (free
 * with fixture_remove_copy). */
jd_sysroot *fixture_copy(const char *board, char **dir);
void fixture_remove_copy(jd_sysroot *sr, char *dir);

/* Overwrites a file of a copied sysroot in place (same inode, as sysfs
 * behaves), so readers that keep it open see the new content. */
void fixture_write(const char *dir, const char *path, const char *content, size_t len);
void fixture_write_str(const char *dir, const char *path, const char *content);
void fixture_unlink(const char *dir, const char *path);
/* Host path of PATH in the copy DIR, symlinks followed inside it (g_free). */
char *fixture_host_path(const char *dir, const char *path);
/* Reads a file from tests/fixtures (e.g. "proc-stat/agx-orin-jp62-b"). */
char *fixture_read_aux(const char *relpath);

/* Turns CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH off in (or back on in)
 * this process's effective set, so that file modes apply to root too, as
 * under a unit whose CapabilityBoundingSet= lacks them. Only root's tests
 * can use it (the capabilities must be permitted). */
void fixture_dac_capabilities(bool on);

#define assert_dbl_equal(a, b) assert_true(fabs((double) (a) - (double) (b)) < 1e-6)
