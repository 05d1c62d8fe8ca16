/* GPU processes: the nvmap table joined with /proc, vanished PIDs
 * skipped, users from the board's own passwd, CPU % over the interval
 * and RSS with the real page size. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "processes.h"
#include "glib-compat.h"

static const jd_process *find(const jd_process_sample *s, uint32_t pid)
{
        for (size_t i = 0; i < s->n; i++)
                if (s->procs[i].pid == pid)
                        return &s->procs[i];
        return NULL;
}

static uint64_t statm_rss(const char *board, uint32_t pid)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/proc/%u/statm", board, pid);
        g_autofree char *text = fixture_read_aux(path);
        unsigned long long size, res;
        assert_int_equal(sscanf(text, "%llu %llu", &size, &res), 2);
        return res * (uint64_t) sysconf(_SC_PAGESIZE);
}

/* PID's parent and start (clock ticks since boot) from the fixture's stat. */
static void stat_fields(const char *board, uint32_t pid, uint32_t *ppid, uint64_t *starttime)
{
        char path[128];
        snprintf(path, sizeof(path), "%s/proc/%u/stat", board, pid);
        g_autofree char *text = fixture_read_aux(path);
        g_auto(GStrv) f = g_strsplit(strrchr(text, ')') + 2, " ", -1);
        *ppid = (uint32_t) g_ascii_strtoull(f[1], NULL, 10);
        *starttime = g_ascii_strtoull(f[19], NULL, 10);
}

static void test_agx_orin(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_process_reader *r = jd_process_reader_new(sr);
        const jd_process_sample *s = jd_process_reader_sample(r, 1000000);
        assert_true(s->present);
        assert_int_equal(s->nvmap_total_kib.present, true);
        /* Xorg, gnome-shell, Web Content, python3, "(my) app"; the kernel
         * client (PID 0) and deepstream-app (no /proc entry) are not listed. */
        assert_int_equal(s->n, 5);
        assert_null(find(s, 6001));
        const jd_process *py = find(s, 5120);
        assert_non_null(py);
        assert_string_equal(py->name, "python3");
        assert_string_equal(py->user, "nvidia");
        assert_int_equal(py->gpu_kib, 262144);
        assert_int_equal(py->state, 'R');
        assert_int_equal(py->rss_bytes.value, statm_rss("agx-orin-jp62", 5120));
        assert_false(py->cpu.present); /* no interval yet */
        assert_string_equal(find(s, 1834)->user, "root");
        assert_string_equal(find(s, 4102)->name, "Web Content");
        const jd_process *app = find(s, 5377);
        assert_string_equal(app->name, "(my) app");
        assert_string_equal(app->user, "nvidia"); /* loginuid unset: Uid line */
        /* The parent and the start from stat, the start on the board's
         * own clock: /proc/stat's btime plus starttime in clock ticks. */
        uint32_t ppid;
        uint64_t btime, starttime;
        stat_fields("agx-orin-jp62", 5120, &ppid, &starttime);
        assert_int_equal(py->ppid, ppid);
        assert_int_equal(py->ppid, 5109);
        g_autofree char *proc_stat = fixture_read_aux("agx-orin-jp62/proc/stat");
        assert_true(jd_parse_btime(proc_stat, &btime));
        assert_true(py->start_time.present);
        assert_dbl_equal(py->start_time.value, (double) btime + (double) starttime / (double) sysconf(_SC_CLK_TCK));
        assert_true(find(s, 1834)->start_time.value < py->start_time.value); /* Xorg started first */

        /* 50 ticks of CPU in 1 s = 50 %. */
        g_autofree char *stat = fixture_read_aux("agx-orin-jp62/proc/5120/stat");
        char *p = strrchr(stat, ')');
        unsigned long long f[20];
        char st;
        assert_int_equal(sscanf(p + 2, "%c %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &st, &f[0], &f[1],
                                &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9], &f[10]), 12);
        g_autofree char *utime = g_strdup_printf(" %llu ", f[10]);
        g_autofree char *bumped = g_strdup_printf(" %llu ", f[10] + 50);
        g_autoptr(GString) edited = g_string_new(stat);
        test_string_replace(edited, utime, bumped, 1);
        fixture_write_str(dir, "proc/5120/stat", edited->str);
        s = jd_process_reader_sample(r, 2000000);
        py = find(s, 5120);
        assert_true(py->cpu.present);
        assert_dbl_equal(py->cpu.value, 50.0);

        /* The clock stepped (NTP after a boot in the past): btime moves
         * by the step and so do the start times; without a btime there
         * are none. */
        g_autoptr(GString) stepped = g_string_new(proc_stat);
        g_autofree char *old_line = g_strdup_printf("btime %llu\n", (unsigned long long) btime);
        g_autofree char *new_line = g_strdup_printf("btime %llu\n", (unsigned long long) btime + 3600);
        assert_int_equal(test_string_replace(stepped, old_line, new_line, 1), 1);
        fixture_write_str(dir, "proc/stat", stepped->str);
        s = jd_process_reader_sample(r, 3000000);
        assert_dbl_equal(find(s, 5120)->start_time.value,
                         (double) btime + 3600 + (double) starttime / (double) sysconf(_SC_CLK_TCK));
        test_string_replace(stepped, new_line, "", 1);
        fixture_write_str(dir, "proc/stat", stepped->str);
        s = jd_process_reader_sample(r, 4000000);
        assert_false(find(s, 5120)->start_time.present);
        assert_int_equal(find(s, 5120)->ppid, 5109);
        jd_process_reader_free(r);
        fixture_remove_copy(sr, dir);
}

