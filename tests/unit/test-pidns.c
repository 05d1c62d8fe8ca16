/* PID namespaces: NSpid and namespace links parsed; PIDs translated
 * between a caller's namespace and /proc's on a fake tree with two
 * containers that use the same PIDs, and on the real kernel with
 * processes forked into a new PID namespace and one nested in it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "pidns.h"

static void test_parse_nspid(void **state)
{
        (void) state;
        jd_pidns_process p;
        assert_true(jd_parse_nspid("Name:\tsh\nPid:\t4242\nPPid:\t1\nNSpid:\t4242\t17\t1\nNSpgid:\t1\n", &p));
        assert_int_equal(p.pid, 4242);
        assert_int_equal(p.depth, 2);
        assert_int_equal(p.nspid[1], 17);
        assert_int_equal(p.nspid[2], 1);
        /* A kernel before 4.1: no NSpid, one namespace. */
        assert_true(jd_parse_nspid("Name:\tsh\nPPid:\t1\nPid:\t77\n", &p));
        assert_int_equal(p.pid, 77);
        assert_int_equal(p.depth, 0);
        /* "PPid:" is not "Pid:"; nothing else names the PID. */
        assert_false(jd_parse_nspid("PPid:\t1\nTracerPid:\t0\n", &p));
        assert_false(jd_parse_nspid("NSpid:\t12 x\nPid:\t12\n", &p));
        assert_false(jd_parse_nspid("NSpid:\nPid:\t12\n", &p));
        assert_false(jd_parse_nspid("NSpid:\t0\n", &p));
        assert_false(jd_parse_nspid("", &p));
        GString *deep = g_string_new("NSpid:");
        for (int i = 0; i < JD_PIDNS_MAX_DEPTH + 1; i++)
                g_string_append_printf(deep, "\t%d", 100 - i);
        assert_false(jd_parse_nspid(deep->str, &p));
        g_string_free(deep, TRUE);
}

static void test_parse_ns_link(void **state)
{
        (void) state;
        uint64_t ino = 0;
        assert_true(jd_parse_ns_link("pid:[4026531836]", &ino));
        assert_int_equal(ino, 4026531836ULL);
        assert_false(jd_parse_ns_link("net:[4026531836]", &ino));
        assert_false(jd_parse_ns_link("pid:[4026531836", &ino));
        assert_false(jd_parse_ns_link("pid:[]", &ino));
        assert_false(jd_parse_ns_link("pid:[12]x", &ino));
}

/* A fake /proc entry: NSPID the NSpid line's numbers, NS its own
 * namespace's inode. */
static void fake_process(const char *root, const char *nspid, uint64_t ns)
{
        uint32_t pid = (uint32_t) strtoul(nspid, NULL, 10);
        g_autofree char *dir = g_strdup_printf("%s/proc/%u/ns", root, pid);
        assert_int_equal(g_mkdir_with_parents(dir, 0755), 0);
        g_autofree char *status = g_strdup_printf("%s/proc/%u/status", root, pid);
        g_autofree char *text = g_strdup_printf("Name:\tx\nPid:\t%u\nPPid:\t1\nNSpid:\t%s\n", pid, nspid);
        assert_true(g_file_set_contents(status, text, -1, NULL));
        g_autofree char *link = g_strdup_printf("%s/pid", dir);
        g_autofree char *target = g_strdup_printf("pid:[%" G_GUINT64_FORMAT "]", ns);
        assert_int_equal(symlink(target, link), 0);
}

enum { HOST = 4026531836u, CONTAINER_A = 4026532001u, CONTAINER_B = 4026532002u };

