#include "sysfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
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

ssize_t jd_file_read_grow(jd_file *f, char **buf, size_t *size, size_t max)
{
        for (;;) {
                if (*size < 2 || !*buf) {
                        char *first = realloc(*buf, 4096);
                        if (!first)
                                return -ENOMEM;
                        *buf = first;
                        *size = 4096;
                }
                ssize_t n = jd_file_read(f, *buf, *size);
                if (n < 0 || (size_t) n < *size - 1 || *size >= max)
                        return n;
                char *bigger = realloc(*buf, *size * 2 > max ? max : *size * 2);
                if (!bigger)
                        return n;
                *buf = bigger;
                *size = *size * 2 > max ? max : *size * 2;
        }
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
        /* Read one byte more than fits: a value too long for OUT is no
         * value (absent), never a cut one, which would be another name. */
        char tmp[4096];
        size_t want = size + 1 < sizeof(tmp) ? size + 1 : sizeof(tmp);
        if (size == 0 || jd_file_read(f, tmp, want) <= 0)
                return false;
        jd_rstrip(tmp);
        size_t n = strlen(tmp);
        if (n == 0 || n >= size)
                return false;
        memcpy(out, tmp, n + 1);
        return true;
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

void jd_cached_file_init(jd_cached_file *f, const jd_sysroot *sr, const char *path, size_t max)
{
        memset(f, 0, sizeof(*f));
        f->sr = sr;
        f->path = path;
        f->max = max;
}

void jd_cached_file_clear(jd_cached_file *f)
{
        free(f->host_path);
        free(f->text);
        f->host_path = f->text = NULL;
}

static bool same_file(const jd_cached_file *f, const struct stat *st)
{
        return f->text && f->dev == (unsigned long long) st->st_dev && f->ino == (unsigned long long) st->st_ino &&
               f->size == (unsigned long long) st->st_size && f->mtime_s == (long long) st->st_mtim.tv_sec &&
               f->mtime_ns == (long long) st->st_mtim.tv_nsec;
}

static _Atomic uint64_t recheck_interval_us;
static _Atomic uint64_t recheck_epoch = 1;

void jd_recheck_set_interval(uint64_t interval_us)
{
        atomic_store(&recheck_interval_us, interval_us);
}

void jd_recheck_now(void)
{
        atomic_fetch_add(&recheck_epoch, 1);
}

bool jd_recheck_due(jd_recheck *r)
{
        uint64_t interval = atomic_load_explicit(&recheck_interval_us, memory_order_relaxed);
        uint64_t epoch = atomic_load(&recheck_epoch);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t now = (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
        if (interval && r->epoch == epoch && now - r->at_us < interval)
                return false;
        r->epoch = epoch;
        r->at_us = now;
        return true;
}

const char *jd_cached_file_get(jd_cached_file *f, bool *changed)
{
        struct stat st;
        bool had = f->text != NULL, first = !f->seen;
        f->seen = true;
        if (changed)
                *changed = first;
        bool due = jd_recheck_due(&f->recheck);
        if (!first && !due)
                return f->text;
        if (!f->host_path || stat(f->host_path, &st) < 0) {
                /* First use, or the file (or a link on its way) vanished: resolve anew. */
                char host[PATH_MAX];
                free(f->host_path);
                f->host_path = NULL;
                if (jd_sysroot_host_path(f->sr, f->path, host, sizeof(host)) == 0 && stat(host, &st) == 0)
                        f->host_path = strdup(host);
        }
        if (!f->host_path) {
                free(f->text);
                f->text = NULL;
                if (changed)
                        *changed = had || first;
                return NULL;
        }
        if (same_file(f, &st))
                return f->text;
        free(f->text);
        f->text = jd_sysroot_read_whole(f->sr, f->path, f->max, &f->len);
        f->dev = (unsigned long long) st.st_dev;
        f->ino = (unsigned long long) st.st_ino;
        f->size = (unsigned long long) st.st_size;
        f->mtime_s = (long long) st.st_mtim.tv_sec;
        f->mtime_ns = (long long) st.st_mtim.tv_nsec;
        if (changed)
                *changed = true;
        return f->text;
}
