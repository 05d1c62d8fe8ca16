/* jetsonctl's exit statuses and error lines: 4 when polkit says no
 * (python-dbusmock's polkitd allowing nothing), 2 for arguments refused
 * before any call, 1 when jetsond is not running or the board lacks the
 * feature; always one line "jetsonctl: DOING: WHAT". */
#include <string.h>

#include "jctest.h"
#include "jetsond-dbus.h"

#define NOT_RUNNING "jetsonctl: jetsond is not running (start it with: systemctl start jetsond)\n"

static void expect(int status, const char *err, const char *first, ...) G_GNUC_NULL_TERMINATED;

/* Runs jetsonctl with the arguments; the exit status and the whole of
 * stderr must be as given, stdout empty. */
static void expect(int status, const char *err, const char *first, ...)
{
        const char *args[8] = { first };
        va_list ap;
        va_start(ap, first);
        for (size_t i = 1; i < G_N_ELEMENTS(args) - 1 && args[i - 1]; i++)
                args[i] = va_arg(ap, const char *);
        va_end(ap);
        jc_result r = jc_run(args[0], args[1], args[2], args[3], args[4], args[5], args[6], NULL);
        g_autofree char *cmd = g_strjoinv(" ", (char **) args);
        if (r.status != status || strcmp(r.err, err) != 0 || *r.out)
                fail_msg("jetsonctl %s: exit %d (want %d)\nstderr: %s\nwant:   %sstdout: %s", cmd, r.status, status,
                         r.err, err, r.out);
        jc_result_clear(&r);
}

static void test_denied(void **state)
{
        jc_start_with_polkit(state, "agx-orin-jp62", NULL);
        expect(4, "jetsonctl: setting fan speed: not authorized (" JD_ACTION_SET_FAN ")\n", "fan", "speed", "50", NULL);
        expect(4, "jetsonctl: setting fan profile: not authorized (" JD_ACTION_SET_FAN ")\n", "fan", "profile", "0",
               "quiet", NULL);
        expect(4, "jetsonctl: switching power mode: not authorized (" JD_ACTION_SET_NVPMODEL ")\n", "nvpmodel", "set",
               "MODE_30W", NULL);
        expect(4, "jetsonctl: setting the boot power mode: not authorized (" JD_ACTION_SET_NVPMODEL ")\n", "nvpmodel",
               "default", "3", NULL);
        expect(4, "jetsonctl: switching jetson_clocks on: not authorized (" JD_ACTION_SET_JETSON_CLOCKS ")\n", "clocks",
               "on", NULL);
        expect(4, "jetsonctl: setting jetson_clocks at boot: not authorized (" JD_ACTION_SET_JETSON_CLOCKS ")\n",
               "clocks", "boot", "on", NULL);
        expect(4, "jetsonctl: creating the swap file: not authorized (" JD_ACTION_MANAGE_SWAP ")\n", "swap", "create",
               "64M", NULL);
        expect(4, "jetsonctl: removing the swap file: not authorized (" JD_ACTION_MANAGE_SWAP ")\n", "swap", "remove",
               NULL);
        expect(4, "jetsonctl: dropping caches: not authorized (" JD_ACTION_DROP_CACHES ")\n", "drop-caches", NULL);
        expect(4, "jetsonctl: reading the serial number: not authorized (" JD_ACTION_READ_SERIAL ")\n", "serial",
               "--no-ask-password", NULL);
        /* Reads need no authorization. */
        g_autofree char *out = jc_ok("nvpmodel", NULL);
        assert_non_null(strstr(out, "MAXN"));
}

static void test_denied_restore(void **state)
{
        jc_start_with_polkit(state, "agx-orin-jp62", NULL);
        expect(4,
               "jetsonctl: restoring defaults: not authorized (" JD_ACTION_SET_FAN " " JD_ACTION_SET_NVPMODEL
               " " JD_ACTION_SET_JETSON_CLOCKS " " JD_ACTION_SET_GPU ")\n",
               "restore", NULL);
}