/* A listed PID with no /proc entry (deepstream-app, 6001) is not looked
 * for again each sample, only after a recheck: its /proc files appearing
 * in between change nothing until then. */
static void test_absent_pid_rechecked(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_recheck_set_interval(3600000000u);
        jd_process_reader *r = jd_process_reader_new(sr);
        const jd_process_sample *s = jd_process_reader_sample(r, 1000000);
        assert_null(find(s, 6001));
        g_autofree char *stat = fixture_read_aux("agx-orin-jp62/proc/5120/stat");
        g_autoptr(GString) edited = g_string_new(stat);
        assert_int_equal(test_string_replace(edited, "5120 (python3)", "6001 (deepstream-app)", 1), 1);
        g_autofree char *pid_dir = fixture_host_path(dir, "proc/6001");
        assert_int_equal(g_mkdir(pid_dir, 0755), 0);
        fixture_write_str(dir, "proc/6001/stat", edited->str);
        fixture_write_str(dir, "proc/6001/statm", "1000 500 100 1 0 400 0\n");
        s = jd_process_reader_sample(r, 2000000);
        assert_int_equal(s->n, 5);
        assert_null(find(s, 6001));
        jd_recheck_now();
        s = jd_process_reader_sample(r, 3000000);
        assert_int_equal(s->n, 6);
        assert_non_null(find(s, 6001));
        assert_int_equal(find(s, 6001)->rss_bytes.value, 500 * (uint64_t) sysconf(_SC_PAGESIZE));
        jd_recheck_set_interval(0);
        jd_process_reader_free(r);
        fixture_remove_copy(sr, dir);
}

static void test_pc(void **state)
{
        (void) state;
        jd_sysroot *sr = fixture_open("x86-pc");
        jd_process_reader *r = jd_process_reader_new(sr);
        const jd_process_sample *s = jd_process_reader_sample(r, 1);
        assert_false(s->present);
        assert_int_equal(s->n, 0);
        jd_process_reader_free(r);
        jd_sysroot_free(sr);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_agx_orin),
                cmocka_unit_test(test_absent_pid_rechecked),
                cmocka_unit_test(test_pc),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
