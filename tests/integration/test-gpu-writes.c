/* org.jetsond.Jetson1.Gpu behind python-dbusmock's polkitd, on copies of
 * the AGX Orin on JetPack 6.2 (enable_3d_scaling, railgate_enable) and of
 * the same board made to look like JetPack 7.2 (no enable_3d_scaling:
 * the devfreq governor), and the PC (no integrated GPU):
 *
 * - without set-gpu every call is AccessDenied and no file changes;
 * - with it the files change, the properties follow before the reply
 *   and PropertiesChanged says so, also for a change made outside jetsond;
 * - RestoreDefaults switches both back on, and needs set-gpu too;
 * - a GPU without the control answers NotSupported before polkit; a file
 *   that vanished is a Failed naming it, and is not created; a wrong
 *   argument type is InvalidArgs;
 * - a GPU whose sysfs files hang at start-up (FUSE) holds up nothing:
 *   jetsond serves, and exports Gpu with InterfacesAdded once they answer;
 * - the same denied, allowed and restored on the JetPack 7 fake boards:
 *   agx-thor-jp71 (governors of gpu-gpc-0 and gpu-nvd-0, the PCI GPU's
 *   power/control) and agx-orin-jp72 (the nvgpu node's governor). */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "testbus.h"

#define BOARD "agx-orin-jp62"
#define DEV "sys/devices/platform/bus@0/17000000.gpu/"
#define RAILGATE DEV "railgate_enable"
#define SCALING DEV "enable_3d_scaling"
#define GOVERNOR DEV "devfreq/17000000.gpu/governor"
#define UNIT "nvfancontrol.service"

static const char *const GPU_ONLY[] = { JD_ACTION_SET_GPU, NULL };
/* Every action but set-gpu: only set-gpu may gate the GPU's methods. */
static const char *const ALL_BUT_GPU[] = { JD_ACTION_SET_FAN, JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_JETSON_CLOCKS,
                                           JD_ACTION_MANAGE_SWAP, JD_ACTION_DROP_CACHES, JD_ACTION_READ_SERIAL,
                                           NULL };
static const char *const RESTORE_ALL[] = { JD_ACTION_SET_FAN, JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_JETSON_CLOCKS,
                                           JD_ACTION_SET_GPU, NULL };

static char *set(const char *method, bool on, char **message)
{
        return testbus_call(message, JD_OBJECT_PATH, JD_IFACE_GPU, method, "b", (int) on);
}

static bool gpu_bool(const char *prop)
{
        sd_bus *bus = testbus_connect();
        bool v = testbus_get_bool(bus, JD_OBJECT_PATH, JD_IFACE_GPU, prop);
        sd_bus_flush_close_unref(bus);
        return v;
}

/* A file's content, inode and times: what a refused call must not touch. */
static char *file_state(testbus *tb, const char *rel)
{
        g_autofree char *text = testbus_root_file(tb, rel);
        g_autofree char *path = g_build_filename(tb->root, rel, NULL);
        struct stat st;
        if (stat(path, &st) < 0)
                return g_strdup_printf("%s (no stat)", text);
        return g_strdup_printf("%s ino %llu mtime %lld.%09ld", text, (unsigned long long) st.st_ino,
                               (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* ---- PropertiesChanged on the Gpu interface ----------------------------- */

typedef struct {
        int scaling, railgate;        /* last value announced, -1 none yet */
        bool want_seen;
        const char *want;             /* stop pumping once this property is announced as WANT_VALUE */
        int want_value;
} announced;

static int on_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        announced *a = userdata;
        const char *iface;
        if (sd_bus_message_read(m, "s", &iface) < 0 || strcmp(iface, JD_IFACE_GPU) != 0)
                return 0;
        assert_true(sd_bus_message_enter_container(m, 'a', "{sv}") > 0);
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                const char *name;
                int v;
                assert_true(sd_bus_message_read(m, "s", &name) > 0);
                assert_true(sd_bus_message_read(m, "v", "b", &v) > 0);
                if (strcmp(name, "Scaling3D") == 0)
                        a->scaling = v;
                else if (strcmp(name, "Railgate") == 0)
                        a->railgate = v;
                if (a->want && strcmp(name, a->want) == 0 && v == a->want_value)
                        a->want_seen = true;
                assert_true(sd_bus_message_exit_container(m) > 0);
        }
        return 0;
}

static sd_bus *watch(announced *a)
{
        *a = (announced) { .scaling = -1, .railgate = -1 };
        sd_bus *bus = testbus_connect();
        assert_true(sd_bus_match_signal(bus, NULL, JD_BUS_NAME, JD_OBJECT_PATH, "org.freedesktop.DBus.Properties",
                                        "PropertiesChanged", on_changed, a) >= 0);
        /* The match is in place once the bus has answered a call. */
        assert_true(sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                       "GetId", NULL, NULL, "") >= 0);
        return bus;
}

