/* NVML's readings of each NVIDIA GPU in the fake NVML's JSON format
 * (tests/fake-nvml/README.md), so that a capture replays through it. */
#pragma once

#include <stdbool.h>

#include "nvml.h"

/* REDACT: each UUID made "GPU-00000000-...-<index>" (still unique).
 * CUDA: the driver's CUDA version ("12.8"; "" or NULL: not said). */
char *jc_nvml_json(const jd_nvml_gpu *gpus, unsigned n, const char *cuda, bool redact);
