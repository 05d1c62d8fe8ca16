/* Config file edits: only the edited token or line changes, byte for byte.
 *
 * Expected texts are built by a plain replacement of one known line of the
 * fixture (or written out literally), never by the code under test. */
#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "atomic_file.h"
#include "config_edit.h"
#include "fan.h"
#include "fixture.h"
#include "nvpmodel.h"
#include "swap.h"

/* TEXT with its only occurrence of OLD replaced by NEW. */
static char *replace_once(const char *text, const char *old, const char *new)
{
        const char *at = strstr(text, old);
        assert_non_null(at);
        assert_null(strstr(at + 1, old));
        return g_strdup_printf("%.*s%s%s", (int) (at - text), text, new, at + strlen(old));
}

/* The edit succeeds and gives exactly EXPECTED. ERROR is passed by
 * address: it is set by the call that is this function's argument. */
static void assert_edit(char *got, const char *const *error, const char *expected)
{
        if (!got)
                fail_msg("edit refused: %s", *error ? *error : "(no message)");
        assert_string_equal(got, expected);
        g_free(got);
}

/* The edit is refused with a message. */
static void assert_refused(char *got, const char *const *error)
{
        assert_null(got);
        assert_non_null(*error);
        assert_true(strlen(*error) > 0);
}

static void test_nvpmodel_fixtures(void **state)
{
        (void) state;
        static const struct {
                const char *file, *header;
                unsigned id;
                const char *new_header;
        } cases[] = {
                { "agx-orin-jp62/etc/nvpmodel/nvpmodel_p3701_0005.conf", "< PM_CONFIG DEFAULT=2 >", 1,
                  "< PM_CONFIG DEFAULT=1 >" },
                { "orin-nano-jp62/etc/nvpmodel/nvpmodel_p3767_0005_super.conf", "< PM_CONFIG DEFAULT=1 >", 3,
                  "< PM_CONFIG DEFAULT=3 >" },
                { "xavier-nx-jp51/etc/nvpmodel/nvpmodel_t194_p3668.conf", "< PM_CONFIG DEFAULT=2 >", 8,
                  "< PM_CONFIG DEFAULT=8 >" },
                { "nano-jp46/etc/nvpmodel/nvpmodel_t210_jetson-nano.conf", "< PM_CONFIG DEFAULT=0 >", 1,
                  "< PM_CONFIG DEFAULT=1 >" },
                /* Same id, and a multi-digit one. */
                { "agx-orin-jp62/etc/nvpmodel/nvpmodel_p3701_0005.conf", "< PM_CONFIG DEFAULT=2 >", 2,
                  "< PM_CONFIG DEFAULT=2 >" },
                { "agx-orin-jp62/etc/nvpmodel/nvpmodel_p3701_0005.conf", "< PM_CONFIG DEFAULT=2 >", 4294967295u,
                  "< PM_CONFIG DEFAULT=4294967295 >" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autofree char *conf = fixture_read_aux(cases[i].file);
                g_autofree char *expected = replace_once(conf, cases[i].header, cases[i].new_header);
                const char *error = NULL;
                char *got = jd_edit_nvpmodel_default(conf, cases[i].id, &error);
                assert_non_null(got);
                /* The reader agrees: same modes, new default. */
                jd_nvpmodel_sample before = { 0 }, after = { 0 };
                assert_true(jd_parse_nvpmodel_conf(conf, &before));
                assert_true(jd_parse_nvpmodel_conf(got, &after));
                assert_int_equal(after.n_modes, before.n_modes);
                assert_true(after.default_id.present);
                assert_int_equal(after.default_id.value, cases[i].id);
                jd_nvpmodel_sample_clear(&before);
                jd_nvpmodel_sample_clear(&after);
                assert_edit(got, &error, expected);
        }
}

static void test_nvpmodel_headers(void **state)
{
        (void) state;
        const char *error = NULL;
        /* Spacing inside < > varies, tabs included; it is kept. */
        assert_edit(jd_edit_nvpmodel_default("x\n<PM_CONFIG   DEFAULT=3>\ny\n", 12, &error), &error,
                    "x\n<PM_CONFIG   DEFAULT=12>\ny\n");
        assert_edit(jd_edit_nvpmodel_default("  <\tPM_CONFIG\tDEFAULT=07\t>  \n", 0, &error), &error,
                    "  <\tPM_CONFIG\tDEFAULT=0\t>  \n");
        /* Commented-out headers are not headers, before or after the real one. */
        assert_edit(jd_edit_nvpmodel_default("# < PM_CONFIG DEFAULT=1 >\n< PM_CONFIG DEFAULT=2 >\n"
                                             "  #< PM_CONFIG DEFAULT=3 >\n",
                                             0, &error),
                    &error, "# < PM_CONFIG DEFAULT=1 >\n< PM_CONFIG DEFAULT=0 >\n  #< PM_CONFIG DEFAULT=3 >\n");
        /* Other headers with DEFAULT-like fields are left alone. */
        assert_edit(jd_edit_nvpmodel_default("< POWER_MODEL ID=0 NAME=DEFAULT=5 >\n< PM_CONFIG DEFAULT=2 >\n", 1,
                                             &error),
                    &error, "< POWER_MODEL ID=0 NAME=DEFAULT=5 >\n< PM_CONFIG DEFAULT=1 >\n");
        /* A header of any width (issue 31: once refused past 8 fields). */
        assert_edit(jd_edit_nvpmodel_default("< PM_CONFIG K0=1 K1=1 K2=1 K3=1 K4=1 K5=1 K6=1 K7=1 K8=1 K9=1 "
                                             "DEFAULT=2 K10=1 >\n",
                                             5, &error),
                    &error, "< PM_CONFIG K0=1 K1=1 K2=1 K3=1 K4=1 K5=1 K6=1 K7=1 K8=1 K9=1 DEFAULT=5 K10=1 >\n");
        /* No final newline, and CRLF line ends. */
        assert_edit(jd_edit_nvpmodel_default("a\n< PM_CONFIG DEFAULT=2 >", 3, &error), &error,
                    "a\n< PM_CONFIG DEFAULT=3 >");
        assert_edit(jd_edit_nvpmodel_default("a\r\n< PM_CONFIG DEFAULT=2 >\r\nb\r\n", 3, &error), &error,
                    "a\r\n< PM_CONFIG DEFAULT=3 >\r\nb\r\n");

        static const char *const refused[] = {
                "",
                "< POWER_MODEL ID=0 NAME=MAXN >\n",
                "# < PM_CONFIG DEFAULT=1 >\n",                             /* commented only */
                "< PM_CONFIG DEFAULT=1 >\n< PM_CONFIG DEFAULT=2 >\n",       /* two */
                "< PM_CONFIG DEFAULT=1 >\nx\n  <PM_CONFIG DEFAULT=1>",       /* two, even if equal */
                "< PM_CONFIG >\n",                                         /* no DEFAULT */
                "< PM_CONFIG DEFAULT= >\n",
                "< PM_CONFIG DEFAULT=MAXN >\n",
                "< PM_CONFIG DEFAULT=-1 >\n",
                "< PM_CONFIG DEFAULT=1 DEFAULT=2 >\n",
                "< PM_CONFIG DEFAULT=2\n",                                 /* unclosed */
                "< PM_CONFIG DEFAULT=2 > # trailing\n",                    /* the reader ignores it too */
                "< PM_CONFIGX DEFAULT=2 >\n",
        };
        for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
                error = NULL;
                assert_refused(jd_edit_nvpmodel_default(refused[i], 1, &error), &error);
        }
}

