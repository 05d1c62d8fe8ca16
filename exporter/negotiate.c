#include "negotiate.h"

#include <glib.h>
#include <string.h>

/* The q parameter of one element ("text/plain;version=0.0.4;q=0.5"):
 * 1 when absent, 0 for anything malformed (a broken preference is no
 * preference). */
static double element_q(char **params)
{
        for (; *params; params++) {
                char *p = g_strstrip(*params);
                if (g_ascii_strncasecmp(p, "q=", 2) != 0)
                        continue;
                char *end = NULL;
                double q = g_ascii_strtod(p + 2, &end);
                if (end == p + 2 || *end || q < 0 || q > 1)
                        return 0;
                return q;
        }
        return 1;
}

/* Splits one list element into its token (lower case) and q-value. */
static char *element(const char *text, double *q)
{
        g_auto(GStrv) parts = g_strsplit(text, ";", -1);
        *q = parts[0] ? element_q(parts + 1) : 0;
        return parts[0] ? g_ascii_strdown(g_strstrip(parts[0]), -1) : g_strdup("");
}

exp_format negotiate_format(const char *accept)
{
        exp_format best = EXP_FORMAT_PROMETHEUS;
        double best_q = 0;
        g_auto(GStrv) items = g_strsplit(accept ? accept : "", ",", -1);
        for (char **it = items; *it; it++) {
                double q;
                g_autofree char *type = element(*it, &q);
                exp_format f;
                if (strcmp(type, "application/openmetrics-text") == 0)
                        f = EXP_FORMAT_OPENMETRICS;
                else if (strcmp(type, "text/plain") == 0 || strcmp(type, "text/*") == 0 || strcmp(type, "*/*") == 0)
                        f = EXP_FORMAT_PROMETHEUS;
                else
                        continue;
                /* Strictly greater: of equal preferences the first wins. */
                if (q > best_q) {
                        best_q = q;
                        best = f;
                }
        }
        return best;
}

bool negotiate_gzip(const char *accept_encoding)
{
        if (!accept_encoding)
                return false;
        double gzip = -1, star = -1;
        g_auto(GStrv) items = g_strsplit(accept_encoding, ",", -1);
        for (char **it = items; *it; it++) {
                double q;
                g_autofree char *coding = element(*it, &q);
                if (strcmp(coding, "gzip") == 0 || strcmp(coding, "x-gzip") == 0)
                        gzip = q > gzip ? q : gzip;
                else if (strcmp(coding, "*") == 0)
                        star = q;
        }
        return gzip >= 0 ? gzip > 0 : star > 0;
}