static void test_not_running(void **state)
{
        testbus *tb = jc_start(state, "agx-orin-jp62", NULL);
        testbus_stop_cleanly(tb);
        expect(1, NOT_RUNNING, "status", NULL);
        expect(1, NOT_RUNNING, "board", NULL);
        expect(1, NOT_RUNNING, "--json", "status", NULL);
        expect(1, NOT_RUNNING, "get", "gpu.load", NULL);
        expect(1, NOT_RUNNING, "watch", "--count", "1", NULL);
        expect(1, NOT_RUNNING, "watch", "--interval", "50", NULL);
        expect(1, NOT_RUNNING, "fan", NULL);
        expect(1, NOT_RUNNING, "fan", "speed", "50", NULL);
        expect(1, NOT_RUNNING, "nvpmodel", "set", "1", NULL);
        expect(1, NOT_RUNNING, "clocks", "on", NULL);
        expect(1, NOT_RUNNING, "swap", "remove", NULL);
        expect(1, NOT_RUNNING, "drop-caches", NULL);
        expect(1, NOT_RUNNING, "serial", NULL);
}

static void test_no_bus(void **state)
{
        (void) state;
        expect(1, "jetsonctl: cannot connect to unix:path=/nonexistent/socket: No such file or directory\n",
               "--address", "unix:path=/nonexistent/socket", "status", NULL);
}

/* Checked before anything is sent: no polkit prompt for a typo. */
static void test_invalid_arguments(void **state)
{
        jc_start_with_polkit(state, "agx-orin-jp62", NULL);
        expect(2, "jetsonctl: fan speed: 101 is out of range: a percentage is 0 to 100\nTry 'jetsonctl fan --help'.\n",
               "fan", "speed", "101", NULL);
        expect(2,
               "jetsonctl: fan speed: \"fast\" is not a percentage (a number from 0 to 100)\n"
               "Try 'jetsonctl fan --help'.\n",
               "fan", "speed", "fast", NULL);
        expect(2, "jetsonctl: no fan \"3\"; fans: 0 (pwmfan)\nTry 'jetsonctl fan --help'.\n", "fan", "speed", "3", "50",
               NULL);
        expect(2,
               "jetsonctl: fan 0 has no profile \"loud\"; profiles: cool, quiet, manual\nTry 'jetsonctl fan --help'.\n",
               "fan", "profile", "loud", NULL);
        expect(2,
               "jetsonctl: no power mode \"7\"; modes: 0 MAXN, 1 MODE_15W, 2 MODE_30W, 3 MODE_50W\n"
               "Try 'jetsonctl nvpmodel --help'.\n",
               "nvpmodel", "set", "7", NULL);
        expect(2,
               "jetsonctl: no power mode \"turbo\"; modes: 0 MAXN, 1 MODE_15W, 2 MODE_30W, 3 MODE_50W\n"
               "Try 'jetsonctl nvpmodel --help'.\n",
               "nvpmodel", "default", "turbo", NULL);
        expect(2, "jetsonctl: swap size 1M is too small: at least 64M\nTry 'jetsonctl swap --help'.\n", "swap", "create",
               "1M", NULL);
        expect(2, "jetsonctl: \"8X\": unknown size unit (use K, M, G or T)\nTry 'jetsonctl swap --help'.\n", "swap",
               "create", "8X", NULL);
        expect(2,
               "jetsonctl: swap size 67108865 is not a multiple of the page size (4K)\nTry 'jetsonctl swap --help'.\n",
               "swap", "create", "67108865", NULL);
        expect(2, "jetsonctl: --on-boot goes with swap create\nTry 'jetsonctl swap --help'.\n", "swap", "remove",
               "--on-boot", NULL);
        expect(2, "jetsonctl: clocks: \"maybe\": expected on or off\nTry 'jetsonctl clocks --help'.\n", "clocks",
               "maybe", NULL);
        expect(2, "jetsonctl: unknown command \"frobnicate\"\nTry 'jetsonctl --help'.\n", "frobnicate", NULL);
        expect(2, "jetsonctl: unknown option --frob\nTry 'jetsonctl status --help'.\n", "status", "--frob", NULL);
        expect(2, "jetsonctl: --json must be short, pretty or off, not \"yaml\"\nTry 'jetsonctl --help'.\n", "--json=yaml",
               "status", NULL);
        /* getopt-style: a negative number is an option unless after --,
         * where it reaches the command's own check. */
        expect(2, "jetsonctl: unknown option -5 (a negative number goes after --)\nTry 'jetsonctl fan --help'.\n",
               "fan", "speed", "-5", NULL);
        expect(2, "jetsonctl: --interval: \"fast\" is not a whole number\nTry 'jetsonctl watch --help'.\n", "watch",
               "--interval", "fast", NULL);
        expect(2, "jetsonctl: \"64.5M\": a size is a whole number (64.5M is 66048K)\nTry 'jetsonctl swap --help'.\n",
               "swap", "create", "64.5M", NULL);
        expect(2, "jetsonctl: status takes no arguments\nTry 'jetsonctl status --help'.\n", "status", "now", NULL);
        expect(2, "jetsonctl: --color must be auto, always or never, not \"pink\"\nTry 'jetsonctl board --help'.\n",
               "board", "--color=pink", NULL);
}

