/* NVPModel, JetsonClocks and Board.GetSerialNumber behind polkit, with
 * python-dbusmock's polkitd (issue 4). For each action: denied when
 * polkit denies exactly that action and allows every other one
 * (AccessDenied, no file changed, no tool run), and allowed when polkit
 * allows only that action (the effect the contract describes, on the
 * fixture files and in the fake tools' .fake/calls.log, and
 * PropertiesChanged). Plus the outcomes of nvpmodel itself: an unknown ID
 * (InvalidArgs before polkit is asked), a mode that needs a reboot, a
 * tool error and a hung tool. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "jetsond-dbus.h"
#include "testbus.h"

/* Orin Nano: modes 0 15W, 1 25W (current and default), 2 MAXN_SUPER,
 * 3 7W (needs a reboot: 4 cores online instead of 6). */
#define BOARD "orin-nano-jp62"
#define NVPMODEL_CONF "etc/nvpmodel/nvpmodel_p3767_0005_super.conf"
#define NVPMODEL_STATUS "var/lib/nvpmodel/status"
#define CPU0_MIN "sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq"
#define CPU0_MAX "sys/devices/system/cpu/cpu0/cpufreq/scaling_max_freq"
#define FAN_PWM "sys/devices/platform/pwm-fan/hwmon/hwmon0/pwm1"
#define CLOCKS_STORE "var/lib/jetsond/l4t_dfs.conf"
#define CLOCKS_STATE "var/lib/jetsond/jetson-clocks.state"
#define SERIAL "1423224056789"
#define CALLS ".fake/calls.log"

static const char *const all_actions[] = { JD_ACTION_READ_SERIAL, JD_ACTION_SET_FAN, JD_ACTION_SET_NVPMODEL,
                                           JD_ACTION_SET_JETSON_CLOCKS, JD_ACTION_MANAGE_SWAP,
                                           JD_ACTION_DROP_CACHES, NULL };

/* polkit allows every action but DENIED: only DENIED may gate the method. */
static void deny_only(const char *denied)
{
        const char *others[G_N_ELEMENTS(all_actions)];
        size_t n = 0;
        for (size_t i = 0; all_actions[i]; i++)
                if (strcmp(all_actions[i], denied) != 0)
                        others[n++] = all_actions[i];
        others[n] = NULL;
        assert_int_equal(n, G_N_ELEMENTS(all_actions) - 2);
        testbus_polkit_allow(others);
}

static void start_polkit_allowing(testbus *tb, const char *allowed)
{
        const char *only[] = { allowed, NULL };
        testbus_start_polkit(tb, only);
}

/* What the fake tools logged since BEFORE (which must still be its start). */
static char *calls_since(testbus *tb, const char *before)
{
        g_autofree char *now = testbus_root_file(tb, CALLS);
        if (strcmp(before, "<missing>") == 0)
                return g_strdup(strcmp(now, "<missing>") == 0 ? "" : now);
        assert_true(g_str_has_prefix(now, before));
        return g_strdup(now + strlen(before));
}

/* ---- PropertiesChanged ------------------------------------------------ */

typedef struct {
        sd_bus *bus;
        sd_bus_slot *slot;
        GPtrArray *seen;              /* "Interface.Property" */
} watch;

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) error;
        watch *w = userdata;
        const char *iface = NULL;
        if (sd_bus_message_read(m, "s", &iface) < 0 || sd_bus_message_enter_container(m, 'a', "{sv}") < 0)
                return 0;
        while (sd_bus_message_enter_container(m, 'e', "sv") > 0) {
                const char *name = NULL;
                if (sd_bus_message_read(m, "s", &name) < 0 || sd_bus_message_skip(m, "v") < 0)
                        return 0;
                g_ptr_array_add(w->seen, g_strdup_printf("%s.%s", iface, name));
                sd_bus_message_exit_container(m);
        }
        sd_bus_message_exit_container(m);
        char **invalidated = NULL;
        if (sd_bus_message_read_strv(m, &invalidated) >= 0)
                for (char **i = invalidated; i && *i; i++)
                        g_ptr_array_add(w->seen, g_strdup_printf("%s.%s", iface, *i));
        g_strfreev(invalidated);
        return 0;
}

