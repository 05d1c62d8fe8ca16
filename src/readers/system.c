#include "system.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "parse.h"

#define SECTOR 512

struct jd_system_reader {
        const jd_sysroot *sr;
        jd_file uptime, diskstats, netdev;
        char **disks;
        size_t n_disks;
        char buf[32768];
        jd_recheck disk_checked;
        jd_system_sample sample;
};

/* Partitions, loop, ram, zram (swap, counted elsewhere) and device-mapper
 * (which would count its disks twice) are not physical disks. */
static bool counted_disk(const char *name)
{
        static const char *const skip[] = { "loop", "ram", "zram", "dm-", "sr", "fd", "md" };
        for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
                if (strncmp(name, skip[i], strlen(skip[i])) == 0)
                        return false;
        return !strstr(name, "boot") && !strstr(name, "rpmb");
}

jd_system_reader *jd_system_reader_new(const jd_sysroot *sr)
{
        jd_system_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->sr = sr;
        jd_file_open(&r->uptime, sr, "/proc/uptime");
        jd_file_open(&r->diskstats, sr, "/proc/diskstats");
        /* PID 1's network namespace: the machine's interfaces, also under
         * jetsond.service's PrivateNetwork=yes, where /proc/net/dev shows
         * only the service's own loopback. A fake board has the latter. */
        if (!jd_file_open(&r->netdev, sr, "/proc/1/net/dev"))
                jd_file_open(&r->netdev, sr, "/proc/net/dev");
        char **names;
        size_t n = jd_sysroot_list(sr, "/sys/block", &names);
        r->disks = calloc(n + 1, sizeof(char *));
        for (size_t i = 0; r->disks && i < n; i++) {
                if (counted_disk(names[i])) {
                        r->disks[r->n_disks++] = names[i];
                        names[i] = NULL;
                }
        }
        jd_names_free(names, n);
        return r;
}

void jd_system_reader_free(jd_system_reader *r)
{
        if (!r)
                return;
        jd_file_close(&r->uptime);
        jd_file_close(&r->diskstats);
        jd_file_close(&r->netdev);
        jd_names_free(r->disks, r->n_disks);
        free(r);
}

bool jd_parse_diskstats(const char *text, char *const *disks, size_t n_disks, uint64_t *read_b, uint64_t *write_b)
{
        bool any = false;
        *read_b = *write_b = 0;
        JD_FOR_EACH_LINE(l, text) {
                /* "major minor name reads merged sectors_read ms writes merged sectors_written ..." */
                /* The name first: most lines are partitions or loops. */
                jd_span f[10];
                if (jd_line_fields(l, f, 3) < 3)
                        continue;
                size_t d = 0;
                while (d < n_disks && !jd_span_eq(f[2], disks[d]))
                        d++;
                uint64_t sectors_read, sectors_written;
                if (d == n_disks || jd_line_fields(l, f, 10) < 10 || !jd_span_u64(f[5], &sectors_read) ||
                    !jd_span_u64(f[9], &sectors_written))
                        continue;
                *read_b += sectors_read * SECTOR;
                *write_b += sectors_written * SECTOR;
                any = true;
        }
        return any;
}

bool jd_parse_uptime(const char *text, uint64_t *seconds)
{
        /* "12345.67 45678.90": whole seconds of the first field. */
        char *end;
        errno = 0;
        double up = strtod(text, &end);
        if (errno || end == text || (*end != ' ' && *end != '\n') || !(up >= 0 && up < 1e12))
                return false;
        *seconds = (uint64_t) up;
        return true;
}

bool jd_parse_net_dev(const char *text, uint64_t *rx, uint64_t *tx)
{
        bool any = false;
        *rx = *tx = 0;
        JD_FOR_EACH_LINE(l, text) {
                const char *colon = strchr(l, ':');
                const char *eol = strchrnul(l, '\n');
                if (!colon || colon > eol)
                        continue;
                char name[32];
                const char *start = l + strspn(l, " ");
                size_t n = (size_t) (colon - start);
                if (n == 0 || n >= sizeof(name))
                        continue;
                memcpy(name, start, n);
                name[n] = '\0';
                /* rx: bytes packets errs drop fifo frame compressed multicast; tx: bytes ... */
                jd_span f[9];
                uint64_t rx_bytes, tx_bytes;
                if (strcmp(name, "lo") == 0 || jd_line_fields(colon + 1, f, 9) < 9 || !jd_span_u64(f[0], &rx_bytes) ||
                    !jd_span_u64(f[8], &tx_bytes))
                        continue;
                *rx += rx_bytes;
                *tx += tx_bytes;
                any = true;
        }
        return any;
}

const jd_system_sample *jd_system_reader_sample(jd_system_reader *r)
{
        jd_system_sample *s = &r->sample;
        s->uptime_s.present = jd_file_read(&r->uptime, r->buf, sizeof(r->buf)) > 0 &&
                              jd_parse_uptime(r->buf, &s->uptime_s.value);

        uint64_t a, b;
        bool ok = jd_file_read(&r->diskstats, r->buf, sizeof(r->buf)) > 0 &&
                  jd_parse_diskstats(r->buf, r->disks, r->n_disks, &a, &b);
        s->disk_read_bytes = (jd_opt_u64) { .value = ok ? a : 0, .present = ok };
        s->disk_write_bytes = (jd_opt_u64) { .value = ok ? b : 0, .present = ok };
        ok = jd_file_read(&r->netdev, r->buf, sizeof(r->buf)) > 0 && jd_parse_net_dev(r->buf, &a, &b);
        s->net_rx_bytes = (jd_opt_u64) { .value = ok ? a : 0, .present = ok };
        s->net_tx_bytes = (jd_opt_u64) { .value = ok ? b : 0, .present = ok };

        /* The sysroot directory is the board's "/". Free space moves
         * slowly: looked at as often as config files (jd_recheck). */
        if (!jd_recheck_due(&r->disk_checked))
                return s;
        struct statvfs vfs;
        ok = statvfs(jd_sysroot_dir(r->sr), &vfs) == 0;
        s->disk_total_bytes = (jd_opt_u64) { .value = ok ? (uint64_t) vfs.f_blocks * vfs.f_frsize : 0, .present = ok };
        s->disk_free_bytes = (jd_opt_u64) { .value = ok ? (uint64_t) vfs.f_bfree * vfs.f_frsize : 0, .present = ok };
        s->disk_available_bytes = (jd_opt_u64) { .value = ok ? (uint64_t) vfs.f_bavail * vfs.f_frsize : 0, .present = ok };
        return s;
}
