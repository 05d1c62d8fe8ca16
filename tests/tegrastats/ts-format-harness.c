/* ts-format-harness: runs client/tegrastats/ts_format.c on samples read
 * from a script on stdin and prints one tegrastats line per sample on
 * stdout (tests/tegrastats/test_formatter_real_lines.py drives it).
 *
 * The script, one directive a line; blank lines and lines starting with
 * '#' are ignored; words are separated by blanks:
 *
 *   gen r36                        the release (ts_gen_parse: r32 r35 r36 r38 r39)
 *   thor 0|1                       ts_board.thor
 *   two_nvjpg 0|1                  ts_board.two_nvjpg
 *   sensor KEY KIND LABEL          one Metrics.Sensors entry, in order
 *   sample USEC                    starts a sample at USEC (µs since the epoch)
 *   KEY VALUE                      inside a sample: one sample value
 *   end                            ends the sample and prints its line
 *
 * The board lines come before the first sample. One ts_stats serves the
 * whole run, so each line's means and maxima include the samples before it.
 * A key absent from a sample reads as NAN. Malformed input: a message on
 * stderr and exit status 2. */
#include "tegrastats/ts_format.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned lineno;

static G_GNUC_NORETURN void G_GNUC_PRINTF(1, 2) malformed(const char *fmt, ...)
{
        va_list ap;
        fprintf(stderr, "ts-format-harness: line %u: ", lineno);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        exit(2);
}

static double number(const char *text)
{
        char *end;
        errno = 0;
        double v = g_ascii_strtod(text, &end);
        if (errno || end == text || *end || !isfinite(v))
                malformed("not a number: '%s'", text);
        return v;
}

static bool flag(const char *text)
{
        if (strcmp(text, "0") != 0 && strcmp(text, "1") != 0)
                malformed("expected 0 or 1, not '%s'", text);
        return text[0] == '1';
}

static double lookup(void *data, const char *key)
{
        double *v = g_hash_table_lookup(data, key);
        return v ? *v : NAN;
}

int main(void)
{
        ts_board board = { .gen = TS_R36, .sensors = g_ptr_array_new_with_free_func(ts_sensor_free) };
        ts_stats *stats = ts_stats_new();
        GHashTable *sample = NULL;      /* key -> double, while inside a sample */
        uint64_t stamp = 0;
        bool sampled = false;
        char text[4096];

        while (fgets(text, sizeof(text), stdin)) {
                lineno++;
                size_t len = strlen(text);
                if (len && text[len - 1] == '\n')
                        text[--len] = '\0';
                else if (!feof(stdin))
                        malformed("line longer than %zu bytes", sizeof(text) - 2);
                g_auto(GStrv) w = g_strsplit_set(g_strstrip(text), " \t", 4);
                guint n = g_strv_length(w);
                if (n == 0 || w[0][0] == '\0' || w[0][0] == '#')
                        continue;
                for (guint i = 0; i < n; i++)
                        if (w[i][0] == '\0')
                                malformed("one blank between words");
                const char *word = w[0];

                if (sample) {
                        if (strcmp(word, "end") == 0 && n == 1) {
                                GString *out = g_string_new(NULL);
                                ts_format_line(out, &board, lookup, sample, stamp, stats);
                                printf("%s\n", out->str);
                                g_string_free(out, TRUE);
                                g_hash_table_unref(sample);
                                sample = NULL;
                        } else if (n == 2 && strcmp(word, "sample") != 0 && strcmp(word, "end") != 0) {
                                if (g_hash_table_contains(sample, word))
                                        malformed("key %s twice in one sample", word);
                                double *v = g_new(double, 1);
                                *v = number(w[1]);
                                g_hash_table_insert(sample, g_strdup(word), v);
                        } else {
                                malformed("inside a sample: 'KEY VALUE' or 'end'");
                        }
                } else if (strcmp(word, "sample") == 0 && n == 2) {
                        char *end;
                        errno = 0;
                        unsigned long long usec = strtoull(w[1], &end, 10);
                        if (errno || end == w[1] || *end || w[1][0] == '-')
                                malformed("not a timestamp in µs: '%s'", w[1]);
                        stamp = usec;
                        sample = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
                        sampled = true;
                } else if (sampled) {
                        malformed("'%s' after the first sample: board lines come first", word);
                } else if (strcmp(word, "gen") == 0 && n == 2) {
                        if (!ts_gen_parse(w[1], &board.gen))
                                malformed("unknown gen '%s'", w[1]);
                } else if (strcmp(word, "thor") == 0 && n == 2) {
                        board.thor = flag(w[1]);
                } else if (strcmp(word, "two_nvjpg") == 0 && n == 2) {
                        board.two_nvjpg = flag(w[1]);
                } else if (strcmp(word, "sensor") == 0 && n == 4) {
                        ts_sensor *s = g_new0(ts_sensor, 1);
                        s->key = g_strdup(w[1]);
                        s->kind = g_strdup(w[2]);
                        s->label = g_strdup(w[3]);
                        g_ptr_array_add(board.sensors, s);
                } else {
                        malformed("unknown or incomplete directive '%s'", word);
                }
        }
        if (ferror(stdin))
                malformed("read error");
        if (sample)
                malformed("end of input inside a sample");

        ts_stats_free(stats);
        g_ptr_array_unref(board.sensors);
        return fflush(stdout) == 0 ? 0 : 1;
}
