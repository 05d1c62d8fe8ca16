#include "top_mouse.h"

#include <glib.h>

/* A decimal number of at most five digits at *P, P moved past it. */
static bool number(const char **p, int *out)
{
        int n = 0, digits = 0;
        while (g_ascii_isdigit(**p) && digits < 6) {
                n = n * 10 + (**p - '0');
                (*p)++, digits++;
        }
        *out = n;
        return digits > 0 && digits <= 5;
}

bool jc_top_parse_sgr_mouse(const char *body, int *button, int *x, int *y, bool *press)
{
        /* "B;X;Y" then M or m, nothing more. */
        const char *p = body;
        int b, cx, cy;
        if (!number(&p, &b) || *p++ != ';' || !number(&p, &cx) || *p++ != ';' || !number(&p, &cy))
                return false;
        if ((*p != 'M' && *p != 'm') || p[1] || cx < 1 || cy < 1)
                return false;
        *button = b;
        *x = cx;
        *y = cy;
        *press = *p == 'M';
        return true;
}
