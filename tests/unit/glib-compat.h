/* The few newer GLib calls the tests would like, written for GLib 2.56,
 * the project's floor (meson.build sets GLIB_VERSION_MAX_ALLOWED, so the
 * newer ones fail the build). */
#pragma once

#include <glib.h>
#include <string.h>
#include <unistd.h>

/* g_string_replace() (2.68): the first LIMIT (0: every) FIND in S become
 * REPLACE; the count. */
static inline guint test_string_replace(GString *s, const char *find, const char *replace, guint limit)
{
        size_t flen = strlen(find), rlen = strlen(replace);
        guint n = 0;
        for (gsize pos = 0; flen > 0 && (limit == 0 || n < limit);) {
                const char *hit = strstr(s->str + pos, find);
                if (!hit)
                        break;
                pos = (gsize)(hit - s->str);
                g_string_erase(s, (gssize)pos, (gssize)flen);
                g_string_insert(s, (gssize)pos, replace);
                pos += rlen;
                n++;
        }
        return n;
}

/* Runs in the child before exec: GLib has marked every descriptor above
 * 2 close-on-exec by then, and dup2() makes 1 and 2 without the flag. */
static inline void test_spawn_log_setup(gpointer data)
{
        int fd = GPOINTER_TO_INT(data);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
}

/* g_spawn_async_with_fds() (2.58) with stdout and stderr going to LOG_FD. */
static inline gboolean test_spawn_logged(const char *const *argv, GSpawnFlags flags, GPid *pid, int log_fd,
                                         GError **error)
{
        return g_spawn_async(NULL, (char **)argv, NULL, flags, test_spawn_log_setup, GINT_TO_POINTER(log_fd), pid,
                             error);
}
