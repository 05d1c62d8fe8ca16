#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The pipe holds about a second of 1 kHz records of ~100 columns, so a
 * reader that is briefly descheduled loses nothing. */
#define PIPE_BYTES (1024 * 1024)
/* Records go out in batches: a write (and a reader wake-up) per record
 * at 1 kHz cost more than reading the fast tier's files. A batch leaves
 * once the last one is this old or this big, so at intervals of 10 ms
 * and more every record leaves at once. */
#define FLUSH_NS 10000000u
#define FLUSH_BYTES (32 * 1024)
#define BUFFER_BYTES (64 * 1024)

struct jd_capture {
        int fd;                   /* write end, non-blocking */
        bool ended;
        uint64_t interval_us, next_due_us;
        size_t n;
        GHashTable *column_of;    /* name -> column + 1 */
        /* Per source: the layout its value->column map was built for. */
        uint64_t layout[JD_CAPTURE_SOURCES];
        int *map[JD_CAPTURE_SOURCES];
        size_t map_len[JD_CAPTURE_SOURCES];
        uint64_t dropped, dropped_total;
        /* Due ticks the engine did not make since the last record, and
         * the column that reports them (-1: not asked for). */
        uint64_t missed;
        int missed_column;
        uint64_t last_at;         /* when the last record stands for, µs */
        /* Per source: the reading taken last (seq, time; taken false
         * when none or stale), when the next is due (0: any new one)
         * and the column of its time (-1: not asked for). */
        uint64_t period_ns[JD_CAPTURE_SOURCES], next_take_ns[JD_CAPTURE_SOURCES];
        uint64_t taken_seq[JD_CAPTURE_SOURCES], taken_ns[JD_CAPTURE_SOURCES];
        bool taken[JD_CAPTURE_SOURCES];
        int time_column[JD_CAPTURE_SOURCES];
        /* The values of the readings taken, and the source each column's
         * came from (-1: none yet). */
        double *held;
        signed char *held_source;
        bool records_taken;
        size_t record_size;
        /* Whole records (and first the header) not in the pipe yet, in
         * stream order; the pipe may take a part of them, the rest stays. */
        unsigned char *buf;
        size_t buf_len, buf_cap;
        uint64_t last_flush_ns;
};

typedef struct __attribute__((packed)) {
        char magic[8];
        uint32_t version;
        uint32_t header_size;
        uint32_t columns;
        uint32_t record_size;
        uint64_t interval_ns;
        int64_t realtime_offset_ns;
} header;

static int64_t clock_ns(clockid_t id)
{
        struct timespec ts;
        clock_gettime(id, &ts);
        return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The header, with the names after it and zero padding to 8 bytes. */
static unsigned char *build_header(const jd_capture *c, const char *const *columns, size_t *len)
{
        size_t names = 0;
        for (size_t i = 0; i < c->n; i++)
                names += strlen(columns[i]) + 1;
        size_t size = (sizeof(header) + names + 7) & ~(size_t) 7;
        unsigned char *buf = calloc(1, size);
        if (!buf)
                return NULL;
        header h = { .version = JD_CAPTURE_VERSION, .header_size = (uint32_t) size, .columns = (uint32_t) c->n,
                     .record_size = (uint32_t) c->record_size, .interval_ns = c->interval_us * 1000u,
                     .realtime_offset_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC) };
        memcpy(h.magic, JD_CAPTURE_MAGIC, sizeof(h.magic));
        memcpy(buf, &h, sizeof(h));
        size_t off = sizeof(h);
        for (size_t i = 0; i < c->n; i++) {
                size_t l = strlen(columns[i]) + 1;
                memcpy(buf + off, columns[i], l);
                off += l;
        }
        *len = size;
        return buf;
}

/* Writes what the buffer holds, as much as the pipe takes; true if the
 * buffer is empty after. */
