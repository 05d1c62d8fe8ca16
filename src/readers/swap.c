#include "swap.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "parse.h"

/* The kernel has at most 32 swap areas (MAX_SWAPFILES); 1 MiB holds 32
 * lines of the longest paths: past it the file is no /proc/swaps. */
#define PROC_SWAPS_MAX (1u << 20)
/* L4T's zram swaps are made at boot by nvzramconfig.service, not by
 * fstab: while that unit is enabled (its wants link, which L4T installs,
 * leads to the unit file), they come back at boot. */
#define NVZRAMCONFIG_WANTS "/etc/systemd/system/multi-user.target.wants/nvzramconfig.service"

struct jd_swap_reader {
        const jd_sysroot *sr;
        jd_file swaps;
        jd_cached_file fstab, nvzramconfig;
        char **boot_paths;      /* swap entries of fstab (all of them), parsed when it changes */
        size_t n_boot;
        char *buf;
        size_t buf_size;
        jd_swap_sample sample;
};

jd_swap_reader *jd_swap_reader_new(const jd_sysroot *sr)
{
        jd_swap_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->sr = sr;
        jd_file_open(&r->swaps, sr, "/proc/swaps");
        jd_cached_file_init(&r->fstab, sr, "/etc/fstab", JD_FSTAB_MAX);
        jd_cached_file_init(&r->nvzramconfig, sr, NVZRAMCONFIG_WANTS, 65536);
        return r;
}

static void free_boot_paths(jd_swap_reader *r)
{
        for (size_t i = 0; i < r->n_boot; i++)
                free(r->boot_paths[i]);
        free(r->boot_paths);
        r->boot_paths = NULL;
        r->n_boot = 0;
}

void jd_swap_reader_free(jd_swap_reader *r)
{
        if (!r)
                return;
        free_boot_paths(r);
        free(r->buf);
        jd_swap_sample_clear(&r->sample);
        jd_file_close(&r->swaps);
        jd_cached_file_clear(&r->fstab);
        jd_cached_file_clear(&r->nvzramconfig);
        free(r);
}

/* /proc/swaps escapes blanks in paths as octal (\040). */
static void unescape(char *s)
{
        char *w = s;
        for (char *p = s; *p; p++) {
                if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' && p[2] <= '7' &&
                    p[3] >= '0' && p[3] <= '7') {
                        *w++ = (char) ((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
                        p += 3;
                } else {
                        *w++ = *p;
                }
        }
        *w = '\0';
}

void jd_swap_sample_clear(jd_swap_sample *s)
{
        free(s->swaps);
        *s = (jd_swap_sample) { 0 };
}

bool jd_swap_sample_copy(jd_swap_sample *dst, const jd_swap_sample *src)
{
        bool ok = true;
        jd_swap *copy = jd_memdup(src->swaps, src->n, sizeof(*copy), &ok);
        if (!ok)
                return false;
        free(dst->swaps);
        *dst = (jd_swap_sample) { .n = src->n, .swaps = copy, .cap = src->n };
        return true;
}

/* Grammar: a header line starting "Filename", then one swap area a line:
 * path (octal escapes such as \040), type, size KiB, used KiB, priority,
 * separated by blanks. A line that does not parse whole is skipped. */
bool jd_parse_proc_swaps(const char *text, jd_swap_sample *out)
{
        out->n = 0;
        const char *l = strchr(text, '\n'); /* skip the header */
        if (strncmp(text, "Filename", 8) != 0 || !l)
                return false;
        for (l++; *l; l = *jd_line_end(l) ? jd_line_end(l) + 1 : "") {
                jd_span f[5];
                char path[256], type[16];
                uint64_t size_kib, used_kib;
                int64_t prio;
                if (jd_line_fields(l, f, 5) != 5 || !jd_span_copy(f[0], path, sizeof(path)) ||
                    !jd_span_copy(f[1], type, sizeof(type)) || !jd_span_u64(f[2], &size_kib) ||
                    !jd_span_u64(f[3], &used_kib) || !jd_span_i64(f[4], &prio) || prio < INT32_MIN ||
                    prio > INT32_MAX || size_kib > UINT64_MAX / 1024 || used_kib > UINT64_MAX / 1024)
                        continue;
                jd_swap *grown = jd_grow(out->swaps, &out->cap, out->n + 1, sizeof(*grown));
                if (!grown)
                        break; /* out of memory: those so far */
                out->swaps = grown;
                jd_swap *s = &out->swaps[out->n++];
                memset(s, 0, sizeof(*s));
                unescape(path);
                jd_strlcpy(s->path, path, sizeof(s->path));
                /* zram reports itself as a partition; its device name tells. */
                jd_strlcpy(s->type, strncmp(path, "/dev/zram", 9) == 0 ? "zram" : type, sizeof(s->type));
                s->size_bytes = size_kib * 1024;
                s->used_bytes = used_kib * 1024;
                s->priority = (int) prio;
        }
        return true;
}

bool jd_fstab_swap_line(const char *line, char *spec, size_t size)
{
        jd_span f[3];
        if (jd_line_fields(line, f, 3) < 3 || f[0].p[0] == '#' || !jd_span_eq(f[2], "swap") ||
            !jd_span_copy(f[0], spec, size))
                return false;
        unescape(spec);
        return true;
}

char **jd_fstab_swaps(const char *fstab, size_t *n)
{
        size_t cap = 8;
        char **list = malloc(cap * sizeof(char *));
        *n = 0;
        JD_FOR_EACH_LINE(l, fstab) {
                char spec[PATH_MAX];
                if (!list || !jd_fstab_swap_line(l, spec, sizeof(spec)))
                        continue;
                if (*n + 1 == cap) {
                        char **bigger = realloc(list, 2 * cap * sizeof(char *));
                        if (!bigger)
                                break;
                        list = bigger;
                        cap *= 2;
                }
                list[(*n)++] = strdup(spec);
        }
        if (list)
                list[*n] = NULL;
        return list;
}

bool jd_fstab_has_swap(const char *fstab, const char *path)
{
        JD_FOR_EACH_LINE(l, fstab) {
                char spec[PATH_MAX];
                if (jd_fstab_swap_line(l, spec, sizeof(spec)) && strcmp(spec, path) == 0)
                        return true;
        }
        return false;
}

const jd_swap_sample *jd_swap_reader_sample(jd_swap_reader *r)
{
        if (jd_file_read_grow(&r->swaps, &r->buf, &r->buf_size, PROC_SWAPS_MAX) <= 0 ||
            !jd_parse_proc_swaps(r->buf, &r->sample)) {
                r->sample.n = 0;
                return &r->sample;
        }
        bool changed;
        const char *fstab = jd_cached_file_get(&r->fstab, &changed);
        if (changed) {
                free_boot_paths(r);
                r->boot_paths = fstab ? jd_fstab_swaps(fstab, &r->n_boot) : NULL;
        }
        bool zram_at_boot = jd_cached_file_get(&r->nvzramconfig, NULL) != NULL;
        for (size_t i = 0; i < r->sample.n; i++) {
                r->sample.swaps[i].on_boot = zram_at_boot && strcmp(r->sample.swaps[i].type, "zram") == 0;
                for (size_t k = 0; k < r->n_boot; k++)
                        if (strcmp(r->boot_paths[k], r->sample.swaps[i].path) == 0)
                                r->sample.swaps[i].on_boot = true;
        }
        return &r->sample;
}