static void expect_announced(sd_bus *bus, announced *a, const char *prop, bool value, uint64_t within_us)
{
        a->want = prop;
        a->want_value = value;
        a->want_seen = false;
        testbus_pump(bus, within_us, &a->want_seen);
        if (!a->want_seen)
                fail_msg("no PropertiesChanged with %s=%d within %.0f s", prop, value, (double) within_us / 1e6);
}

/* ---- polkit -------------------------------------------------------------- */

static void test_denied_without_set_gpu(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, BOARD, ALL_BUT_GPU, NULL);
        g_autofree char *rg = file_state(tb, RAILGATE), *sc = file_state(tb, SCALING);
        const char *methods[] = { "SetRailgate", "SetScaling3D" };
        for (size_t i = 0; i < 2; i++) {
                g_autofree char *msg = NULL;
                g_autofree char *err = set(methods[i], false, &msg);
                assert_string_equal(err, SD_BUS_ERROR_ACCESS_DENIED);
                assert_string_equal(msg, "Not authorized to perform " JD_ACTION_SET_GPU);
        }
        g_autofree char *rg2 = file_state(tb, RAILGATE), *sc2 = file_state(tb, SCALING);
        assert_string_equal(rg2, rg);
        assert_string_equal(sc2, sc);
        assert_true(gpu_bool("Railgate"));
        assert_true(gpu_bool("Scaling3D"));
        testbus_stop_cleanly(tb);
}

static void test_allowed_changes_files_and_properties(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, BOARD, GPU_ONLY, NULL);
        sd_bus *bus = testbus_connect();
        g_autofree char *name = testbus_get_string(bus, JD_OBJECT_PATH, JD_IFACE_GPU, "Name");
        assert_string_equal(name, "17000000.gpu");
        sd_bus_flush_close_unref(bus);
        announced a;
        sd_bus *watcher = watch(&a);

        g_autofree char *err = set("SetRailgate", false, NULL);
        assert_string_equal(err, "");
        g_autofree char *rg = testbus_root_file(tb, RAILGATE);
        assert_string_equal(rg, "0\n");
        assert_false(gpu_bool("Railgate"));     /* at once: read before the reply */
        expect_announced(watcher, &a, "Railgate", false, 5 * G_USEC_PER_SEC);
        assert_int_equal(a.scaling, -1);        /* nothing else moved */

        g_autofree char *err2 = set("SetScaling3D", false, NULL);
        assert_string_equal(err2, "");
        g_autofree char *sc = testbus_root_file(tb, SCALING);
        assert_string_equal(sc, "0\n");
        assert_false(gpu_bool("Scaling3D"));
        expect_announced(watcher, &a, "Scaling3D", false, 5 * G_USEC_PER_SEC);

        /* What is there already: success, nothing written. */
        g_autofree char *before = file_state(tb, SCALING);
        g_autofree char *err3 = set("SetScaling3D", false, NULL);
        assert_string_equal(err3, "");
        g_autofree char *after = file_state(tb, SCALING);
        assert_string_equal(after, before);

        g_autofree char *err4 = set("SetScaling3D", true, NULL), *err5 = set("SetRailgate", true, NULL);
        assert_string_equal(err4, "");
        assert_string_equal(err5, "");
        g_autofree char *sc2 = testbus_root_file(tb, SCALING), *rg2 = testbus_root_file(tb, RAILGATE);
        assert_string_equal(sc2, "1\n");
        assert_string_equal(rg2, "1\n");
        expect_announced(watcher, &a, "Railgate", true, 5 * G_USEC_PER_SEC);

        /* The daemon's log names the change and its caller. */
        g_autofree char *log = NULL;
        assert_true(g_file_get_contents(tb->daemon_log, &log, NULL, NULL));
        assert_non_null(strstr(log, "GPU 17000000.gpu: rail gating on -> off (for :1."));
        assert_non_null(strstr(log, "GPU 17000000.gpu: 3D scaling already off (for :1."));
        sd_bus_flush_close_unref(watcher);
        testbus_stop_cleanly(tb);
}

