#include "message-size.h"

#include <stdbool.h>
#include <string.h>

size_t align_to(size_t off, size_t a)
{
        return (off + a - 1) / a * a;
}

size_t type_alignment(char t)
{
        switch (t) {
        case 'y': case 'g': case 'v':
                return 1;
        case 'n': case 'q':
                return 2;
        case 'x': case 't': case 'd': case '(': case '{': case 'r': case 'e':
                return 8;
        default:            /* b i u h s o a */
                return 4;
        }
}

/* The marshalled size of the rest of the current container, from offset
 * OFF (alignment is relative to the start of the body, which is 8-aligned). */
static int walk(sd_bus_message *m, size_t *off)
{
        for (;;) {
                char type;
                const char *contents;
                int r = sd_bus_message_peek_type(m, &type, &contents);
                if (r <= 0)
                        return r;
                switch (type) {
                case 'a':
                        *off = align_to(align_to(*off, 4) + 4, type_alignment(contents[0]));
                        break;
                case 'v':
                        *off += 1 + strlen(contents) + 1;
                        break;
                case 'r': case 'e':
                        *off = align_to(*off, 8);
                        break;
                default: {
                        union { uint64_t u; double d; const char *s; int b; } v;
                        r = sd_bus_message_read_basic(m, type, &v);
                        if (r < 0)
                                return r;
                        if (type == 's' || type == 'o')
                                *off = align_to(*off, 4) + 4 + strlen(v.s) + 1;
                        else if (type == 'g')
                                *off += 1 + strlen(v.s) + 1;
                        else
                                *off = align_to(*off, type_alignment(type)) + (type == 'b' ? 4 : type_alignment(type));
                        continue;
                }
                }
                r = sd_bus_message_enter_container(m, type, contents);
                if (r >= 0)
                        r = walk(m, off);
                if (r >= 0)
                        r = sd_bus_message_exit_container(m);
                if (r < 0)
                        return r;
        }
}

static size_t header_field(size_t off, char sig, const char *s, size_t fixed)
{
        off = align_to(off, 8) + 1 + 3;               /* code, signature "u"/"s"/"g" */
        if (sig == 'g')
                return off + 1 + strlen(s) + 1;
        off = align_to(off, 4);
        return sig == 's' ? off + 4 + strlen(s) + 1 : off + fixed;
}

/* A method return as dbus-daemon delivers it: fixed header, then
 * REPLY_SERIAL, DESTINATION, SENDER and SIGNATURE, padded to 8. */
size_t wire_size(sd_bus_message *m)
{
        size_t h = 16;
        h = header_field(h, 'u', NULL, 4);
        if (sd_bus_message_get_destination(m))
                h = header_field(h, 's', sd_bus_message_get_destination(m), 0);
        if (sd_bus_message_get_sender(m))
                h = header_field(h, 's', sd_bus_message_get_sender(m), 0);
        h = header_field(h, 'g', sd_bus_message_get_signature(m, true), 0);
        size_t body = 0;
        if (sd_bus_message_rewind(m, true) < 0 || walk(m, &body) < 0)
                return 0;
        return align_to(h, 8) + body;
}
