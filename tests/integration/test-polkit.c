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
 * polkitd runs in a private mount namespace (start-polkitd.sh) that puts
 * the test's actions and rules over the system directories and a copy of
 * /etc/group with a "jetson" group over /etc/group; the host's files and
 * groups are never changed. Where mount namespaces are not allowed (a
 * container without CAP_SYS_ADMIN) or the users are missing, the tests
 * are skipped. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jetsond-dbus.h"
#include "testbus.h"
#include "glib-compat.h"

#define BOARD "agx-orin-jp62"
#define SERIAL "1424021012345"       /* agx-orin-jp62.expected.md */
#define LIVE_MODE 3u                 /* MODE_50W: applies without a reboot from MAXN (0) */
#define FAN_PATH JD_FAN_PATH_PREFIX "0"
#define FAN_PWM "sys/devices/platform/pwm-fan/hwmon/hwmon3/pwm1"
#define GPU_DEV "sys/devices/platform/bus@0/17000000.gpu/"
#define SWAP_FILE "var/lib/jetsond/swap/swapfile"   /* the default [Swap] Path, in the root */
#define CALL_TIMEOUT_S 60            /* generous: the daemon may run under valgrind */
#define ACTION(a) "org.jetsond.Jetson1." a
#define PKLA_COMPAT_RULE "/usr/share/polkit-1/rules.d/49-polkit-pkla-compat.rules"

/* ---- every write method of the contract (introspection/) --------------- */

typedef struct {
        const char *name;                 /* for messages */
        const char *path, *iface, *member;
        int (*append)(sd_bus_message *m); /* valid arguments for BOARD */
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
        { "Fan.SetSpeed", FAN_PATH, JD_IFACE_FAN, "SetSpeed", arg_percent, NULL,
          { ACTION("set-fan") } },
        { "Fan.SetProfile", FAN_PATH, JD_IFACE_FAN, "SetProfile", arg_profile, NULL,
          { ACTION("set-fan") } },
        { "NVPModel.SetMode", JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", arg_mode, NULL,
          { ACTION("set-nvpmodel") } },
        { "NVPModel.SetDefaultMode", JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", arg_mode, NULL,
          { ACTION("set-nvpmodel") } },
        { "JetsonClocks.SetActive", JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", arg_true, NULL,
          { ACTION("set-jetson-clocks") } },
        { "JetsonClocks.SetOnBoot", JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", arg_true, NULL,
          { ACTION("set-jetson-clocks") } },
        { "Memory.CreateSwap", JD_OBJECT_PATH, JD_IFACE_MEMORY, "CreateSwap", arg_swap, no_swap_file,
          { ACTION("manage-swap") } },
        { "Memory.RemoveSwap", JD_OBJECT_PATH, JD_IFACE_MEMORY, "RemoveSwap", no_args, active_swap_file,
          { ACTION("manage-swap") } },
        { "Memory.DropCaches", JD_OBJECT_PATH, JD_IFACE_MEMORY, "DropCaches", no_args, NULL,
          { ACTION("drop-caches") } },
        { "Board.GetSerialNumber", JD_OBJECT_PATH, JD_IFACE_BOARD, "GetSerialNumber", no_args, NULL,
          { ACTION("read-serial") } },
        { "Gpu.SetScaling3D", JD_OBJECT_PATH, JD_IFACE_GPU, "SetScaling3D", arg_false, NULL,
          { ACTION("set-gpu") } },
        { "Gpu.SetRailgate", JD_OBJECT_PATH, JD_IFACE_GPU, "SetRailgate", arg_false, NULL,
          { ACTION("set-gpu") } },
        { "Manager.RestoreDefaults", JD_OBJECT_PATH, JD_IFACE_MANAGER, "RestoreDefaults", no_args, NULL,
          { ACTION("set-fan"), ACTION("set-nvpmodel"), ACTION("set-jetson-clocks"), ACTION("set-gpu") } },
};

static const write_method *method(const char *name)
{
        for (size_t i = 0; i < G_N_ELEMENTS(methods); i++)
                if (strcmp(methods[i].name, name) == 0)
                        return &methods[i];
        fail_msg("no method %s in the table", name);
        return NULL;
}

/* ---- the world: bus, real polkitd, board copy, jetsond --------------- */