static watch *watch_new(void)
{
        watch *w = g_new0(watch, 1);
        w->bus = testbus_connect();
        w->seen = g_ptr_array_new_with_free_func(g_free);
        assert_true(sd_bus_match_signal(w->bus, &w->slot, JD_BUS_NAME, JD_OBJECT_PATH,
                                        "org.freedesktop.DBus.Properties", "PropertiesChanged",
                                        on_properties_changed, w) >= 0);
        /* sd_bus_match_signal() waits for the bus to confirm the match. */
        return w;
}

static bool watch_has(const watch *w, const char *key)
{
        for (size_t i = 0; i < w->seen->len; i++)
                if (strcmp(w->seen->pdata[i], key) == 0)
                        return true;
        return false;
}

/* Pumps until KEY ("Interface.Property") was announced, at most 20 s. */
static void watch_wait(watch *w, const char *key)
{
        uint64_t deadline = testbus_now_us() + 20 * G_USEC_PER_SEC;
        while (!watch_has(w, key) && testbus_now_us() < deadline)
                testbus_pump(w->bus, 100000, NULL);
        if (!watch_has(w, key))
                fail_msg("no PropertiesChanged for %s within 20 s", key);
}

static void watch_free(watch *w)
{
        sd_bus_slot_unref(w->slot);
        sd_bus_flush_close_unref(w->bus);
        g_ptr_array_unref(w->seen);
        g_free(w);
}

/* ---- NVPModel: set-nvpmodel -------------------------------------------- */

static void check_nvpmodel_denied(testbus *tb)
{
        deny_only(JD_ACTION_SET_NVPMODEL);
        g_autofree char *conf = testbus_root_file(tb, NVPMODEL_CONF);
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        g_autofree char *calls = testbus_root_file(tb, CALLS);

        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 0);
        assert_string_equal(err, SD_BUS_ERROR_ACCESS_DENIED);
        g_autofree char *err2 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "u", 2);
        assert_string_equal(err2, SD_BUS_ERROR_ACCESS_DENIED);

        g_autofree char *ran = calls_since(tb, calls);
        assert_string_equal(ran, "");
        g_autofree char *conf_after = testbus_root_file(tb, NVPMODEL_CONF);
        assert_string_equal(conf_after, conf);
        g_autofree char *status_after = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status_after, status);
        sd_bus *bus = testbus_connect();
        assert_int_equal(testbus_get_u32(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), 1);
        assert_int_equal(testbus_get_u32(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "DefaultMode"), 1);
        sd_bus_flush_close_unref(bus);
}

static void test_set_mode_allowed(void **state)
{
        testbus *tb = testbus_start(state, BOARD, NULL);
        start_polkit_allowing(tb, JD_ACTION_SET_NVPMODEL);
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        g_autofree char *conf = testbus_root_file(tb, NVPMODEL_CONF);
        watch *w = watch_new();

        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 0);
        assert_string_equal(err, "");
        g_autofree char *ran = calls_since(tb, calls);
        assert_string_equal(ran, "nvpmodel -m 0\n");
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status, "pmode:0000 fmode:quiet\n");
        g_autofree char *cpu_max = testbus_root_file(tb, CPU0_MAX);
        assert_string_equal(cpu_max, "1497600\n");
        g_autofree char *conf_after = testbus_root_file(tb, NVPMODEL_CONF);
        assert_string_equal(conf_after, conf);

        watch_wait(w, JD_IFACE_NVPMODEL ".Mode");
        watch_wait(w, JD_IFACE_NVPMODEL ".ModeName");
        assert_false(watch_has(w, JD_IFACE_NVPMODEL ".DefaultMode"));
        assert_int_equal(testbus_get_u32(w->bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), 0);
        g_autofree char *name = testbus_get_string(w->bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "ModeName");
        assert_string_equal(name, "15W");
        assert_int_equal(testbus_get_u32(w->bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "DefaultMode"), 1);
        watch_free(w);
        testbus_stop_cleanly(tb);
}

