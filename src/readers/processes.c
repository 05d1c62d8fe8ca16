#include "processes.h"

#include <ctype.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "grow.h"
#include "parse.h"

#define NO_LOGINUID 4294967295u
/* nvmap's table is read into a buffer that grows with it: a client row
 * and its handle rows take a few hundred bytes, so 16 MiB is tens of
 * thousands of processes; a file still going there is no nvmap table
 * (what was read is parsed). */
#define NVMAP_MAX (16u << 20)

/* A process seen in the nvmap table: its /proc files stay open while it
 * lives (a pid reused by another process has another start time). */
typedef struct {
        uint32_t pid;
        uint64_t starttime, ticks, at_us;
        bool have_ticks;
        jd_file stat, statm;
        char user[32];
} tracked;

struct jd_process_reader {
        const jd_sysroot *sr;
        jd_file maps;
        /* /proc/stat for the boot time, read again on each recheck while
         * there are processes: the clock may
         * be set after boot (a Jetson without a battery-backed clock boots
         * in the past until NTP steps it), and the kernel's btime moves
         * with it. Not each sample once found: the kernel makes the whole
         * file, every CPU's and every interrupt's counts, for that line. */
        jd_file proc_stat;
        jd_opt_u64 btime;
        char *stat_buf;
        size_t stat_buf_size;
        jd_cached_file passwd;
        char *buf;
        size_t buf_size;
        long clk_tck, page_size;
        /* Every array grows with the table: no process is left out. */
        tracked *procs, *old;     /* old: scratch, last reading's procs */
        size_t n_procs, cap_procs, cap_old;
        jd_gpu_user *gpu_users;
        size_t n_gpu_users, cap_gpu_users;
        jd_process *all;          /* scratch: the table and NVML's, merged */
        /* PIDs listed but with no /proc entry to open (a process of
         * another user under ProtectProc=invisible, of another PID
         * namespace, or gone since the table was read): not tried again
         * until the next recheck, instead of a failed path walk each
         * sample. */
        GHashTable *absent;
        /* One clock for both (jd_recheck: about once a second). */
        jd_recheck recheck;
        size_t cap_all, cap_sample;
        jd_process_sample sample;
};

void jd_process_reader_set_gpu_users(jd_process_reader *r, const jd_gpu_user *users, size_t n)
{
        jd_gpu_user *room = jd_grow(r->gpu_users, &r->cap_gpu_users, n, sizeof(*room));
        if (!room)
                return; /* out of memory: the previous list stays */
        r->gpu_users = room;
        if (n)
                memcpy(r->gpu_users, users, n * sizeof(*users));
        r->n_gpu_users = n;
}

/* Index of PID among the N processes of ALL, or N. Through INDEX (pid to
 * index + 1) once the list is long, so a table of thousands of clients
 * stays linear rather than quadratic. */
static size_t find_pid(const jd_process *all, size_t n, uint32_t pid, GHashTable *index)
{
        if (index) {
                size_t k = GPOINTER_TO_SIZE(g_hash_table_lookup(index, GUINT_TO_POINTER(pid)));
                return k ? k - 1 : n;
        }
        size_t k = 0;
        while (k < n && all[k].pid != pid)
                k++;
        return k;
}

#define INDEX_FROM 64

/* After ALL got its Nth process: the index made once N is long enough,
 * then kept up to date. */
static void note_pid(GHashTable **index, const jd_process *all, size_t n)
{
        if (!*index && n >= INDEX_FROM) {
                *index = g_hash_table_new(NULL, NULL);
                for (size_t k = 0; k < n; k++)
                        g_hash_table_insert(*index, GUINT_TO_POINTER(all[k].pid), GSIZE_TO_POINTER(k + 1));
        } else if (*index) {
                g_hash_table_insert(*index, GUINT_TO_POINTER(all[n - 1].pid), GSIZE_TO_POINTER(n));
        }
}

/* NVML's processes into r->all (N of them so far): memory added to a pid
 * nvmap lists, the others appended. */
