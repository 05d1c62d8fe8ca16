/* Values written to kernel attributes (sysfs, procfs) in the sysroot:
 * the writes of SetSpeed, temp_control, jetson_clocks' fan restore and
 * drop_caches. */
#pragma once

#include <stddef.h>

#include "sysroot.h"

/* Writes VALUE (one line) to the in-root PATH. O_TRUNC so a plain file
 * in a fake board reads back exactly VALUE, as the attribute would.
 * Blocks while the driver does: call it from a worker thread. Returns 0
 * or -errno. */
int jd_write_attribute(const jd_sysroot *sr, const char *path, const char *value);

/* An attribute write is instant on a healthy board; one that takes this
 * long is stuck (a hung I2C fan controller, say). */
#define JD_ATTRIBUTE_TIMEOUT_MS 5000u

typedef struct {
        char path[256];
        char value[32];
} jd_attribute_write;

/* DONE runs on the main loop with 0 once every write succeeded, or with
 * the first failure's -errno and its index (the writes after it are not
 * made), or with -ETIMEDOUT and the index of the write still running
 * after TIMEOUT_MS. */
typedef void (*jd_attributes_done)(int r, size_t index, void *data);

/* Makes WRITES (copied) in order in a worker thread, so a stuck
 * attribute blocks that thread and never the main loop. After a timeout
 * the thread is left to finish on its own and its outcome is dropped. */
void jd_write_attributes_async(const jd_sysroot *sr, const jd_attribute_write *writes, size_t n,
                               unsigned timeout_ms, jd_attributes_done done, void *data);
