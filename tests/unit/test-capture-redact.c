/* jetsond --capture's redaction and walker (src/capture): what each rule
 * hides and what it must leave alone, on a scratch root. */
#include <glib.h>
#include <glib/gstdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture_redact.h"
#include "capture_tree.h"

typedef struct {
        char *root;
        jc_tree tree;
        GPtrArray *report;
} scratch;

static void put(const char *root, const char *path, const char *content, gssize len)
{
        g_autofree char *full = g_build_filename(root, path, NULL);
        g_autofree char *dir = g_path_get_dirname(full);
        assert_int_equal(g_mkdir_with_parents(dir, 0755), 0);
        assert_true(g_file_set_contents(full, content, len, NULL));
}

static int setup(void **state)
{
        scratch *s = g_new0(scratch, 1);
        s->root = g_dir_make_tmp("jetsond-capture-XXXXXX", NULL);
        put(s->root, "etc/hostname", "kitchen-orin\n", -1);
        put(s->root, "etc/passwd",
            "root:x:0:0:root:/root:/bin/bash\n"
            "sys:x:3:3:sys:/dev:/usr/sbin/nologin\n"
            "alice:x:1000:1000:Alice Liddell,,,:/home/alice:/bin/bash\n"
            "bob:x:1001:1001:Bob:/home/bob:/bin/bash\n", -1);
        put(s->root, "sys/firmware/devicetree/base/serial-number", "1424021012345\0", 14);
        put(s->root, "sys/devices/soc0/uevent", "SERIAL=1424021012345\nDRIVER=x\n", -1);
        put(s->root, "sys/class/net/eth0/address", "48:b0:2d:aa:bb:cc\n", -1);
        put(s->root, "proc/vmstat", "kitchen-orinx 1\nnr_free 2\n", -1);
        put(s->root, "proc/10/status", "Name:\tsshd\nUid:\t0\t0\t0\t0\n", -1);
        put(s->root, "proc/10/cmdline", "sshd: /usr/sbin/sshd\0", 21);
        put(s->root, "proc/20/status", "Name:\tvim\nUid:\t1001\t1001\t1001\t1001\n", -1);
        put(s->root, "proc/20/cmdline", "vim\0/home/bob/secret.txt\0", 25);
        put(s->root, "proc/20/environ", "HOME=/home/bob\0", 15);
        put(s->root, "proc/30/status", "Name:\tbash\nUid:\t1000\t1000\t1000\t1000\n", -1);
        put(s->root, "proc/30/cmdline", "bash\0", 5);
        put(s->root, "proc/mounts", "/dev/sda1 /home/alice ext4 rw 0 0\n/dev/sys /sys sysfs rw 0 0\n", -1);
        jc_tree_init(&s->tree, s->root);
        static const char *const paths[] = {
                "/etc/hostname", "/etc/passwd", "/sys/firmware/devicetree/base/serial-number",
                "/sys/devices/soc0/uevent", "/sys/class/net/eth0/address", "/proc/vmstat",
                "/proc/10/status", "/proc/10/cmdline", "/proc/20/status", "/proc/20/cmdline",
                "/proc/20/environ", "/proc/30/status", "/proc/30/cmdline", "/proc/mounts",
        };
        for (size_t i = 0; i < G_N_ELEMENTS(paths); i++)
                jc_tree_add_path(&s->tree, paths[i]);
        s->report = g_ptr_array_new_with_free_func(g_free);
        *state = s;
        return 0;
}

static int teardown(void **state)
{
        scratch *s = *state;
        jc_tree_clear(&s->tree);
        g_ptr_array_unref(s->report);
        const char *argv[] = { "rm", "-rf", s->root, NULL };
        g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
        g_free(s->root);
        g_free(s);
        return 0;
}

/* The file's captured contents, NULs as '|'. */
static char *text_of(scratch *s, const char *path)
{
        jc_entry *e = g_hash_table_lookup(s->tree.entries, path);
        assert_non_null(e);
        assert_non_null(e->data);
        char *t = g_strndup((const char *) e->data->data, e->data->len);
        for (guint i = 0; i < e->data->len; i++)
                if (!t[i])
                        t[i] = '|';
        return t;
}

#define assert_text(s, path, expected)                          \
        do {                                                    \
                g_autofree char *got_ = text_of(s, path);       \
                assert_string_equal(got_, expected);            \
        } while (0)

