#include "json_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *jt_format_double(char *buf, double d)
{
        if (!isfinite(d))
                return g_strlcpy(buf, "null", G_ASCII_DTOSTR_BUF_SIZE), buf;
        /* The fewest significant digits that read back as D (17 always
         * do; most readings need far fewer) ... */
        char format[16];
        int digits = 1;
        for (; digits < 17; digits++) {
                g_snprintf(format, sizeof(format), "%%.%de", digits - 1);
                g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, format, d);
                if (g_ascii_strtod(buf, NULL) == d)
                        break;
        }
        /* ... written without an exponent where a person would (40.0,
         * 0.001, 12345678.9), with one for the very large and small. */
        g_snprintf(format, sizeof(format), "%%.%de", digits - 1);
        g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, format, d);
        int exponent = atoi(strchr(buf, 'e') + 1);
        if (exponent < -5 || exponent >= 17)
                return buf;
        int decimals = digits - 1 - exponent;
        g_snprintf(format, sizeof(format), "%%.%df", decimals > 0 ? decimals : 1);
        g_ascii_formatd(buf, G_ASCII_DTOSTR_BUF_SIZE, format, d);
        return buf;
}

static void append_string(GString *out, const char *s)
{
        g_string_append_c(out, '"');
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                switch (*p) {
                case '"': g_string_append(out, "\\\""); break;
                case '\\': g_string_append(out, "\\\\"); break;
                case '\b': g_string_append(out, "\\b"); break;
                case '\f': g_string_append(out, "\\f"); break;
                case '\n': g_string_append(out, "\\n"); break;
                case '\r': g_string_append(out, "\\r"); break;
                case '\t': g_string_append(out, "\\t"); break;
                default:
                        if (*p < 0x20)
                                g_string_append_printf(out, "\\u%04x", *p);
                        else
                                g_string_append_c(out, (char) *p);
                }
        }
        g_string_append_c(out, '"');
}

static void newline(GString *out, gboolean pretty, int depth)
{
        if (!pretty)
                return;
        g_string_append_c(out, '\n');
        for (int i = 0; i < depth; i++)
                g_string_append(out, "  ");
}

static void append_node(GString *out, JsonNode *node, gboolean pretty, int depth);

static void append_object(GString *out, JsonObject *o, gboolean pretty, int depth)
{
        /* Members in the order they were added (json-glib keeps it). */
        GList *names = json_object_get_members(o);
        g_string_append_c(out, '{');
        for (GList *l = names; l; l = l->next) {
                newline(out, pretty, depth + 1);
                append_string(out, l->data);
                g_string_append(out, pretty ? ": " : ":");
                append_node(out, json_object_get_member(o, l->data), pretty, depth + 1);
                if (l->next)
                        g_string_append_c(out, ',');
        }
        if (names)
                newline(out, pretty, depth);
        g_string_append_c(out, '}');
        g_list_free(names);
}

static void append_array(GString *out, JsonArray *a, gboolean pretty, int depth)
{
        guint n = json_array_get_length(a);
        g_string_append_c(out, '[');
        for (guint i = 0; i < n; i++) {
                newline(out, pretty, depth + 1);
                append_node(out, json_array_get_element(a, i), pretty, depth + 1);
                if (i + 1 < n)
                        g_string_append_c(out, ',');
        }
        if (n)
                newline(out, pretty, depth);
        g_string_append_c(out, ']');
}

static void append_node(GString *out, JsonNode *node, gboolean pretty, int depth)
{
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        switch (node ? json_node_get_node_type(node) : JSON_NODE_NULL) {
        case JSON_NODE_OBJECT: append_object(out, json_node_get_object(node), pretty, depth); return;
        case JSON_NODE_ARRAY: append_array(out, json_node_get_array(node), pretty, depth); return;
        case JSON_NODE_NULL: g_string_append(out, "null"); return;
        case JSON_NODE_VALUE: break;
        }
        GType type = json_node_get_value_type(node);
        if (type == G_TYPE_INT64)
                g_string_append_printf(out, "%" G_GINT64_FORMAT, json_node_get_int(node));
        else if (type == G_TYPE_DOUBLE)
                g_string_append(out, jt_format_double(buf, json_node_get_double(node)));
        else if (type == G_TYPE_BOOLEAN)
                g_string_append(out, json_node_get_boolean(node) ? "true" : "false");
        else if (type == G_TYPE_STRING)
                append_string(out, json_node_get_string(node));
        else
                g_string_append(out, "null");
}

char *jt_to_text(JsonNode *root, gboolean pretty)
{
        GString *out = g_string_new(NULL);
        append_node(out, root, pretty, 0);
        return g_string_free(out, FALSE);
}
