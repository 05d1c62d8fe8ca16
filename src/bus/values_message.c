#include "values_message.h"

static int append_value(sd_bus_message *m, const jd_value *v)
{
        char sig[2] = { (char) v->type, 0 };
        int r = sd_bus_message_open_container(m, 'e', "sv");
        if (r >= 0)
                r = sd_bus_message_append_basic(m, 's', v->key);
        if (r >= 0)
                r = sd_bus_message_open_container(m, 'v', sig);
        if (r < 0)
                return r;
        switch (v->type) {
        case JD_VALUE_BOOL: {
                int b = v->b;
                r = sd_bus_message_append_basic(m, 'b', &b);
                break;
        }
        case JD_VALUE_U32:
                r = sd_bus_message_append_basic(m, 'u', &v->u);
                break;
        case JD_VALUE_I32:
                r = sd_bus_message_append_basic(m, 'i', &v->i);
                break;
        case JD_VALUE_U64:
                r = sd_bus_message_append_basic(m, 't', &v->t);
                break;
        case JD_VALUE_DOUBLE:
                r = sd_bus_message_append_basic(m, 'd', &v->d);
                break;
        case JD_VALUE_STRING:
                r = sd_bus_message_append_basic(m, 's', v->s);
                break;
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}

int jd_append_values(sd_bus_message *m, const jd_values *const *lists, size_t n_lists)
{
        int r = sd_bus_message_open_container(m, 'a', "{sv}");
        for (size_t l = 0; l < n_lists; l++)
                for (size_t i = 0; r >= 0 && i < lists[l]->n; i++)
                        r = append_value(m, &lists[l]->items[i]);
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}