/* "Switching to the current mode succeeds without doing anything", and
 * "Setting the current default again succeeds without doing anything". */
static void test_set_current_mode_and_default(void **state)
{
        testbus *tb = testbus_start(state, BOARD, NULL);
        start_polkit_allowing(tb, JD_ACTION_SET_NVPMODEL);
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 1);
        assert_string_equal(err, "");
        g_autofree char *ran = calls_since(tb, calls);
        assert_string_equal(ran, "");
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status, "pmode:0001 fmode:quiet\n");

        /* The same for the current boot default: the file is not even
         * rewritten (same inode, same bytes). */
        g_autofree char *conf_path = g_build_filename(tb->root, NVPMODEL_CONF, NULL);
        g_autofree char *conf = testbus_root_file(tb, NVPMODEL_CONF);
        struct stat before, after;
        assert_int_equal(stat(conf_path, &before), 0);
        g_autofree char *err2 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "u", 1);
        assert_string_equal(err2, "");
        assert_int_equal(stat(conf_path, &after), 0);
        assert_int_equal(after.st_ino, before.st_ino);
        g_autofree char *conf_after = testbus_root_file(tb, NVPMODEL_CONF);
        assert_string_equal(conf_after, conf);
        g_autofree char *ran2 = calls_since(tb, calls);
        assert_string_equal(ran2, "");
        testbus_stop_cleanly(tb);
}

/* An unknown ID is refused before polkit is asked: polkit denies
 * everything and holds every question, and the answer still comes at
 * once, with nothing held. */
static void test_unknown_id_never_reaches_polkit(void **state)
{
        testbus *tb = testbus_start(state, BOARD, NULL);
        testbus_start_polkit(tb, NULL);
        testbus_mock_call(TESTBUS_POLKIT_NAME, TESTBUS_POLKIT_PATH, "SimulateHang", "b", 1);
        g_autofree char *conf = testbus_root_file(tb, NVPMODEL_CONF);
        g_autofree char *calls = testbus_root_file(tb, CALLS);

        g_autofree char *msg = NULL;
        g_autofree char *err = testbus_call(&msg, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 4);
        assert_string_equal(err, SD_BUS_ERROR_INVALID_ARGS);
        assert_non_null(strstr(msg, "4"));
        g_autofree char *err2 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "u", 4);
        assert_string_equal(err2, SD_BUS_ERROR_INVALID_ARGS);
        g_autofree char *err3 =
                testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", (uint32_t) UINT32_MAX);
        assert_string_equal(err3, SD_BUS_ERROR_INVALID_ARGS);

        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int held = -1;
        sd_bus_message *reply = NULL;
        assert_true(sd_bus_call_method(bus, TESTBUS_POLKIT_NAME, TESTBUS_POLKIT_PATH, "org.freedesktop.DBus.Mock",
                                       "HaveHangingCalls", &e, &reply, "") >= 0);
        assert_true(sd_bus_message_read(reply, "b", &held) > 0);
        assert_int_equal(held, 0);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);

        g_autofree char *ran = calls_since(tb, calls);
        assert_string_equal(ran, "");
        g_autofree char *conf_after = testbus_root_file(tb, NVPMODEL_CONF);
        assert_string_equal(conf_after, conf);
        testbus_stop_cleanly(tb);
}

/* The real nvpmodel behind a shell that keeps what it got on stdin in
 * .fake/nvpmodel.stdin: the reboot prompt must read end-of-file. */
