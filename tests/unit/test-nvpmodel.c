/* nvpmodel modes from each board's conf, current mode from the status file,
 * and changes picked up on the next read (including conf rewrites). */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "nvpmodel.h"
#include "glib-compat.h"

static void test_boards(void **state)
{
        (void) state;
        static const struct {
                const char *board;
                size_t n_modes;
                unsigned def, cur;
                const char *cur_name, *last_name;
        } cases[] = {
                { "agx-orin-jp62", 4, 2, 0, "MAXN", "MODE_50W" },
                { "orin-nano-jp62", 4, 1, 1, "25W", "7W" },
                { "xavier-nx-jp51", 9, 2, 1, "MODE_15W_4CORE", "MODE_20W_6CORE" },
                { "nano-jp46", 2, 0, 0, "MAXN", "5W" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                jd_sysroot *sr = fixture_open(cases[i].board);
                jd_nvpmodel_reader *r = jd_nvpmodel_reader_new(sr);
                const jd_nvpmodel_sample *s = jd_nvpmodel_reader_sample(r);
                assert_true(s->present);
                assert_int_equal(s->n_modes, cases[i].n_modes);
                assert_int_equal(s->default_id.value, cases[i].def);
                assert_int_equal(s->current_id.value, cases[i].cur);
                assert_string_equal(s->current_name, cases[i].cur_name);
                assert_string_equal(s->modes[s->n_modes - 1].name, cases[i].last_name);
                jd_nvpmodel_reader_free(r);
                jd_sysroot_free(sr);
        }
        jd_sysroot *sr = fixture_open("x86-pc");
        jd_nvpmodel_reader *r = jd_nvpmodel_reader_new(sr);
        assert_false(jd_nvpmodel_reader_sample(r)->present);
        jd_nvpmodel_reader_free(r);
        jd_sysroot_free(sr);
}

static void test_changes(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_nvpmodel_reader *r = jd_nvpmodel_reader_new(sr);
        fixture_write_str(dir, "var/lib/nvpmodel/status", "pmode:0003 fmode:cool\n");
        const jd_nvpmodel_sample *s = jd_nvpmodel_reader_sample(r);
        assert_int_equal(s->current_id.value, 3);
        assert_string_equal(s->current_name, "MODE_50W");
        /* An id the conf does not know: the id is still reported, the name is not invented. */
        fixture_write_str(dir, "var/lib/nvpmodel/status", "pmode:0009 fmode:cool\n");
        s = jd_nvpmodel_reader_sample(r);
        assert_int_equal(s->current_id.value, 9);
        assert_string_equal(s->current_name, "");
        /* The boot default rewritten (as SetDefaultMode will): re-read. */
        g_autofree char *conf = NULL;
        g_autofree char *path = fixture_host_path(dir, "etc/nvpmodel.conf");
        assert_true(g_file_get_contents(path, &conf, NULL, NULL));
        g_autoptr(GString) edited = g_string_new(conf);
        test_string_replace(edited, "< PM_CONFIG DEFAULT=2 >", "< PM_CONFIG DEFAULT=1 >", 1);
        g_string_append(edited, "\n< POWER_MODEL ID=9 NAME=CUSTOM >\n");
        assert_true(g_file_set_contents(path, edited->str, -1, NULL)); /* a new inode, like an atomic rewrite */
        s = jd_nvpmodel_reader_sample(r);
        assert_int_equal(s->default_id.value, 1);
        assert_string_equal(s->current_name, "CUSTOM");
        /* The status file gone (nvpmodel --boot): current mode unknown, not 0. */
        fixture_unlink(dir, "var/lib/nvpmodel/status");
        s = jd_nvpmodel_reader_sample(r);
        assert_false(s->current_id.present);
        jd_nvpmodel_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* jetsond's note of the running mode (SetDefaultMode removed the status
 * file): used while the status file is missing, unless a status file
 * newer than the note was seen since it was written. */
static void test_running_note(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_nvpmodel_reader *r = jd_nvpmodel_reader_new(sr);
        fixture_write_str(dir, "var/lib/nvpmodel/status", "pmode:0003 fmode:cool\n");
        assert_int_equal(jd_nvpmodel_reader_sample(r)->current_id.value, 3);
        usleep(20000);           /* mtimes a few kernel ticks apart */
        g_autofree char *run = fixture_host_path(dir, "run/jetsond");
        assert_int_equal(g_mkdir_with_parents(run, 0700), 0);
        fixture_write_str(dir, "run/jetsond/nvpmodel-running", "pmode:0003\n");
        /* Both there (SetDefaultMode between its two steps): the status,
         * which is older than the note, so the note still counts after. */
        assert_int_equal(jd_nvpmodel_reader_sample(r)->current_id.value, 3);
        fixture_unlink(dir, "var/lib/nvpmodel/status");
        const jd_nvpmodel_sample *s = jd_nvpmodel_reader_sample(r);
        assert_true(s->current_id.present);
        assert_int_equal(s->current_id.value, 3);
        assert_string_equal(s->current_name, "MODE_50W");
        /* A reader started later (jetsond restarted) reads the note too. */
        jd_nvpmodel_reader *again = jd_nvpmodel_reader_new(sr);
        assert_int_equal(jd_nvpmodel_reader_sample(again)->current_id.value, 3);
        jd_nvpmodel_reader_free(again);
        /* nvpmodel run by hand after the note: its status wins ... */
        usleep(20000);
        fixture_write_str(dir, "var/lib/nvpmodel/status", "pmode:0001 fmode:cool\n");
        assert_int_equal(jd_nvpmodel_reader_sample(r)->current_id.value, 1);
        /* ... and once removed, the older note tells nothing. */
        fixture_unlink(dir, "var/lib/nvpmodel/status");
        s = jd_nvpmodel_reader_sample(r);
        assert_false(s->current_id.present);
        assert_string_equal(s->current_name, "");
        /* A new note is believed again; a malformed one is not. */
        fixture_write_str(dir, "run/jetsond/nvpmodel-running", "pmode:0002\n");
        assert_int_equal(jd_nvpmodel_reader_sample(r)->current_id.value, 2);
        fixture_write_str(dir, "run/jetsond/nvpmodel-running", "garbage\n");
        assert_false(jd_nvpmodel_reader_sample(r)->current_id.present);
        jd_nvpmodel_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* Headers wider than the 8 fields the parser once held (issue 31): a
 * POWER_MODEL whose ID and NAME come after a dozen per-mode columns, as a
 * newer JetPack's conf may list, and a PM_CONFIG whose DEFAULT is its
 * 12th field, are read whole; a non-field among many still makes the
 * line no header, and a key given twice is still no answer. */
static void test_wide_headers(void **state)
{
        (void) state;
        GString *conf = g_string_new("");
        GString *cols = g_string_new("");
        for (int i = 0; i < 11; i++)
                g_string_append_printf(cols, " COL%d=%d", i, i * 100);
        g_string_append_printf(conf, "< PM_CONFIG%s DEFAULT=5 >\n", cols->str);
        g_string_append_printf(conf, "<POWER_MODEL%s ID=5 NAME=WIDE_FIVE CPU_A78_0=1 GPU_TPC=8 EMC=3199>\n",
                               cols->str);
        g_string_append_printf(conf, "< POWER_MODEL%s ID=6 NAME=NOT_A_HEADER stray >\n", cols->str);
        g_string_append_printf(conf, "< POWER_MODEL%s ID=7 NAME=TWICE NAME=AGAIN >\n", cols->str);
        jd_nvpmodel_header h;
        assert_true(jd_nvpmodel_parse_header(strstr(conf->str, "<POWER_MODEL"), &h));
        printf("figure: widest header has %zu fields\n", h.n);
        assert_int_equal(h.n, 16);
        jd_span emc;
        assert_true(jd_nvpmodel_header_value(&h, "EMC", &emc));
        assert_true(jd_span_eq(emc, "3199"));

        jd_nvpmodel_sample s = { 0 };
        assert_true(jd_parse_nvpmodel_conf(conf->str, &s));
        assert_int_equal(s.n_modes, 1);
        assert_int_equal(s.modes[0].id, 5);
        assert_string_equal(s.modes[0].name, "WIDE_FIVE");
        assert_true(s.default_id.present);
        assert_int_equal(s.default_id.value, 5);
        jd_nvpmodel_sample_clear(&s);
        g_string_free(cols, TRUE);
        g_string_free(conf, TRUE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_boards),
                cmocka_unit_test(test_changes),
                cmocka_unit_test(test_running_note),
                cmocka_unit_test(test_wide_headers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
