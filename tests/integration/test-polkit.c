/* Writes behind the real polkitd, with the shipped actions
 * (polkit/org.jetsond.Jetson1.policy) and the shipped example rule
 * (polkit/50-jetsond-jetson-group.rules.example), called by real users of
 * this machine. Built a second time with PKLA defined (test polkit-pkla):
 * the same tests with polkit/50-jetsond-jetson-group.pkla.example in
 * place of the .rules example, read through Debian's polkitd-pkla as
 * polkit 0.105 reads it, so both files must grant the same. The users:
 *
 *   bin     no rule: the shipped defaults (auth_admin) apply, so a
 *           challenge: InteractiveAuthorizationRequired without the
 *           allow-interactive-authorization flag, AccessDenied with it (no
 *           agent runs);
 *   daemon  a test rule returning AUTH_ADMIN_KEEP: the same two answers;
 *   sys     a test rule returning NO: AccessDenied either way;
 *   nobody  member of group "jetson", so the example rule says YES: the
 *           implemented methods do what they should;
 *   root    authorized by polkitd itself.
 *
 * Every refused call must leave the board copy unchanged (each file's
 * mode, size, inode, mtime and ctime: the fake tools' .fake/calls.log,
 * jetsond's state dir, sysfs and /etc files alike), and every call must
 * have asked polkit for its documented action (the test rules in
 * polkit-test.rules log each check), so a method that skips polkit or
 * asks for the wrong action fails here. One thing this cannot see: whether
 * jetsond passes the interactive flag on to polkit, as without an agent
 * the answer is AccessDenied either way.
 *
 * polkitd runs as real_polkitd.h describes; where mount namespaces are
 * not allowed (a container without CAP_SYS_ADMIN) or the users are
 * missing, the tests are skipped. */
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "call_as.h"
#include "jetsond-dbus.h"
#include "property_wait.h"
#include "real_polkitd.h"
#include "testbus.h"
#include "tree_state.h"

#define BOARD "agx-orin-jp62"
#define SERIAL "1424021012345"       /* agx-orin-jp62.expected.md */
#define LIVE_MODE 3u                 /* MODE_50W: applies without a reboot from MAXN (0) */
#define FAN_PATH JD_FAN_PATH_PREFIX "0"
#define FAN_PWM "sys/devices/platform/pwm-fan/hwmon/hwmon3/pwm1"
#define GPU_DEV "sys/devices/platform/bus@0/17000000.gpu/"
#define SWAP_FILE "var/lib/jetsond/swap/swapfile"   /* the default [Swap] Path, in the root */
#define CALL_TIMEOUT_S 60            /* generous: the daemon may run under valgrind */
#define ACTION(a) "org.jetsond.Jetson1." a

/* ---- every write method of the contract (introspection/) --------------- */

typedef struct {
        bus_method call;                  /* with valid arguments for BOARD */
        void (*prepare)(const char *root); /* puts the board in a state where the call is valid */
        const char *actions[5];           /* its PolkitAction annotation */
} write_method;

static int no_args(sd_bus_message *m)
{
        (void) m;
        return 0;
}
static int arg_percent(sd_bus_message *m)
{
        return sd_bus_message_append(m, "d", 55.0);
}
static int arg_profile(sd_bus_message *m)
{
        return sd_bus_message_append(m, "s", "quiet");  /* current: cool */
}
static int arg_mode(sd_bus_message *m)
{
        return sd_bus_message_append(m, "u", LIVE_MODE);
}
static int arg_true(sd_bus_message *m)
{
        return sd_bus_message_append(m, "b", 1);
}
static int arg_false(sd_bus_message *m)
{
        return sd_bus_message_append(m, "b", 0);   /* the GPU settings are on at first */
}
static int arg_swap(sd_bus_message *m)
{
        return sd_bus_message_append(m, "tb", (uint64_t) 64 << 20, 0);
}

static void run_fake_tool(const char *root, const char *tool, const char *arg)
{
        g_autofree char *path = g_build_filename(root, "usr/sbin", tool, NULL);
        g_autofree char *out = NULL;
        int status = testbus_run((const char *[]) { path, arg, NULL }, &out);
        if (status != 0)
                fail_msg("%s %s: exit %d: %s", tool, arg, status, out);
}