static void wrap_nvpmodel_stdin(testbus *tb)
{
        g_autofree char *tool = g_build_filename(tb->root, "usr/sbin/nvpmodel", NULL);
        g_autofree char *real = g_build_filename(tb->root, "usr/sbin/nvpmodel.real", NULL);
        assert_int_equal(rename(tool, real), 0);
        static const char wrapper[] =
                "#!/bin/sh\n"
                "root=$(dirname \"$(dirname \"$(dirname \"$(readlink -f \"$0\")\")\")\")\n"
                "cat >\"$root/.fake/nvpmodel.stdin\"\n"
                "exec /usr/bin/python3 \"$root/usr/sbin/nvpmodel.real\" \"$@\" <\"$root/.fake/nvpmodel.stdin\"\n";
        assert_true(g_file_set_contents(tool, wrapper, -1, NULL));
        assert_int_equal(chmod(tool, 0755), 0);
}

static void test_set_mode_reboot_required(void **state)
{
        testbus *tb = testbus_start(state, BOARD, NULL);
        wrap_nvpmodel_stdin(tb);
        start_polkit_allowing(tb, JD_ACTION_SET_NVPMODEL);
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        g_autofree char *conf = testbus_root_file(tb, NVPMODEL_CONF);
        g_autofree char *cpu_max = testbus_root_file(tb, CPU0_MAX);

        g_autofree char *msg = NULL;
        g_autofree char *err = testbus_call(&msg, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 3);
        assert_string_equal(err, JD_ERROR_REBOOT_REQUIRED);
        g_autofree char *ran = calls_since(tb, calls);
        assert_string_equal(ran, "nvpmodel -m 3\n");
        /* The prompt got end-of-file: no answer at all, so never "yes". */
        g_autofree char *answered = testbus_root_file(tb, ".fake/nvpmodel.stdin");
        assert_string_equal(answered, "");
        g_autofree char *status_after = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status_after, status);
        g_autofree char *conf_after = testbus_root_file(tb, NVPMODEL_CONF);
        assert_string_equal(conf_after, conf);
        g_autofree char *cpu_max_after = testbus_root_file(tb, CPU0_MAX);
        assert_string_equal(cpu_max_after, cpu_max);
        g_autofree char *online = testbus_root_file(tb, "sys/devices/system/cpu/cpu5/online");
        assert_string_equal(online, "1\n");
        sd_bus *bus = testbus_connect();
        assert_int_equal(testbus_get_u32(bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), 1);
        sd_bus_flush_close_unref(bus);
        testbus_stop_cleanly(tb);
}

static void test_set_mode_tool_error(void **state)
{
        testbus *tb = testbus_start(state, BOARD, NULL);
        start_polkit_allowing(tb, JD_ACTION_SET_NVPMODEL);
        static const char tool_error[] = "NVPM ERROR: Error opening /sys/kernel/nvpmodel_emc_cap/emc_iso_cap: 13\n";
        fixture_write_str(tb->root, ".fake/nvpmodel.fail", tool_error);
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);

        g_autofree char *msg = NULL;
        g_autofree char *err = testbus_call(&msg, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 2);
        assert_string_equal(err, JD_ERROR_FAILED);
        if (!strstr(msg, "NVPM ERROR: Error opening /sys/kernel/nvpmodel_emc_cap/emc_iso_cap: 13"))
                fail_msg("the error does not quote nvpmodel: %s", msg);
        g_autofree char *ran = calls_since(tb, calls);
        assert_string_equal(ran, "nvpmodel -m 2\n");
        g_autofree char *status_after = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status_after, status);

        /* The lock was released: the next change goes through. */
        fixture_unlink(tb->root, ".fake/nvpmodel.fail");
        g_autofree char *err2 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 2);
        assert_string_equal(err2, "");
        g_autofree char *status2 = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status2, "pmode:0002 fmode:quiet\n");
        testbus_stop_cleanly(tb);
}

