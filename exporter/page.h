/* What /metrics answers, shared between the D-Bus side (main thread,
 * which replaces it when a sample arrives or jetsond leaves) and the HTTP
 * threads (which only read it). A scrape takes the current page under a
 * short lock and never waits for anything else: bodies are rendered and
 * compressed at most once per sample and format, then shared. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "exposition.h"

typedef struct page_store page_store;

page_store *page_store_new(void);
void page_store_free(page_store *store);

/* A new sample (taken over) becomes the page, with the board last set. */
void page_store_set_sample(page_store *store, exp_sample *sample);
/* New board properties (copied); the current sample stays. */
void page_store_set_board(page_store *store, const exp_board *board);
/* jetsond left the bus: jetson_up 0 until the next sample. */
void page_store_set_down(page_store *store);
/* A sample older than this (CLOCK_MONOTONIC, from its arrival) is no
 * longer shown as live: the page says jetson_up 0. */
void page_store_set_stale_after(page_store *store, uint64_t usec);

typedef enum {
        PAGE_METRICS, /* /metrics: the jetson_* families, in FORMAT */
        PAGE_DCGM,    /* /metrics/dcgm: dcgm-exporter's series, its own format */
} page_kind;

/* The body of KIND for one scrape (a new reference): FORMAT, gzip-compressed
 * if *GZIP (set to false if compression failed). Never NULL. */
GBytes *page_store_get(page_store *store, page_kind kind, exp_format format, bool *gzip);

/* CLOCK_MONOTONIC now, in µs: the clock of arrival and staleness. */
uint64_t page_now_usec(void);

/* gzip (RFC 1952) of DATA; NULL only if zlib fails. */
GBytes *page_gzip(const void *data, size_t len);
