#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void xlog(const char *priority, const char *fmt, ...)
{
        /* The prefix only where the journal reads it; on a terminal a
         * plain program name, as other tools print. */
        static int journal = -1;
        if (journal < 0)
                journal = getenv("JOURNAL_STREAM") != NULL;
        va_list ap;
        va_start(ap, fmt);
        g_autofree char *text = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        if (journal)
                fprintf(stderr, "%s%s\n", priority, text);
        else
                fprintf(stderr, "jetsond-exporter: %s\n", text);
}
