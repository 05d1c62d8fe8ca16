#include "top_graph.h"

#include <math.h>

unsigned jc_graph_per_cell(jc_graph_style style)
{
        return style == JC_GRAPH_BRAILLE ? 2 : 1;
}

const char *jc_graph_style_name(jc_graph_style style)
{
        static const char *const names[JC_GRAPH_N] = { "braille", "blocks", "ascii" };
        return style < JC_GRAPH_N ? names[style] : "";
}

/* How many of the UNITS steps of the cell ROW rows above the bottom V
 * fills: the graph is HEIGHT * UNITS steps tall. A value above 0 shows at
 * least one step, so a light load is not an empty graph. */
static int filled(double v, int row, int height, int units, double max)
{
        if (isnan(v) || max <= 0 || v <= 0)
                return 0;
        int steps = (int) lround(MIN(v, max) / max * height * units);
        steps = MAX(steps, 1);
        int k = steps - row * units;
        return k < 0 ? 0 : k > units ? units : k;
}

gunichar jc_graph_cell(jc_graph_style style, const double *v, int row, int height, double max)
{
        if (style == JC_GRAPH_BRAILLE) {
                /* Braille dots bottom up: 7 3 2 1 on the left, 8 6 5 4 on
                 * the right (U+2800 plus the dots' bits). */
                static const unsigned left[4] = { 0x40, 0x04, 0x02, 0x01 }, right[4] = { 0x80, 0x20, 0x10, 0x08 };
                unsigned bits = 0;
                for (int k = 0, n = filled(v[0], row, height, 4, max); k < n; k++)
                        bits |= left[k];
                for (int k = 0, n = filled(v[1], row, height, 4, max); k < n; k++)
                        bits |= right[k];
                /* No dots is a space, not the blank braille pattern, so an
                 * empty graph reads as empty to anything that reads the screen. */
                return bits ? 0x2800 + bits : ' ';
        }
        if (style == JC_GRAPH_BLOCK) {
                int n = filled(v[0], row, height, 8, max);
                return n == 0 ? ' ' : 0x2580 + (gunichar) n; /* ▁ (U+2581) to █ (U+2588) */
        }
        int n = filled(v[0], row, height, 4, max);
        return n == 0 ? ' ' : n == 4 ? '|' : '.';
}