/* The reader and the editor read headers alike: whenever the editor
 * rewrites a conf, the reader sees the new default; whenever it refuses,
 * the reader knows no default either. */
static void test_nvpmodel_reader_agrees(void **state)
{
        (void) state;
        GString *long_line = g_string_new("< POWER_MODEL ID=0 NAME=MAXN >\n< PM_CONFIG DEFAULT=2");
        for (int i = 0; i < 400; i++)
                g_string_append_c(long_line, ' ');
        g_string_append(long_line, ">\n");
        const char *confs[] = {
                "< POWER_MODEL ID=0 NAME=MAXN >\n<\tPM_CONFIG\tDEFAULT=2\t>\n",           /* tabs */
                long_line->str,                                                          /* 400 blanks */
                "< POWER_MODEL ID=0 NAME=MAXN >\nsee < PM_CONFIG DEFAULT=3 > below\n< PM_CONFIG DEFAULT=2 >\n",
                "< POWER_MODEL ID=0 NAME=PM_CONFIG >\n< PM_CONFIG DEFAULT=2 >\n",
                "< POWER_MODEL ID=0 NAME=MAXN >\n< PM_CONFIG DEFAULT=1 >\n< PM_CONFIG DEFAULT=2 >\n",
                "< POWER_MODEL ID=0 NAME=MAXN >\n< PM_CONFIG DEFAULT=1 DEFAULT=2 >\n",
                "< POWER_MODEL ID=0 NAME=MAXN >\n< PM_CONFIG DEFAULT=2 > trailing\n",
                "< POWER_MODEL ID=0 NAME=MAXN >\n\t< PM_CONFIG DEFAULT=2 >\r\n",
        };
        for (size_t i = 0; i < G_N_ELEMENTS(confs); i++) {
                const char *error = NULL;
                jd_nvpmodel_sample before = { 0 }, after = { 0 };
                jd_parse_nvpmodel_conf(confs[i], &before);
                jd_nvpmodel_sample_clear(&before);
                char *edited = jd_edit_nvpmodel_default(confs[i], 7, &error);
                if (!edited) {
                        if (before.default_id.present)
                                fail_msg("conf %zu: the editor refused (%s), the reader saw DEFAULT=%" PRIu64, i, error,
                                         before.default_id.value);
                        continue;
                }
                assert_true(before.default_id.present && before.default_id.value == 2);
                jd_parse_nvpmodel_conf(edited, &after);
                jd_nvpmodel_sample_clear(&after);
                if (!after.default_id.present || after.default_id.value != 7)
                        fail_msg("conf %zu: edited to 7, the reader sees %s", i, after.default_id.present ? "another" : "none");
                g_free(edited);
        }
        g_string_free(long_line, TRUE);
}

