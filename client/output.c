#include "output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool jc_want_color(const char *when, int fd)
{
        if (g_strcmp0(when, "always") == 0)
                return true;
        if (g_strcmp0(when, "never") == 0)
                return false;
        /* https://no-color.org: any non-empty NO_COLOR turns colour off. */
        const char *no_color = g_getenv("NO_COLOR");
        if (no_color && *no_color)
                return false;
        if (g_strcmp0(g_getenv("TERM"), "dumb") == 0)
                return false;
        return isatty(fd);
}

static const char *const sgr[] = {
        [JC_COLOR_NONE] = "",
        [JC_COLOR_BOLD] = "\033[1m",
        [JC_COLOR_GREEN] = "\033[32m",
        [JC_COLOR_YELLOW] = "\033[33m",
        [JC_COLOR_RED] = "\033[31m",
        [JC_COLOR_GREY] = "\033[90m",
};

void jc_append_colored(GString *out, bool color, jc_color which, const char *text)
{
        if (color && which != JC_COLOR_NONE)
                g_string_append_printf(out, "%s%s\033[0m", sgr[which], text);
        else
                g_string_append(out, text);
}

void jc_append_bar(GString *out, bool color, double percent, int width)
{
        if (!isfinite(percent) || percent < 0)
                percent = 0;
        if (percent > 100)
                percent = 100;
        int filled = (int) lround(percent * width / 100.0);
        g_autofree char *hashes = g_strnfill((gsize) filled, '#');
        g_autofree char *dots = g_strnfill((gsize) (width - filled), '.');
        jc_color which = percent >= 80 ? JC_COLOR_RED : percent >= 50 ? JC_COLOR_YELLOW : JC_COLOR_GREEN;
        g_string_append_c(out, '[');
        if (filled)
                jc_append_colored(out, color, which, hashes);
        jc_append_colored(out, color, JC_COLOR_GREY, dots);
        g_string_append_c(out, ']');
}

char *jc_format_khz(uint64_t khz)
{
        return g_strdup_printf("%" G_GUINT64_FORMAT " MHz", khz / 1000);
}

static char *format_scaled(uint64_t value, const char *const *units, size_t n_units)
{
        double v = (double) value;
        size_t u = 0;
        while (v >= 1024.0 && u + 1 < n_units) {
                v /= 1024.0;
                u++;
        }
        if (u == 0)
                return g_strdup_printf("%" G_GUINT64_FORMAT " %s", value, units[0]);
        return g_strdup_printf("%.1f %s", v, units[u]);
}

char *jc_format_kib(uint64_t kib)
{
        static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
        return format_scaled(kib, units, G_N_ELEMENTS(units));
}

char *jc_format_bytes(uint64_t bytes)
{
        static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
        return format_scaled(bytes, units, G_N_ELEMENTS(units));
}

char *jc_format_double(double v)
{
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        /* 15 significant digits read back exactly for every value the
         * sensors produce ("34.7", not "34.700000000000003"); fall back
         * to 17, which always does. */
        for (int digits = 15; digits <= 17; digits++) {
                char fmt[8];
                g_snprintf(fmt, sizeof(fmt), "%%.%dg", digits);
                g_ascii_formatd(buf, sizeof(buf), fmt, v);
                if (g_ascii_strtod(buf, NULL) == v)
                        break;
        }
        return g_strdup(buf);
}
