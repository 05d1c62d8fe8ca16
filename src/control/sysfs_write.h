/* One value written to a kernel attribute (sysfs, procfs) in the
 * sysroot: the writes of SetSpeed, temp_control and drop_caches. */
#pragma once

#include "sysroot.h"

/* Writes VALUE (one line) to the in-root PATH. O_TRUNC so a plain file
 * in a fake board reads back exactly VALUE, as the attribute would.
 * Returns 0 or -errno. */
int jd_write_attribute(const jd_sysroot *sr, const char *path, const char *value);
