#include "proc_strings.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/parse.h"
#include "common/variant_number.h"

/* An environment or a command line is bounded by the kernel (ARG_MAX and
 * the stack limit); a larger read stops here rather than grow without end. */
#define STRINGS_MAX (8u << 20)
/* The kernel's TASK_COMM_LEN less its NUL: comm is cut there. */
#define COMM_LEN 15

GPtrArray *jc_proc_read_strings(const char *proc_dir, unsigned pid, const char *file, int *err)
{
        g_autofree char *path = g_strdup_printf("%s/%u/%s", proc_dir, pid, file);
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
        while ((n = read(fd, buf, sizeof(buf))) > 0 && text->len < STRINGS_MAX)
                g_string_append_len(text, buf, n);
        int read_errno = errno;
        close(fd);
        if (n < 0) {
                *err = read_errno;
                return NULL;
        }
        GPtrArray *strings = g_ptr_array_new_with_free_func(g_free);
        for (size_t start = 0; start < text->len;) {
                size_t len = strnlen(text->str + start, text->len - start);
                if (len) {
                        char *s = g_strndup(text->str + start, len);
                        for (char *c = s; *c; c++)
                                if ((unsigned char) *c < 0x20 || *c == 0x7f)
                                        *c = '?';
                        g_ptr_array_add(strings, s);
                }
                start += len + 1;
        }
        *err = 0;
        return strings;
}

/* Whether PROC_DIR/PID/comm is COMM: the PID still names the process
 * jetsond listed. */
static bool same_comm(const char *proc_dir, unsigned pid, const char *comm)
{
        g_autofree char *path = g_strdup_printf("%s/%u/comm", proc_dir, pid);
        g_autofree char *text = NULL;
        if (!g_file_get_contents(path, &text, NULL, NULL))
                return false;
        g_strchomp(text);
        return strncmp(text, comm, COMM_LEN) == 0;
}

/* When PROC_DIR/PID started, in seconds since the Unix epoch, as jetsond
 * computes process.PID.start_time: the boot time (btime of PROC_DIR/stat)
 * plus the start in clock ticks (field 22 of PROC_DIR/PID/stat); < 0
 * unknown. */
static double start_time_of(const char *proc_dir, unsigned pid)
{
        g_autofree char *stat_path = g_strdup_printf("%s/%u/stat", proc_dir, pid);
        g_autofree char *boot_path = g_strdup_printf("%s/stat", proc_dir);
        g_autofree char *stat = NULL, *boot = NULL;
        if (!g_file_get_contents(stat_path, &stat, NULL, NULL) || !g_file_get_contents(boot_path, &boot, NULL, NULL))
                return -1;
        /* comm may hold spaces and parentheses: the fields follow the last ')'. */
        const char *fields = strrchr(stat, ')');
        const char *btime = strstr(boot, "\nbtime ");
        long ticks_per_s = sysconf(_SC_CLK_TCK);
        if (!fields || !btime || ticks_per_s <= 0)
                return -1;
        g_auto(GStrv) f = g_strsplit_set(fields + 1, " \n", -1);
        /* f[0] is the empty string before the space; state is f[1], field 3. */
        if (g_strv_length(f) < 21)
                return -1;
        uint64_t start_ticks, boot_s;
        if (!jc_parse_uint(f[20], UINT64_MAX, &start_ticks) ||
            sscanf(btime + 7, "%" SCNu64, &boot_s) != 1)
                return -1;
        return (double) boot_s + (double) start_ticks / (double) ticks_per_s;
}

char *jc_proc_command_line(const char *proc_dir, unsigned pid, const char *comm, double start_time)
{
        int err = 0;
        g_autoptr(GPtrArray) args = jc_proc_read_strings(proc_dir, pid, "cmdline", &err);
        if (!args || !args->len)
                return NULL;
        /* Checked after the read: a PID reused in between would show its
         * new comm and start here, and the line read before is discarded.
         * jetsond's start time and this one share btime's whole seconds:
         * they differ by the ticks' rounding alone. */
        if (comm && *comm && !same_comm(proc_dir, pid, comm))
                return NULL;
        if (start_time >= 0 && fabs(start_time_of(proc_dir, pid) - start_time) > 0.5)
                return NULL;
        g_ptr_array_add(args, NULL);
        return g_strjoinv(" ", (char **) args->pdata);
}

/* process.PID.start_time of S, or -1. */
static double start_time(const jc_sample *s, unsigned pid)
{
        g_autofree char *key = g_strdup_printf("process.%u.start_time", pid);
        g_autoptr(GVariant) v = g_variant_lookup_value(s->values, key, NULL);
        double t;
        return v && jc_variant_number(v, &t) ? t : -1;
}

/* PREV's command line for PID, where PREV lists the same process: same
 * name and the same start time from jetsond, so no PID reuse between. */
static const char *same_as_before(const jc_sample *s, const jc_sample *prev, unsigned pid, const char *name)
{
        const char *command = prev ? jc_sample_command(prev, pid) : NULL;
        if (!command)
                return NULL;
        g_autofree char *name_key = g_strdup_printf("process.%u.name", pid);
        g_autoptr(GVariant) before = g_variant_lookup_value(prev->values, name_key, G_VARIANT_TYPE_STRING);
        double now = start_time(s, pid), then = start_time(prev, pid);
        bool same = before && strcmp(g_variant_get_string(before, NULL), name) == 0 && now >= 0 && now == then;
        return same ? command : NULL;
}

void jc_sample_read_commands(jc_sample *s, const char *proc_dir, const jc_sample *prev)
{
        g_clear_pointer(&s->commands, g_hash_table_unref);
        s->commands = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
        if (!s->values)
                return;
        GVariantIter it;
        const char *key;
        GVariant *value;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                uint64_t pid;
                if (g_str_has_prefix(key, "process.") && g_str_has_suffix(key, ".name") &&
                    g_variant_is_of_type(value, G_VARIANT_TYPE_STRING)) {
                        g_autofree char *digits = g_strndup(key + 8, strlen(key) - 8 - strlen(".name"));
                        const char *name = g_variant_get_string(value, NULL);
                        char *command = NULL;
                        if (jc_parse_uint(digits, UINT32_MAX, &pid) && pid) {
                                const char *known = same_as_before(s, prev, (unsigned) pid, name);
                                command = known ? g_strdup(known)
                                                : jc_proc_command_line(proc_dir, (unsigned) pid, name,
                                                                       start_time(s, (unsigned) pid));
                        }
                        if (command)
                                g_hash_table_insert(s->commands, GUINT_TO_POINTER((guint) pid), command);
                }
                g_variant_unref(value);
        }
}

const char *jc_sample_command(const jc_sample *s, uint32_t pid)
{
        return s->commands ? g_hash_table_lookup(s->commands, GUINT_TO_POINTER((guint) pid)) : NULL;
}
