#include "snapshot.h"

#include <string.h>

#include "jetsond-dbus.h"
#include "testbus.h"

void testbus_snapshot_free(testbus_snapshot *s)
{
        if (!s)
                return;
        g_hash_table_unref(s->types);
        g_hash_table_unref(s->strings);
        g_hash_table_unref(s->numbers);
        g_free(s);
}

testbus_snapshot *testbus_snapshot_read(sd_bus_message *m)
{
        testbus_snapshot *s = g_new0(testbus_snapshot, 1);
        s->types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        s->strings = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        s->numbers = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        testbus_skip_period(m);
        assert_true(sd_bus_message_read(m, "t", &s->timestamp) > 0);
        assert_true(sd_bus_message_enter_container(m, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                const char *key, *contents;
                char type;
                assert_true(sd_bus_message_read(m, "s", &key) > 0);
                assert_true(sd_bus_message_peek_type(m, &type, &contents) > 0);
                assert_int_equal(type, 'v');
                assert_int_equal(strlen(contents), 1);
                if (g_hash_table_contains(s->types, key))
                        fail_msg("key %s twice in one answer", key);
                g_hash_table_insert(s->types, g_strdup(key), GINT_TO_POINTER((int) contents[0]));
                assert_true(sd_bus_message_enter_container(m, 'v', contents) > 0);
                double *num = g_new(double, 1);
                union { int b; uint32_t u; int32_t i; uint64_t t; double d; const char *s; } v;
                assert_true(sd_bus_message_read_basic(m, contents[0], &v) > 0);
                switch (contents[0]) {
                case 'b': *num = v.b; break;
                case 'u': *num = v.u; break;
                case 'i': *num = v.i; break;
                case 't': *num = (double) v.t; break;
                case 'd': *num = v.d; break;
                case 's': g_hash_table_insert(s->strings, g_strdup(key), g_strdup(v.s)); *num = 0; break;
                default: fail_msg("key %s has unexpected type %s", key, contents);
                }
                g_hash_table_insert(s->numbers, g_strdup(key), num);
                assert_true(sd_bus_message_exit_container(m) > 0);
                assert_true(sd_bus_message_exit_container(m) > 0);
        }
        assert_true(sd_bus_message_exit_container(m) > 0);
        return s;
}

testbus_snapshot *testbus_get_snapshot(sd_bus *bus)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        if (sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetSnapshot", &e, &reply, "") < 0)
                fail_msg("GetSnapshot: %s", e.message);
        testbus_snapshot *s = testbus_snapshot_read(reply);
        sd_bus_message_unref(reply);
        return s;
}

double testbus_number(const testbus_snapshot *s, const char *key)
{
        const double *v = g_hash_table_lookup(s->numbers, key);
        if (!v)
                fail_msg("key %s is missing", key);
        return *v;
}
