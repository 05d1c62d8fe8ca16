#include "parse.h"

#include <errno.h>
#include <math.h>
#include <string.h>

bool jc_parse_uint(const char *text, uint64_t max, uint64_t *value)
{
        if (!text || !g_ascii_isdigit(text[0]))
                return false;
        uint64_t v = 0;
        for (const char *p = text; *p; p++) {
                if (!g_ascii_isdigit(*p))
                        return false;
                unsigned d = (unsigned) (*p - '0');
                if (v > (max - d) / 10)
                        return false;
                v = v * 10 + d;
        }
        *value = v;
        return true;
}

/* "64.5M": the same size in the next smaller unit, when it is whole. */
static char *fraction_message(const char *text)
{
        static const char units[] = "KMGT";
        g_autofree char *dotted = g_strdelimit(g_strdup(text), ",", '.');
        char *end;
        double v = g_ascii_strtod(dotted, &end);
        const char *u = *end ? strchr(units, g_ascii_toupper(*end)) : NULL;
        double smaller = v * 1024;
        if (u && u > units && smaller == (double) (uint64_t) smaller)
                return g_strdup_printf("\"%s\": a size is a whole number (%s is %" G_GUINT64_FORMAT "%c)", text, text,
                                       (uint64_t) smaller, u[-1]);
        if (u == units && smaller == (double) (uint64_t) smaller)
                return g_strdup_printf("\"%s\": a size is a whole number (%s is %" G_GUINT64_FORMAT " bytes)", text,
                                       text, (uint64_t) smaller);
        return g_strdup_printf("\"%s\": a size is a whole number of bytes, K, M, G or T", text);
}

bool jc_parse_size(const char *text, uint64_t *bytes, char **error)
{
        const char *p = text;
        uint64_t n = 0;
        if (!g_ascii_isdigit(*p)) {
                *error = g_strdup_printf("\"%s\" is not a size (examples: 8G, 512M, 67108864)", text);
                return false;
        }
        while (g_ascii_isdigit(*p)) {
                unsigned d = (unsigned) (*p - '0');
                if (n > (UINT64_MAX - d) / 10)
                        goto too_big;
                n = n * 10 + d;
                p++;
        }
        /* The number is the problem, not the unit: say so. */
        if (*p == '.' || *p == ',') {
                *error = fraction_message(text);
                return false;
        }
        unsigned shift = 0;
        switch (g_ascii_toupper(*p)) {
        case '\0': break;
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        case 'T': shift = 40; break;
        default:
                *error = g_strdup_printf("\"%s\": unknown size unit (use K, M, G or T)", text);
                return false;
        }
        if (shift) {
                p++;
                /* "G", "GB" and "GiB" all mean 1024^3, as in swapon(8). */
                if (g_ascii_strcasecmp(p, "iB") == 0 || g_ascii_strcasecmp(p, "B") == 0)
                        p += strlen(p);
        }
        if (*p) {
                *error = g_strdup_printf("\"%s\" is not a size (examples: 8G, 512M, 67108864)", text);
                return false;
        }
        if (shift && n > (UINT64_MAX >> shift))
                goto too_big;
        *bytes = n << shift;
        return true;
too_big:
        *error = g_strdup_printf("\"%s\" is too large", text);
        return false;
}

static char *human_bytes(uint64_t b)
{
        if (b >= (1ULL << 30) && b % (1ULL << 30) == 0)
                return g_strdup_printf("%" G_GUINT64_FORMAT "G", b >> 30);
        if (b >= (1ULL << 20) && b % (1ULL << 20) == 0)
                return g_strdup_printf("%" G_GUINT64_FORMAT "M", b >> 20);
        if (b >= (1ULL << 10) && b % (1ULL << 10) == 0)
                return g_strdup_printf("%" G_GUINT64_FORMAT "K", b >> 10);
        return g_strdup_printf("%" G_GUINT64_FORMAT " bytes", b);
}

bool jc_parse_swap_size(const char *text, uint64_t page_size, uint64_t *bytes, char **error)
{
        uint64_t n;
        if (!jc_parse_size(text, &n, error))
                return false;
        if (n < JC_SWAP_MIN_BYTES) {
                *error = g_strdup_printf("swap size %s is too small: at least 64M", text);
                return false;
        }
        if (page_size && n % page_size != 0) {
                g_autofree char *ps = human_bytes(page_size);
                *error = g_strdup_printf("swap size %s is not a multiple of the page size (%s)", text, ps);
                return false;
        }
        *bytes = n;
        return true;
}

