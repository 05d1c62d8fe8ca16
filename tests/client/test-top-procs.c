/* jetsonctl top's process list (client/top/top_procs.c: nvitop's columns,
 * sort both ways, filters, TIME, the tree from jetsond's ppid), its SGR
 * mouse reports (client/top/top_sgr.c) and its signals (client/top/top_signal.c:
 * refusals and a signal to a child of this test), without a bus or a
 * terminal. */
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sys/wait.h>
#include <string.h>
#include <unistd.h>

#include "top/top_mouse.h"
#include "top/top_procs.h"
#include "top/top_signal.h"

static jc_sample sample;

static int setup(void **state)
{
        (void) state;
        sample.values = g_variant_parse(G_VARIANT_TYPE("a{sv}"),
                "{'ram.total': <uint64 1000000>,"
                " 'process.300.name': <'python3'>, 'process.300.user': <'alice'>, 'process.300.cpu': <50.0>,"
                " 'process.300.rss': <uint64 100000>, 'process.300.gpu_mem': <uint64 3000>,"
                " 'process.300.dgpu.0.mem': <uint64 1000>, 'process.300.dgpu.0.sm': <35.0>,"
                " 'process.20.name': <'Xorg'>, 'process.20.user': <'root'>, 'process.20.cpu': <2.0>,"
                " 'process.20.rss': <uint64 50000>, 'process.20.gpu_mem': <uint64 500>,"
                " 'process.4000.name': <'firefox'>, 'process.4000.user': <'bob'>,"
                " 'process.4000.dgpu.1.mem': <uint64 2000>}", NULL, NULL, NULL);
        return sample.values ? 0 : -1;
}

static int teardown(void **state)
{
        (void) state;
        g_variant_unref(sample.values);
        return 0;
}

/* "PID/GPU" of each row, in order. */
static char *order(jc_top_col col, bool reverse, const char *filter)
{
        g_autoptr(GArray) rows = jc_top_proc_rows(&sample, col, reverse, filter, JC_TYPE_ANY);
        GString *s = g_string_new(NULL);
        for (guint i = 0; i < rows->len; i++) {
                const jc_top_proc *p = &g_array_index(rows, jc_top_proc, i);
                g_string_append_printf(s, "%s%u/%d", i ? " " : "", p->row.pid, p->row.gpu);
        }
        return g_string_free(s, FALSE);
}

#define assert_order(col, rev, filter, expected) \
        do { \
                g_autofree char *got = order(col, rev, filter); \
                assert_string_equal(got, expected); \
        } while (0)

static void test_sort(void **state)
{
        (void) state;
        /* Rows: 300 on GPU0 (1000) and the SoC (the other 2000), 20 on
         * the SoC (500), 4000 on GPU1 (2000). */
        assert_order(JC_COL_GPU_MEM, false, NULL, "300/-1 4000/1 300/0 20/-1");
        assert_order(JC_COL_GPU_MEM, true, NULL, "20/-1 300/0 300/-1 4000/1"); /* ties by PID */
        assert_order(JC_COL_PID, false, NULL, "20/-1 300/-1 300/0 4000/1");
        assert_order(JC_COL_PID, true, NULL, "4000/1 300/-1 300/0 20/-1");
        assert_order(JC_COL_GPU, false, NULL, "20/-1 300/-1 300/0 4000/1");
        assert_order(JC_COL_USER, false, NULL, "300/-1 300/0 4000/1 20/-1");
        assert_order(JC_COL_COMMAND, true, NULL, "20/-1 300/-1 300/0 4000/1");
        /* Missing values last either way (4000 has no CPU, only GPU0 has SM). */
        assert_order(JC_COL_CPU, false, NULL, "300/-1 300/0 20/-1 4000/1");
        assert_order(JC_COL_CPU, true, NULL, "20/-1 300/-1 300/0 4000/1");
        assert_order(JC_COL_SM, false, NULL, "300/0 20/-1 300/-1 4000/1");
        /* %MEM is RSS of ram.total: 10 % and 5 %. */
        g_autoptr(GArray) rows = jc_top_proc_rows(&sample, JC_COL_MEM, false, NULL, JC_TYPE_ANY);
        const jc_top_proc *first = &g_array_index(rows, jc_top_proc, 0);
        assert_int_equal(first->row.pid, 300);
        assert_true(first->has_mem_pct);
        assert_float_equal(first->mem_pct, 10.0, 1e-9);
        assert_false(g_array_index(rows, jc_top_proc, 3).has_mem_pct);
        assert_string_equal(jc_top_col_name(JC_COL_GPU_MEM), "GPU-MEM");
}

