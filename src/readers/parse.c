#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_space(const char *s)
{
        while (*s && isspace((unsigned char) *s))
                s++;
        return s;
}

static bool only_space(const char *s)
{
        return *skip_space(s) == '\0';
}

static bool parse_unsigned(const char *s, int base, uint64_t *out, bool allow_tail)
{
        s = skip_space(s);
        if (!isdigit((unsigned char) *s))
                return false;
        errno = 0;
        char *end;
        unsigned long long v = strtoull(s, &end, base);
        if (errno == ERANGE || end == s)
                return false;
        if (!allow_tail && !only_space(end))
                return false;
        *out = v;
        return true;
}

bool jd_parse_u64(const char *s, uint64_t *out)
{
        return parse_unsigned(s, 10, out, false);
}

bool jd_parse_u64_any_base(const char *s, uint64_t *out)
{
        return parse_unsigned(s, 0, out, false);
}

bool jd_parse_u64_prefix(const char *s, uint64_t *out)
{
        return parse_unsigned(s, 10, out, true);
}

bool jd_parse_i64(const char *s, int64_t *out)
{
        s = skip_space(s);
        const char *digits = *s == '-' ? s + 1 : s;
        if (!isdigit((unsigned char) *digits))
                return false;
        errno = 0;
        char *end;
        long long v = strtoll(s, &end, 10);
        if (errno == ERANGE || !only_space(end))
                return false;
        *out = v;
        return true;
}

char *jd_rstrip(char *s)
{
        size_t n = strlen(s);
        while (n > 0 && isspace((unsigned char) s[n - 1]))
                s[--n] = '\0';
        return s;
}

void jd_strlcpy(char *dst, const char *src, size_t dst_size)
{
        if (dst_size == 0)
                return;
        size_t n = strnlen(src, dst_size - 1);
        memcpy(dst, src, n);
        dst[n] = '\0';
}
