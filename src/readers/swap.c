#include "swap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#define FSTAB_MAX (1u << 20)

struct jd_swap_reader {
        const jd_sysroot *sr;
        jd_file swaps;
        char buf[16384];
        jd_swap_sample sample;
};

jd_swap_reader *jd_swap_reader_new(const jd_sysroot *sr)
{
        jd_swap_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->sr = sr;
        jd_file_open(&r->swaps, sr, "/proc/swaps");
        return r;
}

void jd_swap_reader_free(jd_swap_reader *r)
{
        if (!r)
                return;
        jd_file_close(&r->swaps);
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

bool jd_parse_proc_swaps(const char *text, jd_swap_sample *out)
{
        out->n = 0;
        const char *l = strchr(text, '\n'); /* skip the header */
        if (strncmp(text, "Filename", 8) != 0 || !l)
                return false;
        for (l++; *l && out->n < JD_MAX_SWAPS; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "") {
                char path[256], type[16];
                unsigned long long size_kib, used_kib;
                int prio;
                if (sscanf(l, "%255s %15s %llu %llu %d", path, type, &size_kib, &used_kib, &prio) != 5)
                        continue;
                jd_swap *s = &out->swaps[out->n++];
                memset(s, 0, sizeof(*s));
                unescape(path);
                jd_strlcpy(s->path, path, sizeof(s->path));
                /* zram reports itself as a partition; its device name tells. */
                jd_strlcpy(s->type, strncmp(path, "/dev/zram", 9) == 0 ? "zram" : type, sizeof(s->type));
                s->size_bytes = (uint64_t) size_kib * 1024;
                s->used_bytes = (uint64_t) used_kib * 1024;
                s->priority = prio;
        }
        return true;
}

bool jd_fstab_has_swap(const char *fstab, const char *path)
{
        for (const char *l = fstab; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
                char spec[512], file[256], type[32];
                const char *p = l + strspn(l, " \t");
                if (*p == '#' || *p == '\n')
                        continue;
                if (sscanf(p, "%511s %255s %31s", spec, file, type) != 3)
                        continue;
                unescape(spec);
                if (strcmp(type, "swap") == 0 && strcmp(spec, path) == 0)
                        return true;
        }
        return false;
}

const jd_swap_sample *jd_swap_reader_sample(jd_swap_reader *r)
{
        if (jd_file_read(&r->swaps, r->buf, sizeof(r->buf)) <= 0 || !jd_parse_proc_swaps(r->buf, &r->sample)) {
                r->sample.n = 0;
                return &r->sample;
        }
        char *fstab = jd_sysroot_read_file(r->sr, "/etc/fstab", FSTAB_MAX, NULL);
        for (size_t i = 0; i < r->sample.n; i++)
                r->sample.swaps[i].on_boot = fstab && jd_fstab_has_swap(fstab, r->sample.swaps[i].path);
        free(fstab);
        return &r->sample;
}