static void test_fake_containers(void **state)
{
        (void) state;
        g_autofree char *root = g_dir_make_tmp("pidns-XXXXXX", NULL);
        assert_non_null(root);
        fake_process(root, "50", HOST);
        fake_process(root, "100\t1", CONTAINER_A);
        fake_process(root, "101\t7", CONTAINER_A);
        fake_process(root, "200\t1", CONTAINER_B);
        fake_process(root, "201\t7", CONTAINER_B);
        /* Nested in A: its namespace's parent is asked of the kernel,
         * which a fake tree cannot answer: never guessed visible. */
        fake_process(root, "300\t9\t1", 4026532003u);
        const char *err = NULL;
        jd_sysroot *sr = jd_sysroot_new(root, &err);
        assert_non_null(sr);

        jd_pidns_process a, b, host, x;
        assert_int_equal(jd_pidns_read(sr, 101, &a), 0);
        assert_int_equal(a.depth, 1);
        assert_int_equal(a.ns_inode, CONTAINER_A);
        assert_int_equal(jd_pidns_read(sr, 201, &b), 0);
        assert_int_equal(jd_pidns_read(sr, 50, &host), 0);
        assert_int_equal(jd_pidns_read(sr, 999, &x), -ENOENT);

        /* To the caller: its own container's processes by their PIDs
         * there, nothing of the host or of the other container. */
        const uint32_t pids[] = { 50, 100, 101, 200, 201, 300 };
        const uint32_t in_a[] = { 0, 1, 7, 0, 0, 0 }, in_b[] = { 0, 0, 0, 1, 7, 0 };
        for (size_t i = 0; i < G_N_ELEMENTS(pids); i++) {
                assert_int_equal(jd_pidns_read(sr, pids[i], &x), 0);
                assert_int_equal(jd_pidns_to_caller(sr, &a, &x), in_a[i]);
                assert_int_equal(jd_pidns_to_caller(sr, &b, &x), in_b[i]);
                assert_int_equal(jd_pidns_to_caller(sr, &host, &x), pids[i]);
        }

        /* From the caller: the same PID 7 is 101 for A, 201 for B. */
        const uint32_t asked[] = { 7, 1, 42, 0 };
        uint32_t out[4];
        assert_int_equal(jd_pidns_from_caller(sr, &a, asked, 4, out), 0);
        assert_int_equal(out[0], 101);
        assert_int_equal(out[1], 100);
        assert_int_equal(out[2], 0);
        assert_int_equal(out[3], 0);
        assert_int_equal(jd_pidns_from_caller(sr, &b, asked, 4, out), 0);
        assert_int_equal(out[0], 201);
        assert_int_equal(out[1], 200);
        /* The host's namespace: a PID is itself where it exists. */
        const uint32_t host_asked[] = { 101, 7, 300 };
        assert_int_equal(jd_pidns_from_caller(sr, &host, host_asked, 3, out), 0);
        assert_int_equal(out[0], 101);
        assert_int_equal(out[1], 0);
        assert_int_equal(out[2], 300);

        /* A caller whose namespace cannot be named (no ns link: a
         * jetsond --user without ptrace access) sees nothing. */
        jd_pidns_process blind = a;
        blind.ns_inode = 0;
        assert_int_equal(jd_pidns_read(sr, 100, &x), 0);
        assert_int_equal(jd_pidns_to_caller(sr, &blind, &x), 0);
        jd_sysroot_free(sr);
        g_autofree char *rm = g_strdup_printf("rm -rf '%s'", root);
        assert_int_equal(system(rm), 0);
}

/* Whether this kernel (or emulator) answers NS_GET_PARENT for PID's
 * namespace. */
