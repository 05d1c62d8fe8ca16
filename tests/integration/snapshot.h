/* GetSnapshot's answer (or a Sample's) as tables a test can look into:
 * each key's type, strings, and every number (booleans as 0/1) as a
 * double. A key twice in one answer fails the test. */
#pragma once

#include <glib.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

typedef struct {
        uint64_t timestamp;
        GHashTable *types;            /* key -> signature char */
        GHashTable *strings;          /* key -> string value, for s */
        GHashTable *numbers;          /* key -> double holding any numeric value */
} testbus_snapshot;

/* Reads "(t a{sv})" from M. */
testbus_snapshot *testbus_snapshot_read(sd_bus_message *m);
testbus_snapshot *testbus_get_snapshot(sd_bus *bus);
void testbus_snapshot_free(testbus_snapshot *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(testbus_snapshot, testbus_snapshot_free)

/* KEY's number; fails the test when it is missing. */
double testbus_number(const testbus_snapshot *s, const char *key);
