#include "config_edit.h"

#include <errno.h>
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "nvpmodel.h"
#include "parse.h"
#include "swap.h"

/* jetsond's fan reader keeps profile names in 32-byte buffers: a longer
 * name could be written but not read back. */
#define PROFILE_MAX 31

static char *fail(const char **error, const char *message)
{
        if (error)
                *error = message;
        return NULL;
}

/* TEXT with LEN bytes at AT replaced by WITH. */
static char *splice(const char *text, const char *at, size_t len, const char *with)
{
        GString *s = g_string_new_len(text, at - text);
        g_string_append(s, with);
        g_string_append(s, at + len);
        return g_string_free(s, FALSE);
}

/* The reader's grammar (jd_nvpmodel_parse_header), so that an edit is
 * always one the reader sees: the one PM_CONFIG header and its one
 * numeric DEFAULT, else a refusal. */
char *jd_edit_nvpmodel_default(const char *conf, unsigned id, const char **error)
{
        jd_span value = { NULL, 0 };
        bool numeric = false;
        unsigned n_headers = 0;
        JD_FOR_EACH_LINE(l, conf) {
                jd_nvpmodel_header h;
                if (!jd_nvpmodel_parse_header(l, &h) || !jd_span_eq(h.kind, "PM_CONFIG"))
                        continue;
                if (++n_headers > 1)
                        return fail(error, "nvpmodel.conf has more than one PM_CONFIG header");
                uint64_t v;
                numeric = jd_nvpmodel_header_value(&h, "DEFAULT", &value) && jd_span_u64(value, &v);
        }
        if (n_headers == 0)
                return fail(error, "nvpmodel.conf has no PM_CONFIG header");
        if (!numeric)
                return fail(error, "the PM_CONFIG header of nvpmodel.conf has no numeric DEFAULT");
        char num[16];
        snprintf(num, sizeof(num), "%u", id);
        return splice(conf, value.p, value.len, num);
}

static bool plain_token(const char *s, size_t max)
{
        size_t n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-");
        return n > 0 && n <= max && s[n] == '\0';
}

char *jd_edit_nvfancontrol_profile(const char *conf, const char *profile, const char **error)
{
        static const char key[] = "FAN_DEFAULT_PROFILE";
        const char *value = NULL;
        size_t value_len = 0;
        unsigned n_lines = 0;

        if (!plain_token(profile, PROFILE_MAX))
                return fail(error, "fan profile names are 1 to 31 letters, digits, '_' or '-'");
        /* The reader's grammar (jd_line_fields, as jd_parse_nvfancontrol_profiles
         * reads the file), so that the line edited is the one it reads. */
        JD_FOR_EACH_LINE(l, conf) {
                jd_span f[2];
                size_t n = jd_line_fields(l, f, 2);
                if (n == 0 || !jd_span_eq(f[0], key))
                        continue;
                /* nvfancontrol confs with several <FAN n> sections have one
                 * default per fan; changing them all is not what was asked. */
                if (++n_lines > 1)
                        return fail(error, "nvfancontrol.conf has more than one FAN_DEFAULT_PROFILE line");
                value = n == 2 ? f[1].p : NULL;
                value_len = n == 2 ? f[1].len : 0;
        }
        if (n_lines == 0)
                return fail(error, "nvfancontrol.conf has no FAN_DEFAULT_PROFILE line");
        if (value_len == 0)
                return fail(error, "the FAN_DEFAULT_PROFILE line of nvfancontrol.conf has no value");
        return splice(conf, value, value_len, profile);
}

static const char *swap_path_problem(const char *path)
{
        if (path[0] != '/')
                return "the swap path must be absolute";
        /* swap.c keeps fstab specs in 256-byte buffers: a longer path could
         * match a truncated longer entry. */
        if (strlen(path) >= 255)
                return "the swap path is too long";
        for (const unsigned char *c = (const unsigned char *) path; *c; c++)
                if (*c <= ' ' || *c == 0x7f || *c == '\\')
                        return "the swap path must not contain blanks, control characters or backslashes";
        return NULL;
}

/* Is L..EOL an active swap entry for PATH? Left to swap.c's parser, so that
 * the editor and the reader agree on what an entry is. */
static bool is_swap_entry(const char *l, const char *eol, const char *path)
{
        g_autofree char *line = g_strndup(l, (gsize) (eol - l));
        return jd_fstab_has_swap(line, path);
}

/* The grammar is the reader's (jd_fstab_swap_line, swap.c): fstab(5)
 * fields separated by blanks on one line, '#' comments, \040 escapes. */
static bool has_swap_entry(const char *fstab, const char *path)
{
        return jd_fstab_has_swap(fstab, path);
}

#define FSTAB_TOO_BIG "fstab is larger than 1 MiB, the most jetsond reads of it: not edited"

const char *jd_fstab_unreadable_reason(int r)
{
        switch (r) {
        case -EFBIG:
                return FSTAB_TOO_BIG;
        case -EINVAL:
                return "fstab holds a NUL byte or is no regular file, so it is no text jetsond reads: not edited";
        case -EISDIR:
                return "fstab is a directory: not edited";
        default:
                return NULL;
        }
}

/* The reader leaves a file past its cap unused: refused, whatever made it. */
static const char *fstab_problem(const char *fstab, const char *path)
{
        if (strnlen(fstab, JD_FSTAB_MAX + 1) > JD_FSTAB_MAX)
                return FSTAB_TOO_BIG;
        return swap_path_problem(path);
}

char *jd_fstab_add_swap(const char *fstab, const char *path, const char **error)
{
        const char *problem = fstab_problem(fstab, path);
        if (problem)
                return fail(error, problem);
        if (has_swap_entry(fstab, path))
                return fail(error, "fstab already has a swap entry for this path");
        GString *s = g_string_new(fstab);
        if (s->len > 0 && s->str[s->len - 1] != '\n')
                g_string_append_c(s, '\n');
        g_string_append_printf(s, "%s none swap sw 0 0\n", path);
        return g_string_free(s, FALSE);
}

char *jd_fstab_remove_swap(const char *fstab, const char *path, const char **error)
{
        const char *problem = fstab_problem(fstab, path);
        if (problem)
                return fail(error, problem);
        GString *s = g_string_sized_new(strlen(fstab));
        unsigned removed = 0;
        JD_FOR_EACH_LINE(l, fstab) {
                const char *eol = strchrnul(l, '\n');
                const char *next = *eol ? eol + 1 : eol;
                if (is_swap_entry(l, eol, path))
                        removed++;
                else
                        g_string_append_len(s, l, next - l);
        }
        if (removed == 0) {
                g_string_free(s, TRUE);
                return fail(error, "fstab has no swap entry for this path");
        }
        return g_string_free(s, FALSE);
}
