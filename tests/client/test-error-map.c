/* jetsonctl's mapping of every D-Bus error to one line and an exit code,
 * without a daemon: including InteractiveAuthorizationRequired, which the
 * polkitd mock of the process tests never returns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/bus.h"
#include "jetsond-dbus.h"

/* jc_report_error() on a NAME/MESSAGE error; its stderr in *LINE. */
static int report(const char *name, const char *message, int r, const char *action, const char *absent, char **line)
{
        char path[] = "/tmp/jetsonctl-error-map.XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        fflush(stderr);
        int saved = dup(STDERR_FILENO);
        dup2(fd, STDERR_FILENO);
        sd_bus_error e = SD_BUS_ERROR_NULL;
        if (name)
                sd_bus_error_set(&e, name, message);
        int ret = jc_report_error("setting fan speed", name ? &e : NULL, r, action, absent);
        fflush(stderr);
        dup2(saved, STDERR_FILENO);
        close(saved);
        close(fd);
        sd_bus_error_free(&e);
        assert_true(g_file_get_contents(path, line, NULL, NULL));
        unlink(path);
        return ret;
}

static void test_map(void **state)
{
        (void) state;
        static const struct {
                const char *name, *message;
                int r;
                const char *action, *absent;
                int exit_code;
                const char *line;
        } cases[] = {
                { SD_BUS_ERROR_ACCESS_DENIED, "Not authorized to perform org.jetsond.Jetson1.set-fan", -EACCES,
                  JD_ACTION_SET_FAN, NULL, 4,
                  "jetsonctl: setting fan speed: not authorized (org.jetsond.Jetson1.set-fan)\n" },
                { SD_BUS_ERROR_ACCESS_DENIED, "Rejected send message", -EACCES, NULL, NULL, 4,
                  "jetsonctl: setting fan speed: not authorized: Rejected send message\n" },
                { SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED, "Interactive authentication required", -EACCES,
                  JD_ACTION_SET_FAN, NULL, 4,
                  "jetsonctl: setting fan speed: authentication required (org.jetsond.Jetson1.set-fan); run "
                  "jetsonctl on a terminal without --no-ask-password, or allow it with a polkit rule\n" },
                { SD_BUS_ERROR_SERVICE_UNKNOWN, "The name is not activatable", -EHOSTDOWN, JD_ACTION_SET_FAN, NULL, 1,
                  "jetsonctl: jetsond is not running (start it with: systemctl start jetsond)\n" },
                { SD_BUS_ERROR_NAME_HAS_NO_OWNER, "no owner", -ENXIO, NULL, NULL, 1,
                  "jetsonctl: jetsond is not running (start it with: systemctl start jetsond)\n" },
                { SD_BUS_ERROR_INVALID_ARGS, "Speed 150 is out of range", -EINVAL, JD_ACTION_SET_FAN, NULL, 2,
                  "jetsonctl: setting fan speed: Speed 150 is out of range\n" },
                { SD_BUS_ERROR_UNKNOWN_OBJECT, "Unknown object '/org/jetsond/Jetson1/fan/3'.", -ENXIO,
                  JD_ACTION_SET_FAN, "this board has no such fan", 1,
                  "jetsonctl: this board has no such fan\n" },
                { SD_BUS_ERROR_NO_REPLY, "timeout", -ETIMEDOUT, NULL, NULL, 1,
                  "jetsonctl: setting fan speed: jetsond did not answer in time\n" },
                { JD_ERROR_BUSY, "Another fan change is in progress", -EBUSY, JD_ACTION_SET_FAN, NULL, 1,
                  "jetsonctl: setting fan speed: Another fan change is in progress\n" },
                /* Messages spanning lines (RestoreDefaults' Failed) become one. */
                { JD_ERROR_FAILED, "fan 0 (pwmfan): failed\nnvpmodel: mode 0 -> 2\n", -EIO, NULL, NULL, 1,
                  "jetsonctl: setting fan speed: fan 0 (pwmfan): failed; nvpmodel: mode 0 -> 2\n" },
                /* No D-Bus error at all: errno's text. */
                { NULL, NULL, -ECONNRESET, NULL, NULL, 1, "jetsonctl: setting fan speed: Connection reset by peer\n" },
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                g_autofree char *line = NULL;
                int ret = report(cases[i].name, cases[i].message, cases[i].r, cases[i].action, cases[i].absent, &line);
                if (ret != cases[i].exit_code || strcmp(line, cases[i].line) != 0)
                        fail_msg("%s: exit %d (want %d), \"%s\" (want \"%s\")", cases[i].name, ret, cases[i].exit_code,
                                 line, cases[i].line);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = { cmocka_unit_test(test_map) };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
