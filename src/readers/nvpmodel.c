#include "nvpmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "parse.h"

#define CONF "/etc/nvpmodel.conf"

struct jd_nvpmodel_reader {
        jd_cached_file conf, status, note;
        /* A status file written after the current note was seen: the mode
         * changed since, so the note no longer tells it. */
        bool note_superseded;
        jd_nvpmodel_sample sample;
};

static bool is_blank(char c)
{
        return c == ' ' || c == '\t';
}

/* The next blank-separated token of [*P, END) into T (false: none left). */
static bool next_token(const char **p, const char *end, jd_span *t)
{
        while (*p < end && is_blank(**p))
                (*p)++;
        const char *start = *p;
        while (*p < end && !is_blank(**p))
                (*p)++;
        *t = (jd_span) { start, (size_t) (*p - start) };
        return t->len > 0;
}

/* FIELD ("KEY=VALUE", KEY not empty) split at its first '='. */
static bool split_field(jd_span field, jd_span *key, jd_span *value)
{
        const char *eq = memchr(field.p, '=', field.len);
        if (!eq || eq == field.p)
                return false;
        *key = (jd_span) { field.p, (size_t) (eq - field.p) };
        *value = (jd_span) { eq + 1, field.len - key->len - 1 };
        return true;
}

bool jd_nvpmodel_parse_header(const char *line, jd_nvpmodel_header *h)
{
        const char *p = line, *end = jd_line_end(line);
        while (end > p && (is_blank(end[-1]) || end[-1] == '\r'))
                end--;
        while (p < end && is_blank(*p))
                p++;
        if (end - p < 2 || *p != '<' || end[-1] != '>')
                return false;
        p++;
        end--;
        h->n = 0;
        if (!next_token(&p, end, &h->kind))
                return false;
        h->fields = (jd_span) { p, (size_t) (end - p) };
        jd_span t, key, value;
        while (next_token(&p, end, &t)) {
                if (!split_field(t, &key, &value))
                        return false; /* not KEY=VALUE */
                h->n++;
        }
        return true;
}

bool jd_nvpmodel_header_value(const jd_nvpmodel_header *h, const char *key, jd_span *value)
{
        size_t found = 0;
        const char *p = h->fields.p, *end = h->fields.p + h->fields.len;
        jd_span t, k, v;
        while (next_token(&p, end, &t))
                if (split_field(t, &k, &v) && jd_span_eq(k, key)) {
                        *value = v;
                        found++;
                }
        return found == 1 && value->len > 0;
}

bool jd_parse_nvpmodel_conf(const char *conf, jd_nvpmodel_sample *s)
{
        s->n_modes = 0;
        s->default_id.present = false;
        unsigned n_configs = 0;
        JD_FOR_EACH_LINE(l, conf) {
                jd_nvpmodel_header h;
                jd_span id, name;
                uint64_t v;
                if (!jd_nvpmodel_parse_header(l, &h))
                        continue;
                if (jd_span_eq(h.kind, "POWER_MODEL")) {
                        jd_nvpmodel_mode *modes = jd_grow(s->modes, &s->cap_modes, s->n_modes + 1, sizeof(*modes));
                        if (!modes)
                                break; /* out of memory: the modes so far */
                        s->modes = modes;
                        if (jd_nvpmodel_header_value(&h, "ID", &id) && jd_span_u64(id, &v) && v <= UINT32_MAX &&
                            jd_nvpmodel_header_value(&h, "NAME", &name) &&
                            jd_span_copy(name, s->modes[s->n_modes].name, sizeof(s->modes[0].name))) {
                                s->modes[s->n_modes].id = (unsigned) v;
                                s->n_modes++;
                        }
                } else if (jd_span_eq(h.kind, "PM_CONFIG")) {
                        /* nvpmodel would take one of several; which is not ours to guess. */
                        if (++n_configs == 1 && jd_nvpmodel_header_value(&h, "DEFAULT", &id) && jd_span_u64(id, &v))
                                JD_SET(s->default_id, v);
                        else
                                s->default_id.present = false;
                }
        }
        return s->n_modes > 0;
}

void jd_nvpmodel_sample_clear(jd_nvpmodel_sample *s)
{
        free(s->modes);
        s->modes = NULL;
        s->n_modes = s->cap_modes = 0;
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
        jd_cached_file_init(&r->note, sr, JD_NVPMODEL_RUNNING_NOTE, 256);
        jd_nvpmodel_reader_sample(r);
        return r;
}

void jd_nvpmodel_reader_free(jd_nvpmodel_reader *r)
{
        if (!r)
                return;
        jd_cached_file_clear(&r->conf);
        jd_cached_file_clear(&r->status);
        jd_cached_file_clear(&r->note);
        jd_nvpmodel_sample_clear(&r->sample);
        free(r);
}

/* Whether file A was modified after file B. */
static bool newer(const jd_cached_file *a, const jd_cached_file *b)
{
        return a->mtime_s > b->mtime_s || (a->mtime_s == b->mtime_s && a->mtime_ns > b->mtime_ns);
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
        const char *note = s->present ? jd_cached_file_get(&r->note, &changed) : NULL;
        if (note && changed)
                r->note_superseded = false;
        if (status && note && newer(&r->status, &r->note))
                r->note_superseded = true;
        /* nvpmodel's own status; while it is missing, jetsond's note. */
        const char *current = status ? status : note && !r->note_superseded ? note : NULL;
        if (!current || !jd_parse_nvpmodel_status(current, s))
                s->current_id.present = false;
        const char *name = s->current_id.present ? jd_nvpmodel_mode_name(s, (unsigned) s->current_id.value) : NULL;
        jd_strlcpy(s->current_name, name ? name : "", sizeof(s->current_name));
        return s;
}
