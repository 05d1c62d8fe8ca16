#include "top_mouse.h"

#include <curses.h>
#include <stdio.h>
#include <string.h>
#include <term.h>

/* Whether jetsonctl asked for SGR reports itself (and so takes them
 * back at the end). */
static bool sgr_asked;

void jc_top_mouse_start(void)
{
        /* ncurses asks for SGR itself where terminfo says the terminal
         * has it (xterm's entry: kmous "\E[<"). Elsewhere, tmux and most
         * terminals still have it: ask, and catch its reports' start as
         * a key. A terminal without it goes on sending X10 reports, which
         * ncurses decodes as KEY_MOUSE. */
        const char *kmous = tigetstr("kmous");
        if (kmous && kmous != (char *) -1 && strcmp(kmous, "\033[<") == 0)
                return;
        define_key("\033[<", JC_KEY_SGR_MOUSE);
        fputs("\033[?1006h", stdout);
        fflush(stdout);
        sgr_asked = true;
}

void jc_top_mouse_end(void)
{
        if (!sgr_asked)
                return;
        fputs("\033[?1006l", stdout);
        fflush(stdout);
        sgr_asked = false;
}

/* The rest of an SGR report: "B;X;Y" and M or m, which comes with its
 * start (one write of the terminal); a short wait covers a split read. */
static bool read_sgr(jc_top_click *click)
{
        char body[24];
        size_t n = 0;
        int c = 0;
        wtimeout(stdscr, 100);
        while (n + 1 < sizeof(body) && (c = wgetch(stdscr)) != ERR) {
                body[n++] = (char) c;
                if (c == 'M' || c == 'm')
                        break;
        }
        nodelay(stdscr, TRUE);
        body[n] = '\0';
        int button, x, y;
        bool press;
        if (!jc_top_parse_sgr_mouse(body, &button, &x, &y, &press) || button != 0 || !press)
                return false;
        click->x = x - 1;
        click->y = y - 1;
        return true;
}

bool jc_top_mouse_read(int key, jc_top_click *click)
{
        if (key == JC_KEY_SGR_MOUSE)
                return read_sgr(click);
        MEVENT ev;
        if (getmouse(&ev) != OK || !(ev.bstate & (BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON1_RELEASED)))
                return false;
        if (ev.bstate & BUTTON1_RELEASED && !(ev.bstate & BUTTON1_CLICKED))
                return false;
        click->x = ev.x;
        click->y = ev.y;
        return true;
}
