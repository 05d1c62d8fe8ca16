#include "text_out.h"

#include <inttypes.h>
#include <math.h>

/* Label values: backslash, double quote and newline escaped, as both
 * formats require. */
static void label_value(GString *out, const char *v, size_t len)
{
        for (const char *end = v + len; v < end; v++) {
                if (*v == '\\')
                        g_string_append(out, "\\\\");
                else if (*v == '"')
                        g_string_append(out, "\\\"");
                else if (*v == '\n')
                        g_string_append(out, "\\n");
                else
                        g_string_append_c(out, *v);
        }
}

void tout_label(GString *out, bool *first, const char *name, const char *value, size_t len)
{
        g_string_append(out, *first ? "{" : ",");
        *first = false;
        g_string_append_printf(out, "%s=\"", name);
        label_value(out, value, len);
        g_string_append_c(out, '"');
}

void tout_double(GString *out, double d)
{
        if (isnan(d)) {
                g_string_append(out, "NaN");
        } else if (isinf(d)) {
                g_string_append(out, d > 0 ? "+Inf" : "-Inf");
        } else {
                /* 15 significant digits: a percentage divided by 100 shows
                 * as 0.347, not 0.34699999999999998; g_ascii_formatd
                 * ignores the locale's decimal comma. */
                char buf[G_ASCII_DTOSTR_BUF_SIZE];
                g_string_append(out, g_ascii_formatd(buf, sizeof buf, "%.15g", d));
        }
}

/* V / 10^DIGITS as an exact decimal, trailing zeros trimmed. */
void tout_fixed(GString *out, uint64_t v, unsigned digits)
{
        uint64_t div = 1;
        for (unsigned i = 0; i < digits; i++)
                div *= 10;
        uint64_t frac = v % div;
        g_string_append_printf(out, "%" PRIu64, v / div);
        if (frac == 0)
                return;
        char buf[24];
        g_snprintf(buf, sizeof buf, "%0*" PRIu64, (int)digits, frac);
        size_t n = strlen(buf);
        while (n > 0 && buf[n - 1] == '0')
                buf[--n] = '\0';
        g_string_append_printf(out, ".%s", buf);
}

/* HELP text: OpenMetrics escapes the double quote too. */
void tout_help_text(GString *out, const char *help, exp_format format)
{
        for (; *help; help++) {
                if (*help == '\\')
                        g_string_append(out, "\\\\");
                else if (*help == '\n')
                        g_string_append(out, "\\n");
                else if (*help == '"' && format == EXP_FORMAT_OPENMETRICS)
                        g_string_append(out, "\\\"");
                else
                        g_string_append_c(out, *help);
        }
}

