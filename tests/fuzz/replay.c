/* fuzz-replay: runs every file of tests/fuzz/corpus/NAME/ and
 * tests/fuzz/regressions/NAME/ through target NAME, for every target, in
 * the ordinary build (gcc, clang, ASan+UBSan, valgrind): what the fuzzers
 * found stays fixed. Usage: fuzz-replay DIR (tests/fuzz). */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "targets.h"

static unsigned replay_dir(const fuzz_target *t, const char *dir)
{
        GDir *d = g_dir_open(dir, 0, NULL);
        if (!d)
                return 0;
        unsigned n = 0;
        const char *name;
        while ((name = g_dir_read_name(d))) {
                g_autofree char *path = g_build_filename(dir, name, NULL);
                char *data;
                gsize len;
                if (!g_file_get_contents(path, &data, &len, NULL))
                        continue;
                /* The input as libFuzzer hands it over: up to its first NUL. */
                t->run(data, strlen(data));
                g_free(data);
                n++;
        }
        g_dir_close(d);
        return n;
}

int main(int argc, char **argv)
{
        if (argc != 2) {
                fprintf(stderr, "usage: fuzz-replay DIR\n");
                return 2;
        }
        unsigned total = 0, missing = 0;
        for (size_t i = 0; i < n_fuzz_targets; i++) {
                const fuzz_target *t = &fuzz_targets[i];
                g_autofree char *corpus = g_build_filename(argv[1], "corpus", t->name, NULL);
                g_autofree char *regressions = g_build_filename(argv[1], "regressions", t->name, NULL);
                unsigned n = replay_dir(t, corpus), r = replay_dir(t, regressions);
                printf("%-18s %4u corpus, %3u regression inputs\n", t->name, n, r);
                if (n == 0) {
                        fprintf(stderr, "fuzz-replay: %s has no corpus\n", t->name);
                        missing++;
                }
                total += n + r;
        }
        printf("%u inputs through %zu targets\n", total, n_fuzz_targets);
        return missing ? 1 : 0;
}
