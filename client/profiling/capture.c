#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bus.h"
#include "jetsond-dbus.h"

#define MAGIC "JDCAPTUR"
#define FIXED_HEADER 40
#define HEADER_MAX (1u << 20)

/* Reads exactly N bytes, waiting for them (the header comes at once). */
static int read_exactly(int fd, void *buf, size_t n)
{
        size_t got = 0;
        while (got < n) {
                ssize_t r = read(fd, (char *) buf + got, n - got);
                if (r > 0) {
                        got += (size_t) r;
                } else if (r == 0) {
                        return -EPIPE;
                } else if (errno == EAGAIN) {
                        struct pollfd p = { .fd = fd, .events = POLLIN };
                        if (poll(&p, 1, 5000) == 0)
                                return -ETIMEDOUT;
                } else if (errno != EINTR) {
                        return -errno;
                }
        }
        return 0;
}

static uint32_t u32_at(const unsigned char *p)
{
        uint32_t v;
        memcpy(&v, p, sizeof(v));
        return v;
}

static uint64_t u64_at(const unsigned char *p)
{
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return v;
}

static int read_header(jc_capture *cap)
{
        unsigned char fixed[FIXED_HEADER];
        int r = read_exactly(cap->fd, fixed, sizeof(fixed));
        if (r < 0)
                return r;
        uint32_t version = u32_at(fixed + 8), header_size = u32_at(fixed + 12), n = u32_at(fixed + 16);
        uint32_t record_size = u32_at(fixed + 20);
        if (memcmp(fixed, MAGIC, 8) != 0 || version != 1 || header_size < FIXED_HEADER || header_size > HEADER_MAX ||
            record_size != 16 + 8 * (uint64_t) n)
                return -EPROTO;
        cap->interval_ns = u64_at(fixed + 24);
        cap->realtime_offset_ns = (int64_t) u64_at(fixed + 32);
        cap->record_size = record_size;
        size_t names_len = header_size - FIXED_HEADER;
        g_autofree char *names = g_malloc0(names_len + 1);
        r = read_exactly(cap->fd, names, names_len);
        if (r < 0)
                return r;
        cap->columns = g_new0(char *, n + 1);
        cap->missed_column = -1;
        const char *p = names, *end = names + names_len;
        size_t kept = 0;
        for (uint32_t i = 0; i < n; i++) {
                if (p >= end)
                        return -EPROTO;
                if (strcmp(p, JD_CAPTURE_MISSED_TICKS) == 0 && cap->missed_column < 0)
                        cap->missed_column = (long) i;
                else
                        cap->columns[kept++] = g_strdup(p);
                p += strlen(p) + 1;
        }
        cap->n_columns = kept;
        cap->buf = g_malloc(cap->record_size);
        cap->values = g_new0(double, n ? n : 1);
        return 0;
}

/* OpenCapture(INTERVAL_US, KEYS) with the columns of EXTRA (NULL
 * terminated) asked for too; OpenCaptureWithOptions where MEDIUM_US or
 * SLOW_US is set. */
static int call_open_capture(jc_ctx *c, uint64_t interval_us, uint64_t medium_us, uint64_t slow_us, char **keys,
                             const char *const *extra, sd_bus_error *error, sd_bus_message **reply)
{
        g_autoptr(GPtrArray) asked = g_ptr_array_new();
        if ((!keys || !keys[0]) && extra[0])
                g_ptr_array_add(asked, (gpointer) "*"); /* every numeric key, as an empty list means */
        for (char **k = keys; k && *k; k++)
                g_ptr_array_add(asked, *k);
        for (const char *const *k = extra; *k; k++)
                g_ptr_array_add(asked, (gpointer) *k);
        g_ptr_array_add(asked, NULL);
        bool options = medium_us || slow_us;
        sd_bus_message *m = NULL;
        int r = sd_bus_message_new_method_call(c->bus, &m, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS,
                                               options ? "OpenCaptureWithOptions" : "OpenCapture");
        if (r >= 0)
                r = sd_bus_message_append_basic(m, 't', &interval_us);
        if (r >= 0)
                r = sd_bus_message_append_strv(m, (char **) asked->pdata);
        if (r >= 0 && options) {
                r = sd_bus_message_open_container(m, 'a', "{sv}");
                if (r >= 0 && medium_us)
                        r = sd_bus_message_append(m, "{sv}", JD_CAPTURE_OPTION_MEDIUM, "t", medium_us);
                if (r >= 0 && slow_us)
                        r = sd_bus_message_append(m, "{sv}", JD_CAPTURE_OPTION_SLOW, "t", slow_us);
                if (r >= 0)
                        r = sd_bus_message_close_container(m);
        }
        if (r >= 0)
                r = sd_bus_call(c->bus, m, 0, error, reply);
        sd_bus_message_unref(m);
        return r;
}

