#include "capture_redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EEPROM_SERIAL_AT 74   /* 15 characters, as src/readers/board.c reads them */
#define EEPROM_SERIAL_LEN 15

static const char *base_name(const char *path)
{
        const char *s = strrchr(path, '/');
        return s ? s + 1 : path;
}

static void zero_alnum(guint8 *p, size_t len)
{
        for (size_t i = 0; i < len; i++)
                if (isalnum(p[i]))
                        p[i] = '0';
}

/* A file that is a serial number, a machine's id, or holds one. */
static bool is_serial_file(const char *path)
{
        const char *b = base_name(path);
        if (strcmp(b, "serial-number") == 0)
                return strstr(path, "devicetree") || strstr(path, "device-tree");
        if (strstr(path, "dmi/id/"))
                return strcmp(b, "product_serial") == 0 || strcmp(b, "board_serial") == 0 ||
                       strcmp(b, "chassis_serial") == 0 || strcmp(b, "product_uuid") == 0;
        return strcmp(b, "machine-id") == 0;
}

static bool word_char(guint8 c)
{
        return isalnum(c) || c == '-' || c == '_';
}

/* Replaces each occurrence of NEEDLE in DATA (whole words only if WORDS)
 * by WITH; returns how many. */
static unsigned replace_all(GByteArray *data, const char *needle, const char *with, bool words)
{
        size_t nlen = strlen(needle), wlen = strlen(with);
        unsigned count = 0;
        if (nlen == 0 || nlen > data->len)
                return 0;
        GByteArray *out = NULL;   /* made only for a file that changes */
        size_t copied = 0;
        for (size_t i = 0; i + nlen <= data->len;) {
                const guint8 *p = data->data + i;
                if (memcmp(p, needle, nlen) != 0 ||
                    (words && ((i > 0 && word_char(p[-1])) || (i + nlen < data->len && word_char(p[nlen]))))) {
                        i++;
                        continue;
                }
                if (!out)
                        out = g_byte_array_sized_new(data->len);
                g_byte_array_append(out, data->data + copied, (guint) (i - copied));
                g_byte_array_append(out, (const guint8 *) with, (guint) wlen);
                i += nlen;
                copied = i;
                count++;
        }
        if (out) {
                g_byte_array_append(out, data->data + copied, (guint) (data->len - copied));
                g_byte_array_set_size(data, 0);
                g_byte_array_append(data, out->data, out->len);
                g_byte_array_unref(out);
        }
        return count;
}

struct jc_redaction {
        GPtrArray *needles, *withs;   /* replaced in every file */
        GArray *words;                /* gboolean: whole words only */
};

static unsigned replace_everywhere(jc_tree *t, const char *needle, const char *with, bool words)
{
        GHashTableIter it;
        gpointer key, value;
        unsigned files = 0;
        g_hash_table_iter_init(&it, t->entries);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                jc_entry *e = value;
                if (e->kind == JC_FILE && e->data && replace_all(e->data, needle, with, words) > 0)
                        files++;
        }
        return files;
}

/* A replacement made now in every file, and kept for later versions of
 * them (jc_redaction_apply). */
static unsigned rule(jc_redaction *r, jc_tree *t, const char *needle, const char *with, bool words)
{
        gboolean w = words;
        g_ptr_array_add(r->needles, g_strdup(needle));
        g_ptr_array_add(r->withs, g_strdup(with));
        g_array_append_val(r->words, w);
        return replace_everywhere(t, needle, with, words);
}

/* "aa:bb:cc:dd:ee:ff" (or with '-'): each hex digit made '0'. */
static unsigned zero_macs(GByteArray *d)
{
        unsigned n = 0;
        for (size_t i = 0; i + 17 <= d->len; i++) {
                guint8 *p = d->data + i;
                char sep = (char) p[2];
                bool mac = (sep == ':' || sep == '-') && (i == 0 || !isxdigit(p[-1])) &&
                           (i + 17 == d->len || !isxdigit(p[17]));
                for (int k = 0; mac && k < 17; k++)
                        mac = k % 3 == 2 ? p[k] == sep : isxdigit(p[k]);
                if (!mac)
                        continue;
                for (int k = 0; k < 17; k++)
                        if (k % 3 != 2)
                                p[k] = '0';
                n++;
                i += 16;
        }
        return n;
}

