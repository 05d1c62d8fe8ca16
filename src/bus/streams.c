#include "streams.h"

#include <inttypes.h>
#include <stdio.h>

static jd_stream *find(jd_streams *s, jd_stream_kind kind, uint64_t period_us, guint *index)
{
        for (guint i = 0; i < s->streams->len; i++) {
                jd_stream *st = &g_array_index(s->streams, jd_stream, i);
                if (st->kind == kind && st->period_us == period_us) {
                        if (index)
                                *index = i;
                        return st;
                }
        }
        return NULL;
}

static jd_stream stream_of(jd_stream_kind kind, uint64_t period_us)
{
        jd_stream st = { .kind = kind, .period_us = period_us };
        snprintf(st.arg0, sizeof(st.arg0), "%" PRIu64, period_us);
        return st;
}

void jd_streams_init(jd_streams *s, uint64_t default_interval_us)
{
        s->streams = g_array_new(FALSE, FALSE, sizeof(jd_stream));
        jd_stream sample = stream_of(JD_STREAM_SAMPLE, default_interval_us);
        g_array_append_val(s->streams, sample);
}

void jd_streams_clear(jd_streams *s)
{
        g_clear_pointer(&s->streams, g_array_unref);
}

void jd_streams_add(jd_streams *s, jd_stream_kind kind, uint64_t period_us)
{
        g_return_if_fail(kind != JD_STREAM_SAMPLE);
        jd_stream *st = find(s, kind, period_us, NULL);
        if (!st) {
                jd_stream fresh = stream_of(kind, period_us);
                g_array_append_val(s->streams, fresh);
                st = &g_array_index(s->streams, jd_stream, s->streams->len - 1);
        }
        st->subscribers++;
}

void jd_streams_remove(jd_streams *s, jd_stream_kind kind, uint64_t period_us)
{
        guint i;
        jd_stream *st = find(s, kind, period_us, &i);
        g_return_if_fail(st && kind != JD_STREAM_SAMPLE);
        if (--st->subscribers == 0)
                g_array_remove_index(s->streams, i);
}

uint64_t jd_streams_fastest(const jd_streams *s)
{
        uint64_t fastest = UINT64_MAX;
        for (guint i = 0; i < s->streams->len; i++)
                fastest = MIN(fastest, g_array_index(s->streams, jd_stream, i).period_us);
        return fastest;
}

void jd_streams_emit_due(jd_streams *s, uint64_t now_us, uint64_t tick_us, bool all,
                         void (*emit)(const jd_stream *stream, void *data), void *data)
{
        for (guint i = 0; i < s->streams->len; i++) {
                jd_stream *st = &g_array_index(s->streams, jd_stream, i);
                if (all) {
                        emit(st, data);
                        continue;
                }
                if (st->due_us > now_us + tick_us / 2)
                        continue;
                emit(st, data);
                /* Behind by a whole period (a stalled tier, a new stream):
                 * the next one a period from now, not a burst to catch up. */
                st->due_us = st->due_us + st->period_us > now_us + tick_us / 2 ? st->due_us + st->period_us
                                                                                 : now_us + st->period_us;
        }
}
