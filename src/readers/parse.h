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

/* Removes trailing whitespace/newlines in place; returns s. */
char *jd_rstrip(char *s);
/* Copies at most dst_size-1 bytes of src, always NUL-terminated. */
void jd_strlcpy(char *dst, const char *src, size_t dst_size);

/* Iterates L over the lines of TEXT (each up to its '\n' or the end). */
#define JD_FOR_EACH_LINE(l, text) \
        for (const char *l = (text); l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