typedef struct {
        testbus *tb;
        GPid polkitd;
        char *polkit_log;
        size_t polkit_log_seen;   /* bytes of the log already looked at */
} world;

static void copy_file(const char *from, const char *to)
{
        g_autofree char *text = NULL;
        size_t len = 0;
        assert_true(g_file_get_contents(from, &text, &len, NULL));
        assert_true(g_file_set_contents(to, text, (gssize) len, NULL));
        assert_int_equal(chmod(to, 0644), 0);
}

/* The host's /etc/group plus "jetson:x:GID:nobody" with a GID the host
 * does not use; polkitd alone sees it. */
static void write_group_file(const char *path)
{
        g_autofree char *host = NULL;
        assert_true(g_file_get_contents("/etc/group", &host, NULL, NULL));
        gid_t gid = 60000;
        while (getgrgid(gid))
                gid++;
        g_autoptr(GString) text = g_string_new(NULL);
        char **lines = g_strsplit(host, "\n", -1);
        for (char **l = lines; *l; l++)
                if (**l && !g_str_has_prefix(*l, "jetson:"))
                        g_string_append_printf(text, "%s\n", *l);
        g_strfreev(lines);
        g_string_append_printf(text, "jetson:x:%u:nobody\n", (unsigned) gid);
        assert_true(g_file_set_contents(path, text->str, -1, NULL));
        assert_int_equal(chmod(path, 0644), 0);
}

static bool polkit_on_bus(sd_bus *bus)
{
        int has = 0;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", &e, &reply, "s", "org.freedesktop.PolicyKit1") >= 0)
                sd_bus_message_read(reply, "b", &has);
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return has;
}

static char *polkit_log_text(world *w)
{
        char *log = NULL;
        if (!g_file_get_contents(w->polkit_log, &log, NULL, NULL))
                log = g_strdup("");
        return log;
}

/* Starts polkitd with the shipped actions, the shipped example rule and
 * the test rules; false if this machine cannot (start-polkitd.sh's exit
 * status 77, its message printed). */
