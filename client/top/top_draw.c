#include "top_draw.h"

#include <math.h>
#include <string.h>

#include "top_graph.h"

static bool colors;

void jc_top_colors(bool on)
{
        colors = on;
}

attr_t jc_top_pair(int p)
{
        return colors ? COLOR_PAIR(p) : A_NORMAL;
}

attr_t jc_top_level(double value, double warm, double hot)
{
        return jc_top_pair(value >= hot ? JC_PAIR_HOT : value >= warm ? JC_PAIR_WARM : JC_PAIR_OK);
}

/* Everything drawn here is one cell per character (braille and block
 * elements are narrow), so characters are cells. */
int jc_top_put(int y, int x, attr_t attr, const char *text)
{
        if (y < 0 || y >= LINES || x >= COLS || x < 0)
                return x;
        glong room = COLS - x, len = g_utf8_strlen(text, -1);
        const char *end = len > room ? g_utf8_offset_to_pointer(text, room) : text + strlen(text);
        attron(attr);
        mvaddnstr(y, x, text, (int) (end - text));
        attroff(attr);
        return x + (int) MIN(len, room);
}

int jc_top_putf(int y, int x, attr_t attr, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        g_autofree char *text = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        return jc_top_put(y, x, attr, text);
}

void jc_top_bar(int y, int x, int width, double pct)
{
        if (width < 3)
                return;
        int inner = width - 2, fill = (int) (pct * inner / 100.0 + 0.5);
        fill = fill < 0 ? 0 : fill > inner ? inner : fill;
        g_autofree char *bars = g_strnfill((gsize) fill, '|');
        g_autofree char *spaces = g_strnfill((gsize) (inner - fill), ' ');
        jc_top_put(y, x, A_NORMAL, "[");
        jc_top_put(y, x + 1, jc_top_level(pct, 60, 90), bars);
        jc_top_put(y, x + 1 + fill, A_NORMAL, spaces);
        jc_top_put(y, x + width - 1, A_NORMAL, "]");
}

char *jc_top_format_span(double seconds)
{
        long s = lround(seconds);
        if (s < 60)
                return g_strdup_printf("%lds", s);
        if (s < 3600)
                return s % 60 ? g_strdup_printf("%ldm%02lds", s / 60, s % 60) : g_strdup_printf("%ldm", s / 60);
        return g_strdup_printf("%ldh%02ldm", s / 3600, s / 60 % 60);
}

/* Samples per graph column at T's zoom, cut so that W cells never ask
 * the ring for more than it keeps. */
static guint zoom_for(const jc_top *t, int w)
{
        guint per_cell = jc_graph_per_cell(t->graph_style), z = jc_top_graph_zoom(t);
        while (z > 1 && (guint) w * per_cell * z > JC_TOP_HISTORY_LEN)
                z /= 2;
        return z;
}

unsigned jc_top_graph_zoom(const jc_top *t)
{
        static const unsigned zooms[JC_TOP_ZOOM_N] = { 1, 2, 4, 8 };
        return zooms[t->zoom % JC_TOP_ZOOM_N];
}

static void draw_cells(const jc_top *t, int y, int x, int w, int h, const double *cols, double max, double warm,
                       double hot)
{
        guint per_cell = jc_graph_per_cell(t->graph_style);
        for (int c = 0; c < w; c++) {
                const double *v = cols + (gsize) c * per_cell;
                double latest = per_cell == 2 && !isnan(v[1]) ? v[1] : v[0];
                attr_t attr = isnan(latest) ? A_NORMAL : jc_top_level(latest, warm, hot);
                for (int r = 0; r < h; r++) {
                        gunichar ch = jc_graph_cell(t->graph_style, v, r, h, max);
                        char buf[8] = { 0 };
                        g_unichar_to_utf8(ch, buf);
                        jc_top_put(y + h - 1 - r, x + c, ch == ' ' ? A_NORMAL : attr, buf);
                }
        }
}

int jc_top_graph(const jc_top *t, int y, int x, int w, int h, const char *title, const char *key, double max,
                 double warm, double hot, const char *unit, double scale)
{
        if (w < 4 || h < 1)
                return y;
        guint per_cell = jc_graph_per_cell(t->graph_style), z = zoom_for(t, w);
        guint n = (guint) w * per_cell * z;
        g_autofree double *raw = g_new(double, n);
        /* A process's short ring grows to what this graph shows. */
        jc_top_history_reserve(t->history, key, n);
        /* A key not seen yet is an empty graph with "-", so the page's
         * layout does not jump when it comes. */
        if (!jc_top_history_get(t->history, key, n, raw))
                for (guint i = 0; i < n; i++)
                        raw[i] = NAN;
        g_autofree double *cols = g_new(double, (gsize) w * per_cell);
        jc_top_history_squash(raw, n, z, cols);
        if (max <= 0) {
                /* No fixed scale (power): the window's peak, a tenth
                 * above it so the top row is not always full. */
                max = 0;
                for (guint i = 0; i < (guint) w * per_cell; i++)
                        if (!isnan(cols[i]) && cols[i] > max)
                                max = cols[i];
                max = max > 0 ? max * 1.1 : 1;
        }
        /* The title with the latest value: the last sample, present or
         * not. No title and no unit: a bare graph. */
        double now = raw[n - 1];
        g_autofree char *value = !unit ? g_strdup("") : isnan(now) ? g_strdup(" -") : g_strdup_printf(" %.0f%s", now * scale, unit);
        g_autofree char *label = g_strdup_printf("%s%s", title, value);
        int tw = !*label ? 0 : h == 1 ? MIN(w / 3, 22) : w;
        g_autofree char *cut = g_utf8_substring(label, 0, MIN(g_utf8_strlen(label, -1), tw));
        jc_top_put(y, x, jc_top_pair(JC_PAIR_TITLE), cut);
        if (h == 1) {
                /* Inline: the graph in the rest of the row, its newest
                 * samples at the right edge. */
                int gw = tw ? w - tw - 1 : w;
                if (gw >= 2)
                        draw_cells(t, y, x + w - gw, gw, 1, cols + (gsize) (w - gw) * per_cell, max, warm, hot);
                return y + 1;
        }
        /* The span the graph covers, right-aligned where the title
         * leaves room: windows differ with each graph's width. */
        g_autofree char *span = jc_top_format_span((double) n * t->interval_ms / 1000.0);
        int span_len = (int) strlen(span) + 1;
        if (g_utf8_strlen(label, -1) + span_len + 2 <= w)
                jc_top_put(y, x + w - span_len, A_DIM, span);
        draw_cells(t, y + 1, x, w, h - 1, cols, max, warm, hot);
        return y + h;
}