bool jc_parse_percent(const char *text, double *percent, char **error)
{
        g_autofree char *copy = g_strdup(text);
        size_t len = strlen(copy);
        if (len > 0 && copy[len - 1] == '%')
                copy[len - 1] = '\0';
        char *end = NULL;
        errno = 0;
        /* Locale-independent: "37.5" everywhere, never "37,5". */
        double v = g_ascii_strtod(copy, &end);
        if (!*copy || !g_ascii_isdigit(copy[0]) || *end || errno || !isfinite(v)) {
                *error = g_strdup_printf("\"%s\" is not a percentage (a number from 0 to 100)", text);
                return false;
        }
        if (v < 0 || v > 100) {
                *error = g_strdup_printf("%s is out of range: a percentage is 0 to 100", text);
                return false;
        }
        *percent = v;
        return true;
}

bool jc_parse_on_off(const char *text, bool *on, char **error)
{
        static const char *const yes[] = { "on", "yes", "true", "1" };
        static const char *const no[] = { "off", "no", "false", "0" };
        for (size_t i = 0; i < G_N_ELEMENTS(yes); i++) {
                if (g_ascii_strcasecmp(text, yes[i]) == 0) {
                        *on = true;
                        return true;
                }
                if (g_ascii_strcasecmp(text, no[i]) == 0) {
                        *on = false;
                        return true;
                }
        }
        *error = g_strdup_printf("\"%s\": expected on or off", text);
        return false;
}

bool jc_key_matches(const char *key, char *const *patterns, int n_patterns)
{
        if (n_patterns <= 0)
                return true;
        for (int i = 0; i < n_patterns; i++)
                if (g_pattern_match_simple(patterns[i], key))
                        return true;
        return false;
}

char *jc_quote_value(const char *text)
{
        if (*text && !strpbrk(text, " \t\n\"\\'"))
                return g_strdup(text);
        GString *out = g_string_new("\"");
        for (const char *p = text; *p; p++) {
                if (*p == '"' || *p == '\\')
                        g_string_append_c(out, '\\');
                if (*p == '\n')
                        g_string_append(out, "\\n");
                else
                        g_string_append_c(out, *p);
        }
        g_string_append_c(out, '"');
        return g_string_free(out, FALSE);
}

char *jc_option_error_text(const GError *error)
{
        static const struct {
                const char *pattern, *format;
        } bad_values[] = {
                { "^Cannot parse integer value “(.*)” for (\\S+)$", "%2$s: \"%1$s\" is not a whole number" },
                { "^Integer value “(.*)” for (\\S+) out of range$", "%2$s: %1$s is out of range" },
                { "^Cannot parse double value “(.*)” for (\\S+)$", "%2$s: \"%1$s\" is not a number" },
                { "^Double value “(.*)” for (\\S+) out of range$", "%2$s: %1$s is out of range" },
                { "^Unknown option (\\S+)$", "unknown option %1$s" },
                { "^Missing argument for (\\S+)$", "%1$s needs a value" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(bad_values); i++) {
                g_autoptr(GRegex) re = g_regex_new(bad_values[i].pattern, 0, 0, NULL);
                g_autoptr(GMatchInfo) m = NULL;
                if (!g_regex_match(re, error->message, 0, &m))
                        continue;
                g_autofree char *a = g_match_info_fetch(m, 1), *b = g_match_info_fetch(m, 2);
                g_autoptr(GString) out = g_string_new(NULL);
                /* Only %1$s and %2$s: substituted by hand (no user text
                 * becomes a format). */
                for (const char *f = bad_values[i].format; *f; f++) {
                        if (g_str_has_prefix(f, "%1$s") || g_str_has_prefix(f, "%2$s")) {
                                g_string_append(out, f[1] == '1' ? a : b ? b : "");
                                f += 3;
                        } else {
                                g_string_append_c(out, *f);
                        }
                }
                /* getopt-style: "-5" is an option unless after "--". */
                if (g_str_has_prefix(error->message, "Unknown option -") && g_ascii_isdigit(a[1]))
                        g_string_append(out, " (a negative number goes after --)");
                return g_string_free(g_steal_pointer(&out), FALSE);
        }
        return g_strdup(error->message);
}
