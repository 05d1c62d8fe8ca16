/* Parsing and checking command-line values, with no D-Bus: sizes,
 * percentages, on/off words, numbers. Pure functions, unit-tested in
 * tests/client/test-parse.c. Each returns false and sets *ERROR to a
 * message for people (g_free) when the text is not acceptable. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* Swap sizes jetsond accepts at least (Memory.CreateSwap); the upper bound
 * depends on the free disk space, which only jetsond can check. */
#define JC_SWAP_MIN_BYTES (64ULL * 1024 * 1024)

/* "8G", "512M", "1024K", "1T", "67108864" (bytes), optional "iB"/"B"
 * after the unit ("8GiB", "512MB"); units are powers of 1024 as in
 * swapon(8) and fallocate(1). Whole numbers only. */
bool jc_parse_size(const char *text, uint64_t *bytes, char **error);
/* A swap file size: jc_parse_size, at least JC_SWAP_MIN_BYTES and a
 * multiple of PAGE_SIZE. */
bool jc_parse_swap_size(const char *text, uint64_t page_size, uint64_t *bytes, char **error);
/* "50", "37.5", "50%": 0 to 100 inclusive. */
bool jc_parse_percent(const char *text, double *percent, char **error);
/* on/off, yes/no, true/false, 1/0. */
bool jc_parse_on_off(const char *text, bool *on, char **error);
/* A decimal number without sign, up to MAX. */
bool jc_parse_uint(const char *text, uint64_t max, uint64_t *value);
/* True if KEY matches one of the glob PATTERNS (all keys if none). */
bool jc_key_matches(const char *key, char *const *patterns, int n_patterns);

/* A value for a key=value line, as systemctl show writes them: as it is,
 * or in double quotes (with \" \\ \n escapes) when it is empty or holds
 * blanks, quotes or backslashes, so a script can split on the first "=" and
 * a shell can read it. */
char *jc_quote_value(const char *text);

/* GLib's option parser's error in jetsonctl's own words ("--interval:
 * "fast" is not a whole number", "unknown option -5 (a negative number goes
 * after --)"); the message as it is where GLib's is not known (another
 * language). */
char *jc_option_error_text(const GError *error);