/* Someone writes the file behind jetsond's back: the property follows
 * at the next slow reading, with PropertiesChanged. */
static void test_outside_change_is_noticed(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, BOARD, NULL, NULL);
        announced a;
        sd_bus *watcher = watch(&a);
        fixture_write_str(tb->root, RAILGATE, "0\n");
        expect_announced(watcher, &a, "Railgate", false, 30 * G_USEC_PER_SEC);
        assert_false(gpu_bool("Railgate"));
        fixture_write_str(tb->root, SCALING, "0\n");
        expect_announced(watcher, &a, "Scaling3D", false, 30 * G_USEC_PER_SEC);
        sd_bus_flush_close_unref(watcher);
        testbus_stop_cleanly(tb);
}

/* ---- RestoreDefaults ------------------------------------------------------ */

static char *restore(char **lines)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_MANAGER, "RestoreDefaults", &e, &reply,
                                   "");
        char *err = g_strdup(r < 0 ? e.name : "");
        char **strv = NULL;
        if (r >= 0)
                assert_true(sd_bus_message_read_strv(reply, &strv) >= 0);
        *lines = r >= 0 ? g_strjoinv("\n", strv) : g_strdup(e.message);
        g_strfreev(strv);
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return err;
}

static void test_restore_defaults(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, BOARD, RESTORE_ALL, UNIT);
        g_autofree char *e1 = set("SetScaling3D", false, NULL), *e2 = set("SetRailgate", false, NULL);
        assert_string_equal(e1, "");
        assert_string_equal(e2, "");

        /* set-gpu is one of the four actions it needs. */
        static const char *const three[] = { JD_ACTION_SET_FAN, JD_ACTION_SET_NVPMODEL, JD_ACTION_SET_JETSON_CLOCKS,
                                             NULL };
        testbus_polkit_allow(three);
        g_autofree char *denied_lines = NULL;
        g_autofree char *denied = restore(&denied_lines);
        assert_string_equal(denied, SD_BUS_ERROR_ACCESS_DENIED);
        g_autofree char *sc0 = testbus_root_file(tb, SCALING);
        assert_string_equal(sc0, "0\n");

        testbus_polkit_allow(RESTORE_ALL);
        g_autofree char *lines = NULL;
        g_autofree char *err = restore(&lines);
        assert_string_equal(err, "");
        if (!g_str_has_suffix(lines, "\ngpu (17000000.gpu): 3D scaling off -> on\n"
                                     "gpu (17000000.gpu): rail gating off -> on"))
                fail_msg("RestoreDefaults said:\n%s", lines);
        g_autofree char *sc = testbus_root_file(tb, SCALING), *rg = testbus_root_file(tb, RAILGATE);
        assert_string_equal(sc, "1\n");
        assert_string_equal(rg, "1\n");
        assert_true(gpu_bool("Scaling3D"));
        assert_true(gpu_bool("Railgate"));

        g_autofree char *again = NULL;
        g_autofree char *err2 = restore(&again);
        assert_string_equal(err2, "");
        assert_true(g_str_has_suffix(again, "\ngpu (17000000.gpu): 3D scaling already on\n"
                                            "gpu (17000000.gpu): rail gating already on"));
        testbus_stop_cleanly(tb);
}

/* ---- boards without the GPU or the control ---------------------------- */

