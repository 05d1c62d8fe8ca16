#include "testbus.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jetsond-dbus.h"
#include "glib-compat.h"

uint64_t testbus_now_us(void)
{
        return (uint64_t) g_get_monotonic_time();
}

static void remove_tree(const char *dir)
{
        const char *argv[] = { "rm", "-rf", dir, NULL };
        g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
}

testbus *testbus_new(const char *extra_conf)
{
        testbus *tb = g_new0(testbus, 1);
        tb->dir = g_strdup("/tmp/jetsond-test.XXXXXX");
        assert_non_null(g_mkdtemp(tb->dir));
        /* 0755: polkitd and test users must reach the socket. */
        assert_int_equal(chmod(tb->dir, 0755), 0);
        g_autofree char *services = g_build_filename(tb->dir, "services", NULL);
        assert_int_equal(mkdir(services, 0755), 0);

        g_autofree char *tmpl = NULL;
        assert_true(g_file_get_contents(TESTS_DIR "/integration/system-bus.conf.in", &tmpl, NULL, NULL));
        g_autoptr(GString) conf = g_string_new(tmpl);
        test_string_replace(conf, "@BUSDIR@", tb->dir, 0);
        test_string_replace(conf, "@SRCDIR@", SOURCE_DIR, 0);
        test_string_replace(conf, "@EXTRA@", extra_conf ? extra_conf : "", 0);
        g_autofree char *conf_path = g_build_filename(tb->dir, "bus.conf", NULL);
        assert_true(g_file_set_contents(conf_path, conf->str, -1, NULL));

        g_autofree char *config_arg = g_strdup_printf("--config-file=%s", conf_path);
        const char *argv[] = { "dbus-daemon", config_arg, "--fork", "--print-address=1", "--print-pid=1", NULL };
        g_autofree char *out = NULL;
        int status = testbus_run(argv, &out);
        assert_int_equal(status, 0);
        char **lines = g_strsplit(out, "\n", 3);
        assert_non_null(lines[0]);
        assert_non_null(lines[1]);
        tb->address = g_strdup(lines[0]);
        tb->bus_pid = (GPid) atoi(lines[1]);
        g_strfreev(lines);
        assert_true(tb->bus_pid > 0);
        g_setenv("DBUS_SYSTEM_BUS_ADDRESS", tb->address, TRUE);
        return tb;
}

void testbus_make_root(testbus *tb, const char *board)
{
        tb->root = g_build_filename(tb->dir, "root", NULL);
        const char *argv[] = { "sh", FIXTURES_DIR "/make-sysroot.sh", board, tb->root, NULL };
        g_autofree char *out = NULL;
        assert_int_equal(testbus_run(argv, &out), 0);
}

void testbus_start_simulator(testbus *tb)
{
        const char *argv[] = { "/usr/bin/python3", FIXTURES_DIR "/simulate.py", tb->root, "--period-ms", "50", NULL };
        GError *error = NULL;
        if (!g_spawn_async(NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &tb->simulator_pid,
                           &error))
                fail_msg("cannot start the simulator: %s", error->message);
        /* Its first tick rewrites proc/stat: wait for it, so that rates are
         * there when jetsond starts, however long Python takes to start on
         * a busy machine. */
        g_autofree char *stat = g_build_filename(tb->root, "proc/stat", NULL);
        g_autofree char *before = NULL, *now = NULL;
        g_file_get_contents(stat, &before, NULL, NULL);
        for (uint64_t end = testbus_now_us() + 30 * G_USEC_PER_SEC;
             g_free(now), g_file_get_contents(stat, &now, NULL, NULL), !g_strcmp0(now, before);) {
                if (testbus_now_us() > end)
                        fail_msg("the simulator did not tick within 30 s");
                g_usleep(10000);
        }
}

void testbus_simulate_once(testbus *tb, const char *const *extra)
{
        GPtrArray *argv = g_ptr_array_new();
        const char *head[] = { "/usr/bin/python3", FIXTURES_DIR "/simulate.py", tb->root, "--duration-s", "0" };
        for (size_t i = 0; i < G_N_ELEMENTS(head); i++)
                g_ptr_array_add(argv, (gpointer) head[i]);
        for (size_t i = 0; extra && extra[i]; i++)
                g_ptr_array_add(argv, (gpointer) extra[i]);
        g_ptr_array_add(argv, NULL);
        g_autofree char *out = NULL;
        int status = testbus_run((const char **) argv->pdata, &out);
        g_ptr_array_free(argv, TRUE);
        if (status != 0)
                fail_msg("simulate.py failed (%d): %s", status, out ? out : "");
}

