/* What the fake NVML's files share: fake_nvml.c's device lookup, for the
 * entry points in fake_health.c. */
#pragma once

#include <json-glib/json-glib.h>

#include "nvml_api.h"

/* Takes the fake's lock and finds DEVICE's object in the current file
 * (after its delay_ms); on NVML_SUCCESS the lock stays held until
 * fake_end(). A lost or removed device: NVML_ERROR_GPU_IS_LOST. */
nvmlReturn_t fake_begin(nvmlDevice_t device, JsonObject **dev);
void fake_end(void);
/* Member PATH ("gpm.tensor") of DEV, or NULL (left out or null). */
JsonNode *fake_field(JsonObject *dev, const char *path);
/* Takes the fake's lock and gives the file's top-level object (NULL:
 * none); fake_root_end() releases the lock. */
JsonObject *fake_root(void);
void fake_root_end(void);
/* Counts a call of FN and spends what the config says it costs. */
void fake_call_cost(const char *fn);
