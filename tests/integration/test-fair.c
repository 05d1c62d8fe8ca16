/* The limits per user ([Limits] in jetsond.conf): one unprivileged user
 * holds at most CapturesPerUser captures and FastSubscriptionsPerUser
 * subscriptions faster than DefaultInterval over all its connections,
 * while other users (root here) still get theirs; root and the members of
 * the group "jetson" have the trusted limits. The other user is "nobody",
 * a forked client that holds its connections between the parent's
 * requests (call_as.c makes one call per process). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jetsond-dbus.h"
#include "testbus.h"

#define BOARD "orin-nano-jp62"
#define MAX_CONNS 8

/* "" for success, else "ERROR\tMESSAGE". OpenCapture of ram.* (the
 * stream's descriptor kept in *FD), or Subscribe(INTERVAL). */
static char *call(sd_bus *bus, const char *member, uint64_t interval, int *fd)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        int r = strcmp(member, "OpenCapture") == 0
                        ? sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, member, &e, &reply,
                                             "tas", interval, 1, "ram.*")
                        : sd_bus_call_method(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, member, &e, &reply,
                                             "t", interval);
        char *out;
        if (r < 0) {
                out = g_strdup_printf("%s\t%s", e.name ? e.name : "client", e.message ? e.message : strerror(-r));
        } else {
                int h = -1;
                if (fd && sd_bus_message_read(reply, "h", &h) > 0)
                        *fd = fcntl(h, F_DUPFD_CLOEXEC, 3);
                out = g_strdup("");
        }
        sd_bus_error_free(&e);
        sd_bus_message_unref(reply);
        return out;
}

typedef struct {
        pid_t pid;
        FILE *to, *from;
} remote;

/* The child: a line per request ("capture K", "subscribe K INTERVAL",
 * "close K", "open K"), a line per answer. */
static void remote_serve(FILE *in, FILE *out)
{
        sd_bus *conns[MAX_CONNS] = { 0 };
        char line[256];
        while (fgets(line, sizeof(line), in)) {
                int k = 0;
                unsigned long long interval = 0;
                g_autofree char *answer = NULL;
                if (sscanf(line, "capture %d", &k) == 1 && conns[k]) {
                        int fd = -1; /* kept open: the stream lives while its connection does */
                        answer = call(conns[k], "OpenCapture", 100000, &fd);
                } else if (sscanf(line, "subscribe %d %llu", &k, &interval) == 2 && conns[k]) {
                        answer = call(conns[k], "Subscribe", interval, NULL);
                } else if (sscanf(line, "close %d", &k) == 1) {
                        conns[k] = sd_bus_flush_close_unref(conns[k]);
                        answer = g_strdup("");
                } else if (sscanf(line, "open %d", &k) == 1 && k < MAX_CONNS) {
                        int r = sd_bus_open_system(&conns[k]);
                        answer = r < 0 ? g_strdup_printf("client\tconnect: %s", strerror(-r)) : g_strdup("");
                } else {
                        answer = g_strdup_printf("client\tbad request %s", line);
                }
                g_strdelimit(answer, "\n", ' ');
                fprintf(out, "%s\n", answer);
                fflush(out);
        }
        for (int k = 0; k < MAX_CONNS; k++)
                sd_bus_flush_close_unref(conns[k]);
}

static remote remote_start(const char *user)
{
        struct passwd *pw = getpwnam(user);
        assert_non_null(pw);
        uid_t uid = pw->pw_uid;
        gid_t gid = pw->pw_gid;
        int down[2], up[2];
        assert_int_equal(pipe(down), 0);
        assert_int_equal(pipe(up), 0);
        fflush(NULL);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                close(down[1]);
                close(up[0]);
                alarm(300);
                FILE *out = fdopen(up[1], "w");
                if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0) {
                        fprintf(out, "client\tcannot become %s: %s\n", user, strerror(errno));
                        _exit(1);
                }
                remote_serve(fdopen(down[0], "r"), out);
                _exit(0);
        }
        close(down[0]);
        close(up[1]);
        return (remote) { pid, fdopen(down[1], "w"), fdopen(up[0], "r") };
}