sd_bus *testbus_connect(void)
{
        sd_bus *bus = NULL;
        int r = sd_bus_open_system(&bus);
        if (r < 0)
                fail_msg("cannot connect to the test bus: %s", strerror(-r));
        return bus;
}

static bool name_has_owner(sd_bus *bus, const char *name)
{
        int has = 0;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                               "NameHasOwner", &e, &reply, "s", name) >= 0)
                sd_bus_message_read(reply, "b", &has);
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return has;
}

void testbus_add_wrapper(GPtrArray *argv, const char *env)
{
        const char *wrapper = g_getenv(env);
        if (!wrapper || !*wrapper)
                return;
        char **words = NULL;
        assert_true(g_shell_parse_argv(wrapper, NULL, &words, NULL));
        for (char **w = words; *w; w++)
                g_ptr_array_add(argv, g_strdup(*w));
        g_strfreev(words);
}

bool testbus_daemon_wrapped(void)
{
        const char *w = g_getenv("JETSOND_TEST_WRAPPER");
        return w && *w;
}

/* JETSOND_TEST_WRAPPER (e.g. "valgrind --error-exitcode=1 ...") runs the
 * daemon under a tool; the wait for its name is long enough for that. */
void testbus_start_daemon(testbus *tb, const char *const *args)
{
        g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func(g_free);
        testbus_add_wrapper(argv, "JETSOND_TEST_WRAPPER");
        g_ptr_array_add(argv, g_strdup(JETSOND_PATH));
        g_ptr_array_add(argv, g_strdup_printf("--sysroot=%s", tb->root));
        g_ptr_array_add(argv, g_strdup("--system"));
        for (size_t i = 0; args && args[i]; i++)
                g_ptr_array_add(argv, g_strdup(args[i]));
        g_ptr_array_add(argv, NULL);

        g_free(tb->daemon_log);   /* a restarted daemon: the same file */
        tb->daemon_log = g_build_filename(tb->dir, "jetsond.log", NULL);
        int log_fd = open(tb->daemon_log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        assert_true(log_fd >= 0);
        GError *error = NULL;
        gboolean ok = test_spawn_logged((const char *const *)argv->pdata,
                                        G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, &tb->daemon_pid, log_fd,
                                        &error);
        close(log_fd);
        if (!ok)
                fail_msg("cannot start jetsond: %s", error->message);

        sd_bus *bus = testbus_connect();
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        while (!name_has_owner(bus, JD_BUS_NAME)) {
                int status;
                if (waitpid(tb->daemon_pid, &status, WNOHANG) == tb->daemon_pid) {
                        tb->daemon_pid = 0;
                        g_autofree char *log = NULL;
                        g_file_get_contents(tb->daemon_log, &log, NULL, NULL);
                        fail_msg("jetsond exited (status %d) before owning its name:\n%s", status, log);
                }
                if (testbus_now_us() > deadline)
                        fail_msg("jetsond did not own %s within 30 s", JD_BUS_NAME);
                g_usleep(5000);
        }
        sd_bus_flush_close_unref(bus);
}

int testbus_stop_daemon(testbus *tb)
{
        int status = -1;
        if (tb->daemon_pid <= 0)
                return status;
        kill(tb->daemon_pid, SIGTERM);
        /* A daemon that does not exit fails the test, not hangs it. */
        uint64_t deadline = testbus_now_us() + 20 * G_USEC_PER_SEC;
        while (waitpid(tb->daemon_pid, &status, WNOHANG) == 0) {
                if (testbus_now_us() > deadline) {
                        fprintf(stderr, "jetsond did not exit 20 s after SIGTERM: killed\n");
                        kill(tb->daemon_pid, SIGKILL);
                        waitpid(tb->daemon_pid, &status, 0);
                        break;
                }
                g_usleep(5000);
        }
        tb->daemon_pid = 0;
        return status;
}

bool testbus_have_fuse(void)
{
        return access("/dev/fuse", R_OK | W_OK) == 0;
}

void testbus_slowfs_rule(testbus *tb, const char *file, const char *text)
{
        g_autofree char *path = g_build_filename(tb->slowfs_control, file, NULL);
        g_autofree char *tmp = g_strconcat(path, ".new", NULL);
        assert_true(g_file_set_contents(tmp, text, -1, NULL));
        assert_int_equal(rename(tmp, path), 0);
}

void testbus_mount_slowfs(testbus *tb)
{
        tb->slowfs_mount = g_build_filename(tb->dir, "slowfs", NULL);
        tb->slowfs_control = g_build_filename(tb->dir, "slowfs-control", NULL);
        assert_int_equal(g_mkdir(tb->slowfs_mount, 0755), 0);
        assert_int_equal(g_mkdir(tb->slowfs_control, 0755), 0);
        g_autofree char *log = g_build_filename(tb->dir, "slowfs.log", NULL);
        int log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        const char *argv[] = { SLOWFS_PATH, tb->root, tb->slowfs_mount, tb->slowfs_control, NULL };
        GError *error = NULL;
        if (!test_spawn_logged(argv, G_SPAWN_DO_NOT_REAP_CHILD, &tb->slowfs_pid, log_fd, &error))
                fail_msg("cannot start slowfs: %s", error->message);
        close(log_fd);
        g_autofree char *probe = g_build_filename(tb->slowfs_mount, "proc", "stat", NULL);
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        while (!g_file_test(probe, G_FILE_TEST_EXISTS)) {
                if (testbus_now_us() > deadline || waitpid(tb->slowfs_pid, NULL, WNOHANG) == tb->slowfs_pid) {
                        g_autofree char *text = NULL;
                        g_file_get_contents(log, &text, NULL, NULL);
                        fail_msg("slowfs did not mount:\n%s", text ? text : "");
                }
                g_usleep(10000);
        }
        g_free(tb->root);
        tb->root = g_strdup(tb->slowfs_mount);
}

static void unmount_slowfs(testbus *tb)
{
        if (tb->slowfs_pid <= 0)
                return;
        /* Blocked reads end first, or slowfs would wait for them. */
        testbus_slowfs_rule(tb, "block", "");
        testbus_slowfs_rule(tb, "delay", "");
        kill(tb->slowfs_pid, SIGTERM);
        waitpid(tb->slowfs_pid, NULL, 0);
        const char *argv[] = { "fusermount3", "-u", "-z", tb->slowfs_mount, NULL };
        g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL |
                     G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL, NULL, NULL, NULL);
        tb->slowfs_pid = 0;
}

