/* Strict number parsing for sysfs/procfs text. Anything that is not a
 * clean number (garbage, empty, overflow) is rejected, so that a broken
 * file becomes "absent" instead of a wrong value. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Decimal, optional surrounding whitespace. */
bool jd_parse_u64(const char *s, uint64_t *out);
bool jd_parse_i64(const char *s, int64_t *out);
/* Decimal or 0x-prefixed hexadecimal. */
bool jd_parse_u64_any_base(const char *s, uint64_t *out);
/* Leading decimal number followed by anything (e.g. "1500 ma"). */
bool jd_parse_u64_prefix(const char *s, uint64_t *out);

/* Decimal digits at P (no sign, no space, no overflow): the number in
 * *OUT and where the digits end; NULL when there are none or it overflows. */
const char *jd_parse_digits(const char *p, uint64_t *out);

/* Removes trailing whitespace/newlines in place; returns s. */
char *jd_rstrip(char *s);
/* Copies at most dst_size-1 bytes of src, always NUL-terminated. */
void jd_strlcpy(char *dst, const char *src, size_t dst_size);

/* A piece of a larger text, not NUL-terminated. */
typedef struct {
        const char *p;
        size_t len;
} jd_span;

/* Where the line at LINE ends: its '\n' or the text's NUL. */
const char *jd_line_end(const char *line);
/* Splits the line at LINE into fields separated by spaces, tabs and CRs,
 * never looking past the line's end (sscanf's "%s %s" runs on into the
 * next line, and scans the rest of the text on every call). Stores the
 * first MAX fields at most and returns how many it stored. */
size_t jd_line_fields(const char *line, jd_span *out, size_t max);
/* Strict decimal numbers: the whole span, no sign for u64, no overflow. */
bool jd_span_u64(jd_span s, uint64_t *out);
bool jd_span_i64(jd_span s, int64_t *out);
bool jd_span_eq(jd_span s, const char *str);
/* Copies S into DST; a span that does not fit is refused (false, DST
 * empty), never cut: a cut name is another name. */
bool jd_span_copy(jd_span s, char *dst, size_t size);

/* Iterates L over the lines of TEXT (each up to its '\n' or the end). */
#define JD_FOR_EACH_LINE(l, text) \
        for (const char *l = (text); l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)

/* A PCI function's name: exactly "DDDD:BB:DD.F" (hex domain, bus and
 * device, function 0-7), as sysfs names PCI devices; with NVML's 8-digit
 * domain ("00000000:01:00.0") when LONG_DOMAIN. Nothing else: no blanks,
 * signs or 0x that sscanf would take. */
bool jd_parse_pci_address(const char *s, bool long_domain, unsigned *domain, unsigned *bus, unsigned *dev,
                          unsigned *fn);