static char *trimmed_text(const GByteArray *d)
{
        g_autofree char *s = g_strndup((const char *) d->data, d->len);
        return g_strdup(g_strstrip(s));
}

/* The serials the serial files and the EEPROM hold, then every file made
 * free of them (a serial recurs in uevent files and the kernel's command
 * line: androidboot.serialno=). */
static void redact_serials(jc_redaction *r, jc_tree *t, GPtrArray *report)
{
        g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func(g_free);
        GHashTableIter it;
        gpointer key, value;
        unsigned files = 0;
        g_hash_table_iter_init(&it, t->entries);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                jc_entry *e = value;
                if (e->kind != JC_FILE || !e->data)
                        continue;
                if (is_serial_file(key)) {
                        char *s = trimmed_text(e->data);
                        if (strlen(s) >= 4)
                                g_ptr_array_add(found, s);
                        else
                                g_free(s);
                        zero_alnum(e->data->data, e->data->len);
                        files++;
                } else if (strcmp(base_name(key), "eeprom") == 0 &&
                           e->data->len >= EEPROM_SERIAL_AT + EEPROM_SERIAL_LEN) {
                        guint8 *p = e->data->data + EEPROM_SERIAL_AT;
                        g_ptr_array_add(found, g_strndup((const char *) p, EEPROM_SERIAL_LEN));
                        zero_alnum(p, EEPROM_SERIAL_LEN);
                        files++;
                }
        }
        for (guint i = 0; i < found->len; i++) {
                const char *s = found->pdata[i];
                if (strlen(s) < 4)
                        continue;
                g_autofree char *zeros = g_strdup(s);
                zero_alnum((guint8 *) zeros, strlen(zeros));
                files += rule(r, t, s, zeros, false);
        }
        g_ptr_array_add(report, g_strdup_printf("serial numbers and machine ids (device tree, DMI, EEPROM, machine-id): %u file(s)", files));
}

static void redact_macs(jc_tree *t, GPtrArray *report)
{
        GHashTableIter it;
        gpointer key, value;
        unsigned n = 0;
        g_hash_table_iter_init(&it, t->entries);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                jc_entry *e = value;
                if (e->kind == JC_FILE && e->data)
                        n += zero_macs(e->data);
        }
        g_ptr_array_add(report, g_strdup_printf("MAC addresses: %u", n));
}

/* The host name as the root's files and (for "/") the kernel give it. */
static void redact_host_name(jc_redaction *r, jc_tree *t, GPtrArray *report)
{
        static const char *const sources[] = { "/etc/hostname", "/proc/sys/kernel/hostname" };
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        for (size_t i = 0; i < G_N_ELEMENTS(sources); i++) {
                g_autofree char *host = g_strconcat(t->root, sources[i], NULL);
                g_autofree char *why = NULL;
                GByteArray *text = jc_read_regular(host, 256, &why);
                if (text) {
                        char *name = trimmed_text(text);
                        g_byte_array_unref(text);
                        char *dot = strchr(name, '.');
                        g_ptr_array_add(names, name);
                        if (dot)   /* "board.example.org": "board" alone too */
                                g_ptr_array_add(names, g_strndup(name, (gsize) (dot - name)));
                }
        }
        unsigned files = 0;
        for (guint i = 0; i < names->len; i++)
                if (strlen(names->pdata[i]) >= 2)
                        files += rule(r, t, names->pdata[i], "redacted-host", true);
        g_ptr_array_add(report, g_strdup_printf("the host name: %u file(s)", files));
}

/* People's accounts in /etc/passwd: name and full name replaced, the uid
 * kept; their names then replaced wherever they recur (/home/NAME). */
