#include "capture_tar.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define BLOCK 512

struct jc_tar {
        char *dest, *tmp;
        int fd;
        gzFile gz;
        bool failed;
};

jc_tar *jc_tar_open(const char *dest, const char **error)
{
        jc_tar *t = g_new0(jc_tar, 1);
        t->dest = g_strdup(dest);
        t->tmp = g_strdup_printf("%s.XXXXXX", dest);
        t->fd = g_mkstemp_full(t->tmp, O_WRONLY | O_CLOEXEC, 0644);
        if (t->fd < 0) {
                *error = g_strerror(errno);
                g_free(t->tmp);
                g_free(t->dest);
                g_free(t);
                return NULL;
        }
        /* gzclose() closes the descriptor it gets: keep ours for fsync. */
        int gfd = dup(t->fd);
        t->gz = gfd < 0 ? NULL : gzdopen(gfd, "wb9");
        if (!t->gz) {
                if (gfd >= 0)
                        close(gfd);
                *error = "cannot start gzip compression";
                jc_tar_abandon(t);
                return NULL;
        }
        return t;
}

static void put_octal(char *field, size_t size, unsigned long long v)
{
        /* SIZE-1 digits and a NUL, as ustar readers expect. */
        snprintf(field, size, "%0*llo", (int) size - 1, v);
}

static bool write_all(jc_tar *t, const void *data, size_t len)
{
        const char *p = data;
        while (!t->failed && len > 0) {
                unsigned chunk = len > (1u << 30) ? 1u << 30 : (unsigned) len;
                int n = gzwrite(t->gz, p, chunk);
                if (n <= 0)
                        t->failed = true;
                p += n > 0 ? n : 0;
                len -= n > 0 ? (size_t) n : 0;
        }
        return !t->failed;
}

/* One ustar header block; NAME and LINK cut to their fields (a pax
 * header before it gives them whole). */
static void header(char *hdr, const char *name, char type, const char *link, size_t len)
{
        memset(hdr, 0, BLOCK);
        memcpy(hdr, name, MIN(strlen(name), 100));
        put_octal(hdr + 100, 8, type == '5' ? 0755 : 0644);
        put_octal(hdr + 108, 8, 0);
        put_octal(hdr + 116, 8, 0);
        put_octal(hdr + 124, 12, len);
        put_octal(hdr + 136, 12, 0);
        hdr[156] = type;
        if (link)
                memcpy(hdr + 157, link, MIN(strlen(link), 100));
        memcpy(hdr + 257, "ustar", 6);
        memcpy(hdr + 263, "00", 2);
        memcpy(hdr + 265, "root", 4);
        memcpy(hdr + 297, "root", 4);
        /* The checksum counts its own field as spaces. */
        memset(hdr + 148, ' ', 8);
        unsigned sum = 0;
        for (size_t i = 0; i < BLOCK; i++)
                sum += (unsigned char) hdr[i];
        snprintf(hdr + 148, 8, "%06o", sum);
}

static bool write_block_and_data(jc_tar *t, const char *hdr, const void *data, size_t len)
{
        static const char zeros[BLOCK];
        return write_all(t, hdr, BLOCK) && write_all(t, data, len) &&
               write_all(t, zeros, (BLOCK - len % BLOCK) % BLOCK);
}

/* A pax record "LEN KEY=VALUE\n", LEN counting its own digits. */
static void pax_record(GString *pax, const char *key, const char *value)
{
        size_t body = 1 + strlen(key) + 1 + strlen(value) + 1;
        size_t len = body + 1;
        while (len != body + (size_t) snprintf(NULL, 0, "%zu", len))
                len = body + (size_t) snprintf(NULL, 0, "%zu", len);
        g_string_append_printf(pax, "%zu %s=%s\n", len, key, value);
}

static bool add(jc_tar *t, const char *name, char type, const char *link, const void *data, size_t len)
{
        char hdr[BLOCK];
        if (strlen(name) > 100 || (link && strlen(link) > 100)) {
                g_autoptr(GString) pax = g_string_new(NULL);
                if (strlen(name) > 100)
                        pax_record(pax, "path", name);
                if (link && strlen(link) > 100)
                        pax_record(pax, "linkpath", link);
                header(hdr, "././@PaxHeader", 'x', NULL, pax->len);
                if (!write_block_and_data(t, hdr, pax->str, pax->len))
                        return false;
        }
        header(hdr, name, type, link, len);
        return write_block_and_data(t, hdr, data, len);
}

bool jc_tar_add_dir(jc_tar *t, const char *name)
{
        g_autofree char *with_slash = g_strconcat(name, "/", NULL);
        return add(t, with_slash, '5', NULL, NULL, 0);
}

bool jc_tar_add_symlink(jc_tar *t, const char *name, const char *target)
{
        return add(t, name, '2', target, NULL, 0);
}

bool jc_tar_add_file(jc_tar *t, const char *name, const void *data, size_t len)
{
        return add(t, name, '0', NULL, data, len);
}

static void free_tar(jc_tar *t)
{
        g_free(t->tmp);
        g_free(t->dest);
        g_free(t);
}

int jc_tar_commit(jc_tar *t)
{
        static const char end[2 * BLOCK];
        write_all(t, end, sizeof(end));
        int r = gzclose(t->gz) != Z_OK || t->failed ? -EIO : 0;
        t->gz = NULL;
        if (r == 0 && fsync(t->fd) < 0)
                r = -errno;
        close(t->fd);
        if (r == 0 && rename(t->tmp, t->dest) < 0)
                r = -errno;
        if (r < 0)
                unlink(t->tmp);
        free_tar(t);
        return r;
}

void jc_tar_abandon(jc_tar *t)
{
        if (t->gz)
                gzclose(t->gz);
        close(t->fd);
        unlink(t->tmp);
        free_tar(t);
}
