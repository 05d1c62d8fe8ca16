/* Installed-package versions from the dpkg database under the sysroot
 * (/var/lib/dpkg/status): the cheap way to learn library versions without
 * running dpkg-query, nvcc or vulkaninfo. */
#pragma once

#include <stddef.h>

#include "sysroot.h"

typedef struct {
        char *name;
        char *version; /* upstream part: no epoch, cut at the first '-', '+' or '~' */
} jd_package;

typedef struct {
        jd_package *pkgs;
        size_t n, cap;
} jd_dpkg;

/* Loads the "install ok installed" packages; an absent database gives n == 0. */
void jd_dpkg_load(jd_dpkg *db, const jd_sysroot *sr);
/* The installed packages of a status file's TEXT (changed in place).
 * Grammar: stanzas of "Field: value" lines (dpkg's status, deb822); a
 * stanza starts at "Package:", and is kept when it has a Version and a
 * Status holding "install ok installed". A name or version longer than
 * 255 bytes leaves its package out, never cut into another name.
 * Continuation lines (starting with a blank) and other fields are not
 * ours. */
void jd_dpkg_parse(jd_dpkg *db, char *text);
void jd_dpkg_free(jd_dpkg *db);

const char *jd_dpkg_version(const jd_dpkg *db, const char *name);
/* First installed package (in database order) whose name starts with
 * PREFIX / contains NEEDLE. */
const char *jd_dpkg_version_prefix(const jd_dpkg *db, const char *prefix);
const char *jd_dpkg_version_containing(const jd_dpkg *db, const char *needle);

/* "1:8.6.0.166-1+cuda11.4" -> "8.6.0.166"; writes into out. */
void jd_upstream_version(const char *debian_version, char *out, size_t size);
