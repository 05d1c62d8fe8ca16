/* jetsond-test-flood SECONDS [RING [ROUNDS]]: what an unprivileged local user can
 * throw at jetsond's Metrics interface, as fast as one process can: a
 * new bus connection, a Subscribe() at 10 ms, a SubscribeValues() at
 * 10 ms on another, an OpenCapture() at 1 ms (the stream kept open, never
 * read), then the oldest of the RING (8) connections the process holds
 * closed with its stream; for SECONDS or ROUNDS connections, whichever
 * ends first (one round: another user's single request). Prints one JSON
 * line of counts:
 * connections, and per call the answers (ok, Busy, other errors). Run by
 * tests/integration/test-flood.py as "nobody". Not a tool for users. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#include "jetsond-dbus.h"

#define MAX_RING 64

typedef struct {
        unsigned long ok, busy, other;
} answers;

static uint64_t now_us(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t) ts.tv_sec * 1000000u + (uint64_t) ts.tv_nsec / 1000u;
}

static void count(answers *a, int r, const sd_bus_error *e)
{
        if (r >= 0)
                a->ok++;
        else if (sd_bus_error_has_name(e, JD_ERROR_BUSY))
                a->busy++;
        else
                a->other++;
}

typedef struct {
        sd_bus *bus;
        int fd;
} held;

static void release(held *h)
{
        if (h->fd >= 0)
                close(h->fd);
        sd_bus_flush_close_unref(h->bus);
        *h = (held) { NULL, -1 };
}

int main(int argc, char **argv)
{
        if (argc < 2) {
                fprintf(stderr, "usage: jetsond-test-flood SECONDS [RING [ROUNDS]]\n");
                return 2;
        }
        uint64_t end = now_us() + (uint64_t) (atof(argv[1]) * 1e6);
        unsigned ring = argc > 2 ? (unsigned) atoi(argv[2]) : 8;
        if (ring < 1 || ring > MAX_RING)
                ring = 8;
        unsigned long rounds = argc > 3 ? strtoul(argv[3], NULL, 10) : 0; /* 0: no limit */
        held conns[MAX_RING];
        for (unsigned i = 0; i < MAX_RING; i++)
                conns[i] = (held) { NULL, -1 };
        answers sub = { 0 }, values = { 0 }, cap = { 0 };
        unsigned long connections = 0, refused_connections = 0;
        for (unsigned k = 0; now_us() < end && (!rounds || connections < rounds); k = (k + 1) % ring) {
                release(&conns[k]);
                held *h = &conns[k];
                if (sd_bus_open_system(&h->bus) < 0) {
                        /* The bus's own limit per user: wait for a slot. */
                        refused_connections++;
                        h->bus = NULL;
                        usleep(1000);
                        continue;
                }
                connections++;
                sd_bus_error e = SD_BUS_ERROR_NULL;
                int r = sd_bus_call_method(h->bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS,
                                           k % 2 ? "SubscribeValues" : "Subscribe", &e, NULL, "t",
                                           (uint64_t) 10000);
                count(k % 2 ? &values : &sub, r, &e);
                sd_bus_error_free(&e);
                sd_bus_message *reply = NULL;
                r = sd_bus_call_method(h->bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, "OpenCapture", &e,
                                       &reply, "tas", (uint64_t) 1000, 1, "ram.*");
                count(&cap, r, &e);
                int fd;
                if (r >= 0 && sd_bus_message_read(reply, "h", &fd) > 0)
                        h->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
                sd_bus_message_unref(reply);
                sd_bus_error_free(&e);
        }
        for (unsigned i = 0; i < MAX_RING; i++)
                release(&conns[i]);
        printf("{\"connections\": %lu, \"refused_connections\": %lu, "
               "\"subscribe\": {\"ok\": %lu, \"busy\": %lu, \"other\": %lu}, "
               "\"subscribe_values\": {\"ok\": %lu, \"busy\": %lu, \"other\": %lu}, "
               "\"capture\": {\"ok\": %lu, \"busy\": %lu, \"other\": %lu}}\n",
               connections, refused_connections, sub.ok, sub.busy, sub.other, values.ok, values.busy, values.other,
               cap.ok, cap.busy, cap.other);
        return 0;
}