static void test_pc_has_no_gpu_interface(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, "x86-pc", RESTORE_ALL, NULL);
        g_autofree char *msg = NULL;
        g_autofree char *err = set("SetScaling3D", true, &msg);
        /* Not exported: sd-bus answers for a method of an interface the
         * object lacks (UnknownMethod up to systemd 245, then
         * UnknownInterface). */
        if (strcmp(err, SD_BUS_ERROR_UNKNOWN_METHOD) != 0 && strcmp(err, SD_BUS_ERROR_UNKNOWN_INTERFACE) != 0)
                fail_msg("SetScaling3D on a PC: %s \"%s\"", err, msg);
        g_autofree char *lines = NULL;
        g_autofree char *err2 = restore(&lines);
        assert_string_equal(err2, "");
        assert_true(g_str_has_suffix(lines, "\ngpu: not on this board, left alone"));
        testbus_stop_cleanly(tb);
}

/* Starts jetsond on a copy of BOARD after removing REMOVE (NULL-terminated)
 * from it, with polkit allowing ALLOWED. */
static testbus *start_without(void **state, const char *const *remove, const char *const *allowed)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, BOARD);
        for (const char *const *r = remove; *r; r++)
                fixture_unlink(tb->root, *r);
        testbus_start_polkit(tb, allowed);
        testbus_start_daemon(tb, NULL);
        return tb;
}

/* Neither railgate_enable nor runtime PM: NotSupported, before polkit
 * is asked (it would refuse: nothing is allowed). */
static void test_not_supported(void **state)
{
        testbus *tb = start_without(state, (const char *const[]) { RAILGATE, DEV "power/control", NULL }, NULL);
        g_autofree char *msg = NULL;
        g_autofree char *err = set("SetRailgate", false, &msg);
        assert_string_equal(err, JD_ERROR_NOT_SUPPORTED);
        assert_string_equal(msg, "The GPU (17000000.gpu) has no rail-gating control (no railgate_enable, no runtime "
                                 "PM power/control)");
        g_autofree char *rg = testbus_root_file(tb, RAILGATE);
        assert_string_equal(rg, "<missing>");
        assert_false(gpu_bool("Railgate"));
        /* The other setting is there: polkit decides. */
        g_autofree char *err2 = set("SetScaling3D", false, NULL);
        assert_string_equal(err2, SD_BUS_ERROR_ACCESS_DENIED);
        testbus_stop_cleanly(tb);
}

/* The file goes after start: Failed naming it, nothing created; a wrong
 * argument type never reaches polkit or the file. */
static void test_vanished_file_and_bad_input(void **state)
{
        testbus *tb = testbus_start_with_mocks(state, BOARD, GPU_ONLY, NULL);
        g_autofree char *msg = NULL;
        g_autofree char *err = testbus_call(&msg, JD_OBJECT_PATH, JD_IFACE_GPU, "SetRailgate", "s", "off");
        assert_string_equal(err, SD_BUS_ERROR_INVALID_ARGS);
        g_autofree char *rg = testbus_root_file(tb, RAILGATE);
        assert_string_equal(rg, "1\n");

        fixture_unlink(tb->root, RAILGATE);
        g_autofree char *msg2 = NULL;
        g_autofree char *err2 = set("SetRailgate", false, &msg2);
        assert_string_equal(err2, JD_ERROR_FAILED);
        assert_string_equal(msg2, "Cannot switch GPU rail gating off: writing \"0\" to "
                                  "/sys/class/devfreq/17000000.gpu/device/railgate_enable: No such file or directory");
        g_autofree char *rg2 = testbus_root_file(tb, RAILGATE);
        assert_string_equal(rg2, "<missing>");
        testbus_stop_cleanly(tb);
}

/* ---- JetPack 7.2's governor, on the Orin without enable_3d_scaling ------- */

