/* A property of the object at JD_OBJECT_PATH (or PATH) waited for: after a
 * write jetsond resamples once the reply is sent, so a test allows the new
 * value a moment to show. Fails the test after 30 s. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

void testbus_wait_u32(const char *iface, const char *prop, uint32_t want);
void testbus_wait_bool(const char *iface, const char *prop, bool want);
void testbus_wait_string(const char *path, const char *iface, const char *prop, const char *want);
