/* The characters of jetsonctl top's history graphs, pure (no curses) so
 * tests/client/test-top-history.c checks them: a braille cell holds two
 * samples side by side and four dots of height; a block cell one sample
 * and eight eighths; ASCII one sample, '.' for part of a row and '|' for
 * all of it. Graphs fill from the bottom, as nvitop's and jtop's do. */
#pragma once

#include <glib.h>

typedef enum { JC_GRAPH_BRAILLE, JC_GRAPH_BLOCK, JC_GRAPH_ASCII, JC_GRAPH_N } jc_graph_style;

/* Samples one cell holds in STYLE. */
unsigned jc_graph_per_cell(jc_graph_style style);
/* The character of the cell ROW rows above the bottom of a graph of
 * HEIGHT rows for the cell's samples V (jc_graph_per_cell() of them,
 * oldest first; NAN is no sample), 0 to MAX. */
gunichar jc_graph_cell(jc_graph_style style, const double *v, int row, int height, double max);
/* The style's name in the footer. */
const char *jc_graph_style_name(jc_graph_style style);