static void test_governor_scaling(void **state)
{
        testbus *tb = start_without(state, (const char *const[]) { SCALING, NULL }, GPU_ONLY);
        fixture_write_str(tb->root, GOVERNOR, "wmark_active\n");   /* the user's choice, to come back */
        announced a;
        sd_bus *watcher = watch(&a);
        g_autofree char *err = set("SetScaling3D", false, NULL);
        assert_string_equal(err, "");
        g_autofree char *gov = testbus_root_file(tb, GOVERNOR);
        assert_string_equal(gov, "performance\n");
        assert_false(gpu_bool("Scaling3D"));
        expect_announced(watcher, &a, "Scaling3D", false, 5 * G_USEC_PER_SEC);
        g_autofree char *saved = testbus_root_file(tb, "var/lib/jetsond/gpu.state");
        assert_non_null(strstr(saved, "[Scaling3D]\n17000000.gpu=wmark_active\n"));

        /* A restart forgets nothing: the state file gives it back. */
        testbus_stop_cleanly(tb);
        testbus_start_daemon(tb, NULL);
        g_autofree char *err2 = set("SetScaling3D", true, NULL);
        assert_string_equal(err2, "");
        g_autofree char *gov2 = testbus_root_file(tb, GOVERNOR);
        assert_string_equal(gov2, "wmark_active\n");
        assert_true(gpu_bool("Scaling3D"));
        sd_bus_flush_close_unref(watcher);
        testbus_stop_cleanly(tb);
}

/* ---- JetPack 7 fake boards ------------------------------------------------- */

typedef struct {
        const char *board, *name;
        const char *governors[3];          /* NULL-terminated */
        const char *railgate, *railgate_on, *railgate_off;
} jp7_board;

static void assert_all(testbus *tb, const char *const *files, const char *want)
{
        for (const char *const *f = files; *f; f++) {
                g_autofree char *got = testbus_root_file(tb, *f);
                if (strcmp(got, want) != 0)
                        fail_msg("%s is \"%s\", want \"%s\"", *f, got, want);
        }
}

static void check_jp7_board(void **state, const jp7_board *b)
{
        testbus *tb = testbus_start_with_mocks(state, b->board, ALL_BUT_GPU, UNIT);
        sd_bus *bus = testbus_connect();
        g_autofree char *name = testbus_get_string(bus, JD_OBJECT_PATH, JD_IFACE_GPU, "Name");
        assert_string_equal(name, b->name);
        sd_bus_flush_close_unref(bus);
        assert_true(gpu_bool("Scaling3D"));
        assert_true(gpu_bool("Railgate"));

        g_autofree char *gov = file_state(tb, b->governors[0]), *rg = file_state(tb, b->railgate);
        g_autofree char *e1 = set("SetScaling3D", false, NULL), *e2 = set("SetRailgate", false, NULL);
        assert_string_equal(e1, SD_BUS_ERROR_ACCESS_DENIED);
        assert_string_equal(e2, SD_BUS_ERROR_ACCESS_DENIED);
        g_autofree char *gov2 = file_state(tb, b->governors[0]), *rg2 = file_state(tb, b->railgate);
        assert_string_equal(gov2, gov);
        assert_string_equal(rg2, rg);

        testbus_polkit_allow(RESTORE_ALL);
        g_autofree char *e3 = set("SetScaling3D", false, NULL), *e4 = set("SetRailgate", false, NULL);
        assert_string_equal(e3, "");
        assert_string_equal(e4, "");
        assert_all(tb, b->governors, "performance\n");
        g_autofree char *off = testbus_root_file(tb, b->railgate);
        assert_string_equal(off, b->railgate_off);
        assert_false(gpu_bool("Scaling3D"));
        assert_false(gpu_bool("Railgate"));

        g_autofree char *lines = NULL;
        g_autofree char *err = restore(&lines);
        g_autofree char *want = g_strdup_printf("\ngpu (%s): 3D scaling off -> on\ngpu (%s): rail gating off -> on",
                                                b->name, b->name);
        if (*err || !g_str_has_suffix(lines, want))
                fail_msg("RestoreDefaults on %s: %s\n%s", b->board, *err ? err : "ok", lines);
        assert_all(tb, b->governors, "nvhost_podgov\n");
        g_autofree char *on = testbus_root_file(tb, b->railgate);
        assert_string_equal(on, b->railgate_on);
        assert_true(gpu_bool("Scaling3D"));
        assert_true(gpu_bool("Railgate"));
        testbus_stop_cleanly(tb);
}

static void test_thor(void **state)
{
        static const jp7_board thor = {
                "agx-thor-jp71", "0000:01:00.0",
                { "sys/class/devfreq/gpu-gpc-0/governor", "sys/class/devfreq/gpu-nvd-0/governor", NULL },
                "sys/bus/pci/devices/0000:01:00.0/power/control", "auto\n", "on\n",
        };
        check_jp7_board(state, &thor);
}

