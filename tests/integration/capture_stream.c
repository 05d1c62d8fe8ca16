/* Reading a capture stream in the tests (capture_stream.h). */
#include "capture_stream.h"
#include "testbus.h"
#include "jetsond-dbus.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

bool capture_read_exactly(int fd, void *buf, size_t len)
{
        size_t got = 0;
        while (got < len) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                if (poll(&p, 1, 30000) != 1)
                        fail_msg("the capture stream stayed silent for 30 s");
                ssize_t r = read(fd, (char *) buf + got, len - got);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        fail_msg("read: %s", g_strerror(errno));
                if (r == 0)
                        return false;
                got += (size_t) r;
        }
        return true;
}

char *capture_open_error(sd_bus *bus, uint64_t interval, const char *const *keys, const capture_option *options,
                         capture *out)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL, *reply = NULL;
        assert_int_equal(sd_bus_message_new_method_call(bus, &m, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS,
                                                        options ? "OpenCaptureWithOptions" : "OpenCapture"),
                         0);
        assert_true(sd_bus_message_append(m, "t", interval) >= 0);
        assert_true(sd_bus_message_append_strv(m, (char **) keys) >= 0);
        if (options) {
                assert_true(sd_bus_message_open_container(m, 'a', "{sv}") >= 0);
                for (const capture_option *o = options; o->name; o++)
                        if (o->type == 'u')
                                assert_true(sd_bus_message_append(m, "{sv}", o->name, "u", (uint32_t) o->value) >= 0);
                        else
                                assert_true(sd_bus_message_append(m, "{sv}", o->name, "t", o->value) >= 0);
                assert_true(sd_bus_message_close_container(m) >= 0);
        }
        int r = sd_bus_call(bus, m, 5 * 1000000, &e, &reply);
        sd_bus_message_unref(m);
        if (r < 0) {
                char *name = g_strdup(e.name ? e.name : "?");
                sd_bus_error_free(&e);
                return name;
        }
        int fd = -1;
        assert_true(sd_bus_message_read(reply, "h", &fd) >= 0);
        assert_true(sd_bus_message_read_strv(reply, &out->names) >= 0);
        /* The reply owns FD: a copy outlives it. */
        out->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        sd_bus_message_unref(reply);

        /* The header, as capture.md lays it out. */
        unsigned char h[40];
        assert_true(capture_read_exactly(out->fd, h, sizeof(h)));
        uint32_t version;
        memcpy(out->magic, h, 8);
        memcpy(&version, h + 8, 4);
        memcpy(&out->header_size, h + 12, 4);
        memcpy(&out->n, h + 16, 4);
        memcpy(&out->record_size, h + 20, 4);
        memcpy(&out->interval_ns, h + 24, 8);
        memcpy(&out->realtime_offset_ns, h + 32, 8);
        /* The same format, version 1, whichever method opened it. */
        assert_int_equal(version, 1);
        assert_int_equal(out->n, g_strv_length(out->names));
        out->header_names = g_malloc(out->header_size - 40);
        assert_true(capture_read_exactly(out->fd, out->header_names, out->header_size - 40));
        return g_strdup("");
}

int capture_column(const capture *c, const char *name)
{
        for (uint32_t i = 0; i < c->n; i++)
                if (strcmp(c->names[i], name) == 0)
                        return (int) i;
        fail_msg("no column %s", name);
        return -1;
}

void capture_close(capture *c)
{
        if (c->fd >= 0)
                close(c->fd);
        c->fd = -1;
        g_strfreev(c->names);
        c->names = NULL;
        g_free(c->header_names);
        c->header_names = NULL;
}
