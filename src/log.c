#include "log.h"

#include <stdarg.h>
#include <stdio.h>

static int max_priority = LOG_INFO;

void jd_log_set_max_priority(int priority)
{
        max_priority = priority;
}

void jd_log(int priority, const char *fmt, ...)
{
        if (priority > max_priority)
                return;
        /* One fprintf per line keeps lines whole when stderr is a pipe. */
        char line[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        fprintf(stderr, "<%d>%s\n", priority, line);
}