static bool flush(jd_capture *c)
{
        size_t off = 0;
        while (off < c->buf_len) {
                ssize_t w = write(c->fd, c->buf + off, c->buf_len - off);
                if (w < 0 && errno == EINTR)
                        continue;
                if (w < 0) {
                        if (errno != EAGAIN)
                                c->ended = true; /* EPIPE: the reader closed its end */
                        break;
                }
                off += (size_t) w;
        }
        memmove(c->buf, c->buf + off, c->buf_len - off);
        c->buf_len -= off;
        return c->buf_len == 0;
}

bool jd_capture_has_column(const jd_capture *c, const char *pattern)
{
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, c->column_of);
        while (g_hash_table_iter_next(&it, &key, NULL))
                if (g_pattern_match_simple(pattern, key))
                        return true;
        return false;
}

/* The source whose time column NAME is, or -1. */
static int time_source(const char *name)
{
        size_t prefix = strlen(JD_CAPTURE_TIME_COLUMN_PREFIX);
        if (strncmp(name, JD_CAPTURE_TIME_COLUMN_PREFIX, prefix) != 0)
                return -1;
        const char *tier = name + prefix;
        if (strcmp(tier, "medium") == 0)
                return JD_CAPTURE_SOURCE_MEDIUM;
        if (strcmp(tier, "slow") == 0)
                return JD_CAPTURE_SOURCE_SLOW;
        char *end;
        if (strncmp(tier, "dgpu.", 5) != 0 || !g_ascii_isdigit(tier[5]))
                return -1;
        unsigned long gpu = strtoul(tier + 5, &end, 10);
        return *end || gpu >= JD_MAX_DGPUS ? -1 : (int) (JD_CAPTURE_TIER_SOURCES + gpu);
}

jd_capture *jd_capture_new(uint64_t interval_us, uint64_t first_due_us, const char *const *columns, size_t n,
                           int *read_fd)
{
        return jd_capture_new_named(interval_us, first_due_us, columns, NULL, n, read_fd);
}

jd_capture *jd_capture_new_named(uint64_t interval_us, uint64_t first_due_us, const char *const *columns,
                                 const char *const *names, size_t n, int *read_fd)
{
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) < 0)
                return NULL;
        jd_capture *c = calloc(1, sizeof(*c));
        if (!c) {
                close(fds[0]);
                close(fds[1]);
                errno = ENOMEM;
                return NULL;
        }
        c->fd = fds[1];
        c->interval_us = interval_us;
        c->next_due_us = first_due_us;
        c->n = n;
        c->record_size = 16 + 8 * n;
        c->column_of = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        c->missed_column = -1;
        for (size_t s = 0; s < JD_CAPTURE_SOURCES; s++) {
                c->layout[s] = UINT64_MAX;
                c->time_column[s] = -1;
        }
        for (size_t i = 0; i < n; i++) {
                int source = time_source(columns[i]);
                /* Neither is a sample key: only set below. */
                if (strcmp(columns[i], JD_CAPTURE_MISSED_COLUMN) == 0)
                        c->missed_column = (int) i;
                else if (source >= 0)
                        c->time_column[source] = (int) i;
                else
                        g_hash_table_insert(c->column_of, g_strdup(columns[i]), GSIZE_TO_POINTER(i + 1));
        }
        c->held = malloc((n ? n : 1) * sizeof(double));
        c->held_source = malloc(n ? n : 1);
        for (size_t i = 0; c->held && c->held_source && i < n; i++) {
                c->held[i] = NAN;
                c->held_source[i] = -1;
        }
        size_t header_len = 0;
        unsigned char *hdr = build_header(c, names ? names : columns, &header_len);
        c->buf_cap = BUFFER_BYTES;
        if (c->buf_cap < header_len + 4 * c->record_size)
                c->buf_cap = header_len + 4 * c->record_size;
        c->buf = malloc(c->buf_cap);
        if (!hdr || !c->buf || !c->held || !c->held_source || fcntl(c->fd, F_SETFL, O_NONBLOCK) < 0) {
                free(hdr);
                close(fds[0]);
                jd_capture_free(c);
                errno = ENOMEM;
                return NULL;
        }
        /* Best effort: a smaller pipe only means drops come sooner. */
        fcntl(c->fd, F_SETPIPE_SZ, PIPE_BYTES);
        memcpy(c->buf, hdr, header_len);
        c->buf_len = header_len;
        flush(c);
        free(hdr);
        *read_fd = fds[0];
        return c;
}