void testbus_free(testbus *tb)
{
        if (!tb)
                return;
        int status = testbus_stop_daemon(tb);
        if (status != -1 && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
                g_autofree char *log = NULL;
                g_file_get_contents(tb->daemon_log, &log, NULL, NULL);
                fprintf(stderr, "jetsond log:\n%s\n", log ? log : "");
        }
        if (tb->simulator_pid > 0) {
                kill(tb->simulator_pid, SIGTERM);
                waitpid(tb->simulator_pid, NULL, 0);
        }
        for (size_t i = 0; i < tb->n_mocks; i++) {
                kill(tb->mock_pids[i], SIGTERM);
                waitpid(tb->mock_pids[i], NULL, 0);
        }
        if (tb->bus_pid > 0)
                kill(tb->bus_pid, SIGTERM);
        unmount_slowfs(tb);
        g_free(tb->slowfs_mount);
        g_free(tb->slowfs_control);
        g_unsetenv("DBUS_SYSTEM_BUS_ADDRESS");
        remove_tree(tb->dir);
        g_free(tb->dir);
        g_free(tb->address);
        g_free(tb->root);
        g_free(tb->daemon_log);
        g_free(tb);
}

void testbus_pump(sd_bus *bus, uint64_t timeout_us, const bool *done)
{
        uint64_t deadline = testbus_now_us() + timeout_us;
        while (!(done && *done)) {
                int r = sd_bus_process(bus, NULL);
                assert_true(r >= 0);
                if (r > 0)
                        continue;
                uint64_t now = testbus_now_us();
                if (now >= deadline)
                        break;
                sd_bus_wait(bus, deadline - now);
        }
}

int testbus_run(const char *const *argv, char **out)
{
        int status = -1;
        GError *error = NULL;
        if (!g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, out, NULL, &status,
                          &error))
                fail_msg("cannot run %s: %s", argv[0], error->message);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static sd_bus_message *get_property(sd_bus *bus, const char *path, const char *iface, const char *prop,
                                    const char *sig)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = sd_bus_get_property(bus, JD_BUS_NAME, path, iface, prop, &e, &reply, sig);
        if (r < 0)
                fail_msg("Get %s.%s on %s: %s: %s", iface, prop, path, e.name, e.message);
        return reply;
}

