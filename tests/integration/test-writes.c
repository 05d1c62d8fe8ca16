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

/* ---- Memory.DropCaches: drop-caches --------------------------------- */

static void test_drop_caches_denied(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", NULL);
        /* Every other action allowed: only drop-caches may gate it. */
        static const char *const others[] = { JD_ACTION_SET_FAN, JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_JETSON_CLOCKS,
                                              JD_ACTION_MANAGE_SWAP, JD_ACTION_READ_SERIAL, NULL };
        testbus_start_polkit(tb, others);
        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_MEMORY, "DropCaches", "");
        assert_string_equal(err, SD_BUS_ERROR_ACCESS_DENIED);
        g_autofree char *after = testbus_root_file(tb, "proc/sys/vm/drop_caches");
        assert_string_equal(after, "");
        testbus_stop_cleanly(tb);
}

static void test_drop_caches_allowed(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", NULL);
        static const char *const allowed[] = { JD_ACTION_DROP_CACHES, NULL };
        testbus_start_polkit(tb, allowed);
        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_MEMORY, "DropCaches", "");
        assert_string_equal(err, "");
        g_autofree char *after = testbus_root_file(tb, "proc/sys/vm/drop_caches");
        assert_string_equal(after, "3\n");
        testbus_stop_cleanly(tb);
}

/* No polkit on the bus at all: fail closed. */
static void test_no_polkit_fails_closed(void **state)
{
        testbus *tb = testbus_start(state, "agx-orin-jp62", NULL);
        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_MEMORY, "DropCaches", "");
        assert_string_equal(err, SD_BUS_ERROR_ACCESS_DENIED);
        g_autofree char *after = testbus_root_file(tb, "proc/sys/vm/drop_caches");
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