static void test_filter(void **state)
{
        (void) state;
        assert_order(JC_COL_PID, false, "", "20/-1 300/-1 300/0 4000/1");
        assert_order(JC_COL_PID, false, "300", "300/-1 300/0");       /* a PID */
        assert_order(JC_COL_PID, false, "30", "");                   /* the whole PID, not part */
        assert_order(JC_COL_PID, false, "ROOT", "20/-1");             /* a user, any case */
        assert_order(JC_COL_PID, false, "fox", "4000/1");             /* part of a command */
}

/* Whole command lines where they were read: shown, matched by the
 * filter and sorted by; the name where not. */
static void test_command_lines(void **state)
{
        (void) state;
        sample.commands = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        g_hash_table_insert(sample.commands, GUINT_TO_POINTER(300u),
                            g_strdup("/usr/bin/python3 train.py --model zebra"));
        g_hash_table_insert(sample.commands, GUINT_TO_POINTER(20u), g_strdup("/usr/lib/xorg/Xorg :0 -nolisten tcp"));
        assert_order(JC_COL_PID, false, "train.py", "300/-1 300/0");  /* an argument */
        assert_order(JC_COL_PID, false, "python3", "300/-1 300/0");   /* the name still */
        assert_order(JC_COL_PID, false, "NOLISTEN", "20/-1");
        assert_order(JC_COL_PID, false, "zebra", "300/-1 300/0");
        /* By what is shown: "/usr/bin/python3 ..." and "/usr/lib/xorg/..."
         * before "firefox" (no line: its name). */
        assert_order(JC_COL_COMMAND, false, NULL, "300/-1 300/0 20/-1 4000/1");
        g_autoptr(GArray) rows = jc_top_proc_rows(&sample, JC_COL_PID, false, NULL, JC_TYPE_ANY);
        const jc_gpu_process_row *xorg = &g_array_index(rows, jc_top_proc, 0).row;
        const jc_gpu_process_row *firefox = &g_array_index(rows, jc_top_proc, 3).row;
        assert_string_equal(jc_gpu_process_command(xorg), "/usr/lib/xorg/Xorg :0 -nolisten tcp");
        assert_string_equal(xorg->name, "Xorg");
        assert_string_equal(jc_gpu_process_command(firefox), "firefox");
        g_clear_pointer(&sample.commands, g_hash_table_unref);
        /* None read: the names, as before. */
        assert_order(JC_COL_PID, false, "train.py", "");
}

/* A machine where 300 and 4000 are children of 250 (bash), a child of
 * 100 (sshd), a child of init; 20 runs as Xwayland, not the list's Xorg. */
