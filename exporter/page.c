#include "page.h"

#include <time.h>
#include <zlib.h>

#include "dcgm.h"

/* One immutable page: a sample (NULL when jetsond is gone) and the board,
 * with its bodies rendered on first demand. Reference-counted because a
 * scrape may still send it after the main thread replaced it. */
typedef struct {
        gint refs;
        exp_sample *sample;
        exp_board board;
        uint64_t arrived_usec; /* CLOCK_MONOTONIC */
        GMutex lock;           /* guards bodies */
        GBytes *bodies[3][2];  /* [body: /metrics' two formats, /metrics/dcgm][gzip] */
} page;

struct page_store {
        GMutex lock; /* guards current and the fields below */
        page *current;
        page *down; /* the jetson_up 0 page, for stale samples */
        exp_board board;
        uint64_t stale_after_usec;
};

uint64_t page_now_usec(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static page *page_new(exp_sample *sample, const exp_board *board)
{
        page *p = g_new0(page, 1);
        p->refs = 1;
        p->sample = sample;
        exp_board_copy(&p->board, board);
        p->arrived_usec = page_now_usec();
        g_mutex_init(&p->lock);
        return p;
}

static page *page_ref(page *p)
{
        g_atomic_int_inc(&p->refs);
        return p;
}

static void page_unref(page *p)
{
        if (!p || !g_atomic_int_dec_and_test(&p->refs))
                return;
        exp_sample_unref(p->sample);
        exp_board_clear(&p->board);
        for (int f = 0; f < 3; f++)
                for (int z = 0; z < 2; z++)
                        if (p->bodies[f][z])
                                g_bytes_unref(p->bodies[f][z]);
        g_mutex_clear(&p->lock);
        g_free(p);
}

GBytes *page_gzip(const void *data, size_t len)
{
        z_stream z = { 0 };
        /* windowBits 15 + 16: a gzip header and trailer, not zlib's. */
        if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
                return NULL;
        uLong bound = deflateBound(&z, (uLong)len);
        guint8 *out = g_malloc(bound);
        z.next_in = (Bytef *)data;
        z.avail_in = (uInt)len;
        z.next_out = out;
        z.avail_out = (uInt)bound;
        int r = deflate(&z, Z_FINISH);
        size_t produced = z.total_out;
        deflateEnd(&z);
        if (r != Z_STREAM_END) {
                g_free(out);
                return NULL;
        }
        return g_bytes_new_take(g_realloc(out, produced), produced);
}

/* Which body: /metrics in either format, or /metrics/dcgm (one format,
 * dcgm-exporter's). */
static int body_index(page_kind kind, exp_format format)
{
        return kind == PAGE_DCGM ? 2 : format == EXP_FORMAT_OPENMETRICS;
}

static GString *render(page *p, page_kind kind, exp_format format)
{
        if (kind == PAGE_DCGM)
                return dcgm_render(p->sample, &p->board);
        return exp_render(p->sample, p->board.model ? &p->board : NULL, format);
}

static GBytes *page_body(page *p, page_kind kind, exp_format format, bool *gzip)
{
        g_mutex_lock(&p->lock);
        int b = body_index(kind, format);
        GBytes **slot = &p->bodies[b][*gzip];
        if (!*slot) {
                GBytes *plain = p->bodies[b][0];
                if (!plain) {
                        plain = g_string_free_to_bytes(render(p, kind, format));
                        p->bodies[b][0] = plain;
                }
                if (*gzip) {
                        gsize len;
                        const void *data = g_bytes_get_data(plain, &len);
                        *slot = page_gzip(data, len);
                        if (!*slot) { /* zlib out of memory: send it plain */
                                *gzip = false;
                                slot = &p->bodies[b][0];
                        }
                }
        }
        GBytes *body = g_bytes_ref(*slot);
        g_mutex_unlock(&p->lock);
        return body;
}

page_store *page_store_new(void)
{
        page_store *store = g_new0(page_store, 1);
        g_mutex_init(&store->lock);
        store->board.default_mode = -1;
        store->current = page_new(NULL, &store->board);
        store->down = page_new(NULL, &store->board);
        store->stale_after_usec = 4 * G_USEC_PER_SEC;
        return store;
}

void page_store_free(page_store *store)
{
        if (!store)
                return;
        page_unref(store->current);
        page_unref(store->down);
        exp_board_clear(&store->board);
        g_mutex_clear(&store->lock);
        g_free(store);
}

/* Makes SAMPLE (taken over) the current page; under store->lock. */
static void replace_locked(page_store *store, exp_sample *sample)
{
        page *old = store->current;
        store->current = page_new(sample, &store->board);
        page_unref(old);
}

void page_store_set_sample(page_store *store, exp_sample *sample)
{
        g_mutex_lock(&store->lock);
        replace_locked(store, sample);
        g_mutex_unlock(&store->lock);
}

void page_store_set_board(page_store *store, const exp_board *board)
{
        g_mutex_lock(&store->lock);
        exp_board_clear(&store->board);
        exp_board_copy(&store->board, board);
        if (store->current->sample) {
                /* The same readings on a new page; their own arrival time,
                 * so a board change never makes an old sample look fresh. */
                uint64_t arrived = store->current->arrived_usec;
                replace_locked(store, exp_sample_ref(store->current->sample));
                store->current->arrived_usec = arrived;
        }
        g_mutex_unlock(&store->lock);
}

void page_store_set_down(page_store *store)
{
        g_mutex_lock(&store->lock);
        page *old = store->current;
        store->current = page_ref(store->down);
        page_unref(old);
        g_mutex_unlock(&store->lock);
}

void page_store_set_stale_after(page_store *store, uint64_t usec)
{
        g_mutex_lock(&store->lock);
        store->stale_after_usec = usec;
        g_mutex_unlock(&store->lock);
}

GBytes *page_store_get(page_store *store, page_kind kind, exp_format format, bool *gzip)
{
        g_mutex_lock(&store->lock);
        page *p = store->current;
        if (p->sample && page_now_usec() - p->arrived_usec > store->stale_after_usec)
                p = store->down;
        page_ref(p);
        g_mutex_unlock(&store->lock);
        GBytes *body = page_body(p, kind, format, gzip);
        page_unref(p);
        return body;
}
