/* jetsonctl top's process list (client/top_procs.c: nvitop's columns,
 * sort both ways, filter) and its signals (client/top_signal.c: refusals
 * and a signal to a child of this test), without a bus or a terminal. */
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

#include "top_procs.h"
#include "top_signal.h"

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
        g_autoptr(GArray) rows = jc_top_proc_rows(&sample, col, reverse, filter);
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
        g_autoptr(GArray) rows = jc_top_proc_rows(&sample, JC_COL_MEM, false, NULL);
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
        g_autoptr(GArray) rows = jc_top_proc_rows(&sample, JC_COL_PID, false, NULL);
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
        g_autoptr(GArray) rev = jc_top_proc_rows(&sample, JC_COL_PID, true, NULL);
        g_autoptr(GArray) tree2 = jc_top_proc_tree(rev, fake_parent, NULL);
        assert_int_equal(g_array_index(tree2, jc_top_proc, 0).row.pid, 100);
        assert_int_equal(g_array_index(tree2, jc_top_proc, 2).row.pid, 4000);
        assert_int_equal(g_array_index(tree2, jc_top_proc, 5).row.pid, 20);
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
                cmocka_unit_test(test_tree),
                cmocka_unit_test(test_signal_refusals),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
