/* Logging to stderr with journal priority prefixes ("<3>..."), which
 * journald turns into priorities when the daemon runs under systemd. */
#pragma once

#include <syslog.h>

void jd_log(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Messages at PRIORITY or less important are dropped (default LOG_INFO). */
void jd_log_set_max_priority(int priority);

#define jd_log_error(...) jd_log(LOG_ERR, __VA_ARGS__)
#define jd_log_warning(...) jd_log(LOG_WARNING, __VA_ARGS__)
#define jd_log_info(...) jd_log(LOG_INFO, __VA_ARGS__)
#define jd_log_debug(...) jd_log(LOG_DEBUG, __VA_ARGS__)