/* The answer to one request, "" for success. */
static char *ask(remote *rm, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static char *ask(remote *rm, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        vfprintf(rm->to, fmt, ap);
        va_end(ap);
        fputc('\n', rm->to);
        fflush(rm->to);
        char line[4096];
        if (!fgets(line, sizeof(line), rm->from))
                fail_msg("the client as nobody ended");
        line[strcspn(line, "\n")] = '\0';
        return g_strdup(line);
}

static void must(remote *rm, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void must(remote *rm, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        g_autofree char *request = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        g_autofree char *a = ask(rm, "%s", request);
        if (a[0])
                fail_msg("%s as nobody: %s", request, a);
}

static void remote_stop(remote *rm)
{
        fclose(rm->to);
        fclose(rm->from);
        int status;
        assert_int_equal(waitpid(rm->pid, &status, 0), rm->pid);
}

static void assert_refused(const char *answer, const char *key)
{
        if (!g_str_has_prefix(answer, JD_ERROR_BUSY "\t") || !strstr(answer, key) ||
            !strstr(answer, "/etc/jetsond/jetsond.conf"))
                fail_msg("expected Busy naming %s, got \"%s\"", key, answer);
}

/* A request that the connection's leaving must make room for: the bus
 * tells jetsond of it soon, not at once. */
static void eventually(remote *rm, const char *request)
{
        uint64_t deadline = testbus_now_us() + 30 * G_USEC_PER_SEC;
        for (;;) {
                g_autofree char *a = ask(rm, "%s", request);
                if (!a[0])
                        return;
                if (testbus_now_us() > deadline)
                        fail_msg("%s as nobody still refused 30 s after a connection left: %s", request, a);
                g_usleep(50000);
        }
}

static void start(void **state, const char *conf, const char *passwd, const char *group)
{
        testbus *tb = testbus_new(NULL);
        *state = tb;
        testbus_make_root(tb, BOARD);
        g_autofree char *etc = g_build_filename(tb->root, "etc/jetsond", NULL);
        assert_int_equal(g_mkdir_with_parents(etc, 0755), 0);
        struct { const char *rel, *text; } files[] = {
                { "etc/jetsond/jetsond.conf", conf }, { "etc/passwd", passwd }, { "etc/group", group } };
        for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
                g_autofree char *path = g_build_filename(tb->root, files[i].rel, NULL);
                if (files[i].text)
                        assert_true(g_file_set_contents(path, files[i].text, -1, NULL));
        }
        testbus_start_daemon(tb, NULL);
}

static void test_captures_per_user(void **state)
{
        start(state, NULL, NULL, NULL);
        remote nobody = remote_start("nobody");
        /* The defaults: 4 for nobody, over two connections (each could
         * hold 4); the fifth refused on a third connection. */
        for (int k = 0; k < 3; k++)
                must(&nobody, "open %d", k);
        for (int i = 0; i < 4; i++) {
                must(&nobody, "capture %d", i / 2);
        }
        g_autofree char *refused = ask(&nobody, "capture 2");
        assert_refused(refused, "[Limits] CapturesPerUser ");
        assert_non_null(strstr(refused, "User 65534 has 4 captures open already"));
        /* Root is another user, and trusted: more than 4, over two
         * connections. */
        sd_bus *root[3] = { testbus_connect(), testbus_connect(), testbus_connect() };
        int fds[6];
        for (int i = 0; i < 6; i++) {
                g_autofree char *a = call(root[i / 4], "OpenCapture", 100000, &fds[i]);
                if (a[0])
                        fail_msg("capture %d as root: %s", i, a);
        }
        /* ... up to 8. */
        int more[2];
        for (int i = 0; i < 2; i++) {
                g_autofree char *a = call(root[1], "OpenCapture", 100000, &more[i]);
                assert_string_equal(a, "");
        }
        g_autofree char *root_refused = call(root[2], "OpenCapture", 100000, NULL);
        assert_refused(root_refused, "[Limits] CapturesPerTrustedUser ");
        /* nobody's first connection leaves: its captures end, room again. */
        must(&nobody, "close 0");
        eventually(&nobody, "capture 2");
        must(&nobody, "capture 2");
        g_autofree char *again = ask(&nobody, "capture 1");
        assert_refused(again, "[Limits] CapturesPerUser ");
        remote_stop(&nobody);
        for (int i = 0; i < 6; i++)
                close(fds[i]);
        for (int i = 0; i < 2; i++)
                close(more[i]);
        for (int i = 0; i < 3; i++)
                sd_bus_flush_close_unref(root[i]);
}

static void test_fast_subscriptions_per_user(void **state)
{
        start(state, NULL, NULL, NULL);
        sd_bus *bus = testbus_connect();
        uint64_t def = testbus_get_u64(bus, JD_OBJECT_PATH, JD_IFACE_METRICS, "DefaultInterval");
        uint64_t fast = def / 2;
        remote nobody = remote_start("nobody");
        for (int k = 0; k < 6; k++)
                must(&nobody, "open %d", k);
        for (int k = 0; k < 4; k++) {
                must(&nobody, "subscribe %d %" PRIu64, k, fast);
        }
        g_autofree char *refused = ask(&nobody, "subscribe 4 %" PRIu64, fast);
        assert_refused(refused, "[Limits] FastSubscriptionsPerUser ");
        assert_non_null(strstr(refused, "User 65534 has 4 subscriptions"));
        /* At the default interval or slower: never refused. */
        g_autofree char *slow = ask(&nobody, "subscribe 4 %" PRIu64, def);
        assert_string_equal(slow, "");
        g_autofree char *slower = ask(&nobody, "subscribe 5 %" PRIu64, def * 2);
        assert_string_equal(slower, "");
        /* A connection's new request replaces its own. */
        g_autofree char *own = ask(&nobody, "subscribe 0 %" PRIu64, fast + 1);
        assert_string_equal(own, "");
        /* Root is another user. */
        g_autofree char *root = call(bus, "Subscribe", fast, NULL);
        assert_string_equal(root, "");
        /* A fast subscriber that leaves makes room. */
        must(&nobody, "close 1");
        g_autofree char *req = g_strdup_printf("subscribe 4 %" PRIu64, fast);
        eventually(&nobody, req);
        g_autofree char *again = ask(&nobody, "subscribe 5 %" PRIu64, fast);
        assert_refused(again, "[Limits] FastSubscriptionsPerUser ");
        remote_stop(&nobody);
        sd_bus_flush_close_unref(bus);
}

/* nobody in the group "jetson" of the board's /etc/group: the trusted
 * limits, as jetsond.conf sets them. */
static void test_trusted_group(void **state)
{
        struct passwd *pw = getpwnam("nobody");
        assert_non_null(pw);
        g_autofree char *passwd = g_strdup_printf("root:x:0:0:root:/root:/bin/sh\n"
                                                  "nobody:x:%u:%u:nobody:/nonexistent:/usr/sbin/nologin\n",
                                                  (unsigned) pw->pw_uid, (unsigned) pw->pw_gid);
        start(state,
              "[Limits]\nCapturesPerUser=1\nCapturesPerTrustedUser=2\n"
              "FastSubscriptionsPerUser=1\nFastSubscriptionsPerTrustedUser=3\n",
              passwd, "root:x:0:\nnogroup:x:65534:\njetson:x:990:someone,nobody\n");
        sd_bus *bus = testbus_connect();
        uint64_t fast = testbus_get_u64(bus, JD_OBJECT_PATH, JD_IFACE_METRICS, "DefaultInterval") / 2;
        remote nobody = remote_start("nobody");
        for (int k = 0; k < 4; k++)
                must(&nobody, "open %d", k);
        must(&nobody, "capture 0");
        must(&nobody, "capture 1");
        g_autofree char *refused = ask(&nobody, "capture 2");
        assert_refused(refused, "[Limits] CapturesPerTrustedUser ");
        for (int k = 0; k < 3; k++) {
                must(&nobody, "subscribe %d %" PRIu64, k, fast);
        }
        g_autofree char *sub_refused = ask(&nobody, "subscribe 3 %" PRIu64, fast);
        assert_refused(sub_refused, "[Limits] FastSubscriptionsPerTrustedUser ");
        remote_stop(&nobody);
        sd_bus_flush_close_unref(bus);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_captures_per_user, testbus_teardown),
                cmocka_unit_test_teardown(test_fast_subscriptions_per_user, testbus_teardown),
                cmocka_unit_test_teardown(test_trusted_group, testbus_teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