static size_t merge_gpu_users(jd_process_reader *r, size_t n)
{
        GHashTable *index = NULL;
        note_pid(&index, r->all, n);
        for (size_t i = 0; i < r->n_gpu_users; i++) {
                const jd_gpu_user *u = &r->gpu_users[i];
                size_t k = find_pid(r->all, n, u->pid, index);
                if (k == n) {
                        jd_process *all = jd_grow(r->all, &r->cap_all, n + 1, sizeof(*all));
                        if (!all)
                                break; /* out of memory: those so far */
                        r->all = all;
                        all[n++] = (jd_process) { .pid = u->pid };
                        note_pid(&index, r->all, n);
                }
                r->all[k].gpu_kib += u->gpu_kib;
        }
        if (index)
                g_hash_table_destroy(index);
        return n;
}

static void untrack(tracked *t);

jd_process_reader *jd_process_reader_new(const jd_sysroot *sr)
{
        jd_process_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->sr = sr;
        if (!jd_file_open(&r->maps, sr, "/sys/kernel/debug/nvmap/iovmm/maps"))
                jd_file_open(&r->maps, sr, "/sys/kernel/debug/nvmap/iovmm/clients");
        jd_file_open(&r->proc_stat, sr, "/proc/stat");
        jd_cached_file_init(&r->passwd, sr, "/etc/passwd", 1 << 20);
        r->clk_tck = sysconf(_SC_CLK_TCK);
        r->page_size = sysconf(_SC_PAGESIZE);
        return r;
}

void jd_process_reader_free(jd_process_reader *r)
{
        if (!r)
                return;
        jd_file_close(&r->maps);
        jd_file_close(&r->proc_stat);
        free(r->stat_buf);
        jd_cached_file_clear(&r->passwd);
        for (size_t i = 0; i < r->n_procs; i++)
                untrack(&r->procs[i]);
        free(r->buf);
        free(r->procs);
        free(r->old);
        free(r->gpu_users);
        free(r->all);
        free(r->sample.procs);
        if (r->absent)
                g_hash_table_destroy(r->absent);
        free(r);
}

/* Client rows are unindented: "<client> <comm, right-aligned> <pid> <size>K".
 * Handle and mapping rows are indented. Parsed from both ends because the
 * comm may contain spaces. */
/* Grammar (one line at a time, never across a line end): a header
 * starting "CLIENT"; "total <N>K"; client rows "<client> <comm> <pid>
 * <size>K", unindented, the comm possibly holding blanks, so read from
 * the right; indented rows (handles, mappings) and anything else are
 * skipped, as are pid 0 (the kernel) and rows of 256 bytes or more. */
size_t jd_parse_nvmap_clients(const char *text, jd_process **outp, size_t *cap, jd_opt_u64 *total_kib)
{
        size_t n = 0;
        GHashTable *index = NULL;
        total_kib->present = false;
        JD_FOR_EACH_LINE(l, text) {
                const char *eol = strchrnul(l, '\n');
                size_t len = (size_t) (eol - l);
                char line[256];
                if (len == 0 || isspace((unsigned char) l[0]) || len >= sizeof(line))
                        continue;
                memcpy(line, l, len);
                line[len] = '\0';
                jd_rstrip(line);
                if (strncmp(line, "CLIENT", 6) == 0)
                        continue;
                uint64_t v;
                if (strncmp(line, "total", 5) == 0) {
                        char *k = strrchr(line, 'K');
                        if (k && k[1] == '\0') {
                                *k = '\0';
                                if (jd_parse_u64(line + 5, &v))
                                        JD_SET(*total_kib, v);
                        }
                        continue;
                }
                /* size */
                char *sp = strrchr(line, ' ');
                size_t slen = sp ? strlen(sp + 1) : 0;
                if (!sp || slen < 2 || sp[slen] != 'K')
                        continue;
                sp[slen] = '\0';
                uint64_t size;
                if (!jd_parse_u64(sp + 1, &size))
                        continue;
                *sp = '\0';
                jd_rstrip(line);
                /* pid */
                char *pp = strrchr(line, ' ');
                uint64_t pid;
                if (!pp || !jd_parse_u64(pp + 1, &pid) || pid > UINT32_MAX)
                        continue;
                *pp = '\0';
                jd_rstrip(line);
                /* client, then the comm */
                char *comm = line + strcspn(line, " ");
                comm += strspn(comm, " ");
                if (pid == 0 || !*comm)
                        continue; /* kernel clients are no processes */
                size_t i = find_pid(*outp, n, (uint32_t) pid, index);
                if (i == n) {
                        jd_process *out = jd_grow(*outp, cap, n + 1, sizeof(*out));
                        if (!out)
                                break; /* out of memory: those so far */
                        *outp = out;
                        memset(&out[n], 0, sizeof(out[n]));
                        out[n].pid = (uint32_t) pid;
                        jd_strlcpy(out[n].name, comm, sizeof(out[n].name));
                        n++;
                        note_pid(&index, out, n);
                }
                (*outp)[i].gpu_kib += size;
        }
        if (index)
                g_hash_table_destroy(index);
        return n;
}

