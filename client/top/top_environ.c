#include "top_environ.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The environment's size is bounded by the kernel (ARG_MAX and the stack
 * limit); a larger read stops here rather than grow without end. */
#define ENVIRON_MAX (8u << 20)

GPtrArray *jc_top_read_environ(const char *proc_dir, unsigned pid, int *err)
{
        g_autofree char *path = g_strdup_printf("%s/%u/environ", proc_dir, pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                *err = errno;
                return NULL;
        }
        g_autoptr(GString) text = g_string_new(NULL);
        char buf[16384];
        ssize_t n;
        /* The permission check of another user's environ is at read time
         * on some kernels (ptrace access mode): EACCES may come here. */
        while ((n = read(fd, buf, sizeof(buf))) > 0 && text->len < ENVIRON_MAX)
                g_string_append_len(text, buf, n);
        int read_errno = errno;
        close(fd);
        if (n < 0) {
                *err = read_errno;
                return NULL;
        }
        GPtrArray *vars = g_ptr_array_new_with_free_func(g_free);
        for (size_t start = 0; start < text->len;) {
                size_t len = strnlen(text->str + start, text->len - start);
                if (len) {
                        char *var = g_strndup(text->str + start, len);
                        for (char *c = var; *c; c++)
                                if ((unsigned char) *c < 0x20 || *c == 0x7f)
                                        *c = '?';
                        g_ptr_array_add(vars, var);
                }
                start += len + 1;
        }
        *err = 0;
        return vars;
}
