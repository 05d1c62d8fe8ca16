#include "processes.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"

#define NO_LOGINUID 4294967295u

typedef struct {
        uint32_t pid;
        uint64_t starttime, ticks, at_us;
} cpu_history;

struct jd_process_reader {
        const jd_sysroot *sr;
        jd_file maps;
        char *buf;
        size_t buf_size;
        long clk_tck, page_size;
        cpu_history hist[JD_MAX_PROCESSES];
        size_t n_hist;
        jd_process_sample sample;
};

jd_process_reader *jd_process_reader_new(const jd_sysroot *sr)
{
        jd_process_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->sr = sr;
        if (!jd_file_open(&r->maps, sr, "/sys/kernel/debug/nvmap/iovmm/maps"))
                jd_file_open(&r->maps, sr, "/sys/kernel/debug/nvmap/iovmm/clients");
        r->buf_size = 1 << 16;
        r->buf = malloc(r->buf_size);
        r->clk_tck = sysconf(_SC_CLK_TCK);
        r->page_size = sysconf(_SC_PAGESIZE);
        return r;
}

void jd_process_reader_free(jd_process_reader *r)
{
        if (!r)
                return;
        jd_file_close(&r->maps);
        free(r->buf);
        free(r);
}

/* Client rows are unindented: "<client> <comm, right-aligned> <pid> <size>K".
 * Handle and mapping rows are indented. Parsed from both ends because the
 * comm may contain spaces. */
size_t jd_parse_nvmap_clients(const char *text, jd_process *out, size_t max, jd_opt_u64 *total_kib)
{
        size_t n = 0;
        total_kib->present = false;
        for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
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
                size_t i = 0;
                while (i < n && out[i].pid != pid)
                        i++;
                if (i == n) {
                        if (n == max)
                                continue;
                        memset(&out[n], 0, sizeof(out[n]));
                        out[n].pid = (uint32_t) pid;
                        jd_strlcpy(out[n].name, comm, sizeof(out[n].name));
                        n++;
                }
                out[i].gpu_kib += size;
        }
        return n;
}

bool jd_parse_pid_stat(const char *text, char *state, uint64_t *ticks, int64_t *priority, uint64_t *starttime)
{
        const char *p = strrchr(text, ')');
        if (!p)
                return false;
        /* Field 3 (state) is token 0 after ")"; utime 14, stime 15,
         * priority 18, starttime 22. */
        char copy[1024];
        jd_strlcpy(copy, p + 1, sizeof(copy));
        char *save = NULL;
        uint64_t utime = 0, stime = 0;
        int got = 0;
        int idx = 0;
        for (char *t = strtok_r(copy, " \n", &save); t; t = strtok_r(NULL, " \n", &save), idx++) {
                uint64_t u;
                int64_t s;
                switch (idx) {
                case 0:
                        *state = t[0];
                        got++;
                        break;
                case 11:
                        got += jd_parse_u64(t, &utime);
                        break;
                case 12:
                        got += jd_parse_u64(t, &stime);
                        break;
                case 15:
                        got += jd_parse_i64(t, &s);
                        *priority = s;
                        break;
                case 19:
                        got += jd_parse_u64(t, &u);
                        *starttime = u;
                        break;
                default:
                        break;
                }
        }
        *ticks = utime + stime;
        return got == 5;
}

bool jd_passwd_name(const char *passwd, uint32_t uid, char *out, size_t size)
{
        for (const char *l = passwd; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                char name[64];
                unsigned long u;
                if (sscanf(l, "%63[^:]:%*[^:]:%lu:", name, &u) == 2 && u == uid) {
                        jd_strlcpy(out, name, size);
                        return true;
                }
        }
        return false;
}

static void read_user(jd_process_reader *r, jd_process *p, const char *passwd)
{
        uint64_t uid = NO_LOGINUID;
        char path[64];
        snprintf(path, sizeof(path), "/proc/%u/loginuid", p->pid);
        if (!jd_read_u64(r->sr, &uid, "%s", path) || uid == NO_LOGINUID) {
                uid = NO_LOGINUID;
                snprintf(path, sizeof(path), "/proc/%u/status", p->pid);
                char *status = jd_sysroot_read_file(r->sr, path, 8192, NULL);
                const char *u = status ? strstr(status, "\nUid:") : NULL;
                unsigned long v;
                if (u && sscanf(u + 5, " %lu", &v) == 1)
                        uid = v;
                free(status);
        }
        p->user[0] = '\0';
        if (uid == NO_LOGINUID)
                return;
        /* The sysroot's passwd, not the host's: names must match the board. */
        if (!passwd || !jd_passwd_name(passwd, (uint32_t) uid, p->user, sizeof(p->user)))
                snprintf(p->user, sizeof(p->user), "%lu", (unsigned long) uid);
}

static bool read_proc(jd_process_reader *r, jd_process *p, uint64_t now_us, cpu_history *hist, size_t *n_hist)
{
        char path[64], text[1024];
        snprintf(path, sizeof(path), "/proc/%u/stat", p->pid);
        if (!jd_read_str(r->sr, text, sizeof(text), "%s", path))
                return false; /* vanished between the table and now */
        uint64_t ticks, start;
        int64_t prio;
        if (!jd_parse_pid_stat(text, &p->state, &ticks, &prio, &start))
                return false;
        JD_SET(p->priority, prio);

        p->cpu.present = false;
        for (size_t i = 0; i < r->n_hist; i++) {
                const cpu_history *h = &r->hist[i];
                /* Same pid and start time: the same process, not a reused pid. */
                if (h->pid == p->pid && h->starttime == start && now_us > h->at_us && ticks >= h->ticks) {
                        double secs = (double) (ticks - h->ticks) / (double) r->clk_tck;
                        JD_SET(p->cpu, 100.0 * secs / ((double) (now_us - h->at_us) / 1e6));
                }
        }
        if (*n_hist < JD_MAX_PROCESSES)
                hist[(*n_hist)++] = (cpu_history) { p->pid, start, ticks, now_us };

        snprintf(path, sizeof(path), "/proc/%u/statm", p->pid);
        p->rss_bytes.present = false;
        if (jd_read_str(r->sr, text, sizeof(text), "%s", path)) {
                unsigned long long size, resident;
                if (sscanf(text, "%llu %llu", &size, &resident) == 2)
                        JD_SET(p->rss_bytes, (uint64_t) resident * (uint64_t) r->page_size);
        }
        return true;
}

const jd_process_sample *jd_process_reader_sample(jd_process_reader *r, uint64_t now_us)
{
        jd_process_sample *s = &r->sample;
        jd_process all[JD_MAX_PROCESSES];
        s->n = 0;
        s->present = false;
        if (!r->buf || jd_file_read(&r->maps, r->buf, r->buf_size) <= 0)
                return s;
        s->present = true;
        size_t n = jd_parse_nvmap_clients(r->buf, all, JD_MAX_PROCESSES, &s->nvmap_total_kib);

        char *passwd = jd_sysroot_read_file(r->sr, "/etc/passwd", 1 << 20, NULL);
        cpu_history hist[JD_MAX_PROCESSES];
        size_t n_hist = 0;
        for (size_t i = 0; i < n; i++) {
                if (!read_proc(r, &all[i], now_us, hist, &n_hist))
                        continue;
                read_user(r, &all[i], passwd);
                s->procs[s->n++] = all[i];
        }
        free(passwd);
        memcpy(r->hist, hist, n_hist * sizeof(hist[0]));
        r->n_hist = n_hist;
        return s;
}
