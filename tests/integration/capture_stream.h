#pragma once
/* A Metrics.OpenCapture stream as the capture tests read it
 * (introspection/capture.md): the call, the header, the fd. It checks
 * only what every reader relies on; a test checks the rest itself. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

typedef struct {
        int fd;
        uint32_t n, record_size;
        uint32_t header_size;
        uint64_t interval_ns;
        int64_t realtime_offset_ns;
        unsigned char magic[8];
        char *header_names; /* the header's names, NUL-separated */
        char **names;       /* the columns the reply named */
} capture;

/* One option: NAME with a uint64 or, where TYPE is 'u', a uint32. */
typedef struct {
        const char *name;
        char type;
        uint64_t value;
} capture_option;

/* Reads exactly LEN bytes, waiting up to 30 s for each chunk (records come
 * every 10 ms at the slowest a test asks; only a stall is that slow);
 * false on end of file. */
bool capture_read_exactly(int fd, void *buf, size_t len);

/* OpenCaptureWithOptions (OpenCapture where OPTIONS is NULL); the error's
 * name, or "" with *OUT opened past its header, whose version is 1 and
 * whose column count is the reply's. g_free the result. */
char *capture_open_error(sd_bus *bus, uint64_t interval, const char *const *keys, const capture_option *options,
                         capture *out);

/* The index of column NAME; fails the test if there is none. */
int capture_column(const capture *c, const char *name);

void capture_close(capture *c);
