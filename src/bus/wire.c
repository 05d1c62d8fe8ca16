#include "wire.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* The kernel hands a Unix stream write to the peer in pieces of about
 * 32 KiB + a page at least (and half the send buffer at most): a message
 * up to this size is written whole or not at all. */
#define ATOMIC_WRITE_MAX (32u * 1024u)

unsigned long jd_wire_partial_writes;

/* Appends to a GByteArray through a length of its own: the array grows
 * in steps (to twice its size), not for every field, so a sample of 200
 * keys is a few hundred stores. finish() sets the array's length. */
typedef struct {
        GByteArray *b;
        size_t len;
} writer;

static writer start(GByteArray *b)
{
        return (writer) { .b = b, .len = 0 };
}

static guint8 *room(writer *w, size_t n)
{
        if (w->len + n > w->b->len)
                g_byte_array_set_size(w->b, (guint) MAX(w->len + n, 2 * (size_t) w->b->len + 256));
        guint8 *at = w->b->data + w->len;
        w->len += n;
        return at;
}

static void finish(writer *w)
{
        g_byte_array_set_size(w->b, (guint) w->len);
}

static void pad(writer *w, size_t alignment)
{
        size_t rem = w->len % alignment;
        if (rem)
                memset(room(w, alignment - rem), 0, alignment - rem);
}

static void put_u32(writer *w, uint32_t v)
{
        pad(w, 4);
        memcpy(room(w, 4), &v, 4);
}

static void put_u64(writer *w, uint64_t v)
{
        pad(w, 8);
        memcpy(room(w, 8), &v, 8);
}

static void put_string(writer *w, const char *s)
{
        size_t len = strlen(s);
        put_u32(w, (uint32_t) len);
        memcpy(room(w, len + 1), s, len + 1);
}

static void put_signature(writer *w, const char *sig)
{
        size_t len = strlen(sig);
        guint8 *at = room(w, len + 2);
        at[0] = (guint8) len;
        memcpy(at + 1, sig, len + 1);
}

/* Arrays: the length, then padding to the elements' alignment, which the
 * length does not count. Returns where the length is, for end_array(). */
static size_t begin_array(writer *w, size_t element_alignment)
{
        put_u32(w, 0);
        size_t at = w->len - 4;
        pad(w, element_alignment);
        return at;
}

static void end_array(writer *w, size_t at, size_t element_alignment)
{
        size_t first = (at + 4 + element_alignment - 1) / element_alignment * element_alignment;
        uint32_t len = (uint32_t) (w->len - first);
        memcpy(w->b->data + at, &len, 4);
}

static void put_value(writer *b, const jd_value *v)
{
        pad(b, 8);                    /* dict entry */
        put_string(b, v->key);
        char sig[2] = { (char) v->type, 0 };
        put_signature(b, sig);
        switch (v->type) {
        case JD_VALUE_BOOL:
                put_u32(b, v->b ? 1 : 0);
                break;
        case JD_VALUE_U32:
                put_u32(b, v->u);
                break;
        case JD_VALUE_I32:
                put_u32(b, (uint32_t) v->i);
                break;
        case JD_VALUE_U64:
                put_u64(b, v->t);
                break;
        case JD_VALUE_DOUBLE: {
                uint64_t bits;
                memcpy(&bits, &v->d, 8);
                put_u64(b, bits);
                break;
        }
        case JD_VALUE_STRING:
                put_string(b, v->s);
                break;
        }
}

void jd_wire_sample_body(GByteArray *body, uint64_t timestamp_us, const jd_values *const *lists, size_t n_lists)
{
        writer w = start(body);
        put_u64(&w, timestamp_us);
        size_t at = begin_array(&w, 8);
        for (size_t l = 0; l < n_lists; l++)
                for (size_t i = 0; i < lists[l]->n; i++)
                        put_value(&w, &lists[l]->items[i]);
        end_array(&w, at, 8);
        finish(&w);
}

void jd_wire_compact_body(GByteArray *body, uint64_t timestamp_us, uint32_t generation, const double *values,
                          size_t n)
{
        writer w = start(body);
        put_u64(&w, timestamp_us);
        put_u32(&w, generation);
        size_t at = begin_array(&w, 8);
        if (n)
                memcpy(room(&w, n * sizeof(double)), values, n * sizeof(double));
        end_array(&w, at, 8);
        finish(&w);
}

enum { FIELD_PATH = 1, FIELD_INTERFACE = 2, FIELD_MEMBER = 3, FIELD_REPLY_SERIAL = 5, FIELD_DESTINATION = 6,
       FIELD_SIGNATURE = 8 };