/* CreateSwap needs no swap file, RemoveSwap an active one. */
static void no_swap_file(const char *root)
{
        g_autofree char *file = g_build_filename(root, SWAP_FILE, NULL);
        if (!g_file_test(file, G_FILE_TEST_EXISTS))
                return;
        run_fake_tool(root, "swapoff", "/" SWAP_FILE);
        assert_int_equal(unlink(file), 0);
}

static void active_swap_file(const char *root)
{
        g_autofree char *file = g_build_filename(root, SWAP_FILE, NULL);
        if (g_file_test(file, G_FILE_TEST_EXISTS))
                return;
        g_autofree char *dir = g_path_get_dirname(file);
        assert_int_equal(g_mkdir_with_parents(dir, 0755), 0);
        g_autofree char *zeros = g_malloc0(1 << 20);
        assert_true(g_file_set_contents(file, zeros, 1 << 20, NULL));
        assert_int_equal(chmod(file, 0600), 0);
        run_fake_tool(root, "mkswap", "/" SWAP_FILE);
        run_fake_tool(root, "swapon", "/" SWAP_FILE);
}

static const write_method methods[] = {
        { { "Fan.SetSpeed", FAN_PATH, JD_IFACE_FAN, "SetSpeed", arg_percent }, NULL,
          { ACTION("set-fan") } },
        { { "Fan.SetProfile", FAN_PATH, JD_IFACE_FAN, "SetProfile", arg_profile }, NULL,
          { ACTION("set-fan") } },
        { { "NVPModel.SetMode", JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", arg_mode }, NULL,
          { ACTION("set-nvpmodel") } },
        { { "NVPModel.SetDefaultMode", JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", arg_mode }, NULL,
          { ACTION("set-nvpmodel") } },
        { { "JetsonClocks.SetActive", JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", arg_true }, NULL,
          { ACTION("set-jetson-clocks") } },
        { { "JetsonClocks.SetOnBoot", JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", arg_true }, NULL,
          { ACTION("set-jetson-clocks") } },
        { { "Memory.CreateSwap", JD_OBJECT_PATH, JD_IFACE_MEMORY, "CreateSwap", arg_swap }, no_swap_file,
          { ACTION("manage-swap") } },
        { { "Memory.RemoveSwap", JD_OBJECT_PATH, JD_IFACE_MEMORY, "RemoveSwap", no_args }, active_swap_file,
          { ACTION("manage-swap") } },
        { { "Memory.DropCaches", JD_OBJECT_PATH, JD_IFACE_MEMORY, "DropCaches", no_args }, NULL,
          { ACTION("drop-caches") } },
        { { "Board.GetSerialNumber", JD_OBJECT_PATH, JD_IFACE_BOARD, "GetSerialNumber", no_args }, NULL,
          { ACTION("read-serial") } },
        { { "Gpu.SetScaling3D", JD_OBJECT_PATH, JD_IFACE_GPU, "SetScaling3D", arg_false }, NULL,
          { ACTION("set-gpu") } },
        { { "Gpu.SetRailgate", JD_OBJECT_PATH, JD_IFACE_GPU, "SetRailgate", arg_false }, NULL,
          { ACTION("set-gpu") } },
        { { "Manager.RestoreDefaults", JD_OBJECT_PATH, JD_IFACE_MANAGER, "RestoreDefaults", no_args }, NULL,
          { ACTION("set-fan"), ACTION("set-nvpmodel"), ACTION("set-jetson-clocks"), ACTION("set-gpu") } },
};

static const write_method *method(const char *name)
{
        for (size_t i = 0; i < G_N_ELEMENTS(methods); i++)
                if (strcmp(methods[i].call.name, name) == 0)
                        return &methods[i];
        fail_msg("no method %s in the table", name);
        return NULL;
}

/* ---- the world: bus, real polkitd, board copy, jetsond --------------- */

typedef struct {
        testbus *tb;
        real_polkitd polkitd;
} world;

/* One world for every test, started by the first: copying the board
 * takes most of the time. Each refused call compares the board before
 * and after itself, so the tests stay independent; the ones that change
 * the board on purpose run last. */
static struct {
        world *w;
        bool starting;             /* a start that failed half-way */
        const char *cannot;        /* why this machine cannot run the tests */
} shared;

static world *the_world(void)
{
        if (shared.cannot) {
                print_message("SKIP: %s\n", shared.cannot);
                skip();
        }
        if (shared.w) {
                if (shared.starting)
                        fail_msg("the test world failed to start in an earlier test");
                return shared.w;
        }
        if (geteuid() != 0)
                shared.cannot = "needs root (polkitd, and calls as other users)";
        for (const char *const *u = (const char *const[]) { "nobody", "bin", "daemon", "sys", NULL }; *u; u++)
                if (!shared.cannot && !getpwnam(*u))
                        shared.cannot = "the users nobody, bin, daemon and sys must exist";
        if (shared.cannot)
                return the_world();
        world *w = shared.w = g_new0(world, 1);
        shared.starting = true;
        w->tb = testbus_new(NULL);
        testbus_make_root(w->tb, BOARD);
#ifdef PKLA
        bool pkla = true;
#else
        bool pkla = false;
#endif
        if (!real_polkitd_start(&w->polkitd, w->tb, pkla)) {
                shared.cannot = "polkitd cannot run here (see start-polkitd.sh's message above)";
                return the_world();
        }
        /* systemd (python-dbusmock) with nvfancontrol running, for the
         * fan writes. */
        testbus_start_systemd(w->tb, "nvfancontrol.service");
        testbus_start_daemon(w->tb, NULL);   /* after polkitd: jetsond connects to it at start */
        shared.starting = false;
        return w;
}

static int group_teardown(void **state)
{
        (void) state;
        world *w = shared.w;
        if (!w)
                return 0;
        real_polkitd_stop(&w->polkitd);
        testbus_free(w->tb);
        g_free(w);
        shared.w = NULL;
        return 0;
}

/* ---- what polkit was asked -------------------------------------------- */

/* The end of polkitd's and jetsond's logs, printed before a failure: what
 * polkit decided, and why, is only there. */
static void print_tail(const char *what, const char *path)
{
        g_autofree char *text = NULL;
        if (!path || !g_file_get_contents(path, &text, NULL, NULL))
                return;
        size_t len = strlen(text);
        print_error("---- the end of %s's log ----\n%s\n", what, text + (len > 4000 ? len - 4000 : 0));
}

static void print_logs(world *w)
{
        print_tail("polkitd", w->polkitd.log);
        print_tail("jetsond", w->tb->daemon_log);
}

#define FAIL_WITH_LOGS(w, ...)                 \
        do {                                   \
                print_logs(w);                 \
                fail_msg(__VA_ARGS__);         \
        } while (0)

/* Forgets what was logged so far (also after a test that failed before
 * reading it). */
static void polkit_forget(world *w)
{
        g_ptr_array_unref(real_polkitd_asked(&w->polkitd));
}

static bool is_documented(const write_method *m, const char *user, const char *line)
{
        for (size_t i = 0; m->actions[i]; i++) {
                g_autofree char *want = g_strdup_printf("%s %s", user, m->actions[i]);
                if (strcmp(line, want) == 0)
                        return true;
        }
        return false;
}

static char *joined(GPtrArray *lines)
{
        g_ptr_array_add(lines, NULL);
        char *s = g_strjoinv(", ", (char **) lines->pdata);
        g_ptr_array_remove_index(lines, lines->len - 1);
        return s;
}

/* A refused call stops at the first action polkit refuses: at least one
 * check, each for one of the method's actions and this caller. */
static void assert_asked_some(world *w, const write_method *m, const char *user)
{
        g_autoptr(GPtrArray) asked = real_polkitd_asked(&w->polkitd);
        g_autofree char *list = joined(asked);
        if (asked->len == 0)
                FAIL_WITH_LOGS(w, "%s as %s: polkit was not asked for %s", m->call.name, user, m->actions[0]);
        for (size_t i = 0; i < asked->len; i++)
                if (!is_documented(m, user, asked->pdata[i]))
                        FAIL_WITH_LOGS(w, "%s as %s asked polkit for [%s], not its documented action %s...",
                                       m->call.name, user, list, m->actions[0]);
}

/* An authorized call asked for every one of its actions and no other. */
static void assert_asked_all(world *w, const write_method *m, const char *user)
{
        g_autoptr(GPtrArray) asked = real_polkitd_asked(&w->polkitd);
        g_autofree char *list = joined(asked);
        for (size_t i = 0; i < asked->len; i++)
                if (!is_documented(m, user, asked->pdata[i]))
                        FAIL_WITH_LOGS(w, "%s as %s asked polkit for [%s]", m->call.name, user, list);
        for (size_t i = 0; m->actions[i]; i++) {
                g_autofree char *want = g_strdup_printf("%s %s", user, m->actions[i]);
                bool found = false;
                for (size_t j = 0; j < asked->len; j++)
                        found = found || strcmp(asked->pdata[j], want) == 0;
                if (!found)
                        FAIL_WITH_LOGS(w, "%s as %s did not ask polkit for %s (asked: [%s])", m->call.name,
                                       user, m->actions[i], list);
        }
}

/* ---- the board copy, as a comparable text --------------------------------- */

static char *snapshot(world *w)
{
        return tree_state(w->tb->root);
}

/* ---- refused calls -------------------------------------------------------- */

/* Calls every write method as USER and expects WANT (per interactive
 * flag), nothing changed, and polkit asked for the method's action. */
static void expect_all_refused(world *w, const char *user, bool interactive, const char *want)
{
        for (size_t i = 0; i < G_N_ELEMENTS(methods); i++) {
                const write_method *m = &methods[i];
                if (m->prepare)
                        m->prepare(w->tb->root);
                g_autofree char *what = g_strdup_printf("%s as %s%s", m->call.name, user,
                                                        interactive ? " (interactive)" : "");
                g_autofree char *before = snapshot(w);
                polkit_forget(w);
                g_auto(call_outcome) o = call_as(user, &m->call, interactive, CALL_TIMEOUT_S);
                g_autofree char *after = snapshot(w);
                tree_state_assert_unchanged(before, after, what);
                if (strcmp(o.error, want) != 0)
                        FAIL_WITH_LOGS(w, "%s: got %s \"%s\", want %s", what, *o.error ? o.error : "success",
                                       o.text, want);
                assert_asked_some(w, m, user);
        }
}

/* bin: no rule applies, so the shipped defaults (allow_any auth_admin)
 * do; without a session or an agent that can never succeed. */
static void test_unprivileged_user_is_refused(void **state)
{
        (void) state;
        world *w = the_world();
        expect_all_refused(w, "bin", true, SD_BUS_ERROR_ACCESS_DENIED);
        expect_all_refused(w, "bin", false, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED);
}

/* daemon: a rule returns AUTH_ADMIN_KEEP. */
static void test_challenge(void **state)
{
        (void) state;
        world *w = the_world();
        expect_all_refused(w, "daemon", false, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED);
        expect_all_refused(w, "daemon", true, SD_BUS_ERROR_ACCESS_DENIED);
}

/* sys: a rule returns NO; the interactive flag changes nothing. */
static void test_rule_says_no(void **state)
{
        (void) state;
        world *w = the_world();
        expect_all_refused(w, "sys", false, SD_BUS_ERROR_ACCESS_DENIED);
        expect_all_refused(w, "sys", true, SD_BUS_ERROR_ACCESS_DENIED);
}

/* ---- authorized calls ----------------------------------------------------- */

/* Calls NAME as USER, which must succeed after asking polkit for every
 * action of the method (not for root: polkitd runs no rules for uid 0).
 * Returns the reply's strings. */
static char *expect_success(world *w, const char *user, const char *name)
{
        const write_method *m = method(name);
        if (m->prepare)
                m->prepare(w->tb->root);
        polkit_forget(w);
        g_auto(call_outcome) o = call_as(user, &m->call, false, CALL_TIMEOUT_S);
        if (*o.error)
                FAIL_WITH_LOGS(w, "%s as %s: %s \"%s\"", name, user, o.error, o.text);
        if (strcmp(user, "root") != 0)
                assert_asked_all(w, m, user);
        return g_steal_pointer(&o.text);
}

static void expect_ok(world *w, const char *user, const char *name)
{
        g_free(expect_success(w, user, name));
}

static char *root_text(world *w, const char *rel)
{
        g_autofree char *path = g_build_filename(w->tb->root, rel, NULL);
        char *text = NULL;
        if (!g_file_get_contents(path, &text, NULL, NULL))
                return g_strdup("<missing>");
        return text;
}

static void empty_drop_caches(world *w)
{
        g_autofree char *path = g_build_filename(w->tb->root, "proc/sys/vm/drop_caches", NULL);
        assert_int_equal(truncate(path, 0), 0);
}

static void assert_tool_ran(world *w, const char *line)
{
        g_autofree char *log = root_text(w, ".fake/calls.log");
        char **lines = g_strsplit(log, "\n", -1);
        bool found = false;
        for (char **l = lines; *l; l++)
                found = found || strcmp(*l, line) == 0;
        g_strfreev(lines);
        if (!found)
                fail_msg("\"%s\" is not in .fake/calls.log:\n%s", line, log);
}

/* nobody is in group "jetson" (in polkitd's /etc/group only), so the
 * shipped example rule allows every action. */
static void test_jetson_group_member_succeeds(void **state)
{
        (void) state;
        world *w = the_world();

        g_autofree char *serial = expect_success(w, "nobody", "Board.GetSerialNumber");
        assert_string_equal(serial, SERIAL);

        expect_ok(w, "nobody", "NVPModel.SetMode");
        testbus_wait_u32(JD_IFACE_NVPMODEL, "Mode", LIVE_MODE);
        assert_tool_ran(w, "nvpmodel -m 3");

        expect_ok(w, "nobody", "NVPModel.SetDefaultMode");
        testbus_wait_u32(JD_IFACE_NVPMODEL, "DefaultMode", LIVE_MODE);

        expect_ok(w, "nobody", "JetsonClocks.SetActive");
        testbus_wait_bool(JD_IFACE_JETSON_CLOCKS, "Active", true);
        assert_tool_ran(w, "jetson_clocks");

        expect_ok(w, "nobody", "JetsonClocks.SetOnBoot");
        testbus_wait_bool(JD_IFACE_JETSON_CLOCKS, "OnBoot", true);

        empty_drop_caches(w);
        expect_ok(w, "nobody", "Memory.DropCaches");
        g_autofree char *caches = root_text(w, "proc/sys/vm/drop_caches");
        assert_string_equal(caches, "3\n");

        expect_ok(w, "nobody", "Fan.SetSpeed");
        g_autofree char *pwm = root_text(w, FAN_PWM);
        assert_string_equal(pwm, "140\n");   /* floor(55 * 255 / 100) */

        expect_ok(w, "nobody", "Fan.SetProfile");
        testbus_wait_string(FAN_PATH, JD_IFACE_FAN, "Profile", "quiet");

        expect_ok(w, "nobody", "Memory.CreateSwap");
        g_autofree char *swap = g_build_filename(w->tb->root, SWAP_FILE, NULL);
        assert_true(g_file_test(swap, G_FILE_TEST_IS_REGULAR));
        g_autofree char *swaps = root_text(w, "proc/swaps");
        assert_non_null(strstr(swaps, "/" SWAP_FILE " "));

        expect_ok(w, "nobody", "Memory.RemoveSwap");
        assert_false(g_file_test(swap, G_FILE_TEST_EXISTS));
        g_autofree char *swaps_after = root_text(w, "proc/swaps");
        assert_null(strstr(swaps_after, "/" SWAP_FILE " "));

        expect_ok(w, "nobody", "Gpu.SetScaling3D");
        testbus_wait_bool(JD_IFACE_GPU, "Scaling3D", false);
        g_autofree char *scaling = root_text(w, GPU_DEV "enable_3d_scaling");
        assert_string_equal(scaling, "0\n");
        expect_ok(w, "nobody", "Gpu.SetRailgate");
        testbus_wait_bool(JD_IFACE_GPU, "Railgate", false);
        g_autofree char *railgate = root_text(w, GPU_DEV "railgate_enable");
        assert_string_equal(railgate, "0\n");

        /* All four of its actions, granted by the rule: jetson_clocks
         * (switched on above) goes off, not on at boot, the GPU's
         * settings on again. */
        expect_ok(w, "nobody", "Manager.RestoreDefaults");
        testbus_wait_bool(JD_IFACE_JETSON_CLOCKS, "Active", false);
        testbus_wait_bool(JD_IFACE_JETSON_CLOCKS, "OnBoot", false);
        testbus_wait_bool(JD_IFACE_GPU, "Scaling3D", true);
        testbus_wait_bool(JD_IFACE_GPU, "Railgate", true);
}

/* root: polkitd authorizes uid 0 without rules (so the test rules log
 * nothing); jetsond has no special case of its own. */
static void test_root_is_authorized(void **state)
{
        (void) state;
        world *w = the_world();
        g_autofree char *serial = expect_success(w, "root", "Board.GetSerialNumber");
        assert_string_equal(serial, SERIAL);
        empty_drop_caches(w);
        expect_ok(w, "root", "Memory.DropCaches");
        g_autofree char *caches = root_text(w, "proc/sys/vm/drop_caches");
        assert_string_equal(caches, "3\n");
        g_autoptr(GPtrArray) asked = real_polkitd_asked(&w->polkitd);
        assert_int_equal(asked->len, 0);
}

/* Last: jetsond exits 0 on SIGTERM (under valgrind: without errors or
 * definite leaks). */
/* Jetson AGX Thor under the same polkitd and rules: its GPU settings are
 * the devfreq governors and the PCI device's runtime PM. bin is refused
 * with nothing changed; a jetson group member switches both. */
#define THOR_GPC "sys/class/devfreq/gpu-gpc-0/governor"
#define THOR_PM "sys/bus/pci/devices/0000:01:00.0/power/control"

static void test_thor_gpu(void **state)
{
        (void) state;
        world *w = the_world();
        int status = testbus_stop_daemon(w->tb);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        const char *rm[] = { "rm", "-rf", w->tb->root, NULL };
        assert_int_equal(testbus_run(rm, NULL), 0);
        g_clear_pointer(&w->tb->root, g_free);
        testbus_make_root(w->tb, "agx-thor-jp71");
        testbus_start_daemon(w->tb, NULL);

        const char *const gpu_methods[] = { "Gpu.SetScaling3D", "Gpu.SetRailgate" };
        for (size_t i = 0; i < G_N_ELEMENTS(gpu_methods); i++) {
                const write_method *m = method(gpu_methods[i]);
                g_autofree char *before = snapshot(w);
                polkit_forget(w);
                g_auto(call_outcome) o = call_as("bin", &m->call, true, CALL_TIMEOUT_S);
                g_autofree char *after = snapshot(w);
                tree_state_assert_unchanged(before, after, m->call.name);
                assert_string_equal(o.error, SD_BUS_ERROR_ACCESS_DENIED);
                assert_asked_some(w, m, "bin");
        }
        expect_ok(w, "nobody", "Gpu.SetScaling3D");
        testbus_wait_bool(JD_IFACE_GPU, "Scaling3D", false);
        g_autofree char *governor = root_text(w, THOR_GPC);
        assert_string_equal(governor, "performance\n");
        expect_ok(w, "nobody", "Gpu.SetRailgate");
        testbus_wait_bool(JD_IFACE_GPU, "Railgate", false);
        g_autofree char *pm = root_text(w, THOR_PM);
        assert_string_equal(pm, "on\n");
        expect_ok(w, "nobody", "Manager.RestoreDefaults");
        testbus_wait_bool(JD_IFACE_GPU, "Scaling3D", true);
        testbus_wait_bool(JD_IFACE_GPU, "Railgate", true);
        g_autofree char *governor_after = root_text(w, THOR_GPC), *pm_after = root_text(w, THOR_PM);
        assert_string_equal(governor_after, "nvhost_podgov\n");
        assert_string_equal(pm_after, "auto\n");
}

static void test_jetsond_exits_cleanly(void **state)
{
        (void) state;
        world *w = the_world();
        testbus_stop_cleanly(w->tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_unprivileged_user_is_refused),
                cmocka_unit_test(test_challenge),
                cmocka_unit_test(test_rule_says_no),
                cmocka_unit_test(test_root_is_authorized),
                cmocka_unit_test(test_jetson_group_member_succeeds),
                cmocka_unit_test(test_thor_gpu),
                cmocka_unit_test(test_jetsond_exits_cleanly),
        };
        int failed = cmocka_run_group_tests(tests, NULL, group_teardown);
        return failed == 0 && shared.cannot ? 77 : failed;   /* 77: meson's SKIP */
}