bool jd_parse_pid_stat(const char *text, char *state, uint32_t *ppid, uint64_t *ticks, int64_t *priority,
                       uint64_t *starttime)
{
        /* The comm may hold spaces and parentheses: fields start after the
         * last ")". State is field 3, i.e. [0] after it; ppid 4, utime 14,
         * stime 15, priority 18, starttime 22. */
        const char *p = strrchr(text, ')');
        jd_span f[20];
        uint64_t utime, stime, parent;
        if (!p || jd_line_fields(p + 1, f, 20) < 20 || f[0].len != 1 || !jd_span_u64(f[1], &parent) ||
            parent > UINT32_MAX || !jd_span_u64(f[11], &utime) || !jd_span_u64(f[12], &stime) ||
            !jd_span_i64(f[15], priority) || !jd_span_u64(f[19], starttime))
                return false;
        *state = f[0].p[0];
        *ppid = (uint32_t) parent;
        *ticks = utime + stime;
        return true;
}

bool jd_parse_btime(const char *text, uint64_t *btime)
{
        /* One "name values..." line each (proc(5)); btime's one value. */
        JD_FOR_EACH_LINE(l, text) {
                jd_span f[3];
                if (jd_line_fields(l, f, 3) == 2 && jd_span_eq(f[0], "btime"))
                        return jd_span_u64(f[1], btime);
        }
        return false;
}

static void read_user(jd_process_reader *r, uint32_t pid, char *user, size_t size, const char *passwd)
{
        uint64_t uid = NO_LOGINUID;
        char path[64];
        snprintf(path, sizeof(path), "/proc/%u/loginuid", pid);
        if (!jd_read_u64(r->sr, &uid, "%s", path) || uid == NO_LOGINUID) {
                uid = NO_LOGINUID;
                snprintf(path, sizeof(path), "/proc/%u/status", pid);
                char *status = jd_sysroot_read_file(r->sr, path, 8192, NULL);
                const char *u = status ? strstr(status, "\nUid:") : NULL;
                jd_span f[1];
                uint64_t v;
                if (u && jd_line_fields(u + 5, f, 1) >= 1 && jd_span_u64(f[0], &v) && v <= UINT32_MAX)
                        uid = v;
                free(status);
        }
        user[0] = '\0';
        if (uid == NO_LOGINUID)
                return;
        /* The sysroot's passwd, not the host's: names must match the board. */
        if (!passwd || !jd_passwd_name(passwd, (uint32_t) uid, user, size))
                snprintf(user, size, "%lu", (unsigned long) uid);
}

static void untrack(tracked *t)
{
        jd_file_close(&t->stat);
        jd_file_close(&t->statm);
}

/* Finds or starts tracking PID; NULL if it is gone. */
static tracked *track(jd_process_reader *r, tracked *old, size_t n_old, uint32_t pid, const char *passwd)
{
        for (size_t i = 0; i < n_old; i++) {
                if (old[i].pid == pid && old[i].stat.fd >= 0) {
                        tracked *t = &r->procs[r->n_procs++];
                        *t = old[i];
                        old[i].stat = old[i].statm = JD_FILE_INIT; /* moved */
                        return t;
                }
        }
        if (r->absent && g_hash_table_contains(r->absent, GUINT_TO_POINTER(pid)))
                return NULL;
        tracked *t = &r->procs[r->n_procs];
        memset(t, 0, sizeof(*t));
        t->pid = pid;
        if (!jd_file_open(&t->stat, r->sr, "/proc/%u/stat", pid)) {
                if (!r->absent)
                        r->absent = g_hash_table_new(NULL, NULL);
                g_hash_table_add(r->absent, GUINT_TO_POINTER(pid));
                return NULL;
        }
        jd_file_open(&t->statm, r->sr, "/proc/%u/statm", pid);
        read_user(r, pid, t->user, sizeof(t->user), passwd);
        r->n_procs++;
        return t;
}

