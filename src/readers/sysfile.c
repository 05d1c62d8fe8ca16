#include "sysfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "parse.h"

__attribute__((format(printf, 3, 0)))
static bool vopen(jd_file *f, const jd_sysroot *sr, const char *fmt, va_list ap)
{
        char path[PATH_MAX];
        int n = vsnprintf(path, sizeof(path), fmt, ap);

        *f = JD_FILE_INIT;
        if (n < 0 || (size_t) n >= sizeof(path))
                return false;
        int fd = jd_sysroot_open(sr, path, O_RDONLY);
        if (fd < 0)
                return false;
        f->fd = fd;
        return true;
}

bool jd_file_open(jd_file *f, const jd_sysroot *sr, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        bool ok = vopen(f, sr, fmt, ap);
        va_end(ap);
        return ok;
}

void jd_file_close(jd_file *f)
{
        if (f->fd >= 0)
                close(f->fd);
        *f = JD_FILE_INIT;
}

ssize_t jd_file_read(jd_file *f, char *buf, size_t size)
{
        if (f->fd < 0 || size == 0)
                return -EBADF;
        ssize_t n;
        do
                n = pread(f->fd, buf, size - 1, 0);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
                int e = errno;
                if (e == ENODEV || e == ENOENT || e == ENXIO)
                        f->gone = true;
                buf[0] = '\0';
                return -e;
        }
        buf[n] = '\0';
        return n;
}

bool jd_file_u64(jd_file *f, uint64_t *out)
{
        char buf[64];
        return jd_file_read(f, buf, sizeof(buf)) > 0 && jd_parse_u64(buf, out);
}

bool jd_file_i64(jd_file *f, int64_t *out)
{
        char buf[64];
        return jd_file_read(f, buf, sizeof(buf)) > 0 && jd_parse_i64(buf, out);
}

bool jd_file_str(jd_file *f, char *out, size_t size)
{
        if (jd_file_read(f, out, size) <= 0)
                return false;
        jd_rstrip(out);
        return out[0] != '\0';
}

#define ONE_SHOT(call)                                  \
        va_list ap;                                     \
        jd_file f;                                      \
        va_start(ap, fmt);                              \
        bool opened = vopen(&f, sr, fmt, ap);           \
        va_end(ap);                                     \
        if (!opened)                                    \
                return false;                           \
        bool ok = (call);                               \
        jd_file_close(&f);                              \
        return ok

bool jd_read_u64(const jd_sysroot *sr, uint64_t *out, const char *fmt, ...)
{
        ONE_SHOT(jd_file_u64(&f, out));
}

bool jd_read_i64(const jd_sysroot *sr, int64_t *out, const char *fmt, ...)
{
        ONE_SHOT(jd_file_i64(&f, out));
}

bool jd_read_str(const jd_sysroot *sr, char *out, size_t size, const char *fmt, ...)
{
        ONE_SHOT(jd_file_str(&f, out, size));
}