char *testbus_get_string(sd_bus *bus, const char *path, const char *iface, const char *prop)
{
        sd_bus_message *reply = get_property(bus, path, iface, prop, "s");
        const char *s = NULL;
        assert_true(sd_bus_message_read(reply, "s", &s) > 0);
        char *copy = g_strdup(s);
        sd_bus_message_unref(reply);
        return copy;
}

int testbus_match_metrics(sd_bus *bus, sd_bus_slot **slot, const char *member, uint64_t period_us,
                          sd_bus_message_handler_t handler, void *userdata)
{
        g_autofree char *stream = g_str_has_suffix(member, "At") ? g_strdup_printf(",arg0='%" PRIu64 "'", period_us)
                                                                 : g_strdup("");
        g_autofree char *rule = g_strdup_printf("type='signal',sender='%s',path='%s',interface='%s',member='%s'%s",
                                                JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, member, stream);
        return sd_bus_add_match(bus, slot, rule, handler, userdata);
}

void testbus_skip_period(sd_bus_message *m)
{
        const char *member = sd_bus_message_get_member(m); /* NULL in an answer */
        if (member && g_str_has_suffix(member, "At"))
                assert_true(sd_bus_message_skip(m, "s") >= 0);
}

uint64_t testbus_get_u64(sd_bus *bus, const char *path, const char *iface, const char *prop)
{
        sd_bus_message *reply = get_property(bus, path, iface, prop, "t");
        uint64_t v = 0;
        assert_true(sd_bus_message_read(reply, "t", &v) > 0);
        sd_bus_message_unref(reply);
        return v;
}

uint32_t testbus_get_u32(sd_bus *bus, const char *path, const char *iface, const char *prop)
{
        sd_bus_message *reply = get_property(bus, path, iface, prop, "u");
        uint32_t v = 0;
        assert_true(sd_bus_message_read(reply, "u", &v) > 0);
        sd_bus_message_unref(reply);
        return v;
}

bool testbus_get_bool(sd_bus *bus, const char *path, const char *iface, const char *prop)
{
        sd_bus_message *reply = get_property(bus, path, iface, prop, "b");
        int v = 0;
        assert_true(sd_bus_message_read(reply, "b", &v) > 0);
        sd_bus_message_unref(reply);
        return v;
}

testbus *testbus_start(void **state, const char *board, const char *const *args)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, board);
        testbus_start_daemon(tb, args);
        return tb;
}

void testbus_stop_cleanly(testbus *tb)
{
        int status = testbus_stop_daemon(tb);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
                return;
        /* What jetsond (or its sanitizer) said on the way out. */
        g_autofree char *log = NULL;
        g_file_get_contents(tb->daemon_log, &log, NULL, NULL);
        fail_msg("jetsond did not exit cleanly (status 0x%x):\n%s", (unsigned) status, log ? log : "");
}

int testbus_teardown(void **state)
{
        testbus_free(*state);
        return 0;
}

void testbus_start_mock(testbus *tb, const char *template, const char *bus_name)
{
        assert_true(tb->n_mocks < G_N_ELEMENTS(tb->mock_pids));
        g_autofree char *log_path = g_strdup_printf("%s/mock-%s.log", tb->dir, template);
        int log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        assert_true(log_fd >= 0);
        const char *argv[] = { "/usr/bin/python3", "-m", "dbusmock", "--system", "--template", template, NULL };
        GPid pid;
        GError *error = NULL;
        gboolean ok = test_spawn_logged(argv, G_SPAWN_DO_NOT_REAP_CHILD, &pid, log_fd, &error);
        close(log_fd);
        if (!ok)
                fail_msg("cannot start dbusmock %s: %s", template, error->message);
        tb->mock_pids[tb->n_mocks++] = pid;

        sd_bus *bus = testbus_connect();
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        while (!name_has_owner(bus, bus_name)) {
                if (waitpid(pid, NULL, WNOHANG) == pid) {
                        tb->mock_pids[--tb->n_mocks] = 0;
                        g_autofree char *log = NULL;
                        g_file_get_contents(log_path, &log, NULL, NULL);
                        fail_msg("dbusmock %s exited:\n%s", template, log);
                }
                if (testbus_now_us() > deadline)
                        fail_msg("dbusmock %s did not own %s within 30 s", template, bus_name);
                g_usleep(5000);
        }
        sd_bus_flush_close_unref(bus);
}