/* A board without the feature: the same line from every command, exit 1. */
static void test_missing_features(void **state)
{
        jc_start(state, "x86-pc", NULL);
        const char *const *cases[] = {
                (const char *const[]) { "jetsonctl: this board has no nvpmodel\n", "nvpmodel", NULL },
                (const char *const[]) { "jetsonctl: this board has no nvpmodel\n", "nvpmodel", "set", "0", NULL },
                (const char *const[]) { "jetsonctl: this board has no nvpmodel\n", "nvpmodel", "default", "0", NULL },
                (const char *const[]) { "jetsonctl: this board has no jetson_clocks\n", "clocks", NULL },
                (const char *const[]) { "jetsonctl: this board has no jetson_clocks\n", "clocks", "on", NULL },
                (const char *const[]) { "jetsonctl: this board has no jetson_clocks\n", "clocks", "boot", "off", NULL },
                (const char *const[]) { "jetsonctl: this board has no fan\n", "fan", NULL },
                (const char *const[]) { "jetsonctl: this board has no fan\n", "fan", "speed", "50", NULL },
                (const char *const[]) { "jetsonctl: this board has no fan\n", "fan", "profile", "cool", NULL },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                jc_result r = jc_runv(cases[i] + 1);
                if (r.status != 1 || strcmp(r.err, cases[i][0]) != 0)
                        fail_msg("jetsonctl %s %s: exit %d, \"%s\"", cases[i][1], cases[i][2] ? cases[i][2] : "", r.status,
                                 r.err);
                assert_string_equal(r.out, "");
                jc_result_clear(&r);
        }
}

static void test_help(void **state)
{
        (void) state;
        static const char *const cmds[] = { "status", "board", "watch", "get", "fan", "nvpmodel", "clocks", "swap",
                                            "drop-caches", "restore", "serial", "doctor" };
        for (size_t i = 0; i < G_N_ELEMENTS(cmds); i++) {
                /* No bus needed for help. */
                g_autofree char *out = jc_ok(cmds[i], "--help", NULL);
                g_autofree char *usage = g_strdup_printf("jetsonctl [OPTION…] %s", cmds[i]);
                if (!strstr(out, usage) || !strstr(out, "busctl --system ") || !strstr(out, "--no-ask-password"))
                        fail_msg("jetsonctl %s --help:\n%s", cmds[i], out);
        }
        g_autofree char *main_help = jc_ok("--help", NULL);
        for (size_t i = 0; i < G_N_ELEMENTS(cmds); i++) {
                g_autofree char *line = g_strdup_printf("\n  %-12s ", cmds[i]);
                if (!strstr(main_help, line))
                        fail_msg("%s is not listed in jetsonctl --help:\n%s", cmds[i], main_help);
        }
        assert_non_null(strstr(main_help, "4 not authorized"));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_denied, testbus_teardown),
                cmocka_unit_test_teardown(test_denied_restore, testbus_teardown),
                cmocka_unit_test_teardown(test_not_running, testbus_teardown),
                cmocka_unit_test(test_no_bus),
                cmocka_unit_test_teardown(test_invalid_arguments, testbus_teardown),
                cmocka_unit_test_teardown(test_missing_features, testbus_teardown),
                cmocka_unit_test(test_help),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