int jc_capture_open(jc_ctx *c, uint64_t interval_us, uint64_t medium_us, uint64_t slow_us, char **keys,
                    jc_capture *cap)
{
        memset(cap, 0, sizeof(*cap));
        cap->fd = -1;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        /* A jetsond from before capture.tier_times, or before
         * capture.missed_ticks too, refuses the name: the capture without
         * it (the error for the keys, if any, is then the one to report). */
        static const char *const extras[][3] = {
                { JD_CAPTURE_MISSED_TICKS, JD_CAPTURE_TIER_TIMES, NULL },
                { JD_CAPTURE_MISSED_TICKS, NULL },
                { NULL },
        };
        int r = -EINVAL;
        for (size_t i = 0; i < G_N_ELEMENTS(extras); i++) {
                sd_bus_error_free(&error);
                r = call_open_capture(c, interval_us, medium_us, slow_us, keys, extras[i], &error, &reply);
                if (r >= 0 || !sd_bus_error_has_name(&error, SD_BUS_ERROR_INVALID_ARGS))
                        break;
        }
        if (r < 0 && sd_bus_error_has_name(&error, SD_BUS_ERROR_UNKNOWN_METHOD)) {
                fprintf(stderr, "jetsonctl: this jetsond cannot take tier rates of a capture's own "
                                "(OpenCaptureWithOptions): leave out --medium and --slow, or update jetsond\n");
                sd_bus_error_free(&error);
                return JC_EXIT_FAILURE;
        }
        int fd = -1;
        if (r >= 0)
                r = sd_bus_message_read_basic(reply, 'h', &fd);
        if (r >= 0 && (cap->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
                r = -errno;
        sd_bus_message_unref(reply);
        if (r < 0) {
                int ret = jc_report_error("opening a capture", &error, r, NULL, NULL);
                sd_bus_error_free(&error);
                return ret;
        }
        if (fcntl(cap->fd, F_SETFL, O_NONBLOCK) < 0 || (r = read_header(cap)) < 0) {
                fprintf(stderr, "jetsonctl: reading the capture stream's header: %s\n",
                        strerror(r == -EPROTO ? EPROTO : -r));
                jc_capture_close(cap);
                return JC_EXIT_FAILURE;
        }
        return JC_EXIT_OK;
}

static void take_record(jc_capture *cap, const unsigned char *rec, jc_record_fn fn, void *data)
{
        uint64_t time_ns = u64_at(rec), dropped = u64_at(rec + 8);
        cap->dropped += dropped;
        /* The values are 8-aligned in the stream, not always here. */
        if (cap->missed_column < 0) {
                memcpy(cap->values, rec + 16, 8 * cap->n_columns);
        } else {
                size_t at = (size_t) cap->missed_column;
                double missed;
                memcpy(cap->values, rec + 16, 8 * at);
                memcpy(&missed, rec + 16 + 8 * at, 8);
                memcpy(cap->values + at, rec + 16 + 8 * (at + 1), 8 * (cap->n_columns - at));
                if (missed > 0)
                        cap->missed += (uint64_t) missed;
        }
        fn(data, time_ns, cap->values);
}

int jc_capture_read(jc_capture *cap, jc_record_fn fn, void *data)
{
        unsigned char chunk[65536];
        for (;;) {
                ssize_t n = read(cap->fd, chunk, sizeof(chunk));
                if (n == 0)
                        return 0;
                if (n < 0)
                        return errno == EAGAIN ? 1 : errno == EINTR ? 1 : -errno;
                const unsigned char *p = chunk, *end = chunk + n;
                if (cap->buf_len) {
                        size_t need = cap->record_size - cap->buf_len;
                        size_t take = (size_t) (end - p) < need ? (size_t) (end - p) : need;
                        memcpy(cap->buf + cap->buf_len, p, take);
                        cap->buf_len += take;
                        p += take;
                        if (cap->buf_len < cap->record_size)
                                continue;
                        take_record(cap, cap->buf, fn, data);
                        cap->buf_len = 0;
                }
                for (; (size_t) (end - p) >= cap->record_size; p += cap->record_size)
                        take_record(cap, p, fn, data);
                memcpy(cap->buf, p, (size_t) (end - p));
                cap->buf_len = (size_t) (end - p);
        }
}

void jc_capture_close(jc_capture *cap)
{
        if (cap->fd >= 0)
                close(cap->fd);
        cap->fd = -1;
        g_strfreev(cap->columns);
        cap->columns = NULL;
        g_free(cap->buf);
        cap->buf = NULL;
        g_free(cap->values);
        cap->values = NULL;
}