static bool ns_get_parent_works(uint32_t pid)
{
        g_autofree char *path = g_strdup_printf("/proc/%u/ns/pid", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        int parent = ioctl(fd, NS_GET_PARENT);
        close(fd);
        if (parent < 0)
                return false;
        close(parent);
        return true;
}

/* On the real kernel: a child in a new PID namespace (its PID 1) that
 * forks a grandchild into a namespace nested in that one. */
static void test_real_namespaces(void **state)
{
        (void) state;
        int ready[2];
        assert_int_equal(pipe(ready), 0);
        pid_t child = fork();
        assert_true(child >= 0);
        if (child == 0) {
                /* The child itself stays in ours; its first child is PID 1
                 * of the new namespace. */
                /* Each ends with its parent: a failed assertion leaves no
                 * process holding the test's output open. */
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                if (unshare(CLONE_NEWPID) < 0)
                        _exit(77);
                pid_t inner = fork();
                if (inner == 0) {
                        prctl(PR_SET_PDEATHSIG, SIGKILL);
                        if (unshare(CLONE_NEWPID) < 0)
                                _exit(77);
                        if (fork() == 0) {
                                prctl(PR_SET_PDEATHSIG, SIGKILL);
                                if (write(ready[1], "n", 1) < 0)
                                        _exit(1);
                                pause();
                                _exit(0);
                        }
                        if (write(ready[1], "i", 1) < 0)
                                _exit(1);
                        pause();
                        _exit(0);
                }
                waitpid(inner, NULL, 0);
                _exit(0);
        }
        close(ready[1]);
        char two[2];
        if (read(ready[0], two, 1) != 1 || read(ready[0], two + 1, 1) != 1) {
                int st = 0;
                waitpid(child, &st, 0);
                close(ready[0]);
                if (WIFEXITED(st) && WEXITSTATUS(st) == 77)
                        skip();   /* no CLONE_NEWPID for this user */
                fail_msg("the namespace's processes did not start");
        }
        close(ready[0]);

        const char *err = NULL;
        jd_sysroot *sr = jd_sysroot_new("/", &err);
        assert_non_null(sr);
        /* Find the two by their parents: the inner PID 1 is the child's
         * child; the nested one the inner's. */
        g_autofree char *cmd = g_strdup_printf("cat /proc/%d/task/%d/children", child, child);
        g_autofree char *out_text = NULL;
        assert_true(g_spawn_command_line_sync(cmd, &out_text, NULL, NULL, NULL));
        uint32_t inner = (uint32_t) strtoul(out_text, NULL, 10);
        g_free(cmd);
        g_free(out_text);
        cmd = g_strdup_printf("cat /proc/%u/task/%u/children", inner, inner);
        out_text = NULL;
        assert_true(g_spawn_command_line_sync(cmd, &out_text, NULL, NULL, NULL));
        uint32_t nested = (uint32_t) strtoul(out_text, NULL, 10);
        assert_true(inner > 0 && nested > 0);

        jd_pidns_process me, in, ne;
        assert_int_equal(jd_pidns_read(sr, (uint32_t) getpid(), &me), 0);
        assert_int_equal(jd_pidns_read(sr, inner, &in), 0);
        assert_int_equal(jd_pidns_read(sr, nested, &ne), 0);
        assert_int_equal(in.depth, me.depth + 1);
        assert_int_equal(in.nspid[in.depth], 1);
        assert_int_equal(ne.depth, me.depth + 2);
        /* The inner namespace names itself 1 and the nested process 2
         * (through NS_GET_PARENT; where the kernel cannot be asked, as
         * under qemu-user, which does not pass that ioctl on, the nested
         * process is not visible: never guessed); it cannot see this
         * test. */
        assert_int_equal(jd_pidns_to_caller(sr, &in, &in), 1);
        bool can_ask = ns_get_parent_works(nested);
        assert_int_equal(jd_pidns_to_caller(sr, &in, &ne), can_ask ? 2 : 0);
        assert_int_equal(jd_pidns_to_caller(sr, &in, &me), 0);
        assert_int_equal(jd_pidns_to_caller(sr, &ne, &in), 0);
        assert_int_equal(jd_pidns_to_caller(sr, &me, &ne), nested);
        const uint32_t asked[] = { 1, 2, 3 };
        uint32_t host[3];
        assert_int_equal(jd_pidns_from_caller(sr, &in, asked, 3, host), 0);
        assert_int_equal(host[0], inner);
        assert_int_equal(host[1], can_ask ? nested : 0);
        assert_int_equal(host[2], 0);

        kill((pid_t) inner, SIGKILL);   /* PID 1 gone: the kernel ends its namespace */
        waitpid(child, NULL, 0);
        /* The namespace went away: PID 1 of it names nothing now. */
        assert_int_equal(jd_pidns_read(sr, inner, &ne), -ENOENT);
        jd_sysroot_free(sr);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_nspid),
                cmocka_unit_test(test_parse_ns_link),
                cmocka_unit_test(test_fake_containers),
                cmocka_unit_test(test_real_namespaces),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