/* The PID of a child of PARENT whose comm is COMM, 0 if none. */
static pid_t find_child(pid_t parent, const char *comm)
{
        DIR *d = opendir("/proc");
        assert_non_null(d);
        pid_t found = 0;
        struct dirent *e;
        while (!found && (e = readdir(d))) {
                char *end;
                long pid = strtol(e->d_name, &end, 10);
                if (*end || pid <= 0)
                        continue;
                g_autofree char *path = g_strdup_printf("/proc/%ld/stat", pid);
                g_autofree char *stat = NULL;
                if (!g_file_get_contents(path, &stat, NULL, NULL))
                        continue;
                /* pid (comm) state ppid ... */
                const char *open = strchr(stat, '('), *close = strrchr(stat, ')');
                if (!open || !close)
                        continue;
                g_autofree char *name = g_strndup(open + 1, (gsize) (close - open - 1));
                char st;
                long ppid;
                if (sscanf(close + 1, " %c %ld", &st, &ppid) == 2 && ppid == parent && strcmp(name, comm) == 0)
                        found = (pid_t) pid;
        }
        closedir(d);
        return found;
}

static void test_set_mode_tool_hangs(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, BOARD);
        g_autofree char *conf_dir = g_build_filename(tb->root, "etc/jetsond", NULL);
        assert_int_equal(g_mkdir_with_parents(conf_dir, 0755), 0);
        fixture_write_str(tb->root, "etc/jetsond/jetsond.conf", "[Tools]\nTimeoutSec=1\n");
        fixture_write_str(tb->root, ".fake/nvpmodel.hang", "");
        testbus_start_daemon(tb, NULL);
        start_polkit_allowing(tb, JD_ACTION_SET_NVPMODEL);
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);

        testbus_pending *p = testbus_call_start(JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 0);
        /* nvpmodel runs and hangs (its PID is now sleep's). */
        pid_t child = 0;
        uint64_t deadline = testbus_now_us() + 20 * G_USEC_PER_SEC;
        while (!child && !p->done && testbus_now_us() < deadline) {
                testbus_pump(p->bus, 5000, NULL);
                child = find_child(tb->daemon_pid, "sleep");
        }
        assert_true(child > 0);
        assert_false(p->done);

        /* Meanwhile jetsond answers at once. */
        sd_bus *reader = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        uint64_t t0 = testbus_now_us();
        if (sd_bus_call_method(reader, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "GetSnapshot", &e, NULL, "") <
            0)
                fail_msg("GetSnapshot during the hang: %s", e.message);
        uint64_t took = testbus_now_us() - t0;
        assert_true(took < 5 * G_USEC_PER_SEC); /* blocked, it would wait for the hung tool */
        testbus_pump(p->bus, 0, NULL);
        assert_false(p->done);        /* answered while nvpmodel still hung */
        assert_int_equal(testbus_get_u32(reader, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), 1);

        /* jetson_clocks waits for the power mode change, and Busy says
         * which change it waits for (it holds the jetson_clocks lock
         * too). */
        sd_bus_error busy = SD_BUS_ERROR_NULL;
        assert_true(sd_bus_call_method(reader, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", &busy,
                                       NULL, "b", 1) < 0);
        assert_string_equal(busy.name, JD_ERROR_BUSY);
        assert_string_equal(busy.message, "Another power mode change is in progress");
        sd_bus_error_free(&busy);

        assert_string_equal(testbus_call_finish(p), JD_ERROR_TIMEOUT);
        testbus_pending_free(p);

        /* The hung child was killed (and reaped). */
        deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        g_autofree char *proc = g_strdup_printf("/proc/%d", (int) child);
        while (g_file_test(proc, G_FILE_TEST_EXISTS) && testbus_now_us() < deadline)
                g_usleep(10000);
        assert_false(g_file_test(proc, G_FILE_TEST_EXISTS));
        g_autofree char *ran = calls_since(tb, calls);
        assert_string_equal(ran, "nvpmodel -m 0\n");
        g_autofree char *status_after = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status_after, status);

        /* Healthy and unlocked afterwards. */
        fixture_unlink(tb->root, ".fake/nvpmodel.hang");
        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", "u", 0);
        assert_string_equal(err, "");
        g_autofree char *status2 = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status2, "pmode:0000 fmode:quiet\n");
        sd_bus_flush_close_unref(reader);
        testbus_stop_cleanly(tb);
}

