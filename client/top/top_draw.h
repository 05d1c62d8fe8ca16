/* jetsonctl top's drawing primitives (ncursesw), shared by the pages:
 * text cut to the screen, threshold colours that vanish without colour,
 * bars, and history graphs (braille, blocks, or ASCII where the locale
 * is not UTF-8). */
#pragma once

#include <curses.h>
#include <glib.h>
#include <stdbool.h>

#include "top.h"

enum { JC_PAIR_OK = 1, JC_PAIR_WARM, JC_PAIR_HOT, JC_PAIR_TITLE };

/* Colours on or off for the whole view (--no-color, NO_COLOR, a
 * terminal without them). */
void jc_top_colors(bool on);
attr_t jc_top_pair(int p);
/* The colour of VALUE against the thresholds WARM and HOT. */
attr_t jc_top_level(double value, double warm, double hot);
/* TEXT at (Y, X), cut to the screen's width; returns the next column. */
int jc_top_put(int y, int x, attr_t attr, const char *text);
int jc_top_putf(int y, int x, attr_t attr, const char *fmt, ...) G_GNUC_PRINTF(4, 5);
/* "[|||||     ]" WIDTH cells wide for PCT, coloured by load. */
void jc_top_bar(int y, int x, int width, double pct);

/* One history graph: TITLE and the latest value of KEY (times SCALE, a
 * whole number followed by UNIT; no value with UNIT NULL) on its first row,
 * then the graph on the H - 1 rows below, W cells wide, of the last
 * samples of KEY at T's window, 0 to MAX, coloured per column by WARM and
 * HOT. With H 1 the graph follows the title on the same row. Returns the
 * row after it. Nothing is drawn (Y returned) when KEY was never seen. */
int jc_top_graph(const jc_top *t, int y, int x, int w, int h, const char *title, const char *key, double max,
                 double warm, double hot, const char *unit, double scale);
/* Samples a graph's column (a braille dot column) averages: 1, 2, 4 or
 * 8, by 'w'; a graph too wide for the history at that takes fewer. */
unsigned jc_top_graph_zoom(const jc_top *t);
/* "2m40s", "45s", "1h00m" */
char *jc_top_format_span(double seconds);