void jd_capture_free(jd_capture *c)
{
        if (!c)
                return;
        if (c->fd >= 0)
                close(c->fd);
        for (size_t s = 0; s < JD_CAPTURE_SOURCES; s++)
                free(c->map[s]);
        if (c->column_of)
                g_hash_table_unref(c->column_of);
        free(c->buf);
        free(c->held);
        free(c->held_source);
        free(c);
}

void jd_capture_set_tier_intervals(jd_capture *c, uint64_t medium_us, uint64_t slow_us)
{
        c->period_ns[JD_CAPTURE_SOURCE_MEDIUM] = medium_us * 1000u;
        c->period_ns[JD_CAPTURE_SOURCE_SLOW] = slow_us * 1000u;
        /* The GPUs are read at the medium tier's period (engine.c). */
        for (size_t s = JD_CAPTURE_TIER_SOURCES; s < JD_CAPTURE_SOURCES; s++)
                c->period_ns[s] = medium_us * 1000u;
}

uint64_t jd_capture_interval(const jd_capture *c)
{
        return c->interval_us;
}

bool jd_capture_take_due(jd_capture *c, uint64_t deadline_us, uint64_t started_us)
{
        uint64_t half = c->interval_us / 2;
        /* Half a tick of slack: the fast tier's ticks jitter either way. */
        if (c->ended || deadline_us + half < c->next_due_us)
                return false;
        c->next_due_us += c->interval_us;
        if (c->next_due_us <= deadline_us)
                c->next_due_us = deadline_us + c->interval_us; /* after a stall: no burst */
        /* Missed ticks are counted from when each record was read, not
         * from which tick took it (that stays as it was): its deadline, or
         * for a reading that started more than half a tick after it (the
         * thread was held up; after a stall the deadline is the one it
         * missed) half a tick before it started. Whole intervals between
         * that and the record before, beyond the one, had no record. */
        uint64_t at = started_us > deadline_us + half ? started_us - half : deadline_us;
        if (c->records_taken && at > c->last_at) {
                uint64_t ticks = (at - c->last_at + half) / c->interval_us;
                if (ticks > 1)
                        c->missed += ticks - 1;
        }
        if (!c->records_taken || at > c->last_at)
                c->last_at = at;
        c->records_taken = true;
        return true;
}

/* Rebuilt when a source's layout changes: value index -> column. */
static void remap(jd_capture *c, size_t s, const jd_values *v)
{
        if (c->map_len[s] < v->n) {
                int *m = realloc(c->map[s], v->n * sizeof(int));
                if (!m) {
                        c->map_len[s] = 0;
                        return;
                }
                c->map[s] = m;
                c->map_len[s] = v->n;
        }
        for (size_t i = 0; i < v->n; i++)
                c->map[s][i] = (int) GPOINTER_TO_SIZE(g_hash_table_lookup(c->column_of, v->items[i].key)) - 1;
        c->layout[s] = v->layout;
}

/* Is SRC's reading one for the capture to take? A new one, once the
 * capture's period for it has passed. The due times keep to a grid, with
 * half the engine's period of slack (half the capture's if shorter): the
 * tier's own ticks jitter either way, and a reading a whole engine period
 * early is not the one due. A reading taken late does not bring the next
 * one closer: two taken readings are always a period apart, less the
 * slack, and the grid catches up from there. */