static void test_fan_fixtures(void **state)
{
        (void) state;
        static const struct {
                const char *file, *line, *profile, *new_line;
        } cases[] = {
                { "agx-orin-jp62/etc/nvpower/nvfancontrol/nvfancontrol_p3701_0000.conf",
                  "    FAN_DEFAULT_PROFILE cool\n", "quiet", "    FAN_DEFAULT_PROFILE quiet\n" },
                { "orin-nano-jp62/etc/nvpower/nvfancontrol/nvfancontrol_p3767_0000.conf",
                  "    FAN_DEFAULT_PROFILE quiet\n", "cool", "    FAN_DEFAULT_PROFILE cool\n" },
                { "xavier-nx-jp51/etc/nvpower/nvfancontrol/nvfancontrol_p3668.conf",
                  "    FAN_DEFAULT_PROFILE cool\n", "quiet", "    FAN_DEFAULT_PROFILE quiet\n" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autofree char *conf = fixture_read_aux(cases[i].file);
                g_autofree char *expected = replace_once(conf, cases[i].line, cases[i].new_line);
                const char *error = NULL;
                char *got = jd_edit_nvfancontrol_profile(conf, cases[i].profile, &error);
                assert_non_null(got);
                jd_fan_profile *names = NULL;
                size_t cap = 0;
                char def[32];
                assert_int_equal(jd_parse_nvfancontrol_profiles(got, &names, &cap, def, sizeof(def)), 2);
                free(names);
                assert_string_equal(def, cases[i].profile);
                assert_edit(got, &error, expected);
        }
}

static void test_fan_lines(void **state)
{
        (void) state;
        const char *error = NULL;
        /* Tabs around the key and the value are kept, and what follows it. */
        assert_edit(jd_edit_nvfancontrol_profile("<FAN 1>\n\tFAN_PROFILE quiet {\n\t}\n"
                                                 "\tFAN_DEFAULT_PROFILE\t\tcool\t# boot\n\tKICKSTART_PWM 77\n",
                                                 "quiet", &error),
                    &error,
                    "<FAN 1>\n\tFAN_PROFILE quiet {\n\t}\n\tFAN_DEFAULT_PROFILE\t\tquiet\t# boot\n\tKICKSTART_PWM 77\n");
        /* Comments and longer keywords are not the line. */
        assert_edit(jd_edit_nvfancontrol_profile("#FAN_DEFAULT_PROFILE quiet\n\t# FAN_DEFAULT_PROFILE x\n"
                                                 "FAN_DEFAULT_PROFILES a\nFAN_DEFAULT_PROFILE cool\n",
                                                 "my-Profile_2", &error),
                    &error,
                    "#FAN_DEFAULT_PROFILE quiet\n\t# FAN_DEFAULT_PROFILE x\nFAN_DEFAULT_PROFILES a\n"
                    "FAN_DEFAULT_PROFILE my-Profile_2\n");
        /* No final newline; CRLF. */
        assert_edit(jd_edit_nvfancontrol_profile("a 1\n  FAN_DEFAULT_PROFILE cool", "quiet", &error), &error,
                    "a 1\n  FAN_DEFAULT_PROFILE quiet");
        assert_edit(jd_edit_nvfancontrol_profile("a 1\r\n  FAN_DEFAULT_PROFILE cool\r\nb\r\n", "quiet", &error),
                    &error, "a 1\r\n  FAN_DEFAULT_PROFILE quiet\r\nb\r\n");

        static const char *const refused_confs[] = {
                "",
                "POLLING_INTERVAL 2\n",
                "#FAN_DEFAULT_PROFILE cool\n",
                "FAN_DEFAULT_PROFILE\n",
                "FAN_DEFAULT_PROFILE   \r\n",
                "FAN_DEFAULT_PROFILE",
                "<FAN 1>\nFAN_DEFAULT_PROFILE cool\n<FAN 2>\nFAN_DEFAULT_PROFILE quiet\n",
        };
        for (size_t i = 0; i < G_N_ELEMENTS(refused_confs); i++) {
                error = NULL;
                assert_refused(jd_edit_nvfancontrol_profile(refused_confs[i], "quiet", &error), &error);
        }
        static const char *const refused_names[] = {
                "", "a b", "cool\n", "x;rm", "../x", "caf\xc3\xa9", "a\tb", "#",
                "abcdefghijklmnopqrstuvwxyz012345", /* 32 */
        };
        for (size_t i = 0; i < G_N_ELEMENTS(refused_names); i++) {
                error = NULL;
                assert_refused(jd_edit_nvfancontrol_profile("FAN_DEFAULT_PROFILE cool\n", refused_names[i], &error),
                               &error);
        }
        /* 31 characters is the limit. */
        assert_edit(jd_edit_nvfancontrol_profile("FAN_DEFAULT_PROFILE cool\n", "abcdefghijklmnopqrstuvwxyz01234",
                                                 &error),
                    &error, "FAN_DEFAULT_PROFILE abcdefghijklmnopqrstuvwxyz01234\n");
}

static void test_fstab_fixtures(void **state)
{
        (void) state;
        static const char *const boards[] = { "agx-orin-jp62", "orin-nano-jp62", "xavier-nx-jp51", "nano-jp46",
                                              "x86-pc" };
        for (size_t i = 0; i < G_N_ELEMENTS(boards); i++) {
                g_autofree char *file = g_strconcat(boards[i], "/etc/fstab", NULL);
                g_autofree char *fstab = fixture_read_aux(file);
                g_autofree char *expected = g_strconcat(fstab, "/swapfile none swap sw 0 0\n", NULL);
                const char *error = NULL;
                g_autofree char *added = jd_fstab_add_swap(fstab, "/swapfile", &error);
                assert_non_null(added);
                assert_string_equal(added, expected);
                assert_true(jd_fstab_has_swap(added, "/swapfile"));
                /* Once only. */
                error = NULL;
                assert_refused(jd_fstab_add_swap(added, "/swapfile", &error), &error);
                /* And back: the original, byte for byte. */
                assert_edit(jd_fstab_remove_swap(added, "/swapfile", &error), &error, fstab);
                /* Nothing to remove in the original. */
                error = NULL;
                assert_refused(jd_fstab_remove_swap(fstab, "/swapfile", &error), &error);
        }
}

static void test_fstab_hand_written(void **state)
{
        (void) state;
        const char *error = NULL;
        /* Xavier NX: a tab-separated /swfile entry and a commented /swapfile. */
        g_autofree char *nx = fixture_read_aux("xavier-nx-jp51/etc/fstab");
        error = NULL;
        assert_refused(jd_fstab_add_swap(nx, "/swfile", &error), &error);
        g_autofree char *nx_without = replace_once(nx, "/swfile  none\tswap    sw\t0 0\n", "");
        assert_edit(jd_fstab_remove_swap(nx, "/swfile", &error), &error, nx_without);
        g_autofree char *nx_with = g_strconcat(nx, "/swapfile none swap sw 0 0\n", NULL);
        assert_edit(jd_fstab_add_swap(nx, "/swapfile", &error), &error, nx_with);

        /* Only our line goes; the partition swap and everything else stay. */
        g_autofree char *pc = fixture_read_aux("x86-pc/etc/fstab");
        g_autofree char *pc_both = g_strconcat(pc, "/swapfile none swap sw 0 0\n", NULL);
        assert_edit(jd_fstab_remove_swap(pc_both, "/swapfile", &error), &error, pc);
        g_autofree char *pc_without = replace_once(pc, "/dev/nvme0n1p3 none            swap    sw              0       0\n",
                                                   "");
        g_autofree char *pc_both_without = g_strconcat(pc_without, "/swapfile none swap sw 0 0\n", NULL);
        assert_edit(jd_fstab_remove_swap(pc_both, "/dev/nvme0n1p3", &error), &error, pc_both_without);

        /* Escaped blanks in other entries; an equivalent entry with other
         * options, CRLF, and no final newline; duplicates all go. */
        const char *fstab = "/dev/root / ext4 defaults 0 1\r\n"
                            "/swap\\040file none swap sw 0 0\n"
                            "/mnt/my\\040disk /mnt/x ext4 defaults 0 0\n"
                            "\t/swapfile\tnone\tswap\tdefaults,pri=5\t0\t0\r\n"
                            "#/swapfile none swap sw 0 0\n"
                            "/swapfile /mnt/y ext4 defaults 0 0\n"
                            "/swapfile.old none swap sw 0 0\n"
                            "/swapfile none swap sw";
        assert_edit(jd_fstab_remove_swap(fstab, "/swapfile", &error), &error,
                    "/dev/root / ext4 defaults 0 1\r\n"
                    "/swap\\040file none swap sw 0 0\n"
                    "/mnt/my\\040disk /mnt/x ext4 defaults 0 0\n"
                    "#/swapfile none swap sw 0 0\n"
                    "/swapfile /mnt/y ext4 defaults 0 0\n"
                    "/swapfile.old none swap sw 0 0\n");
        error = NULL;
        assert_refused(jd_fstab_add_swap(fstab, "/swapfile", &error), &error);
        /* "/swap" is not "/swap\040file" (= "/swap file"). */
        assert_edit(jd_fstab_add_swap("/swap\\040file none swap sw 0 0", "/swap", &error), &error,
                    "/swap\\040file none swap sw 0 0\n/swap none swap sw 0 0\n");
        assert_edit(jd_fstab_add_swap("", "/swapfile", &error), &error, "/swapfile none swap sw 0 0\n");
        assert_edit(jd_fstab_add_swap("a b c\r\n", "/swapfile", &error), &error,
                    "a b c\r\n/swapfile none swap sw 0 0\n");
        assert_edit(jd_fstab_remove_swap("/swapfile none swap sw 0 0\n", "/swapfile", &error), &error, "");
}

static void test_fstab_paths(void **state)
{
        (void) state;
        g_autofree char *long_path = g_strnfill(255, 'a');
        long_path[0] = '/';
        static const char *const refused[] = {
                "", "swapfile", "./swapfile", "/swap file", "/swap\tfile", "/swap\nfile", "/swap\\040file",
                "/swap\rfile", "/swap\x7f", "/swap\x01",
        };
        for (size_t i = 0; i < G_N_ELEMENTS(refused); i++) {
                const char *error = NULL;
                assert_refused(jd_fstab_add_swap("", refused[i], &error), &error);
                error = NULL;
                assert_refused(jd_fstab_remove_swap("/swapfile none swap sw 0 0\n", refused[i], &error), &error);
        }
        const char *error = NULL;
        assert_refused(jd_fstab_add_swap("", long_path, &error), &error);
        long_path[254] = '\0';
        g_autofree char *line = g_strconcat(long_path, " none swap sw 0 0\n", NULL);
        assert_edit(jd_fstab_add_swap("", long_path, &error), &error, line);
}

/* An fstab the reader does not use is refused with its reason, never
 * edited: past the reader's 1 MiB (as text, and as a file through
 * jd_read_text), or holding a NUL byte (the reader would stop there). */
static void test_fstab_unparseable(void **state)
{
        (void) state;
        const char *error = NULL;
        GString *big = g_string_new("/swapfile none swap sw 0 0\n");
        while (big->len <= JD_FSTAB_MAX)
                g_string_append(big, "# padding padding padding padding padding padding padding padding\n");
        assert_refused(jd_fstab_add_swap(big->str, "/other", &error), &error);
        assert_non_null(strstr(error, "larger than 1 MiB"));
        error = NULL;
        assert_refused(jd_fstab_remove_swap(big->str, "/swapfile", &error), &error);
        assert_non_null(strstr(error, "larger than 1 MiB"));

        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        char *text = NULL;
        fixture_write(dir, "etc/fstab", big->str, big->len);
        int r = jd_read_text(sr, "/etc/fstab", JD_FSTAB_MAX, &text);
        assert_int_equal(r, -EFBIG);
        assert_non_null(strstr(jd_fstab_unreadable_reason(r), "larger than 1 MiB"));
        static const char nul[] = "/dev/root / ext4 defaults 0 1\n\0/swapfile none swap sw 0 0\n";
        fixture_write(dir, "etc/fstab", nul, sizeof(nul) - 1);
        r = jd_read_text(sr, "/etc/fstab", JD_FSTAB_MAX, &text);
        assert_int_equal(r, -EINVAL);
        assert_null(text);
        assert_non_null(strstr(jd_fstab_unreadable_reason(r), "NUL byte"));
        assert_null(jd_fstab_unreadable_reason(-EACCES)); /* said as it is by the caller */
        fixture_remove_copy(sr, dir);
        g_string_free(big, TRUE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_nvpmodel_fixtures), cmocka_unit_test(test_nvpmodel_headers),
                cmocka_unit_test(test_fan_fixtures),      cmocka_unit_test(test_fan_lines),
                cmocka_unit_test(test_fstab_fixtures),    cmocka_unit_test(test_fstab_hand_written),
                cmocka_unit_test(test_fstab_paths),       cmocka_unit_test(test_nvpmodel_reader_agrees),
                cmocka_unit_test(test_fstab_unparseable),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
