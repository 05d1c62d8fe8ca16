/* A process tree's GPU figures from a jetsond sample: its processes'
 * process.PID.* keys summed (GPU memory, SM use, the GPUs they are on).
 * No I/O: unit-tested on made-up samples. */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "tree_follow.h"

/* The figures of the processes PIDS (N, as VALUES names them; 0: a
 * process jetsond cannot see, skipped) in VALUES (an a{sv} sample) into
 * OUT's have_gpu, gpu_mem_kib, gpus_busy, have_sm and sm_percent. */
void jc_tree_gpu_figures(GVariant *values, const uint32_t *pids, size_t n, jc_tree_figures *out);
