#include "call_as.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jetsond-dbus.h"
#include "testbus.h"

void call_outcome_clear(call_outcome *o)
{
        g_free(o->error);
        g_free(o->text);
}

/* In the child: the call, and "ERROR\tTEXT" on FD. Plain code only, no
 * cmocka: the child must always reach _exit(). */
static void child_call(int fd, const bus_method *m, bool interactive, unsigned timeout_s)
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
        r = sd_bus_call(bus, call, (uint64_t) timeout_s * 1000000, &e, &reply);
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

call_outcome call_as(const char *user, const bus_method *m, bool interactive, unsigned timeout_s)
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
                alarm(timeout_s + 30);
                if (initgroups(user, gid) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0) {
                        dprintf(fds[1], "test.Error.Client\tcannot become %s: %s", user, strerror(errno));
                        _exit(1);
                }
                child_call(fds[1], m, interactive, timeout_s);
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
                fail_msg("%s as %s: the client died of signal %d (SIGALRM: no answer in %u s)", m->name, user,
                         WTERMSIG(status), timeout_s + 30);
        const char *tab = strchr(buf->str, '\t');
        if (!tab)
                fail_msg("%s as %s: the client said \"%s\"", m->name, user, buf->str);
        return (call_outcome) { g_strndup(buf->str, (size_t) (tab - buf->str)), g_strdup(tab + 1) };
}
