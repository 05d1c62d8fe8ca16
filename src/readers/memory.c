#include "memory.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"

struct jd_memory_reader {
        jd_file meminfo, buddyinfo, iram_clients, vmstat;
        uint64_t page_kib;        /* the kernel's page size, KiB */
        char buf[8192];
        jd_memory_sample sample;
};

jd_memory_reader *jd_memory_reader_new(const jd_sysroot *sr)
{
        jd_memory_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        jd_file_open(&r->meminfo, sr, "/proc/meminfo");
        jd_file_open(&r->buddyinfo, sr, "/proc/buddyinfo");
        jd_file_open(&r->iram_clients, sr, "/sys/kernel/debug/nvmap/iram/clients");
        jd_file_open(&r->vmstat, sr, "/proc/vmstat");
        /* jetsond runs on the board it reads (a sysroot is a copy of one
         * made for tests): the board's page size is this process's. */
        long page = sysconf(_SC_PAGESIZE);
        r->page_kib = page >= 1024 ? (uint64_t) page / 1024 : 4;
        /* IRAM size is fixed: read once. It is hex bytes ("0x3f000"). */
        char size[32];
        uint64_t bytes;
        if (jd_read_str(sr, size, sizeof(size), "/sys/kernel/debug/nvmap/iram/size") &&
            jd_parse_u64_any_base(size, &bytes))
                JD_SET(r->sample.iram_total, bytes / 1024);
        return r;
}

void jd_memory_reader_free(jd_memory_reader *r)
{
        if (!r)
                return;
        jd_file_close(&r->meminfo);
        jd_file_close(&r->buddyinfo);
        jd_file_close(&r->iram_clients);
        jd_file_close(&r->vmstat);
        free(r);
}

bool jd_parse_meminfo(const char *text, jd_memory_sample *m)
{
        static const struct {
                const char *key;
                size_t len, offset;
        } keys[] = {
#define KEY(name, field) { name, sizeof(name) - 1, offsetof(jd_memory_sample, field) }
                KEY("MemTotal", total),    KEY("MemFree", free),         KEY("MemAvailable", available),
                KEY("Buffers", buffers),   KEY("Cached", cached),        KEY("SwapTotal", swap_total),
                KEY("SwapFree", swap_free), KEY("SwapCached", swap_cached), KEY("NvMapMemUsed", shared),
#undef KEY
        };
        enum { N_KEYS = sizeof(keys) / sizeof(keys[0]) };
        jd_opt_u64 sreclaimable = { 0 };

        /* Only the meminfo-derived fields: lfb and IRAM come from other files. */
        for (size_t i = 0; i < N_KEYS; i++)
                *(jd_opt_u64 *) ((char *) m + keys[i].offset) = (jd_opt_u64) { 0 };
        m->used = m->swap_used = (jd_opt_u64) { 0 };
        /* Most of meminfo's ~50 lines are not wanted, and the fast tier
         * reads it up to 1000 times a second: a line's name is compared
         * only with the names of its length, before any number is parsed. */
        for (const char *l = text; *l;) {
                const char *eol = jd_line_end(l);
                const char *colon = memchr(l, ':', (size_t) (eol - l));
                size_t klen = colon ? (size_t) (colon - l) : 0;
                jd_opt_u64 *o = NULL;
                if (klen == 12 && memcmp(l, "SReclaimable", 12) == 0)
                        o = &sreclaimable;
                for (size_t i = 0; klen && !o && i < N_KEYS; i++)
                        if (keys[i].len == klen && memcmp(l, keys[i].key, klen) == 0)
                                o = (jd_opt_u64 *) ((char *) m + keys[i].offset);
                /* "MemTotal:       32210196 kB" */
                jd_span f[3];
                size_t n = o ? jd_line_fields(colon + 1, f, 3) : 0;
                uint64_t v;
                if ((n == 1 || (n == 2 && jd_span_eq(f[1], "kB"))) && jd_span_u64(f[0], &v))
                        JD_SET(*o, v);
                l = *eol ? eol + 1 : eol;
        }
        if (!m->total.present)
                return false;
        if (m->free.present && m->buffers.present && m->cached.present &&
            m->free.value + m->buffers.value + m->cached.value <= m->total.value)
                JD_SET(m->used, m->total.value - m->free.value - m->buffers.value - m->cached.value);
        /* Reclaimable slab is cache too (fact sheet §5). */
        if (m->cached.present && sreclaimable.present)
                m->cached.value += sreclaimable.value;
        if (m->swap_total.present && m->swap_free.present && m->swap_free.value <= m->swap_total.value)
                JD_SET(m->swap_used, m->swap_total.value - m->swap_free.value);
        /* NvMapMemUsed 0 means "not tracked here"; the sampler falls back to nvmap. */
        if (m->shared.present && m->shared.value == 0)
                m->shared.present = false;
        return true;
}