static bool fake_parent(uint32_t pid, const char *name, uint32_t *ppid, char *comm, size_t size, void *data)
{
        (void) data;
        static const struct { uint32_t pid, ppid; const char *comm; } table[] = {
                { 20, 1, "Xwayland" }, { 300, 250, "python3" }, { 4000, 250, "firefox" },
                { 250, 100, "bash" }, { 100, 1, "sshd" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(table); i++)
                if (table[i].pid == pid) {
                        if (name && strcmp(name, table[i].comm) != 0)
                                return false;
                        *ppid = table[i].ppid;
                        g_strlcpy(comm, table[i].comm, size);
                        return true;
                }
        return false;
}

static void test_tree(void **state)
{
        (void) state;
        g_autoptr(GArray) rows = jc_top_proc_rows(&sample, JC_COL_PID, false, NULL, JC_TYPE_ANY);
        g_autoptr(GArray) tree = jc_top_proc_tree(rows, fake_parent, NULL);
        GString *s = g_string_new(NULL);
        for (guint i = 0; i < tree->len; i++) {
                const jc_top_proc *p = &g_array_index(tree, jc_top_proc, i);
                g_string_append_printf(s, "%s%u:%d%s%s", i ? " " : "", p->row.pid, p->depth, p->ancestor ? "a" : "",
                                       p->ancestor ? p->row.name : "");
        }
        /* 20 is not Xorg here: no parents. The others under bash and
         * sshd (not init), each GPU row of 300 at its depth; siblings in
         * the list's order. */
        g_autofree char *got = g_string_free(s, FALSE);
        assert_string_equal(got, "20:0 100:0asshd 250:1abash 300:2 300:2 4000:2");
        /* Reversed, the roots and the siblings turn round too. */
        g_autoptr(GArray) rev = jc_top_proc_rows(&sample, JC_COL_PID, true, NULL, JC_TYPE_ANY);
        g_autoptr(GArray) tree2 = jc_top_proc_tree(rev, fake_parent, NULL);
        assert_int_equal(g_array_index(tree2, jc_top_proc, 0).row.pid, 100);
        assert_int_equal(g_array_index(tree2, jc_top_proc, 2).row.pid, 4000);
        assert_int_equal(g_array_index(tree2, jc_top_proc, 5).row.pid, 20);
}

/* Processes with their contexts, parents and starts, as jetsond's keys
 * say: 10 (C on GPU0, started first), 11 (G on GPU0, a child of 10), 12
 * (C+G on GPU1, a child of 11), 13 and 15 (on the SoC's GPU: no type,
 * children of 99 which jetsond does not list), 14 (no start, no parent),
 * 16 (the only child of 98, not listed either). */
static jc_sample typed(void)
{
        jc_sample s = { .timestamp_usec = 1000000000000000ull };
        s.values = g_variant_parse(G_VARIANT_TYPE("a{sv}"),
                "{'process.10.name': <'trainer'>, 'process.10.dgpu.0.mem': <uint64 10>,"
                " 'process.10.dgpu.0.type': <'compute'>, 'process.10.start_time': <1000.5>,"
                " 'process.11.name': <'viewer'>, 'process.11.dgpu.0.mem': <uint64 10>,"
                " 'process.11.dgpu.0.type': <'graphics'>, 'process.11.start_time': <2000.0>,"
                " 'process.11.ppid': <uint32 10>,"
                " 'process.12.name': <'blender'>, 'process.12.dgpu.1.mem': <uint64 10>,"
                " 'process.12.dgpu.1.type': <'compute+graphics'>, 'process.12.start_time': <1500.0>,"
                " 'process.12.ppid': <uint32 11>,"
                " 'process.13.name': <'gst'>, 'process.13.gpu_mem': <uint64 10>, 'process.13.ppid': <uint32 99>,"
                " 'process.13.start_time': <3000.0>,"
                " 'process.14.name': <'odd'>, 'process.14.gpu_mem': <uint64 10>,"
                " 'process.15.name': <'gst'>, 'process.15.gpu_mem': <uint64 10>, 'process.15.ppid': <uint32 99>,"
                " 'process.16.name': <'lone'>, 'process.16.gpu_mem': <uint64 10>, 'process.16.ppid': <uint32 98>}",
                NULL, NULL, NULL);
        assert_non_null(s.values);
        return s;
}

static char *pids(GArray *rows)
{
        GString *out = g_string_new(NULL);
        for (guint i = 0; i < rows->len; i++) {
                const jc_top_proc *p = &g_array_index(rows, jc_top_proc, i);
                g_string_append_printf(out, "%s%u%s", i ? " " : "", p->row.pid,
                                       p->ancestor ? "a" : p->row.type ? jc_top_type_name(p->row.type) : "");
        }
        return g_string_free(out, FALSE);
}

#define assert_rows(rows_expr, expected) \
        do { \
                g_autoptr(GArray) rows_ = (rows_expr); \
                g_autofree char *got_ = pids(rows_); \
                assert_string_equal(got_, expected); \
        } while (0)

static void test_types_and_time(void **state)
{
        (void) state;
        jc_sample s = typed();
        /* nvitop's -c, -C, -g, -G; the SoC's rows have no type. */
        assert_rows(jc_top_proc_rows(&s, JC_COL_PID, false, NULL, JC_TYPE_ANY), "10C 11G 12C+G 13 14 15 16");
        assert_rows(jc_top_proc_rows(&s, JC_COL_PID, false, NULL, JC_TYPE_COMPUTE), "10C 12C+G");
        assert_rows(jc_top_proc_rows(&s, JC_COL_PID, false, NULL, JC_TYPE_ONLY_COMPUTE), "10C");
        assert_rows(jc_top_proc_rows(&s, JC_COL_PID, false, NULL, JC_TYPE_GRAPHICS), "11G 12C+G");
        assert_rows(jc_top_proc_rows(&s, JC_COL_PID, false, NULL, JC_TYPE_ONLY_GRAPHICS), "11G");
        assert_rows(jc_top_proc_rows(&s, JC_COL_PID, false, "blend", JC_TYPE_GRAPHICS), "12C+G");
        /* TIME: longest running first, no start last either way */
        assert_rows(jc_top_proc_rows(&s, JC_COL_TIME, false, NULL, JC_TYPE_ANY), "10C 12C+G 11G 13 14 15 16");
        assert_rows(jc_top_proc_rows(&s, JC_COL_TIME, true, NULL, JC_TYPE_ANY), "13 11G 12C+G 10C 14 15 16");
        assert_string_equal(jc_top_col_name(JC_COL_TIME), "TIME");
        assert_string_equal(jc_top_type_filter_name(JC_TYPE_ONLY_GRAPHICS), "only graphics");
        g_variant_unref(s.values);
}

static void test_tree_from_ppid(void **state)
{
        (void) state;
        jc_sample s = typed();
        /* 12 under 11 under 10 (jetsond's ppid, whatever this machine
         * runs); 13 and 15 under 99, which jetsond does not list: a row
         * of its own with its PID alone; 98 over 16 alone is left out. */
        g_autoptr(GArray) rows = jc_top_proc_rows(&s, JC_COL_PID, false, NULL, JC_TYPE_ANY);
        g_autoptr(GArray) tree = jc_top_proc_tree(rows, jc_top_sample_parent, &s);
        GString *out = g_string_new(NULL);
        for (guint i = 0; i < tree->len; i++) {
                const jc_top_proc *p = &g_array_index(tree, jc_top_proc, i);
                g_string_append_printf(out, "%s%u:%d%s%s", i ? " " : "", p->row.pid, p->depth, p->ancestor ? "a" : "",
                                       p->row.name);
        }
        g_autofree char *got = g_string_free(out, FALSE);
        assert_string_equal(got, "10:0trainer 11:1viewer 12:2blender 99:0a 13:1gst 15:1gst 14:0odd 16:0lone");
        /* Filtered to graphics, 10 stays as the parent it is, named. */
        g_autoptr(GArray) g = jc_top_proc_rows(&s, JC_COL_PID, false, NULL, JC_TYPE_ONLY_GRAPHICS);
        g_autoptr(GArray) gtree = jc_top_proc_tree(g, jc_top_sample_parent, &s);
        assert_int_equal(gtree->len, 2);
        assert_true(g_array_index(gtree, jc_top_proc, 0).ancestor);
        assert_string_equal(g_array_index(gtree, jc_top_proc, 0).row.name, "trainer");
        g_variant_unref(s.values);
}

static void test_elapsed(void **state)
{
        (void) state;
        /* nvitop's running time: M:SS, H:MM:SS under four days, then days. */
        const struct { double s; const char *text; } cases[] = {
                { -5, "0:00" }, { 0, "0:00" }, { 59.9, "0:59" }, { 61, "1:01" }, { 3599, "59:59" },
                { 3600, "1:00:00" }, { 3725, "1:02:05" }, { 166413.47, "46:13:33" }, { 4 * 86400 - 1, "95:59:59" },
                { 4 * 86400, "4.0 days" }, { 63685000, "737.1 days" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
                g_autofree char *got = jc_top_format_elapsed(cases[i].s);
                assert_string_equal(got, cases[i].text);
        }
}

static void test_sgr_mouse(void **state)
{
        (void) state;
        int b, x, y;
        bool press;
        assert_true(jc_top_parse_sgr_mouse("0;230;41M", &b, &x, &y, &press));
        assert_int_equal(b, 0);
        assert_int_equal(x, 230); /* beyond X10's 223 */
        assert_int_equal(y, 41);
        assert_true(press);
        assert_true(jc_top_parse_sgr_mouse("64;1;1m", &b, &x, &y, &press));
        assert_int_equal(b, 64);
        assert_false(press);
        const char *bad[] = { "", "0;1M", "0;1;1", "0;1;1Mx", "0;0;1M", "a;1;1M", "0;1;;1M", "0;1234567;1M",
                              "-1;1;1M" };
        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
                assert_false(jc_top_parse_sgr_mouse(bad[i], &b, &x, &y, &press));
}

static void test_signal_refusals(void **state)
{
        (void) state;
        char text[256];
        g_autofree char *proc = g_dir_make_tmp("top-procs-XXXXXX", NULL);
        assert_false(jc_top_send_signal(proc, 1, "init", "root", SIGTERM, text, sizeof(text)));
        assert_string_equal(text, "Refused: not sending SIGTERM to PID 1");
        /* A PID this machine does not have, or has under another command:
         * jetsond's list may be another root's view. */
        assert_false(jc_top_send_signal(proc, 4242, "python3", g_get_user_name(), SIGTERM, text, sizeof(text)));
        assert_string_equal(text, "Refused: PID 4242 is not running on this machine");

        /* A child of this test, under its comm: ended by the signal. */
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
                pause();
                _exit(0);
        }
        g_autofree char *dir = g_strdup_printf("%s/%d", proc, child), *comm = g_strdup_printf("%s/comm", dir);
        assert_int_equal(g_mkdir(dir, 0755), 0);
        assert_true(g_file_set_contents(comm, "sleeper\n", -1, NULL));
        assert_false(jc_top_send_signal(proc, (uint32_t) child, "python3", g_get_user_name(), SIGTERM, text,
                                        sizeof(text)));
        g_autofree char *expected = g_strdup_printf("Refused: PID %d here is sleeper, not python3", child);
        assert_string_equal(text, expected);
        if (geteuid() != 0) {
                /* Another user's process, as a user: refused before anything. */
                assert_false(jc_top_send_signal(proc, (uint32_t) child, "sleeper", "somebody-else", SIGTERM, text,
                                                sizeof(text)));
                assert_non_null(strstr(text, "only root signals other users' processes"));
        }
        assert_true(jc_top_send_signal(proc, (uint32_t) child, "sleeper", g_get_user_name(), SIGTERM, text,
                                       sizeof(text)));
        g_autofree char *sent = g_strdup_printf("Sent SIGTERM to PID %d (sleeper)", child);
        assert_string_equal(text, sent);
        int status;
        assert_int_equal(waitpid(child, &status, 0), child);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
        g_unlink(comm);
        g_rmdir(dir);
        g_rmdir(proc);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sort),
                cmocka_unit_test(test_filter),
                cmocka_unit_test(test_command_lines),
                cmocka_unit_test(test_tree),
                cmocka_unit_test(test_types_and_time),
                cmocka_unit_test(test_tree_from_ppid),
                cmocka_unit_test(test_elapsed),
                cmocka_unit_test(test_sgr_mouse),
                cmocka_unit_test(test_signal_refusals),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
