#include "property_wait.h"

#include "jetsond-dbus.h"
#include "testbus.h"

#define WAIT_US (30 * G_USEC_PER_SEC)
#define POLL_US 20000

void testbus_wait_u32(const char *iface, const char *prop, uint32_t want)
{
        sd_bus *bus = testbus_connect();
        uint64_t deadline = testbus_now_us() + WAIT_US;
        uint32_t v;
        while ((v = testbus_get_u32(bus, JD_OBJECT_PATH, iface, prop)) != want && testbus_now_us() < deadline)
                g_usleep(POLL_US);
        sd_bus_flush_close_unref(bus);
        if (v != want)
                fail_msg("%s.%s is %u, want %u", iface, prop, v, want);
}

void testbus_wait_bool(const char *iface, const char *prop, bool want)
{
        sd_bus *bus = testbus_connect();
        uint64_t deadline = testbus_now_us() + WAIT_US;
        int v = -1;
        for (;;) {
                sd_bus_error e = SD_BUS_ERROR_NULL;
                if (sd_bus_get_property_trivial(bus, JD_BUS_NAME, JD_OBJECT_PATH, iface, prop, &e, 'b', &v) < 0)
                        fail_msg("Get %s.%s: %s", iface, prop, e.message);
                if (v == want || testbus_now_us() >= deadline)
                        break;
                g_usleep(POLL_US);
        }
        sd_bus_flush_close_unref(bus);
        if (v != want)
                fail_msg("%s.%s is %d, want %d", iface, prop, v, want);
}

void testbus_wait_string(const char *path, const char *iface, const char *prop, const char *want)
{
        sd_bus *bus = testbus_connect();
        uint64_t deadline = testbus_now_us() + WAIT_US;
        g_autofree char *got = testbus_get_string(bus, path, iface, prop);
        while (strcmp(got, want) != 0 && testbus_now_us() < deadline) {
                g_usleep(POLL_US);
                g_free(got);
                got = testbus_get_string(bus, path, iface, prop);
        }
        sd_bus_flush_close_unref(bus);
        if (strcmp(got, want) != 0)
                fail_msg("%s.%s is \"%s\", want \"%s\"", iface, prop, got, want);
}