static void put_field(writer *b, guint8 code, const char *type, const char *s, uint32_t u)
{
        pad(b, 8);
        *room(b, 1) = code;
        put_signature(b, type);
        if (type[0] == 'u')
                put_u32(b, u);
        else if (type[0] == 'g')
                put_signature(b, s);
        else
                put_string(b, s);
}

void jd_wire_header(GByteArray *out, uint32_t serial, const char *path, const char *interface, const char *member,
                    uint32_t reply_serial, const char *destination, const char *signature, size_t body_len)
{
        writer w = start(out);
        const guint8 fixed[4] = {
                G_BYTE_ORDER == G_LITTLE_ENDIAN ? 'l' : 'B',
                reply_serial ? 2 : 4,         /* METHOD_RETURN, SIGNAL */
                reply_serial ? 1 : 0,         /* NO_REPLY_EXPECTED, as sd-bus sets on returns */
                1,
        };
        memcpy(room(&w, 4), fixed, 4);
        put_u32(&w, (uint32_t) body_len);
        put_u32(&w, serial);
        size_t at = begin_array(&w, 8);
        if (reply_serial) {
                put_field(&w, FIELD_REPLY_SERIAL, "u", NULL, reply_serial);
                put_field(&w, FIELD_DESTINATION, "s", destination, 0);
        } else {
                put_field(&w, FIELD_PATH, "o", path, 0);
                put_field(&w, FIELD_INTERFACE, "s", interface, 0);
                put_field(&w, FIELD_MEMBER, "s", member, 0);
        }
        put_field(&w, FIELD_SIGNATURE, "g", signature, 0);
        end_array(&w, at, 8);
        pad(&w, 8);
        finish(&w);
}

void jd_wire_header_renew(GByteArray *header, uint32_t serial, size_t body_len)
{
        /* Bytes 4-7 and 8-11 of every header, in its own byte order (the
         * machine's, as jd_wire_header() writes it). */
        uint32_t len = (uint32_t) body_len;
        memcpy(header->data + 4, &len, 4);
        memcpy(header->data + 8, &serial, 4);
}

uint32_t jd_wire_next_serial(void)
{
        static uint32_t next;
        if (next < 0x80000000u)
                next = 0x80000000u;
        return next++;
}

/* The size of the connection's send buffer if it is a Unix stream
 * socket, else 0; looked up once per fd: sd-bus sizes the buffer when it
 * connects and nothing changes it afterwards, so a getsockopt() on every
 * message would ask the same question 100 times a second at 10 ms. */
static int stream_sndbuf(int fd)
{
        static int checked_fd = -1;
        static int sndbuf;
        if (fd != checked_fd) {
                int domain = 0, type = 0, size = 0;
                socklen_t len = sizeof(int);
                bool ok = getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_UNIX;
                len = sizeof(int);
                ok = ok && getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
                len = sizeof(int);
                ok = ok && getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, &len) == 0 && size > 0;
                sndbuf = ok ? size : 0;
                checked_fd = fd;
        }
        return sndbuf;
}

/* JETSOND_NO_WIRE=1 sends everything through sd-bus, as before issue 37:
 * for benchmarks (the same run, both ways) and for the tests of that path. */
static bool wire_disabled(void)
{
        static int disabled = -1;
        if (disabled < 0) {
                const char *v = getenv("JETSOND_NO_WIRE");
                disabled = v && *v && strcmp(v, "0") != 0;
        }
        return disabled;
}

bool jd_wire_send(sd_bus *bus, const GByteArray *header, const GByteArray *body)
{
        size_t total = header->len + body->len;
        if (total > ATOMIC_WRITE_MAX || wire_disabled())
                return false;
        /* POLLOUT: sd-bus has a message (or the rest of one) to write. */
        int events = sd_bus_get_events(bus);
        if (events < 0 || (events & POLLOUT))
                return false;
        int fd = sd_bus_get_fd(bus);
        int sndbuf = fd < 0 ? 0 : stream_sndbuf(fd);
        if (sndbuf <= 0 || total + 64 > (size_t) sndbuf / 2)
                return false;
        struct iovec iov[2] = {
                { .iov_base = header->data, .iov_len = header->len },
                { .iov_base = body->data, .iov_len = body->len },
        };
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
        ssize_t n;
        do
                n = sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n == (ssize_t) total)
                return true;
        if (n < 0)
                return false;         /* a full socket or a broken connection: sd-bus's to queue or report */
        /* Cannot happen (see ATOMIC_WRITE_MAX). Were it to, the stream
         * holds part of a message that nothing may follow, and finishing it
         * would mean waiting on the peer in the main loop: the connection
         * is ended instead, and sd-bus reports it as a lost bus (jetsond
         * exits, systemd starts it again; the count is in the debug log). */
        jd_wire_partial_writes++;
        shutdown(fd, SHUT_RDWR);
        return true;
}
