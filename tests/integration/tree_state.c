#include "tree_state.h"

#include <string.h>
#include <sys/stat.h>

#include "testbus.h"

static gint compare_names(gconstpointer a, gconstpointer b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

static void describe_dir(GString *out, const char *root, const char *rel)
{
        g_autofree char *dir = g_build_filename(root, rel, NULL);
        GDir *d = g_dir_open(dir, 0, NULL);
        if (!d)
                return;
        g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
        for (const char *name; (name = g_dir_read_name(d));)
                g_ptr_array_add(names, g_strdup(name));
        g_dir_close(d);
        g_ptr_array_sort(names, compare_names);
        for (size_t i = 0; i < names->len; i++) {
                g_autofree char *sub = *rel ? g_build_filename(rel, names->pdata[i], NULL) : g_strdup(names->pdata[i]);
                g_autofree char *path = g_build_filename(root, sub, NULL);
                struct stat st;
                if (lstat(path, &st) < 0) {
                        g_string_append_printf(out, "%s vanished\n", sub);
                        continue;
                }
                g_string_append_printf(out, "%s mode %o", sub, (unsigned) st.st_mode);
                if (S_ISDIR(st.st_mode)) {
                        g_string_append_c(out, '\n');
                        describe_dir(out, root, sub);
                } else if (S_ISLNK(st.st_mode)) {
                        g_autofree char *target = g_file_read_link(path, NULL);
                        g_string_append_printf(out, " -> %s\n", target ? target : "?");
                } else {
                        g_string_append_printf(out, " ino %llu size %lld mtime %lld.%09ld ctime %lld.%09ld\n",
                                               (unsigned long long) st.st_ino, (long long) st.st_size,
                                               (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                                               (long long) st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
                }
        }
}

char *tree_state(const char *root)
{
        GString *out = g_string_new(NULL);
        describe_dir(out, root, "");
        return g_string_free(out, FALSE);
}

/* The lines of A that B lacks (at most 20), for the failure message. */
static char *missing_lines(const char *a, const char *b)
{
        g_autoptr(GHashTable) in_b = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        char **lb = g_strsplit(b, "\n", -1);
        for (char **l = lb; *l; l++)
                g_hash_table_add(in_b, g_strdup(*l));
        g_strfreev(lb);
        GString *out = g_string_new(NULL);
        char **la = g_strsplit(a, "\n", -1);
        unsigned shown = 0;
        for (char **l = la; *l && shown < 20; l++)
                if (!g_hash_table_contains(in_b, *l)) {
                        g_string_append_printf(out, "  %s\n", *l);
                        shown++;
                }
        g_strfreev(la);
        return g_string_free(out, FALSE);
}

void tree_state_assert_unchanged(const char *before, const char *after, const char *what)
{
        if (strcmp(before, after) == 0)
                return;
        g_autofree char *gone = missing_lines(before, after);
        g_autofree char *added = missing_lines(after, before);
        fail_msg("%s changed the board copy:\nbefore:\n%snow:\n%s", what, gone, added);
}