static void test_redaction(void **state)
{
        scratch *s = *state;
        jc_redaction *r = jc_redact(&s->tree, 1000, s->report);
        /* Serials: the file, and where the value recurs; length kept. */
        assert_text(s, "sys/firmware/devicetree/base/serial-number", "0000000000000|");
        assert_text(s, "sys/devices/soc0/uevent", "SERIAL=0000000000000\nDRIVER=x\n");
        assert_text(s, "sys/class/net/eth0/address", "00:00:00:00:00:00\n");
        /* The host name as a word only. */
        assert_text(s, "etc/hostname", "redacted-host\n");
        assert_text(s, "proc/vmstat", "kitchen-orinx 1\nnr_free 2\n");
        /* People's accounts renamed, uids kept; "sys" (a system account,
         * and a word of every sysfs path) left alone. */
        assert_text(s, "etc/passwd",
                    "root:x:0:0:root:/root:/bin/bash\n"
                    "sys:x:3:3:sys:/dev:/usr/sbin/nologin\n"
                    "user1000:x:1000:1000::/home/user1000:/bin/bash\n"
                    "user1001:x:1001:1001::/home/user1001:/bin/bash\n");
        assert_text(s, "proc/mounts", "/dev/sda1 /home/user1000 ext4 rw 0 0\n/dev/sys /sys sysfs rw 0 0\n");
        /* Command lines: root's and the capturing user's kept, another
         * user's emptied; environments always. */
        assert_text(s, "proc/10/cmdline", "sshd: /usr/sbin/sshd|");
        assert_text(s, "proc/30/cmdline", "bash|");
        assert_text(s, "proc/20/cmdline", "");
        assert_text(s, "proc/20/environ", "");
        /* A later version of a file gets the same treatment. */
        GByteArray *later = g_byte_array_new();
        const char *text = "kitchen-orin alice 1424021012345 48:B0:2D:AA:BB:CD\n";
        g_byte_array_append(later, (const guint8 *) text, (guint) strlen(text));
        jc_redaction_apply(r, "proc/stat", later);
        g_autofree char *redone = g_strndup((const char *) later->data, later->len);
        assert_string_equal(redone, "redacted-host user1000 0000000000000 00:00:00:00:00:00\n");
        g_byte_array_unref(later);
        /* The report counts, never names. */
        for (guint i = 0; i < s->report->len; i++) {
                assert_null(strstr(s->report->pdata[i], "alice"));
                assert_null(strstr(s->report->pdata[i], "kitchen"));
        }
        jc_redaction_free(r);
}

static void test_walk_records_links_and_refuses(void **state)
{
        scratch *s = *state;
        g_autofree char *fifo = g_build_filename(s->root, "sys/class/x/fifo", NULL);
        put(s->root, "sys/devices/x/value", "7\n", -1);
        put(s->root, "sys/class/x/plain", "", -1);
        g_autofree char *link = g_build_filename(s->root, "sys/class/x/dev", NULL);
        assert_int_equal(symlink("../../devices/x", link), 0);
        assert_int_equal(mkfifo(fifo, 0644), 0);
        g_autofree char *out = g_build_filename(s->root, "sys/class/x/out", NULL);
        assert_int_equal(symlink("../../../..", out), 0);
        jc_tree_add_path(&s->tree, "/sys/class/x/dev/value");
        jc_tree_add_path(&s->tree, "/sys/class/x/fifo");
        jc_tree_add_path(&s->tree, "/sys/class/x/out/etc/passwd");
        jc_tree_add_listing(&s->tree, "/sys/class/x");
        jc_entry *e = g_hash_table_lookup(s->tree.entries, "sys/class/x/dev");
        assert_non_null(e);
        assert_int_equal(e->kind, JC_LINK);
        assert_string_equal(e->target, "../../devices/x");
        assert_text(s, "sys/devices/x/value", "7\n");
        assert_null(g_hash_table_lookup(s->tree.entries, "sys/class/x/fifo"));
        assert_non_null(strstr(g_hash_table_lookup(s->tree.notes, "/sys/class/x/fifo"), "not a regular file"));
        assert_non_null(strstr(g_hash_table_lookup(s->tree.notes, "/sys/class/x/out/etc/passwd"), "outside the root"));
        e = g_hash_table_lookup(s->tree.entries, "sys/class/x/out");
        assert_non_null(e);
        assert_int_equal(e->kind, JC_LINK);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_redaction, setup, teardown),
                cmocka_unit_test_setup_teardown(test_walk_records_links_and_refuses, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
