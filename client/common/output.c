#include "output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_text.h"

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

/* One unit for memory in every command: MiB, whole from 100 MiB up
 * ("3577 MiB") and for nothing ("0 MiB"), with a tenth below ("3.8 MiB",
 * "0.5 MiB"). */
static char *format_mib(double mib)
{
        return g_strdup_printf(mib >= 99.95 || mib == 0 ? "%.0f MiB" : "%.1f MiB", mib);
}

char *jc_format_kib(uint64_t kib)
{
        return format_mib((double) kib / 1024.0);
}

char *jc_format_bytes(uint64_t bytes)
{
        return format_mib((double) bytes / (1024.0 * 1024.0));
}

char *jc_format_double(double v)
{
        /* The JSON documents' number, without their ".0" for a whole
         * value: "34.7", "40". */
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        jt_format_double(buf, v);
        if (g_str_has_suffix(buf, ".0"))
                buf[strlen(buf) - 2] = '\0';
        return g_strdup(buf);
}
