/* jetsond's one swap file, at the configured path (never a path from a
 * caller): created, formatted, enabled and optionally put in /etc/fstab;
 * or disabled, unlisted and deleted. Every step that fails undoes the
 * ones before it, so a failed CreateSwap leaves no file, no active swap
 * and no fstab line behind. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "result.h"
#include "sysroot.h"

#define JD_SWAP_MIN_BYTES ((uint64_t) 64 << 20)
#define JD_SWAP_DISK_RESERVE_BYTES ((uint64_t) 1 << 30)

/* The size bounds (checked before polkit is asked): NULL if SIZE is
 * fine, else a message for people in BUF. */
const char *jd_swap_size_problem(const jd_sysroot *sr, const char *path, uint64_t size, char *buf, size_t len);

void jd_swap_create(const jd_sysroot *sr, const jd_config *cfg, uint64_t size, bool on_boot, jd_result_fn done,
                    void *userdata);
/* ACTIVE: the file is in /proc/swaps now (from the latest sample). */
void jd_swap_remove(const jd_sysroot *sr, const jd_config *cfg, bool active, jd_result_fn done, void *userdata);
