/* jetsonctl top's mouse: SGR reports (xterm's mode 1006: "ESC [ < B ; X ;
 * Y M", press, or "... m", release; any column and row) asked of the
 * terminal whatever the terminfo entry says, with X10 reports ("ESC [ M"
 * and three bytes, columns up to 223) still understood, through ncurses,
 * from a terminal that does not know mode 1006. */
#pragma once

#include <stdbool.h>

/* A click of the left button at column X, row Y (0-based). */
typedef struct {
        int x, y;
} jc_top_click;

/* What follows "ESC [ <" in an SGR report (BODY: "0;12;5M"): a press
 * (M) or release (m) of button B at 1-based X and Y. False if BODY is
 * not one. Pure (tests/client/test-top-procs.c). */
bool jc_top_parse_sgr_mouse(const char *body, int *button, int *x, int *y, bool *press);

/* ncurses key code of "ESC [ <" where jetsonctl asks for SGR itself. */
#define JC_KEY_SGR_MOUSE (KEY_MAX + 1)

/* After initscr and mousemask: SGR reports asked for where ncurses does
 * not (its terminfo entry's kmous is X10's, as tmux's and screen's). */
void jc_top_mouse_start(void);
/* Before endwin: the terminal back to its reports. */
void jc_top_mouse_end(void);
/* The rest of an SGR report after JC_KEY_SGR_MOUSE, or ncurses' event
 * after KEY_MOUSE: true for a left click (a press; a release follows
 * it and is no second click). */
bool jc_top_mouse_read(int key, jc_top_click *click);
