/* Writes behind polkit, with python-dbusmock's polkitd: every method is
 * denied (AccessDenied, nothing on the board changes, no tool runs) when
 * polkit denies its action, and does exactly what the contract says when
 * polkit allows that action -- and only that one, so a method that asks
 * for the wrong action fails here. */
#include <string.h>
#include <sys/stat.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "testbus.h"

static char *root_file(testbus *tb, const char *rel)
{
        g_autofree char *path = g_build_filename(tb->root, rel, NULL);
        char *text = NULL;
        if (!g_file_get_contents(path, &text, NULL, NULL))
                return g_strdup("<missing>");
        return text;
}

/* Calls METHOD with the arguments; returns the error name ("" on success). */
static char *call(const char *path, const char *iface, const char *method, const char *types, ...)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        va_list ap;
        va_start(ap, types);
        int r = sd_bus_call_methodv(bus, JD_BUS_NAME, path, iface, method, &e, NULL, types, ap);
        va_end(ap);
        char *name = g_strdup(r < 0 ? e.name : "");
        sd_bus_error_free(&e);
        sd_bus_flush_close_unref(bus);
        return name;
}

/* ---- Memory.DropCaches: drop-caches --------------------------------- */

static void test_drop_caches_denied(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", NULL);
        /* Every other action allowed: only drop-caches may gate it. */
        static const char *const others[] = { JD_ACTION_SET_FAN, JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_JETSON_CLOCKS,
                                              JD_ACTION_MANAGE_SWAP, JD_ACTION_READ_SERIAL, NULL };
        testbus_start_polkit(tb, others);
        g_autofree char *err = call(JD_OBJECT_PATH, JD_IFACE_MEMORY, "DropCaches", "");
        assert_string_equal(err, SD_BUS_ERROR_ACCESS_DENIED);
        g_autofree char *after = root_file(tb, "proc/sys/vm/drop_caches");
        assert_string_equal(after, "");
        testbus_stop_cleanly(tb);
}

static void test_drop_caches_allowed(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", NULL);
        static const char *const allowed[] = { JD_ACTION_DROP_CACHES, NULL };
        testbus_start_polkit(tb, allowed);
        g_autofree char *err = call(JD_OBJECT_PATH, JD_IFACE_MEMORY, "DropCaches", "");
        assert_string_equal(err, "");
        g_autofree char *after = root_file(tb, "proc/sys/vm/drop_caches");
        assert_string_equal(after, "3\n");
        testbus_stop_cleanly(tb);
}

/* No polkit on the bus at all: fail closed. */
static void test_no_polkit_fails_closed(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", NULL);
        g_autofree char *err = call(JD_OBJECT_PATH, JD_IFACE_MEMORY, "DropCaches", "");
        assert_string_equal(err, SD_BUS_ERROR_ACCESS_DENIED);
        g_autofree char *after = root_file(tb, "proc/sys/vm/drop_caches");
        assert_string_equal(after, "");
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_drop_caches_denied, testbus_teardown),
                cmocka_unit_test_teardown(test_drop_caches_allowed, testbus_teardown),
                cmocka_unit_test_teardown(test_no_polkit_fails_closed, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
