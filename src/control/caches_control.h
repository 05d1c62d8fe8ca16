/* Dropping the page cache: sync(2), then 3 into /proc/sys/vm/drop_caches.
 * sync can take seconds with dirty data on slow storage, so it runs in a
 * worker thread and the main loop keeps serving. */
#pragma once

#include "result.h"
#include "sysroot.h"

void jd_drop_caches(const jd_sysroot *sr, jd_result_fn done, void *userdata);
