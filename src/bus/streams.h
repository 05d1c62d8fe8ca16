/* Which signals of the Metrics sample streams are due on a sampling tick:
 * Sample every DefaultInterval for every listener, and one SampleAt or
 * ValuesAt stream per distinct subscribed period, shared by all its
 * subscribers (introspection/org.jetsond.Jetson1.Metrics.xml). The board
 * is read every Interval, the smallest period of all; each stream goes out
 * on the tick nearest its own due time and then advances by its period
 * from that due time, not from the tick, so a stream slower than the ticks
 * keeps its mean period. Pure bookkeeping: no D-Bus, no clock. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum {
        JD_STREAM_SAMPLE,       /* Sample, every DefaultInterval: always there */
        JD_STREAM_SAMPLE_AT,    /* SampleAt, for Subscribe() requests */
        JD_STREAM_VALUES_AT,    /* ValuesAt, for SubscribeValues() requests */
} jd_stream_kind;

typedef struct {
        jd_stream_kind kind;
        uint64_t period_us;
        unsigned subscribers;   /* requests for it; the Sample stream has none */
        uint64_t due_us;        /* CLOCK_MONOTONIC; 0: on the next tick */
        char arg0[24];          /* the period in decimal: what match rules compare */
} jd_stream;

typedef struct {
        GArray *streams;        /* jd_stream; the Sample stream first */
} jd_streams;

void jd_streams_init(jd_streams *s, uint64_t default_interval_us);
void jd_streams_clear(jd_streams *s);
/* A request for KIND (SAMPLE_AT or VALUES_AT) at PERIOD_US comes or goes. */
void jd_streams_add(jd_streams *s, jd_stream_kind kind, uint64_t period_us);
void jd_streams_remove(jd_streams *s, jd_stream_kind kind, uint64_t period_us);
/* The smallest period of all streams: the sampling period. */
uint64_t jd_streams_fastest(const jd_streams *s);
/* Calls EMIT for each stream due at NOW_US with ticks TICK_US apart (due
 * no later than half a tick from now), and advances it; with ALL (a
 * reading jetsond asked for after a change), every stream, none advanced. */
void jd_streams_emit_due(jd_streams *s, uint64_t now_us, uint64_t tick_us, bool all,
                         void (*emit)(const jd_stream *stream, void *data), void *data);