/* BTIME: /proc/stat's, when it was read (else no start times). */
static bool read_proc(jd_process_reader *r, tracked *t, jd_process *p, uint64_t now_us, const jd_opt_u64 *btime)
{
        char text[1024];
        uint64_t ticks, start;
        int64_t prio;
        if (jd_file_read(&t->stat, text, sizeof(text)) <= 0 ||
            !jd_parse_pid_stat(text, &p->state, &p->ppid, &ticks, &prio, &start))
                return false;
        p->start_time.present = false;
        if (btime->present && r->clk_tck > 0)
                JD_SET(p->start_time, (double) btime->value + (double) start / (double) r->clk_tck);
        if (t->have_ticks && t->starttime != start) {
                /* Same pid, another process: start over. */
                t->have_ticks = false;
        }
        JD_SET(p->priority, prio);
        /* NVML names no process: its comm, between the first '(' and
         * the last ')' of stat (nvmap's table has it already). */
        const char *open = strchr(text, '('), *close = strrchr(text, ')');
        if (!p->name[0] && open && close > open) {
                size_t len = (size_t) (close - open - 1);
                if (len >= sizeof(p->name))
                        len = sizeof(p->name) - 1;
                memcpy(p->name, open + 1, len);
                p->name[len] = '\0';
        }
        p->cpu.present = false;
        if (t->have_ticks && now_us > t->at_us && ticks >= t->ticks) {
                double secs = (double) (ticks - t->ticks) / (double) r->clk_tck;
                JD_SET(p->cpu, jd_percent(secs, (double) (now_us - t->at_us) / 1e6));
        }
        t->starttime = start;
        t->ticks = ticks;
        t->at_us = now_us;
        t->have_ticks = true;

        p->rss_bytes.present = false;
        jd_span f[2];
        uint64_t resident;
        if (jd_file_read(&t->statm, text, sizeof(text)) > 0 && jd_line_fields(text, f, 2) >= 2 &&
            jd_span_u64(f[1], &resident) && resident <= UINT64_MAX / (uint64_t) r->page_size)
                JD_SET(p->rss_bytes, resident * (uint64_t) r->page_size);
        jd_strlcpy(p->user, t->user, sizeof(p->user));
        return true;
}

const jd_process_sample *jd_process_reader_sample(jd_process_reader *r, uint64_t now_us)
{
        jd_process_sample *s = &r->sample;
        size_t n_old = r->n_procs;

        /* Last reading's processes move to OLD; those seen again move back. */
        tracked *swap = r->old;
        size_t swap_cap = r->cap_old;
        r->old = r->procs;
        r->cap_old = r->cap_procs;
        r->procs = swap;
        r->cap_procs = swap_cap;
        r->n_procs = 0;
        s->n = 0;
        s->present = jd_file_read_grow(&r->maps, &r->buf, &r->buf_size, NVMAP_MAX) > 0;
        size_t n = s->present ? jd_parse_nvmap_clients(r->buf, &r->all, &r->cap_all, &s->nvmap_total_kib) : 0;
        n = merge_gpu_users(r, n);
        /* Room for every process now, so tracked entries never move
         * while they are filled in. */
        tracked *procs = jd_grow(r->procs, &r->cap_procs, n, sizeof(*procs));
        jd_process *out = jd_grow(s->procs, &r->cap_sample, n, sizeof(*out));
        if (procs)
                r->procs = procs;
        if (out)
                s->procs = out;
        if (!procs || !out)
                n = 0; /* out of memory: none this time */

        bool recheck = jd_recheck_due(&r->recheck);
        if (recheck && r->absent)
                g_hash_table_remove_all(r->absent);
        const char *passwd = n ? jd_cached_file_get(&r->passwd, NULL) : NULL;
        if (n && (recheck || !r->btime.present)) {
                r->btime.present = jd_file_read_grow(&r->proc_stat, &r->stat_buf, &r->stat_buf_size, 1u << 20) > 0 &&
                                   jd_parse_btime(r->stat_buf, &r->btime.value);
        }
        for (size_t i = 0; i < n; i++) {
                tracked *t = track(r, r->old, n_old, r->all[i].pid, passwd);
                if (!t)
                        continue;
                if (!read_proc(r, t, &r->all[i], now_us, &r->btime)) {
                        untrack(t);
                        r->n_procs--;
                        continue;
                }
                s->procs[s->n++] = r->all[i];
        }
        /* Processes no longer in the table. */
        for (size_t i = 0; i < n_old; i++)
                untrack(&r->old[i]);
        return s;
}
