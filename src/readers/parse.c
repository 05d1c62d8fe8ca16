#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* isspace() without the locale lookup per character. */
static bool is_space(char c)
{
        return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static const char *skip_space(const char *s)
{
        while (is_space(*s))
                s++;
        return s;
}

static bool only_space(const char *s)
{
        return *skip_space(s) == '\0';
}

/* Decimal digits at S, at least one, no overflow; *END after them. Hand
 * rolled: strtoull's locale and base handling cost more than the rest of
 * a sysfs read's parsing. */
static bool parse_decimal(const char *s, const char *end_of_text, uint64_t *out, const char **end)
{
        uint64_t v = 0;
        const char *p = s;
        for (; p != end_of_text && *p >= '0' && *p <= '9'; p++) {
                unsigned d = (unsigned) (*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return false;
                v = v * 10 + d;
        }
        if (p == s)
                return false;
        *out = v;
        *end = p;
        return true;
}

static bool parse_unsigned(const char *s, int base, uint64_t *out, bool allow_tail)
{
        s = skip_space(s);
        if (!isdigit((unsigned char) *s))
                return false;
        const char *end;
        if (base == 10) {
                uint64_t v;
                if (!parse_decimal(s, NULL, &v, &end) || (!allow_tail && !only_space(end)))
                        return false;
                *out = v;
                return true;
        }
        errno = 0;
        char *tail;
        unsigned long long v = strtoull(s, &tail, base);
        if (errno == ERANGE || tail == s)
                return false;
        if (!allow_tail && !only_space(tail))
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
        bool neg = *s == '-';
        uint64_t v;
        const char *end;
        if (!parse_decimal(s + neg, NULL, &v, &end) || !only_space(end) ||
            v > (uint64_t) INT64_MAX + (neg ? 1 : 0))
                return false;
        *out = neg ? (int64_t) (0 - v) : (int64_t) v;
        return true;
}

const char *jd_parse_digits(const char *p, uint64_t *out)
{
        const char *end;
        return parse_decimal(p, NULL, out, &end) ? end : NULL;
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

const char *jd_line_end(const char *line)
{
        return strchrnul(line, '\n');
}

/* What each byte is to jd_line_fields: part of a field (0), a blank
 * between fields (1), or the line's end (2). A CR is a blank too: files
 * edited on Windows end lines in CRLF. One table lookup a byte instead of
 * four comparisons: the tokenizer runs over every line of /proc/stat,
 * meminfo, diskstats, net/dev, swaps and each process's stat. */
static const unsigned char field_byte[256] = { [' '] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 2, ['\0'] = 2 };

size_t jd_line_fields(const char *line, jd_span *out, size_t max)
{
        size_t n = 0;
        const unsigned char *p = (const unsigned char *) line;
        while (n < max) {
                while (field_byte[*p] == 1)
                        p++;
                const unsigned char *start = p;
                while (field_byte[*p] == 0)
                        p++;
                if (p == start)
                        break; /* the line's end */
                out[n++] = (jd_span) { (const char *) start, (size_t) (p - start) };
        }
        return n;
}

bool jd_span_u64(jd_span s, uint64_t *out)
{
        const char *end;
        return s.len && parse_decimal(s.p, s.p + s.len, out, &end) && end == s.p + s.len;
}

bool jd_span_i64(jd_span s, int64_t *out)
{
        bool neg = s.len && s.p[0] == '-';
        uint64_t v;
        if (!jd_span_u64(neg ? (jd_span) { s.p + 1, s.len - 1 } : s, &v))
                return false;
        if (neg ? v > (uint64_t) INT64_MAX + 1 : v > (uint64_t) INT64_MAX)
                return false;
        *out = neg ? (int64_t) (0 - v) : (int64_t) v;
        return true;
}

bool jd_span_eq(jd_span s, const char *str)
{
        return strlen(str) == s.len && memcmp(s.p, str, s.len) == 0;
}

bool jd_span_copy(jd_span s, char *dst, size_t size)
{
        if (size == 0)
                return false;
        if (s.len >= size) {
                dst[0] = '\0';
                return false;
        }
        memcpy(dst, s.p, s.len);
        dst[s.len] = '\0';
        return true;
}

/* N hex digits at *P (exactly N), into *OUT; *P moves past them. */
static bool hex_digits(const char **p, size_t n, unsigned *out)
{
        unsigned v = 0;
        for (size_t i = 0; i < n; i++) {
                char c = (*p)[i];
                int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                        : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                if (d < 0)
                        return false;
                v = v * 16 + (unsigned) d;
        }
        *p += n;
        *out = v;
        return true;
}

bool jd_parse_pci_address(const char *s, bool long_domain, unsigned *domain, unsigned *bus, unsigned *dev,
                          unsigned *fn)
{
        const char *p = s;
        return hex_digits(&p, long_domain ? 8 : 4, domain) && *p++ == ':' && hex_digits(&p, 2, bus) &&
               *p++ == ':' && hex_digits(&p, 2, dev) && *p++ == '.' && *p >= '0' && *p <= '7' &&
               (*fn = (unsigned) (*p - '0'), p[1] == '\0');
}