static void test_orin_jp72(void **state)
{
        static const jp7_board orin = {
                "agx-orin-jp72", "17000000.gpu", { "sys/class/devfreq/17000000.gpu/governor", NULL },
                "sys/class/devfreq/17000000.gpu/device/railgate_enable", "1\n", "0\n",
        };
        check_jp7_board(state, &orin);
}

/* ---- a GPU stuck in sysfs at start-up -------------------------------------- */

static int on_added(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        const char *path;
        if (sd_bus_message_read(m, "o", &path) < 0 || sd_bus_message_enter_container(m, 'a', "{sa{sv}}") < 0)
                return 0;
        while (sd_bus_message_enter_container(m, 'e', "sa{sv}") > 0) {
                const char *iface;
                if (sd_bus_message_read(m, "s", &iface) > 0 && strcmp(iface, JD_IFACE_GPU) == 0)
                        *(bool *) userdata = true;
                sd_bus_message_skip(m, "a{sv}");
                sd_bus_message_exit_container(m);
        }
        return 0;
}

static void test_stuck_at_start(void **state)
{
        if (!testbus_have_fuse())
                skip();
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, BOARD);
        testbus_mount_slowfs(tb);
        testbus_slowfs_rule(tb, "block", SCALING "\n");
        testbus_start_daemon(tb, NULL);

        announced a;
        sd_bus *bus = watch(&a);
        bool added = false;
        assert_true(sd_bus_match_signal(bus, NULL, JD_BUS_NAME, JD_OBJECT_PATH, "org.freedesktop.DBus.ObjectManager",
                                        "InterfacesAdded", on_added, &added) >= 0);
        int v;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_true(sd_bus_get_property_trivial(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_GPU, "Railgate", &e, 'b',
                                                &v) < 0);
        sd_bus_error_free(&e);
        /* The rest serves meanwhile. */
        g_autofree char *model = testbus_get_string(bus, JD_OBJECT_PATH, JD_IFACE_BOARD, "Model");
        assert_string_equal(model, "NVIDIA Jetson AGX Orin Developer Kit");

        testbus_slowfs_rule(tb, "block", "");
        testbus_pump(bus, 30 * G_USEC_PER_SEC, &added);
        assert_true(added);
        /* The property is the sample's: the sample taken while the file
         * hung lacks it (false, as documented) and the next slow reading
         * has it, announced with PropertiesChanged. Which of the two the
         * interface first shows depends on which came first, which a busy
         * machine decides. */
        if (!testbus_get_bool(bus, JD_OBJECT_PATH, JD_IFACE_GPU, "Scaling3D"))
                expect_announced(bus, &a, "Scaling3D", true, 30 * G_USEC_PER_SEC);
        assert_true(testbus_get_bool(bus, JD_OBJECT_PATH, JD_IFACE_GPU, "Scaling3D"));
        g_autofree char *log = NULL;
        assert_true(g_file_get_contents(tb->daemon_log, &log, NULL, NULL));
        assert_non_null(strstr(log, "The integrated GPU's sysfs files did not answer within 1.0 s"));
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_denied_without_set_gpu, testbus_teardown),
                cmocka_unit_test_teardown(test_allowed_changes_files_and_properties, testbus_teardown),
                cmocka_unit_test_teardown(test_outside_change_is_noticed, testbus_teardown),
                cmocka_unit_test_teardown(test_restore_defaults, testbus_teardown),
                cmocka_unit_test_teardown(test_pc_has_no_gpu_interface, testbus_teardown),
                cmocka_unit_test_teardown(test_not_supported, testbus_teardown),
                cmocka_unit_test_teardown(test_vanished_file_and_bad_input, testbus_teardown),
                cmocka_unit_test_teardown(test_governor_scaling, testbus_teardown),
                cmocka_unit_test_teardown(test_stuck_at_start, testbus_teardown),
                cmocka_unit_test_teardown(test_thor, testbus_teardown),
                cmocka_unit_test_teardown(test_orin_jp72, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
