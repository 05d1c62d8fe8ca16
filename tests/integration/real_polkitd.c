#include "real_polkitd.h"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "glib-compat.h"

#define PKLA_COMPAT_RULE "/usr/share/polkit-1/rules.d/49-polkit-pkla-compat.rules"

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

static char *log_text(const real_polkitd *pk)
{
        char *log = NULL;
        if (!g_file_get_contents(pk->log, &log, NULL, NULL))
                log = g_strdup("");
        return log;
}

/* The example granting group "jetson": the .rules one, or the .pkla one
 * in a local authority read by pkla-check-authorization through
 * polkitd-pkla's rule. False if polkitd-pkla is missing. */
static bool place_example(const char *pk_dir, const char *rules, bool pkla)
{
        if (!pkla) {
                g_autofree char *example = g_build_filename(rules, "50-jetsond-jetson-group.rules", NULL);
                copy_file(SOURCE_DIR "/polkit/50-jetsond-jetson-group.rules.example", example);
                return true;
        }
        if (!g_file_test(PKLA_COMPAT_RULE, G_FILE_TEST_EXISTS)) {
                print_message("SKIP: %s is missing (Debian: polkitd-pkla)\n", PKLA_COMPAT_RULE);
                return false;
        }
        g_autofree char *authority = g_build_filename(pk_dir, "localauthority", NULL);
        g_autofree char *local = g_build_filename(authority, "50-local.d", NULL);
        assert_int_equal(g_mkdir_with_parents(local, 0755), 0);
        g_autofree char *example = g_build_filename(local, "50-jetsond-jetson-group.pkla", NULL);
        copy_file(SOURCE_DIR "/polkit/50-jetsond-jetson-group.pkla.example", example);
        g_autofree char *compat = g_build_filename(rules, "49-polkit-pkla-compat.rules", NULL);
        copy_file(PKLA_COMPAT_RULE, compat);
        g_setenv("PKLA_DIR", authority, TRUE);
        return true;
}

/* Waits for polkitd to own its name; false if it exited with
 * start-polkitd.sh's 77 (this machine cannot), after printing why. */
static bool wait_on_bus(real_polkitd *pk)
{
        sd_bus *bus = testbus_connect();
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        while (!polkit_on_bus(bus)) {
                int status;
                if (waitpid(pk->pid, &status, WNOHANG) == pk->pid) {
                        pk->pid = 0;
                        sd_bus_flush_close_unref(bus);
                        g_autofree char *log = log_text(pk);
                        if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
                                print_message("%s", log);
                                return false;
                        }
                        fail_msg("polkitd exited (status %d) before owning its name:\n%s", status, log);
                }
                if (testbus_now_us() > deadline) {
                        g_autofree char *log = log_text(pk);
                        fail_msg("polkitd did not own org.freedesktop.PolicyKit1 within 30 s:\n%s", log);
                }
                g_usleep(5000);
        }
        sd_bus_flush_close_unref(bus);
        return true;
}

bool real_polkitd_start(real_polkitd *pk, testbus *tb, bool pkla)
{
        memset(pk, 0, sizeof(*pk));
        g_autofree char *dir = g_build_filename(tb->dir, "polkit", NULL);
        g_autofree char *actions = g_build_filename(dir, "actions", NULL);
        g_autofree char *rules = g_build_filename(dir, "rules.d", NULL);
        g_autofree char *group = g_build_filename(dir, "group", NULL);
        assert_int_equal(g_mkdir_with_parents(actions, 0755), 0);
        assert_int_equal(g_mkdir_with_parents(rules, 0755), 0);
        g_autofree char *policy = g_build_filename(actions, "org.jetsond.Jetson1.policy", NULL);
        copy_file(SOURCE_DIR "/polkit/org.jetsond.Jetson1.policy", policy);
        if (!place_example(dir, rules, pkla))
                return false;
        g_autofree char *test_rules = g_build_filename(rules, "10-jetsond-test.rules", NULL);
        copy_file(SOURCE_DIR "/tests/integration/polkit-test.rules", test_rules);
        write_group_file(group);

        pk->log = g_build_filename(tb->dir, "polkitd.log", NULL);
        int log_fd = open(pk->log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        assert_true(log_fd >= 0);
        const char *argv[] = { "sh", SOURCE_DIR "/tests/integration/start-polkitd.sh", actions, rules, group, NULL };
        GError *error = NULL;
        gboolean ok = test_spawn_logged(argv, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, &pk->pid, log_fd,
                                        &error);
        close(log_fd);
        if (!ok)
                fail_msg("cannot run start-polkitd.sh: %s", error->message);
        return wait_on_bus(pk);
}

void real_polkitd_stop(real_polkitd *pk)
{
        if (pk->pid > 0) {
                kill(pk->pid, SIGTERM);
                waitpid(pk->pid, NULL, 0);
                g_spawn_close_pid(pk->pid);
                pk->pid = 0;
        }
        g_clear_pointer(&pk->log, g_free);
}

GPtrArray *real_polkitd_asked(real_polkitd *pk)
{
        GPtrArray *asked = g_ptr_array_new_with_free_func(g_free);
        g_autofree char *log = log_text(pk);
        size_t len = strlen(log);
        if (len < pk->log_seen)
                fail_msg("polkitd's log shrank");
        char **lines = g_strsplit(log + pk->log_seen, "\n", -1);
        for (char **l = lines; *l; l++) {
                const char *tag = strstr(*l, "jetsond-test: ");
                if (tag)
                        g_ptr_array_add(asked, g_strdup(tag + strlen("jetsond-test: ")));
        }
        g_strfreev(lines);
        pk->log_seen = len;
        return asked;
}