static void test_set_default_mode_allowed(void **state)
{
        testbus *tb = testbus_start(state, BOARD, NULL);
        start_polkit_allowing(tb, JD_ACTION_SET_NVPMODEL);
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        g_autofree char *conf = testbus_root_file(tb, NVPMODEL_CONF);
        g_autofree char *link = g_build_filename(tb->root, "etc/nvpmodel.conf", NULL);
        g_autofree char *target = g_file_read_link(link, NULL);
        assert_non_null(target);
        watch *w = watch_new();

        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "u", 2);
        assert_string_equal(err, "");

        /* Exactly the PM_CONFIG line changed, every other byte kept. */
        const char *line = strstr(conf, "< PM_CONFIG DEFAULT=1 >");
        assert_non_null(line);
        assert_null(strstr(line + strlen("< PM_CONFIG"), "PM_CONFIG"));
        g_autofree char *expected = g_strdup(conf);
        expected[line - conf + strlen("< PM_CONFIG DEFAULT=")] = '2';
        g_autofree char *conf_after = testbus_root_file(tb, NVPMODEL_CONF);
        assert_string_equal(conf_after, expected);
        /* Rewritten where the link points; the link is still a link. */
        g_autofree char *target_after = g_file_read_link(link, NULL);
        assert_non_null(target_after);
        assert_string_equal(target_after, target);
        g_autofree char *ran = calls_since(tb, calls);
        assert_string_equal(ran, "");

        /* nvpmodel's saved mode is discarded, or it would win at boot;
         * the running mode stays known (test-running-mode.c). */
        g_autofree char *status = testbus_root_file(tb, NVPMODEL_STATUS);
        assert_string_equal(status, "<missing>");
        watch_wait(w, JD_IFACE_NVPMODEL ".DefaultMode");
        assert_int_equal(testbus_get_u32(w->bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "DefaultMode"), 2);
        assert_int_equal(testbus_get_u32(w->bus, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "Mode"), 1);
        watch_free(w);
        testbus_stop_cleanly(tb);
}

/* ---- JetsonClocks: set-jetson-clocks ----------------------------------- */

static void check_jetson_clocks_denied(testbus *tb)
{
        deny_only(JD_ACTION_SET_JETSON_CLOCKS);
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        g_autofree char *cpu_min = testbus_root_file(tb, CPU0_MIN);

        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        assert_string_equal(err, SD_BUS_ERROR_ACCESS_DENIED);
        g_autofree char *err2 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", "b", 1);
        assert_string_equal(err2, SD_BUS_ERROR_ACCESS_DENIED);

        g_autofree char *ran = calls_since(tb, calls);
        assert_string_equal(ran, "");
        g_autofree char *cpu_min_after = testbus_root_file(tb, CPU0_MIN);
        assert_string_equal(cpu_min_after, cpu_min);
        g_autofree char *store = testbus_root_file(tb, CLOCKS_STORE);
        assert_string_equal(store, "<missing>");
        g_autofree char *saved = testbus_root_file(tb, CLOCKS_STATE);
        assert_string_equal(saved, "<missing>");
        sd_bus *bus = testbus_connect();
        assert_false(testbus_get_bool(bus, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "Active"));
        assert_false(testbus_get_bool(bus, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "OnBoot"));
        sd_bus_flush_close_unref(bus);
}

/* Started without systemd (no StateDirectory=), on a root that lacks
 * /var/lib/jetsond: jetsond creates it, 0700, and jetson_clocks --store
 * can write there. */
