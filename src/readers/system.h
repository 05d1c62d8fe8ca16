/* System-wide counters: uptime, space on "/", disk and network bytes. */
#pragma once

#include "opt.h"
#include "sysfile.h"

typedef struct {
        jd_opt_u64 uptime_s;
        jd_opt_u64 disk_total_bytes, disk_free_bytes, disk_available_bytes;
        jd_opt_u64 disk_read_bytes, disk_write_bytes;   /* since boot, whole disks only */
        jd_opt_u64 net_rx_bytes, net_tx_bytes;          /* since boot, all but loopback */
} jd_system_sample;

typedef struct jd_system_reader jd_system_reader;

jd_system_reader *jd_system_reader_new(const jd_sysroot *sr);
void jd_system_reader_free(jd_system_reader *r);
const jd_system_sample *jd_system_reader_sample(jd_system_reader *r);

/* Parsers, exposed for tests. DISKS: names counted (NULL-terminated). */
bool jd_parse_diskstats(const char *text, char *const *disks, size_t n_disks, uint64_t *read_b, uint64_t *write_b);
bool jd_parse_uptime(const char *text, uint64_t *seconds);
bool jd_parse_net_dev(const char *text, uint64_t *rx, uint64_t *tx);
