#include "sample_reader.h"

#include <string.h>

/* One variant's value into S under KEY. Returns false on a malformed
 * message, true otherwise (also for a type left out). */
static bool read_value(sd_bus_message *m, exp_sample *s, const char *key)
{
        char type;
        const char *contents;
        if (sd_bus_message_peek_type(m, &type, &contents) <= 0 || type != 'v' ||
            sd_bus_message_enter_container(m, 'v', contents) <= 0)
                return false;
        union {
                int b;
                uint8_t y;
                int16_t n;
                uint16_t q;
                int32_t i;
                uint32_t u;
                int64_t x;
                uint64_t t;
                double d;
                const char *s;
        } v;
        int r = 1;
        char c = strlen(contents) == 1 ? contents[0] : '?';
        if (strchr("bynqiuxtds", c))
                r = sd_bus_message_read_basic(m, c, &v);
        else
                r = sd_bus_message_skip(m, contents);
        if (r < 0)
                return false;
        switch (c) {
        case 'b':
                exp_sample_add_bool(s, key, v.b);
                break;
        case 'y':
                exp_sample_add_uint(s, key, v.y);
                break;
        case 'q':
                exp_sample_add_uint(s, key, v.q);
                break;
        case 'u':
                exp_sample_add_uint(s, key, v.u);
                break;
        case 't':
                exp_sample_add_uint(s, key, v.t);
                break;
        case 'n':
                exp_sample_add_double(s, key, v.n);
                break;
        case 'i':
                exp_sample_add_double(s, key, v.i);
                break;
        case 'x':
                exp_sample_add_double(s, key, (double)v.x);
                break;
        case 'd':
                exp_sample_add_double(s, key, v.d);
                break;
        case 's':
                exp_sample_add_string(s, key, v.s);
                break;
        default:
                break;
        }
        return sd_bus_message_exit_container(m) >= 0;
}

exp_sample *sample_reader_read_dict(sd_bus_message *m)
{
        if (sd_bus_message_enter_container(m, 'a', "{sv}") <= 0)
                return NULL;
        exp_sample *s = exp_sample_new(0);
        int r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
                const char *key;
                if (sd_bus_message_read_basic(m, 's', &key) <= 0 || !read_value(m, s, key) ||
                    sd_bus_message_exit_container(m) < 0) {
                        r = -1;
                        break;
                }
        }
        if (r < 0 || sd_bus_message_exit_container(m) < 0) {
                exp_sample_unref(s);
                return NULL;
        }
        return s;
}

exp_sample *sample_reader_read(sd_bus_message *m)
{
        uint64_t timestamp;
        if (sd_bus_message_rewind(m, true) < 0 || sd_bus_message_read_basic(m, 't', &timestamp) <= 0)
                return NULL;
        exp_sample *s = sample_reader_read_dict(m);
        if (s)
                s->timestamp_usec = timestamp;
        return s;
}

const char *sample_reader_string(const exp_sample *s, const char *key, const char *fallback)
{
        for (guint i = 0; i < s->values->len; i++) {
                const exp_value *v = &g_array_index(s->values, exp_value, i);
                if (v->type == EXP_STRING && strcmp(v->key, key) == 0)
                        return v->v.s;
        }
        return fallback;
}