static void test_state_dir_created(void **state)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, BOARD);
        g_autofree char *dir = g_build_filename(tb->root, "var/lib/jetsond", NULL);
        assert_int_equal(rmdir(dir), 0);
        testbus_start_daemon(tb, NULL);
        struct stat st;
        assert_int_equal(stat(dir, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0700);
        start_polkit_allowing(tb, JD_ACTION_SET_JETSON_CLOCKS);
        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        assert_string_equal(err, "");
        g_autofree char *store = testbus_root_file(tb, CLOCKS_STORE);
        assert_true(g_str_has_prefix(store, "/sys/devices/system/cpu/cpu1/online:1\n"));
}

static void test_set_active_on_off(void **state)
{
        testbus *tb = testbus_start(state, BOARD, NULL);
        start_polkit_allowing(tb, JD_ACTION_SET_JETSON_CLOCKS);
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        g_autofree char *cpu_min = testbus_root_file(tb, CPU0_MIN);
        g_autofree char *pwm = testbus_root_file(tb, FAN_PWM);
        assert_string_equal(pwm, "60\n");
        watch *w = watch_new();
        assert_false(testbus_get_bool(w->bus, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "Active"));

        /* Off while off: nothing to do. */
        g_autofree char *err0 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 0);
        assert_string_equal(err0, "");
        g_autofree char *ran0 = calls_since(tb, calls);
        assert_string_equal(ran0, "");

        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        assert_string_equal(err, "");
        g_autofree char *ran = calls_since(tb, calls);
        assert_string_equal(ran, "jetson_clocks --store /var/lib/jetsond/l4t_dfs.conf\njetson_clocks\n");
        g_autofree char *store = testbus_root_file(tb, CLOCKS_STORE);
        assert_true(g_str_has_prefix(store, "/sys/devices/system/cpu/cpu1/online:1\n"));
        assert_non_null(strstr(store, "\n/sys/devices/system/cpu/cpu0/cpufreq/scaling_min_freq:729600\n"));
        assert_true(g_str_has_suffix(store, "\n/sys/devices/platform/pwm-fan/hwmon/hwmon0/pwm1:60\n"));
        g_autofree char *cpu_min_on = testbus_root_file(tb, CPU0_MIN);
        assert_string_equal(cpu_min_on, "1344000\n");
        /* jetson_clocks set the fan to 255; jetsond put it back. */
        g_autofree char *pwm_on = testbus_root_file(tb, FAN_PWM);
        assert_string_equal(pwm_on, "60\n");
        watch_wait(w, JD_IFACE_JETSON_CLOCKS ".Active");
        assert_true(testbus_get_bool(w->bus, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "Active"));
        assert_false(testbus_get_bool(w->bus, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "OnBoot"));

        /* On while on: nothing to do. */
        g_autofree char *calls_on = testbus_root_file(tb, CALLS);
        g_autofree char *err1 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 1);
        assert_string_equal(err1, "");
        g_autofree char *ran1 = calls_since(tb, calls_on);
        assert_string_equal(ran1, "");

        g_ptr_array_set_size(w->seen, 0);
        g_autofree char *err2 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetActive", "b", 0);
        assert_string_equal(err2, "");
        g_autofree char *ran2 = calls_since(tb, calls_on);
        assert_string_equal(ran2, "jetson_clocks --restore /var/lib/jetsond/l4t_dfs.conf\n");
        g_autofree char *cpu_min_off = testbus_root_file(tb, CPU0_MIN);
        assert_string_equal(cpu_min_off, cpu_min);
        g_autofree char *pwm_off = testbus_root_file(tb, FAN_PWM);
        assert_string_equal(pwm_off, "60\n");
        watch_wait(w, JD_IFACE_JETSON_CLOCKS ".Active");
        assert_false(testbus_get_bool(w->bus, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "Active"));
        watch_free(w);
        testbus_stop_cleanly(tb);
}

