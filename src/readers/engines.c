#include "engines.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "parse.h"

#define CLK_DIR "/sys/kernel/debug/clk"

typedef struct {
        jd_file enable_count, rate;
} clock_files;

/* An engine's member clocks (as many as the tree has). */
typedef struct {
        clock_files *c;
        size_t n, cap;
} group_clocks;

struct jd_engines_reader {
        group_clocks *clocks;     /* one per engine, like sample.engines */
        size_t cap_clocks, cap_engines;
        jd_engines_sample sample;
};

static void upper(char *s)
{
        for (; *s; s++)
                *s = (char) toupper((unsigned char) *s);
}

bool jd_engine_group(const char *clock, char *group, size_t size)
{
        static const char *const exact[] = { "ape", "se" };
        static const char *const families[] = { "cvnas", "dla", "msenc", "nvdec", "nvenc",
                                                "nvjpg", "ofa", "pva", "vic" };
        for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
                if (strcmp(clock, exact[i]) == 0) {
                        jd_strlcpy(group, clock, size);
                        upper(group);
                        return true;
                }
        }
        for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
                size_t len = strlen(families[i]);
                if (strncmp(clock, families[i], len) != 0)
                        continue;
                const char *rest = clock + len;
                size_t digits = strspn(rest, "0123456789");
                if (digits > 0 && rest[digits] == '_') {
                        /* <family><N>_<part>: one group per instance (DLA0, PVA0). */
                        snprintf(group, size, "%s%.*s", families[i], (int) digits, rest);
                } else if (rest[digits] == '\0') {
                        /* nvjpg, nvjpg1, vic03: one group for the family. */
                        jd_strlcpy(group, families[i], size);
                } else {
                        continue;
                }
                upper(group);
                return true;
        }
        return false;
}

static void add_clock(jd_engines_reader *r, const jd_sysroot *sr, const char *dir, const char *clock)
{
        char group[16];
        if (!jd_engine_group(clock, group, sizeof(group)))
                return;
        size_t g = 0;
        while (g < r->sample.n && strcmp(r->sample.engines[g].name, group) != 0)
                g++;
        if (g == r->sample.n) {
                group_clocks *clocks = jd_grow(r->clocks, &r->cap_clocks, g + 1, sizeof(*clocks));
                if (clocks)
                        r->clocks = clocks;
                jd_engine *engines = jd_grow(r->sample.engines, &r->cap_engines, g + 1, sizeof(*engines));
                if (engines)
                        r->sample.engines = engines;
                if (!clocks || !engines)
                        return; /* out of memory */
                r->sample.n++;
                memset(&r->sample.engines[g], 0, sizeof(r->sample.engines[g]));
                r->clocks[g] = (group_clocks) { 0 };
                jd_strlcpy(r->sample.engines[g].name, group, sizeof(r->sample.engines[g].name));
        }
        group_clocks *gc = &r->clocks[g];
        clock_files *grown = jd_grow(gc->c, &gc->cap, gc->n + 1, sizeof(*grown));
        if (!grown)
                return;
        gc->c = grown;
        clock_files *c = &gc->c[gc->n++];
        jd_file_open(&c->enable_count, sr, "%s/%s/clk_enable_count", dir, clock);
        jd_file_open(&c->rate, sr, "%s/%s/clk_rate", dir, clock);
}

/* Child clocks may be nested one level below their parent. */
static void scan(jd_engines_reader *r, const jd_sysroot *sr, const char *dir, int depth)
{
        char **names;
        size_t n = jd_sysroot_list(sr, dir, &names);
        for (size_t i = 0; i < n; i++) {
                char sub[512];
                snprintf(sub, sizeof(sub), "%s/%s", dir, names[i]);
                add_clock(r, sr, dir, names[i]);
                if (depth > 0 && !strstr(names[i], "clk_"))
                        scan(r, sr, sub, depth - 1);
        }
        jd_names_free(names, n);
}

static int by_name(const void *a, const void *b)
{
        return strcmp(((const jd_engine *) a)->name, ((const jd_engine *) b)->name);
}

jd_engines_reader *jd_engines_reader_new(const jd_sysroot *sr)
{
        jd_engines_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        scan(r, sr, CLK_DIR, 1);
        /* Sort groups by name, moving their clock files along. */
        for (size_t i = 1; i < r->sample.n; i++) {
                for (size_t j = i; j > 0 && by_name(&r->sample.engines[j - 1], &r->sample.engines[j]) > 0; j--) {
                        jd_engine te = r->sample.engines[j];
                        r->sample.engines[j] = r->sample.engines[j - 1];
                        r->sample.engines[j - 1] = te;
                        group_clocks tc = r->clocks[j];
                        r->clocks[j] = r->clocks[j - 1];
                        r->clocks[j - 1] = tc;
                }
        }
        return r;
}

void jd_engines_reader_free(jd_engines_reader *r)
{
        if (!r)
                return;
        for (size_t g = 0; g < r->sample.n; g++) {
                for (size_t c = 0; c < r->clocks[g].n; c++) {
                        jd_file_close(&r->clocks[g].c[c].enable_count);
                        jd_file_close(&r->clocks[g].c[c].rate);
                }
                free(r->clocks[g].c);
        }
        free(r->clocks);
        free(r->sample.engines);
        free(r);
}

const jd_engines_sample *jd_engines_reader_sample(jd_engines_reader *r)
{
        for (size_t g = 0; g < r->sample.n; g++) {
                jd_engine *e = &r->sample.engines[g];
                e->online = (jd_opt_bool) { 0 };
                e->rate_hz = (jd_opt_u64) { 0 };
                for (size_t c = 0; c < r->clocks[g].n; c++) {
                        clock_files *f = &r->clocks[g].c[c];
                        uint64_t count, rate;
                        if (!jd_file_u64(&f->enable_count, &count))
                                continue;
                        e->online.present = true;
                        e->online.value |= count > 0;
                        /* A clock that is off has a rate it would run at,
                         * not one it runs at: an engine that is off has
                         * no frequency (absent, never 0). */
                        if (count > 0 && jd_file_u64(&f->rate, &rate) && (!e->rate_hz.present || rate > e->rate_hz.value))
                                JD_SET(e->rate_hz, rate);
                }
        }
        return &r->sample;
}