void testbus_mock_call(const char *bus_name, const char *path, const char *method, const char *types, ...)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        va_list ap;
        va_start(ap, types);
        int r = sd_bus_call_methodv(bus, bus_name, path, "org.freedesktop.DBus.Mock", method, &e, NULL, types, ap);
        va_end(ap);
        if (r < 0)
                fail_msg("mock %s.%s: %s: %s", bus_name, method, e.name, e.message);
        sd_bus_flush_close_unref(bus);
}

void testbus_start_polkit(testbus *tb, const char *const *allowed)
{
        testbus_start_mock(tb, "polkitd", TESTBUS_POLKIT_NAME);
        testbus_polkit_allow(allowed);
}

void testbus_polkit_allow(const char *const *actions)
{
        sd_bus *bus = testbus_connect();
        sd_bus_message *m = NULL;
        sd_bus_error e = SD_BUS_ERROR_NULL;
        assert_true(sd_bus_message_new_method_call(bus, &m, TESTBUS_POLKIT_NAME, TESTBUS_POLKIT_PATH,
                                                   "org.freedesktop.DBus.Mock", "SetAllowed") >= 0);
        assert_true(sd_bus_message_append_strv(m, (char **) actions) >= 0);
        if (sd_bus_call(bus, m, 0, &e, NULL) < 0)
                fail_msg("polkit mock SetAllowed: %s: %s", e.name, e.message);
        sd_bus_message_unref(m);
        sd_bus_flush_close_unref(bus);
}

char *testbus_root_file(testbus *tb, const char *rel)
{
        g_autofree char *path = g_build_filename(tb->root, rel, NULL);
        char *text = NULL;
        if (!g_file_get_contents(path, &text, NULL, NULL))
                return g_strdup("<missing>");
        return text;
}

static char *callv(char **message, const char *path, const char *iface, const char *method, const char *types,
                   va_list ap)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = sd_bus_call_methodv(bus, JD_BUS_NAME, path, iface, method, &e, NULL, types, ap);
        char *name = g_strdup(r < 0 ? e.name : "");
        if (message)
                *message = g_strdup(r < 0 && e.message ? e.message : "");
        sd_bus_error_free(&e);
        sd_bus_flush_close_unref(bus);
        return name;
}

char *testbus_call(char **message, const char *path, const char *iface, const char *method, const char *types, ...)
{
        va_list ap;
        va_start(ap, types);
        char *name = callv(message, path, iface, method, types, ap);
        va_end(ap);
        return name;
}

void testbus_must_call(const char *path, const char *iface, const char *method, const char *types, ...)
{
        va_list ap;
        va_start(ap, types);
        g_autofree char *message = NULL;
        g_autofree char *name = callv(&message, path, iface, method, types, ap);
        va_end(ap);
        if (*name)
                fail_msg("%s.%s: %s: %s", iface, method, name, message);
}

static int on_pending_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) ret_error;
        testbus_pending *p = userdata;
        const sd_bus_error *e = sd_bus_message_get_error(m);
        p->error = g_strdup(e ? e->name : "");
        p->done = true;
        return 0;
}

testbus_pending *testbus_call_start(const char *path, const char *iface, const char *method, const char *types, ...)
{
        testbus_pending *p = g_new0(testbus_pending, 1);
        p->bus = testbus_connect();
        sd_bus_message *m = NULL;
        assert_true(sd_bus_message_new_method_call(p->bus, &m, JD_BUS_NAME, path, iface, method) >= 0);
        va_list ap;
        va_start(ap, types);
        assert_true(sd_bus_message_appendv(m, types, ap) >= 0);
        va_end(ap);
        assert_true(sd_bus_call_async(p->bus, NULL, m, on_pending_reply, p, 60 * G_USEC_PER_SEC) >= 0);
        sd_bus_message_unref(m);
        assert_true(sd_bus_flush(p->bus) >= 0);
        return p;
}

const char *testbus_call_finish(testbus_pending *p)
{
        testbus_pump(p->bus, 30 * G_USEC_PER_SEC, &p->done);
        if (!p->done)
                fail_msg("no answer within 30 s");
        return p->error;
}

