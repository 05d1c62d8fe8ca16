/* Processes using the GPU: the nvmap client table (debugfs, root) and the
 * processes NVML lists on NVIDIA GPUs (jd_process_reader_set_gpu_users),
 * joined with /proc/<pid> for user, parent, start time, CPU % over the
 * last interval and RSS. */
#pragma once

#include "accounts.h"
#include "opt.h"
#include "sysfile.h"


typedef struct {
        uint32_t pid;
        char name[32];            /* comm, may contain spaces */
        char user[32];
        uint64_t gpu_kib;         /* nvmap size */
        char state;               /* 'R', 'S', ... or 0 */
        jd_opt_i64 priority;
        jd_opt_dbl cpu;           /* %, over the last interval */
        jd_opt_u64 rss_bytes;     /* resident pages x the real page size */
        uint32_t ppid;            /* parent, from stat (0: the kernel's or unknown) */
        jd_opt_dbl start_time;    /* seconds since the Unix epoch: /proc/stat's
                                   * btime plus stat's starttime in clock ticks */
} jd_process;

typedef struct {
        bool present;             /* the nvmap table was readable */
        jd_opt_u64 nvmap_total_kib;
        size_t n;
        jd_process *procs;        /* every process of the table and of NVML */
} jd_process_sample;

typedef struct jd_process_reader jd_process_reader;

/* A process NVML lists, with its GPU memory over all NVIDIA GPUs. */
typedef struct {
        uint32_t pid;
        uint64_t gpu_kib;
} jd_gpu_user;

jd_process_reader *jd_process_reader_new(const jd_sysroot *sr);
void jd_process_reader_free(jd_process_reader *r);
const jd_process_sample *jd_process_reader_sample(jd_process_reader *r, uint64_t now_us);
/* The processes NVML lists now (all of them, copied): from
 * the next sample on they are listed too, their gpu_kib added to what
 * nvmap says of them. */
void jd_process_reader_set_gpu_users(jd_process_reader *r, const jd_gpu_user *users, size_t n);

/* Parsers, exposed for tests. */
/* Client rows of nvmap's table into *OUT (of *CAP, grown as needed; may
 * start NULL and 0), each pid once with its sizes summed; the count. */
size_t jd_parse_nvmap_clients(const char *text, jd_process **out, size_t *cap, jd_opt_u64 *total_kib);
/* /proc/<pid>/stat: the comm is in parentheses and may hold spaces or ')'. */
bool jd_parse_pid_stat(const char *text, char *state, uint32_t *ppid, uint64_t *ticks, int64_t *priority,
                       uint64_t *starttime);
/* The boot time ("btime N", seconds since the Unix epoch) of /proc/stat's
 * text. */
bool jd_parse_btime(const char *text, uint64_t *btime);
/* jd_passwd_name() is accounts.h's. */