bool jd_parse_buddyinfo_free(const char *text, jd_buddy_free *out)
{
        uint64_t by_order[11] = { 0 };
        bool any = false;
        JD_FOR_EACH_LINE(l, text) {
                /* "Node 0, zone   Normal  <11 counts by order>": free
                 * blocks of 4 KiB << order, the last 4 MiB. */
                jd_span f[16];
                uint64_t counts[11];
                size_t cols = jd_line_fields(l, f, 16);
                if (cols < 4 || !jd_span_eq(f[0], "Node") || !jd_span_eq(f[2], "zone"))
                        continue;
                for (size_t i = 4; i < cols; i++) {
                        uint64_t v;
                        if (!jd_span_u64(f[i], &v))
                                return false;
                        if (i - 4 < 11)
                                counts[i - 4] = v;
                }
                if (cols - 4 != 11)
                        continue;
                for (size_t o = 0; o < 11; o++)
                        by_order[o] += counts[o];
                any = true;
        }
        if (!any)
                return false;
        out->lfb = by_order[10];
        /* tegrastats' "lfb NxS": the largest size that has a free block. */
        out->largest_kib = out->largest_count = 0;
        for (size_t o = 11; o-- > 0;) {
                if (by_order[o]) {
                        out->largest_kib = (uint64_t) 4 << o;
                        out->largest_count = by_order[o];
                        break;
                }
        }
        return true;
}

bool jd_parse_vmstat_swap(const char *text, uint64_t *pages_in, uint64_t *pages_out)
{
        bool in = false, out = false;
        JD_FOR_EACH_LINE(l, text) {
                /* "pswpin 1234": a name, one space, a count */
                jd_span f[3];
                if (jd_line_fields(l, f, 3) != 2)
                        continue;
                if (jd_span_eq(f[0], "pswpin"))
                        in = jd_span_u64(f[1], pages_in);
                else if (jd_span_eq(f[0], "pswpout"))
                        out = jd_span_u64(f[1], pages_out);
        }
        return in && out;
}

bool jd_parse_nvmap_total(const char *text, uint64_t *kib)
{
        JD_FOR_EACH_LINE(l, text) {
                unsigned long long v;
                char unit;
                if (strncmp(l, "total", 5) == 0 && sscanf(l + 5, " %llu%c", &v, &unit) == 2 && unit == 'K') {
                        *kib = v;
                        return true;
                }
        }
        return false;
}

const jd_memory_sample *jd_memory_reader_sample(jd_memory_reader *r)
{
        jd_memory_sample *m = &r->sample;
        uint64_t v;
        jd_buddy_free b;
        bool buddy = jd_file_read(&r->buddyinfo, r->buf, sizeof(r->buf)) > 0 && jd_parse_buddyinfo_free(r->buf, &b);
        m->lfb = (jd_opt_u64) { .present = buddy, .value = buddy ? b.lfb : 0 };
        /* No free block at all leaves no largest size to tell. */
        buddy = buddy && b.largest_count > 0;
        m->lfb_size = (jd_opt_u64) { .present = buddy, .value = buddy ? b.largest_kib : 0 };
        m->lfb_count = (jd_opt_u64) { .present = buddy, .value = buddy ? b.largest_count : 0 };
        if (jd_file_read(&r->iram_clients, r->buf, sizeof(r->buf)) > 0 && jd_parse_nvmap_total(r->buf, &v))
                JD_SET(m->iram_used, v);
        else
                m->iram_used.present = false;
        if (jd_file_read(&r->meminfo, r->buf, sizeof(r->buf)) <= 0)
                r->buf[0] = '\0';
        jd_parse_meminfo(r->buf, m); /* an unreadable meminfo leaves its fields absent */
        return m;
}

void jd_memory_reader_sample_swap_traffic(jd_memory_reader *r)
{
        jd_memory_sample *m = &r->sample;
        uint64_t in, out;
        /* pswpin/pswpout come early in the file (after the nr_* and
         * pgpg* lines): a truncated read of the rest loses nothing. */
        bool ok = jd_file_read(&r->vmstat, r->buf, sizeof(r->buf)) > 0 && jd_parse_vmstat_swap(r->buf, &in, &out);
        m->swap_in = (jd_opt_u64) { .present = ok, .value = ok ? in * r->page_kib : 0 };
        m->swap_out = (jd_opt_u64) { .present = ok, .value = ok ? out * r->page_kib : 0 };
}