void testbus_pending_free(testbus_pending *p)
{
        if (p->bus)
                sd_bus_flush_close_unref(p->bus);
        g_free(p->error);
        g_free(p);
}

testbus *testbus_start_with_mocks(void **state, const char *board, const char *const *allowed, const char *unit)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, board);
        if (unit)
                testbus_start_systemd(tb, unit);
        testbus_start_polkit(tb, allowed);
        testbus_start_daemon(tb, NULL);
        return tb;
}

void testbus_systemd_job(const char *method, const char *unit)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        if (sd_bus_call_method(bus, TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "org.freedesktop.systemd1.Manager",
                               method, &e, NULL, "ss", unit, "replace") < 0)
                fail_msg("systemd mock %s: %s", method, e.message);
        sd_bus_flush_close_unref(bus);
}

void testbus_start_systemd(testbus *tb, const char *unit)
{
        testbus_start_mock(tb, "systemd", TESTBUS_SYSTEMD_NAME);
        testbus_mock_call(TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "AddMockUnit", "s", unit);
        /* Real systemd has Subscribe(); the template lacks it. */
        testbus_mock_call(TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "AddMethod", "sssss",
                          "org.freedesktop.systemd1.Manager", "Subscribe", "", "", "");
        /* ... and these, for JetsonClocks.SetOnBoot (jetsond.service). */
        testbus_mock_call(TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "AddMethod", "sssss",
                          "org.freedesktop.systemd1.Manager", "EnableUnitFiles", "asbb", "ba(sss)",
                          "ret = (True, [('symlink', '/etc/systemd/system/multi-user.target.wants/' + args[0][0], "
                          "'/lib/systemd/system/' + args[0][0])])");
        testbus_mock_call(TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "AddMethod", "sssss",
                          "org.freedesktop.systemd1.Manager", "DisableUnitFiles", "asb", "a(sss)",
                          "ret = [('unlink', '/etc/systemd/system/multi-user.target.wants/' + args[0][0], '')]");
        testbus_mock_call(TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "AddMethod", "sssss",
                          "org.freedesktop.systemd1.Manager", "Reload", "", "", "");
        testbus_systemd_job("StartUnit", unit);
        testbus_mock_call(TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "ClearCalls", "");
}

char *testbus_systemd_unit_calls(bool clear)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        if (sd_bus_call_method(bus, TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "org.freedesktop.DBus.Mock",
                               "GetCalls", &e, &reply, "") < 0)
                fail_msg("GetCalls: %s", e.message);
        GString *out = g_string_new("");
        assert_true(sd_bus_message_enter_container(reply, 'a', "(tsav)") > 0);
        uint64_t when;
        const char *method;
        while (sd_bus_message_enter_container(reply, 'r', "tsav") > 0) {
                assert_true(sd_bus_message_read(reply, "ts", &when, &method) > 0);
                bool unit_job = strcmp(method, "StartUnit") == 0 || strcmp(method, "StopUnit") == 0;
                bool unit_files = strcmp(method, "EnableUnitFiles") == 0 || strcmp(method, "DisableUnitFiles") == 0;
                assert_true(sd_bus_message_enter_container(reply, 'a', "v") > 0);
                const char *arg0 = NULL;
                char **files = NULL;
                if (unit_job)
                        assert_true(sd_bus_message_read(reply, "v", "s", &arg0) > 0);
                if (unit_files) {
                        assert_true(sd_bus_message_enter_container(reply, 'v', "as") > 0);
                        assert_true(sd_bus_message_read_strv(reply, &files) > 0);
                        assert_true(sd_bus_message_exit_container(reply) > 0);
                }
                while (sd_bus_message_skip(reply, "v") > 0)
                        ;
                assert_true(sd_bus_message_exit_container(reply) > 0);
                assert_true(sd_bus_message_exit_container(reply) > 0);
                if (unit_job)
                        g_string_append_printf(out, "%s %s\n", method, arg0);
                if (unit_files) {
                        g_autofree char *joined = g_strjoinv(" ", files);
                        g_string_append_printf(out, "%s %s\n", method, joined);
                }
                if (strcmp(method, "Reload") == 0)
                        g_string_append(out, "Reload\n");
                g_strfreev(files);
        }
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        if (clear)
                testbus_mock_call(TESTBUS_SYSTEMD_NAME, TESTBUS_SYSTEMD_PATH, "ClearCalls", "");
        return g_string_free(out, FALSE);
}