static void redact_users(jc_redaction *r, jc_tree *t, GPtrArray *report)
{
        jc_entry *pw = g_hash_table_lookup(t->entries, "etc/passwd");
        if (!pw || !pw->data) {
                g_ptr_array_add(report, g_strdup("user names: no /etc/passwd read"));
                return;
        }
        g_autofree char *text = g_strndup((const char *) pw->data->data, pw->data->len);
        g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        g_autoptr(GPtrArray) aliases = g_ptr_array_new_with_free_func(g_free);
        GString *out = g_string_new(NULL);
        for (char **l = lines; *l; l++) {
                g_auto(GStrv) f = g_strsplit(*l, ":", 7);
                unsigned long uid = g_strv_length(f) == 7 ? strtoul(f[2], NULL, 10) : 0;
                if (uid >= 1000 && uid != 65534 && f[0][0]) {
                        g_ptr_array_add(names, g_strdup(f[0]));
                        g_ptr_array_add(aliases, g_strdup_printf("user%lu", uid));
                        g_string_append_printf(out, "user%lu:%s:%s:%s::%s:%s", uid, f[1], f[2], f[3], f[5], f[6]);
                } else {
                        g_string_append(out, *l);
                }
                if (l[1])
                        g_string_append_c(out, '\n');
        }
        g_byte_array_set_size(pw->data, 0);
        g_byte_array_append(pw->data, (const guint8 *) out->str, (guint) out->len);
        g_string_free(out, TRUE);
        for (guint i = 0; i < names->len; i++)
                if (strlen(names->pdata[i]) >= 2)
                        rule(r, t, names->pdata[i], aliases->pdata[i], true);
        g_ptr_array_add(report, g_strdup_printf("user names and full names (uid 1000 and up, uids kept): %u account(s)", names->len));
}

/* The uid a process runs as: its status file as captured, else the owner
 * of its /proc directory; -1 if neither tells. */
static long process_uid(jc_tree *t, const char *pid_dir)
{
        g_autofree char *status = g_strconcat(pid_dir, "/status", NULL);
        jc_entry *e = g_hash_table_lookup(t->entries, status);
        if (e && e->data) {
                g_autofree char *text = g_strndup((const char *) e->data->data, e->data->len);
                const char *u = strstr(text, "\nUid:");
                if (u)
                        return strtol(u + 5, NULL, 10);
        }
        g_autofree char *host = g_strconcat(t->root, "/", pid_dir, NULL);
        struct stat st;
        return stat(host, &st) == 0 ? (long) st.st_uid : -1;
}

static void redact_command_lines(jc_tree *t, uid_t own_uid, GPtrArray *report)
{
        GHashTableIter it;
        gpointer key, value;
        unsigned n = 0;
        g_hash_table_iter_init(&it, t->entries);
        while (g_hash_table_iter_next(&it, &key, &value)) {
                jc_entry *e = value;
                const char *b = base_name(key);
                if (e->kind != JC_FILE || !e->data || !g_str_has_prefix(key, "proc/") ||
                    (strcmp(b, "cmdline") != 0 && strcmp(b, "environ") != 0) || strcmp(key, "proc/cmdline") == 0)
                        continue;
                g_autofree char *dir = g_strndup(key, (gsize) (b - 1 - (const char *) key));
                long uid = process_uid(t, dir);
                if (strcmp(b, "environ") == 0 || uid < 0 || (uid != 0 && uid != (long) own_uid)) {
                        g_byte_array_set_size(e->data, 0);
                        n++;
                }
        }
        g_ptr_array_add(report, g_strdup_printf("other users' command lines (and every environment): %u", n));
}

jc_redaction *jc_redact(jc_tree *t, uid_t own_uid, GPtrArray *report)
{
        jc_redaction *r = g_new0(jc_redaction, 1);
        r->needles = g_ptr_array_new_with_free_func(g_free);
        r->withs = g_ptr_array_new_with_free_func(g_free);
        r->words = g_array_new(FALSE, FALSE, sizeof(gboolean));
        redact_serials(r, t, report);
        redact_macs(t, report);
        redact_host_name(r, t, report);
        redact_users(r, t, report);
        redact_command_lines(t, own_uid, report);
        return r;
}

void jc_redaction_apply(const jc_redaction *r, const char *path, GByteArray *data)
{
        if (is_serial_file(path))
                zero_alnum(data->data, data->len);
        zero_macs(data);
        for (guint i = 0; i < r->needles->len; i++)
                replace_all(data, r->needles->pdata[i], r->withs->pdata[i], g_array_index(r->words, gboolean, i));
}

void jc_redaction_free(jc_redaction *r)
{
        if (!r)
                return;
        g_ptr_array_unref(r->needles);
        g_ptr_array_unref(r->withs);
        g_array_unref(r->words);
        g_free(r);
}