static void test_set_on_boot(void **state)
{
        testbus *tb = testbus_start(state, BOARD, NULL);
        start_polkit_allowing(tb, JD_ACTION_SET_JETSON_CLOCKS);
        g_autofree char *calls = testbus_root_file(tb, CALLS);
        watch *w = watch_new();

        g_autofree char *err = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", "b", 1);
        assert_string_equal(err, "");
        g_autofree char *saved = testbus_root_file(tb, CLOCKS_STATE);
        assert_string_equal(saved, "[JetsonClocks]\nOnBoot=true\n");
        watch_wait(w, JD_IFACE_JETSON_CLOCKS ".OnBoot");
        assert_true(testbus_get_bool(w->bus, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "OnBoot"));
        /* The current state is not touched. */
        assert_false(testbus_get_bool(w->bus, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "Active"));
        g_autofree char *ran = calls_since(tb, calls);
        assert_string_equal(ran, "");

        g_ptr_array_set_size(w->seen, 0);
        g_autofree char *err2 = testbus_call(NULL, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "SetOnBoot", "b", 0);
        assert_string_equal(err2, "");
        g_autofree char *saved2 = testbus_root_file(tb, CLOCKS_STATE);
        assert_string_equal(saved2, "[JetsonClocks]\nOnBoot=false\n");
        watch_wait(w, JD_IFACE_JETSON_CLOCKS ".OnBoot");
        assert_false(testbus_get_bool(w->bus, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, "OnBoot"));
        g_autofree char *ran2 = calls_since(tb, calls);
        assert_string_equal(ran2, "");
        watch_free(w);
        testbus_stop_cleanly(tb);
}

/* ---- Board.GetSerialNumber: read-serial -------------------------------- */

static char *get_serial(char **error)
{
        sd_bus *bus = testbus_connect();
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        char *serial = NULL;
        int r = sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_BOARD, "GetSerialNumber", &e, &reply,
                                   "");
        *error = g_strdup(r < 0 ? e.name : "");
        if (r >= 0) {
                const char *s = NULL;
                assert_true(sd_bus_message_read(reply, "s", &s) > 0);
                serial = g_strdup(s);
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return serial;
}

static void check_serial_denied(void)
{
        deny_only(JD_ACTION_READ_SERIAL);
        g_autofree char *err = NULL;
        g_autofree char *serial = get_serial(&err);
        assert_string_equal(err, SD_BUS_ERROR_ACCESS_DENIED);
        assert_null(serial);
}

/* ---- Denied: one daemon, polkit denying one action at a time ---------- */

static void test_each_action_denied(void **state)
{
        testbus *tb = testbus_start(state, BOARD, NULL);
        testbus_start_polkit(tb, NULL);
        check_nvpmodel_denied(tb);
        check_jetson_clocks_denied(tb);
        check_serial_denied();
        testbus_stop_cleanly(tb);
}

static void test_serial_allowed(void **state)
{
        testbus *tb = testbus_start(state, BOARD, NULL);
        start_polkit_allowing(tb, JD_ACTION_READ_SERIAL);
        g_autofree char *err = NULL;
        g_autofree char *serial = get_serial(&err);
        assert_string_equal(err, "");
        assert_string_equal(serial, SERIAL);
        testbus_stop_cleanly(tb);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_each_action_denied, testbus_teardown),
                cmocka_unit_test_teardown(test_set_mode_allowed, testbus_teardown),
                cmocka_unit_test_teardown(test_set_current_mode_and_default, testbus_teardown),
                cmocka_unit_test_teardown(test_unknown_id_never_reaches_polkit, testbus_teardown),
                cmocka_unit_test_teardown(test_set_mode_reboot_required, testbus_teardown),
                cmocka_unit_test_teardown(test_set_mode_tool_error, testbus_teardown),
                cmocka_unit_test_teardown(test_set_mode_tool_hangs, testbus_teardown),
                cmocka_unit_test_teardown(test_set_default_mode_allowed, testbus_teardown),
                cmocka_unit_test_teardown(test_state_dir_created, testbus_teardown),
                cmocka_unit_test_teardown(test_set_active_on_off, testbus_teardown),
                cmocka_unit_test_teardown(test_set_on_boot, testbus_teardown),
                cmocka_unit_test_teardown(test_serial_allowed, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