static bool take_now(jd_capture *c, size_t s, const jd_capture_source *src)
{
        if (c->taken[s] && src->seq == c->taken_seq[s])
                return false;
        uint64_t period = c->period_ns[s];
        if (!period || !c->taken[s]) {
                c->next_take_ns[s] = src->time_ns + period;
                return true;
        }
        uint64_t slack = (src->period_us * 1000u < period ? src->period_us * 1000u : period) / 2;
        if (src->time_ns + slack < c->next_take_ns[s] || src->time_ns + slack < c->taken_ns[s] + period)
                return false;
        c->next_take_ns[s] += period;
        if (c->next_take_ns[s] + slack <= src->time_ns)
                c->next_take_ns[s] = src->time_ns + period; /* after a stall: no burst */
        return true;
}

/* Moves the capture's held values of source S on to its latest reading,
 * if it takes it; a stale source's columns become NaN. */
static void hold(jd_capture *c, size_t s, const jd_capture_source *src)
{
        bool fresh = src->values && src->fresh;
        if (fresh && !take_now(c, s, src))
                return;
        if (!fresh && !c->taken[s])
                return; /* NaN already */
        for (size_t i = 0; i < c->n; i++)
                if (c->held_source[i] == (signed char) s) {
                        c->held[i] = NAN;
                        c->held_source[i] = -1;
                }
        c->taken[s] = fresh;
        if (!fresh)
                return;
        c->taken_seq[s] = src->seq;
        c->taken_ns[s] = src->time_ns;
        const jd_values *v = src->values;
        if (v->layout != c->layout[s] || c->map_len[s] < v->n)
                remap(c, s, v);
        size_t n = v->n < c->map_len[s] ? v->n : c->map_len[s];
        for (size_t i = 0; i < n; i++) {
                int col = c->map[s][i];
                if (col >= 0) {
                        c->held[col] = jd_value_as_double(&v->items[i]);
                        c->held_source[col] = (signed char) s;
                }
        }
}

void jd_capture_write(jd_capture *c, uint64_t time_ns, const jd_capture_source sources[JD_CAPTURE_SOURCES])
{
        if (c->ended)
                return;
        /* The readings are taken whether or not the record fits: what a
         * record holds depends on the capture's rates, not on the pipe. */
        for (size_t s = 0; s < JD_CAPTURE_SOURCES; s++)
                hold(c, s, &sources[s]);
        /* No room: the pipe is full and so is the batch. The record is
         * dropped whole and counted in the next one that fits. */
        if (c->buf_len + c->record_size > c->buf_cap && (flush(c), c->buf_len + c->record_size > c->buf_cap)) {
                c->dropped++;
                c->dropped_total++;
                return;
        }
        /* In place: the header and every record are multiples of 8
         * bytes, so the values are aligned. */
        unsigned char *record = c->buf + c->buf_len;
        double *values = (double *) (record + 16);
        memcpy(values, c->held, c->n * sizeof(double));
        for (size_t s = 0; s < JD_CAPTURE_SOURCES; s++)
                if (c->time_column[s] >= 0)
                        values[c->time_column[s]] = c->taken[s] ? (double) c->taken_ns[s] : NAN;
        if (c->missed_column >= 0) {
                values[c->missed_column] = (double) c->missed;
                c->missed = 0;
        }
        memcpy(record, &time_ns, 8);
        memcpy(record + 8, &c->dropped, 8);
        c->buf_len += c->record_size;
        c->dropped = 0;
        if (time_ns >= c->last_flush_ns + FLUSH_NS || c->buf_len >= FLUSH_BYTES) {
                flush(c);
                c->last_flush_ns = time_ns;
        }
}

bool jd_capture_ended(const jd_capture *c)
{
        return c->ended;
}

uint64_t jd_capture_dropped_total(const jd_capture *c)
{
        return c->dropped_total;
}
