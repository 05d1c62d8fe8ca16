#include "nvpmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

#define CONF "/etc/nvpmodel.conf"

struct jd_nvpmodel_reader {
        jd_cached_file conf, status;
        jd_nvpmodel_sample sample;
};

/* Reads a "KEY=value" field out of a "< ... >" header line. */
static bool header_field(const char *line, const char *key, char *out, size_t size)
{
        const char *p = strstr(line, key);
        size_t klen = strlen(key);
        while (p && p > line && p[-1] != ' ' && p[-1] != '<')
                p = strstr(p + 1, key);
        if (!p || p[klen] != '=')
                return false;
        p += klen + 1;
        size_t n = strcspn(p, " >\n");
        if (n == 0 || n >= size)
                return false;
        memcpy(out, p, n);
        out[n] = '\0';
        return true;
}

bool jd_parse_nvpmodel_conf(const char *conf, jd_nvpmodel_sample *s)
{
        s->n_modes = 0;
        s->default_id.present = false;
        JD_FOR_EACH_LINE(l, conf) {
                const char *p = l + strspn(l, " \t");
                if (*p != '<')
                        continue;
                const char *eol = strchrnul(p, '\n');
                char line[256];
                size_t n = (size_t) (eol - p);
                if (n >= sizeof(line))
                        continue;
                memcpy(line, p, n);
                line[n] = '\0';
                jd_rstrip(line);
                if (line[strlen(line) - 1] != '>')
                        continue; /* a truncated header is no header */
                char id[16], name[48];
                uint64_t v;
                if (strstr(line, "POWER_MODEL") && header_field(line, "ID", id, sizeof(id)) &&
                    header_field(line, "NAME", name, sizeof(name)) && jd_parse_u64(id, &v) &&
                    v <= UINT32_MAX && s->n_modes < JD_MAX_MODES) {
                        s->modes[s->n_modes].id = (unsigned) v;
                        jd_strlcpy(s->modes[s->n_modes].name, name, sizeof(s->modes[0].name));
                        s->n_modes++;
                } else if (strstr(line, "PM_CONFIG") && header_field(line, "DEFAULT", id, sizeof(id)) &&
                           jd_parse_u64(id, &v)) {
                        JD_SET(s->default_id, v);
                }
        }
        return s->n_modes > 0;
}

bool jd_parse_nvpmodel_status(const char *status, jd_nvpmodel_sample *s)
{
        const char *pm = strstr(status, "pmode:");
        const char *fm = strstr(status, "fmode:");
        char id[16];
        s->current_id.present = false;
        s->fan_mode[0] = '\0';
        if (fm) {
                size_t n = strcspn(fm + 6, " \n");
                if (n < sizeof(s->fan_mode)) {
                        memcpy(s->fan_mode, fm + 6, n);
                        s->fan_mode[n] = '\0';
                }
        }
        if (!pm)
                return false;
        size_t n = strcspn(pm + 6, " \n");
        if (n == 0 || n >= sizeof(id))
                return false;
        memcpy(id, pm + 6, n);
        id[n] = '\0';
        /* "0002" is decimal with leading zeros, not octal. */
        uint64_t v;
        if (!jd_parse_u64(id, &v))
                return false;
        JD_SET(s->current_id, v);
        return true;
}

const char *jd_nvpmodel_mode_name(const jd_nvpmodel_sample *s, unsigned id)
{
        for (size_t i = 0; i < s->n_modes; i++)
                if (s->modes[i].id == id)
                        return s->modes[i].name;
        return NULL;
}

jd_nvpmodel_reader *jd_nvpmodel_reader_new(const jd_sysroot *sr)
{
        jd_nvpmodel_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        jd_cached_file_init(&r->conf, sr, CONF, 1 << 20);
        jd_cached_file_init(&r->status, sr, JD_NVPMODEL_STATUS, 256);
        jd_nvpmodel_reader_sample(r);
        return r;
}

void jd_nvpmodel_reader_free(jd_nvpmodel_reader *r)
{
        if (!r)
                return;
        jd_cached_file_clear(&r->conf);
        jd_cached_file_clear(&r->status);
        free(r);
}

const jd_nvpmodel_sample *jd_nvpmodel_reader_sample(jd_nvpmodel_reader *r)
{
        jd_nvpmodel_sample *s = &r->sample;
        bool changed;
        const char *conf = jd_cached_file_get(&r->conf, &changed);
        if (changed) {
                /* SetDefaultMode and custom modes rewrite the conf. */
                s->present = conf && jd_parse_nvpmodel_conf(conf, s);
                if (!s->present)
                        s->n_modes = 0;
        }
        const char *status = s->present ? jd_cached_file_get(&r->status, NULL) : NULL;
        if (!status || !jd_parse_nvpmodel_status(status, s))
                s->current_id.present = false;
        const char *name = s->current_id.present ? jd_nvpmodel_mode_name(s, (unsigned) s->current_id.value) : NULL;
        jd_strlcpy(s->current_name, name ? name : "", sizeof(s->current_name));
        return s;
}