static bool start_polkitd(world *w)
{
        const char *dir = w->tb->dir;
        g_autofree char *pk = g_build_filename(dir, "polkit", NULL);
        g_autofree char *actions = g_build_filename(pk, "actions", NULL);
        g_autofree char *rules = g_build_filename(pk, "rules.d", NULL);
        g_autofree char *group = g_build_filename(pk, "group", NULL);
        assert_int_equal(g_mkdir_with_parents(actions, 0755), 0);
        assert_int_equal(g_mkdir_with_parents(rules, 0755), 0);
        g_autofree char *policy = g_build_filename(actions, "org.jetsond.Jetson1.policy", NULL);
        copy_file(SOURCE_DIR "/polkit/org.jetsond.Jetson1.policy", policy);
#ifdef PKLA
        /* polkit 0.105's local authority: the .pkla example in 50-local.d,
         * read by pkla-check-authorization through polkitd-pkla's rule. */
        g_autofree char *authority = g_build_filename(pk, "localauthority", NULL);
        g_autofree char *local = g_build_filename(authority, "50-local.d", NULL);
        assert_int_equal(g_mkdir_with_parents(local, 0755), 0);
        g_autofree char *example = g_build_filename(local, "50-jetsond-jetson-group.pkla", NULL);
        copy_file(SOURCE_DIR "/polkit/50-jetsond-jetson-group.pkla.example", example);
        g_autofree char *compat = g_build_filename(rules, "49-polkit-pkla-compat.rules", NULL);
        if (!g_file_test(PKLA_COMPAT_RULE, G_FILE_TEST_EXISTS)) {
                print_message("SKIP: %s is missing (Debian: polkitd-pkla)\n", PKLA_COMPAT_RULE);
                return false;
        }
        copy_file(PKLA_COMPAT_RULE, compat);
        g_setenv("PKLA_DIR", authority, TRUE);
#else
        g_autofree char *example = g_build_filename(rules, "50-jetsond-jetson-group.rules", NULL);
        copy_file(SOURCE_DIR "/polkit/50-jetsond-jetson-group.rules.example", example);
#endif
        g_autofree char *test_rules = g_build_filename(rules, "10-jetsond-test.rules", NULL);
        copy_file(SOURCE_DIR "/tests/integration/polkit-test.rules", test_rules);
        write_group_file(group);

        w->polkit_log = g_build_filename(dir, "polkitd.log", NULL);
        int log_fd = open(w->polkit_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        assert_true(log_fd >= 0);
        const char *argv[] = { "sh", SOURCE_DIR "/tests/integration/start-polkitd.sh", actions, rules, group, NULL };
        GError *error = NULL;
        gboolean ok = test_spawn_logged(argv, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, &w->polkitd, log_fd,
                                        &error);
        close(log_fd);
        if (!ok)
                fail_msg("cannot run start-polkitd.sh: %s", error->message);

        sd_bus *bus = testbus_connect();
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        while (!polkit_on_bus(bus)) {
                int status;
                if (waitpid(w->polkitd, &status, WNOHANG) == w->polkitd) {
                        w->polkitd = 0;
                        sd_bus_flush_close_unref(bus);
                        g_autofree char *log = polkit_log_text(w);
                        if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
                                print_message("%s", log);
                                return false;
                        }
                        fail_msg("polkitd exited (status %d) before owning its name:\n%s", status, log);
                }
                if (testbus_now_us() > deadline) {
                        g_autofree char *log = polkit_log_text(w);
                        fail_msg("polkitd did not own org.freedesktop.PolicyKit1 within 30 s:\n%s", log);
                }
                g_usleep(5000);
        }
        sd_bus_flush_close_unref(bus);
        return true;
}

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
        if (!start_polkitd(w)) {
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

static void stop_polkitd(world *w)
{
        if (w->polkitd > 0) {
                kill(w->polkitd, SIGTERM);
                waitpid(w->polkitd, NULL, 0);
                g_spawn_close_pid(w->polkitd);
                w->polkitd = 0;
        }
}

static int group_teardown(void **state)
{
        (void) state;
        world *w = shared.w;
        if (!w)
                return 0;
        stop_polkitd(w);
        testbus_free(w->tb);
        g_free(w->polkit_log);
        g_free(w);
        shared.w = NULL;
        return 0;
}

/* ---- what polkit was asked -------------------------------------------- */

/* The "USER ACTION" lines the test rules logged since the last call. */
static GPtrArray *polkit_asked(world *w)
{
        GPtrArray *asked = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *log = polkit_log_text(w);
        size_t len = strlen(log);
        if (len < w->polkit_log_seen)
                fail_msg("polkitd's log shrank");
        char **lines = g_strsplit(log + w->polkit_log_seen, "\n", -1);
        for (char **l = lines; *l; l++) {
                const char *tag = strstr(*l, "jetsond-test: ");
                if (tag)
                        g_ptr_array_add(asked, g_strdup(tag + strlen("jetsond-test: ")));
        }
        g_strfreev(lines);
        w->polkit_log_seen = len;
        return asked;
}

/* Forgets what was logged so far (also after a test that failed before
 * reading it). */
static void polkit_forget(world *w)
{
        g_ptr_array_unref(polkit_asked(w));
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
        g_autoptr(GPtrArray) asked = polkit_asked(w);
        g_autofree char *list = joined(asked);
        if (asked->len == 0)
                fail_msg("%s as %s: polkit was not asked for %s", m->name, user, m->actions[0]);
        for (size_t i = 0; i < asked->len; i++)
                if (!is_documented(m, user, asked->pdata[i]))
                        fail_msg("%s as %s asked polkit for [%s], not its documented action %s...", m->name, user,
                                 list, m->actions[0]);
}

/* An authorized call asked for every one of its actions and no other. */
static void assert_asked_all(world *w, const write_method *m, const char *user)
{
        g_autoptr(GPtrArray) asked = polkit_asked(w);
        g_autofree char *list = joined(asked);
        for (size_t i = 0; i < asked->len; i++)
                if (!is_documented(m, user, asked->pdata[i]))
                        fail_msg("%s as %s asked polkit for [%s]", m->name, user, list);
        for (size_t i = 0; m->actions[i]; i++) {
                g_autofree char *want = g_strdup_printf("%s %s", user, m->actions[i]);
                bool found = false;
                for (size_t j = 0; j < asked->len; j++)
                        found = found || strcmp(asked->pdata[j], want) == 0;
                if (!found)
                        fail_msg("%s as %s did not ask polkit for %s (asked: [%s])", m->name, user, m->actions[i],
                                 list);
        }
}

/* ---- calls as another user ---------------------------------------------- */

typedef struct {
        char *error;    /* D-Bus error name, "" on success */
        char *text;     /* the error message, or the reply's strings */
} outcome;

static void outcome_clear(outcome *o)
{
        g_free(o->error);
        g_free(o->text);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(outcome, outcome_clear)

/* In the child: the call, and "ERROR\tTEXT" on FD. Plain code only, no
 * cmocka: the child must always reach _exit(). */
static void child_call(int fd, const write_method *m, bool interactive)
{
        sd_bus *bus = NULL;
        sd_bus_message *call = NULL, *reply = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_message_new_method_call(bus, &call, JD_BUS_NAME, m->path, m->iface, m->member);
        if (r >= 0)
                r = m->append(call);
        if (r >= 0)
                r = sd_bus_message_set_allow_interactive_authorization(call, interactive);
        if (r < 0) {
                dprintf(fd, "test.Error.Client\tbuilding the call: %s", strerror(-r));
                return;
        }
        r = sd_bus_call(bus, call, (uint64_t) CALL_TIMEOUT_S * 1000000, &e, &reply);
        if (r < 0) {
                dprintf(fd, "%s\t%s", e.name ? e.name : "test.Error.Client", e.message ? e.message : strerror(-r));
        } else {
                dprintf(fd, "\t");
                const char *contents = NULL;
                char type;
                /* "s" (GetSerialNumber) or "as" (RestoreDefaults) */
                if (sd_bus_message_peek_type(reply, &type, &contents) > 0) {
                        const char *s;
                        if (type == 's' && sd_bus_message_read(reply, "s", &s) > 0)
                                dprintf(fd, "%s", s);
                        else if (type == 'a' && sd_bus_message_enter_container(reply, 'a', "s") > 0)
                                while (sd_bus_message_read(reply, "s", &s) > 0)
                                        dprintf(fd, "%s; ", s);
                }
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        sd_bus_message_unref(call);
        sd_bus_flush_close_unref(bus);
}

/* Calls M as USER (uid, gid and the host's supplementary groups), on a
 * new connection from a forked child. */
static outcome call_as(const char *user, const write_method *m, bool interactive)
{
        struct passwd *pw = getpwnam(user);
        assert_non_null(pw);
        uid_t uid = pw->pw_uid;
        gid_t gid = pw->pw_gid;
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(fds[0]);
                alarm(CALL_TIMEOUT_S + 30);
                if (initgroups(user, gid) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0) {
                        dprintf(fds[1], "test.Error.Client\tcannot become %s: %s", user, strerror(errno));
                        _exit(1);
                }
                child_call(fds[1], m, interactive);
                _exit(0);
        }
        close(fds[1]);
        g_autoptr(GString) buf = g_string_new(NULL);
        char chunk[4096];
        ssize_t n;
        while ((n = read(fds[0], chunk, sizeof(chunk))) != 0) {
                if (n < 0 && errno == EINTR)
                        continue;
                assert_true(n > 0);
                g_string_append_len(buf, chunk, n);
        }
        close(fds[0]);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (WIFSIGNALED(status))
                fail_msg("%s as %s: the client died of signal %d (SIGALRM: no answer in %d s)", m->name, user,
                         WTERMSIG(status), CALL_TIMEOUT_S + 30);
        const char *tab = strchr(buf->str, '\t');
        if (!tab)
                fail_msg("%s as %s: the client said \"%s\"", m->name, user, buf->str);
        return (outcome) { g_strndup(buf->str, (size_t) (tab - buf->str)), g_strdup(tab + 1) };
}

/* ---- the board copy, as a comparable text --------------------------------- */

static gint compare_names(gconstpointer a, gconstpointer b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void snapshot_dir(GString *out, const char *root, const char *rel)
{
        g_autofree char *dir = g_build_filename(root, rel, NULL);
        GDir *d = g_dir_open(dir, 0, NULL);
        if (!d)
                return;
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        for (const char *name; (name = g_dir_read_name(d));)
                g_ptr_array_add(names, g_strdup(name));
        g_dir_close(d);
        g_ptr_array_sort(names, compare_names);
        for (size_t i = 0; i < names->len; i++) {
                g_autofree char *sub = *rel ? g_build_filename(rel, names->pdata[i], NULL) : g_strdup(names->pdata[i]);
                g_autofree char *path = g_build_filename(root, sub, NULL);
                struct stat st;
                if (lstat(path, &st) < 0) {
                        g_string_append_printf(out, "%s vanished\n", sub);
                        continue;
                }
                g_string_append_printf(out, "%s mode %o", sub, (unsigned) st.st_mode);
                if (S_ISDIR(st.st_mode)) {
                        g_string_append_c(out, '\n');
                        snapshot_dir(out, root, sub);
                } else if (S_ISLNK(st.st_mode)) {
                        g_autofree char *target = g_file_read_link(path, NULL);
                        g_string_append_printf(out, " -> %s\n", target ? target : "?");
                } else {
                        /* Any write or metadata change moves ctime, which
                         * no program can set back; a replaced file has a
                         * new inode. */
                        g_string_append_printf(out, " ino %llu size %lld mtime %lld.%09ld ctime %lld.%09ld\n",
                                               (unsigned long long) st.st_ino, (long long) st.st_size,
                                               (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                                               (long long) st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
                }
        }
}

static char *snapshot(world *w)
{
        GString *out = g_string_new(NULL);
        snapshot_dir(out, w->tb->root, "");
        return g_string_free(out, FALSE);
}

/* The lines of A that B lacks, for the failure message. */
static char *missing_lines(const char *a, const char *b)
{
        g_autoptr(GHashTable) in_b = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        char **lb = g_strsplit(b, "\n", -1);
        for (char **l = lb; *l; l++)
                g_hash_table_add(in_b, g_strdup(*l));
        g_strfreev(lb);
        GString *out = g_string_new(NULL);
        char **la = g_strsplit(a, "\n", -1);
        unsigned shown = 0;
        for (char **l = la; *l && shown < 20; l++)
                if (!g_hash_table_contains(in_b, *l)) {
                        g_string_append_printf(out, "  %s\n", *l);
                        shown++;
                }
        g_strfreev(la);
        return g_string_free(out, FALSE);
}

static void assert_unchanged(const char *before, const char *after, const char *what)
{
        if (strcmp(before, after) == 0)
                return;
        g_autofree char *gone = missing_lines(before, after);
        g_autofree char *added = missing_lines(after, before);
        fail_msg("%s changed the board copy:\nbefore:\n%snow:\n%s", what, gone, added);
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
                g_autofree char *what = g_strdup_printf("%s as %s%s", m->name, user,
                                                        interactive ? " (interactive)" : "");
                g_autofree char *before = snapshot(w);
                polkit_forget(w);
                g_auto(outcome) o = call_as(user, m, interactive);
                g_autofree char *after = snapshot(w);
                assert_unchanged(before, after, what);
                if (strcmp(o.error, want) != 0)
                        fail_msg("%s: got %s \"%s\", want %s", what, *o.error ? o.error : "success", o.text, want);
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
        g_auto(outcome) o = call_as(user, m, false);
        if (*o.error)
                fail_msg("%s as %s: %s \"%s\"", name, user, o.error, o.text);
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

/* A property after a write: jetsond resamples once the reply is sent, so
 * allow it a moment. */
static void wait_u32(const char *iface, const char *prop, uint32_t want)
{
        sd_bus *bus = testbus_connect();
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        uint32_t v;
        while ((v = testbus_get_u32(bus, JD_OBJECT_PATH, iface, prop)) != want && testbus_now_us() < deadline)
                g_usleep(20000);
        sd_bus_flush_close_unref(bus);
        if (v != want)
                fail_msg("%s.%s is %u, want %u", iface, prop, v, want);
}

static void wait_bool(const char *iface, const char *prop, bool want)
{
        sd_bus *bus = testbus_connect();
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        int v = -1;
        for (;;) {
                sd_bus_error e = SD_BUS_ERROR_NULL;
                if (sd_bus_get_property_trivial(bus, JD_BUS_NAME, JD_OBJECT_PATH, iface, prop, &e, 'b', &v) < 0)
                        fail_msg("Get %s.%s: %s", iface, prop, e.message);
                if (v == want || testbus_now_us() >= deadline)
                        break;
                g_usleep(20000);
        }
        sd_bus_flush_close_unref(bus);
        if (v != want)
                fail_msg("%s.%s is %d, want %d", iface, prop, v, want);
}

static void wait_string(const char *path, const char *iface, const char *prop, const char *want)
{
        sd_bus *bus = testbus_connect();
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        g_autofree char *got = testbus_get_string(bus, path, iface, prop);
        while (strcmp(got, want) != 0 && testbus_now_us() < deadline) {
                g_usleep(20000);
                g_free(got);
                got = testbus_get_string(bus, path, iface, prop);
        }
        sd_bus_flush_close_unref(bus);
        if (strcmp(got, want) != 0)
                fail_msg("%s.%s is \"%s\", want \"%s\"", iface, prop, got, want);
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
        wait_u32(JD_IFACE_NVPMODEL, "Mode", LIVE_MODE);
        assert_tool_ran(w, "nvpmodel -m 3");

        expect_ok(w, "nobody", "NVPModel.SetDefaultMode");
        wait_u32(JD_IFACE_NVPMODEL, "DefaultMode", LIVE_MODE);

        expect_ok(w, "nobody", "JetsonClocks.SetActive");
        wait_bool(JD_IFACE_JETSON_CLOCKS, "Active", true);
        assert_tool_ran(w, "jetson_clocks");

        expect_ok(w, "nobody", "JetsonClocks.SetOnBoot");
        wait_bool(JD_IFACE_JETSON_CLOCKS, "OnBoot", true);

        empty_drop_caches(w);
        expect_ok(w, "nobody", "Memory.DropCaches");
        g_autofree char *caches = root_text(w, "proc/sys/vm/drop_caches");
        assert_string_equal(caches, "3\n");

        expect_ok(w, "nobody", "Fan.SetSpeed");
        g_autofree char *pwm = root_text(w, FAN_PWM);
        assert_string_equal(pwm, "140\n");   /* floor(55 * 255 / 100) */

        expect_ok(w, "nobody", "Fan.SetProfile");
        wait_string(FAN_PATH, JD_IFACE_FAN, "Profile", "quiet");

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
        wait_bool(JD_IFACE_GPU, "Scaling3D", false);
        g_autofree char *scaling = root_text(w, GPU_DEV "enable_3d_scaling");
        assert_string_equal(scaling, "0\n");
        expect_ok(w, "nobody", "Gpu.SetRailgate");
        wait_bool(JD_IFACE_GPU, "Railgate", false);
        g_autofree char *railgate = root_text(w, GPU_DEV "railgate_enable");
        assert_string_equal(railgate, "0\n");

        /* All four of its actions, granted by the rule: jetson_clocks
         * (switched on above) goes off, not on at boot, the GPU's
         * settings on again. */
        expect_ok(w, "nobody", "Manager.RestoreDefaults");
        wait_bool(JD_IFACE_JETSON_CLOCKS, "Active", false);
        wait_bool(JD_IFACE_JETSON_CLOCKS, "OnBoot", false);
        wait_bool(JD_IFACE_GPU, "Scaling3D", true);
        wait_bool(JD_IFACE_GPU, "Railgate", true);
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
        g_autoptr(GPtrArray) asked = polkit_asked(w);
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
                g_auto(outcome) o = call_as("bin", m, true);
                g_autofree char *after = snapshot(w);
                assert_unchanged(before, after, m->name);
                assert_string_equal(o.error, SD_BUS_ERROR_ACCESS_DENIED);
                assert_asked_some(w, m, "bin");
        }
        expect_ok(w, "nobody", "Gpu.SetScaling3D");
        wait_bool(JD_IFACE_GPU, "Scaling3D", false);
        g_autofree char *governor = root_text(w, THOR_GPC);
        assert_string_equal(governor, "performance\n");
        expect_ok(w, "nobody", "Gpu.SetRailgate");
        wait_bool(JD_IFACE_GPU, "Railgate", false);
        g_autofree char *pm = root_text(w, THOR_PM);
        assert_string_equal(pm, "on\n");
        expect_ok(w, "nobody", "Manager.RestoreDefaults");
        wait_bool(JD_IFACE_GPU, "Scaling3D", true);
        wait_bool(JD_IFACE_GPU, "Railgate", true);
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
