/* The process tree reader (client/profiling/proc_tree.c) on made-up proc
 * directories: the tree through each thread's children files and, where
 * the kernel has none, through parent links; CPU times with the reaped
 * children's, memory and I/O summed; a file a process hides makes its sum
 * unknown, one a zombie lacks does not; a root that is gone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "profiling/proc_tree.h"

static void put(const char *dir, const char *rel, const char *text)
{
        g_autofree char *path = g_build_filename(dir, rel, NULL);
        g_autofree char *parent = g_path_get_dirname(path);
        assert_int_equal(g_mkdir_with_parents(parent, 0755), 0);
        assert_true(g_file_set_contents(path, text, -1, NULL));
}

/* PID with parent PPID, state STATE, utime 10, stime 5, cutime 3, cstime
 * 2; 250 pages resident, 800 KiB PSS, 4096 bytes read, 8192 written. */
static void process(const char *dir, int pid, int ppid, char state)
{
        g_autofree char *stat = g_strdup_printf("%d (a) b) %c %d 0 0 0 0 0 0 0 0 0 10 5 3 2 20 0 1 0\n", pid, state,
                                                ppid);
        g_autofree char *p = g_strdup_printf("%d/stat", pid);
        put(dir, p, stat);
        g_free(p);
        p = g_strdup_printf("%d/statm", pid);
        put(dir, p, state == 'Z' ? "0 0 0 0 0 0 0\n" : "1000 250 0 0 0 0 0\n");
        g_free(p);
        p = g_strdup_printf("%d/smaps_rollup", pid);
        put(dir, p, state == 'Z' ? "" : "Rss: 1000 kB\nPss: 800 kB\n");
        g_free(p);
        p = g_strdup_printf("%d/io", pid);
        put(dir, p, "rchar: 1\nread_bytes: 4096\nwrite_bytes: 8192\n");
}

static char *fake_proc(bool children_files)
{
        char *dir = g_dir_make_tmp("jetsonctl-proc.XXXXXX", NULL);
        assert_non_null(dir);
        process(dir, 100, 1, 'S');
        process(dir, 101, 100, 'R');
        process(dir, 102, 100, 'S');
        process(dir, 103, 101, 'S');
        process(dir, 200, 1, 'S'); /* not in the tree */
        if (children_files) {
                /* 102 was started by a thread of 100's other than the first. */
                put(dir, "100/task/100/children", "101 ");
                put(dir, "100/task/107/children", "102 ");
                put(dir, "101/task/101/children", "103 ");
                put(dir, "102/task/102/children", "");
                put(dir, "103/task/103/children", "");
                put(dir, "200/task/200/children", "");
        }
        return dir;
}

static void remove_tree(const char *dir)
{
        g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

static void check_sums(const char *dir)
{
        jc_tree_sample t;
        assert_true(jc_proc_tree_sample(dir, 100, &t));
        assert_int_equal(t.n_pids, 4);
        assert_int_equal(t.pids[0], 100);
        assert_int_equal(t.user_ticks, 4 * 13);
        assert_int_equal(t.system_ticks, 4 * 7);
        assert_int_equal(t.rss_bytes, 4 * 250 * (uint64_t) sysconf(_SC_PAGESIZE));
        assert_int_equal(t.pss_bytes, 4 * 800 * 1024);
        assert_int_equal(t.read_bytes, 4 * 4096);
        assert_int_equal(t.write_bytes, 4 * 8192);
        assert_true(t.have_rss && t.have_pss && t.have_io);
        jc_tree_sample_clear(&t);
}

static void test_children_files(void **state)
{
        (void) state;
        g_autofree char *dir = fake_proc(true);
        check_sums(dir);
        /* A subtree's root. */
        jc_tree_sample t;
        assert_true(jc_proc_tree_sample(dir, 101, &t));
        assert_int_equal(t.n_pids, 2);
        jc_tree_sample_clear(&t);
        remove_tree(dir);
}

static void test_parent_links(void **state)
{
        (void) state;
        g_autofree char *dir = fake_proc(false);
        check_sums(dir);
        remove_tree(dir);
}

static void test_hidden_and_zombie(void **state)
{
        (void) state;
        g_autofree char *dir = fake_proc(true);
        /* 103 exited (its parent has not reaped it): no memory, nothing hidden. */
        process(dir, 103, 101, 'Z');
        jc_tree_sample t;
        assert_true(jc_proc_tree_sample(dir, 100, &t));
        assert_int_equal(t.n_pids, 4);
        assert_int_equal(t.pss_bytes, 3 * 800 * 1024);
        assert_int_equal(t.user_ticks, 4 * 13); /* a zombie's CPU time still counts */
        assert_true(t.have_rss && t.have_pss && t.have_io);
        jc_tree_sample_clear(&t);
        /* 102 is exiting: its memory is gone (an empty smaps_rollup), and
         * that hides nothing. */
        put(dir, "102/smaps_rollup", "");
        assert_true(jc_proc_tree_sample(dir, 100, &t));
        assert_true(t.have_pss);
        assert_int_equal(t.pss_bytes, 2 * 800 * 1024);
        jc_tree_sample_clear(&t);
        /* 102 does not let the caller read its I/O (another user's
         * process): the tree's I/O is unknown, its memory still known.
         * A caller that reads every file (root's DAC override) cannot
         * make that here. */
        g_autofree char *io = g_build_filename(dir, "102", "io", NULL);
        assert_int_equal(g_chmod(io, 0), 0);
        g_autofree char *text = NULL;
        if (g_file_get_contents(io, &text, NULL, NULL)) {
                print_message("skipped: this caller reads a file of mode 000\n");
        } else {
                assert_true(jc_proc_tree_sample(dir, 100, &t));
                assert_false(t.have_io);
                assert_true(t.have_rss && t.have_pss);
                jc_tree_sample_clear(&t);
        }
        remove_tree(dir);
}

static void test_gone(void **state)
{
        (void) state;
        g_autofree char *dir = fake_proc(true);
        jc_tree_sample t;
        assert_false(jc_proc_tree_sample(dir, 999, &t));
        assert_int_equal(t.n_pids, 0);
        jc_tree_sample_clear(&t);
        remove_tree(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_children_files),
                cmocka_unit_test(test_parent_links),
                cmocka_unit_test(test_hidden_and_zombie),
                cmocka_unit_test(test_gone),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
