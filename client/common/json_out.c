#include "json_out.h"

#include <stdio.h>

#include "json_text.h"

JsonNode *jc_json_from_variant(GVariant *value)
{
        JsonNode *node = json_node_new(JSON_NODE_VALUE);
        switch (g_variant_classify(value)) {
        case G_VARIANT_CLASS_VARIANT: {
                json_node_unref(node);
                g_autoptr(GVariant) inner = g_variant_get_variant(value);
                return jc_json_from_variant(inner);
        }
        case G_VARIANT_CLASS_BOOLEAN: json_node_set_boolean(node, g_variant_get_boolean(value)); break;
        case G_VARIANT_CLASS_BYTE: json_node_set_int(node, g_variant_get_byte(value)); break;
        case G_VARIANT_CLASS_INT16: json_node_set_int(node, g_variant_get_int16(value)); break;
        case G_VARIANT_CLASS_UINT16: json_node_set_int(node, g_variant_get_uint16(value)); break;
        case G_VARIANT_CLASS_INT32: json_node_set_int(node, g_variant_get_int32(value)); break;
        case G_VARIANT_CLASS_UINT32: json_node_set_int(node, g_variant_get_uint32(value)); break;
        case G_VARIANT_CLASS_INT64: json_node_set_int(node, g_variant_get_int64(value)); break;
        case G_VARIANT_CLASS_UINT64: json_node_set_int(node, (gint64) g_variant_get_uint64(value)); break;
        case G_VARIANT_CLASS_DOUBLE: json_node_set_double(node, g_variant_get_double(value)); break;
        case G_VARIANT_CLASS_STRING:
        case G_VARIANT_CLASS_OBJECT_PATH:
        case G_VARIANT_CLASS_SIGNATURE: json_node_set_string(node, g_variant_get_string(value, NULL)); break;
        case G_VARIANT_CLASS_ARRAY:
                if (g_variant_type_is_dict_entry(g_variant_type_element(g_variant_get_type(value))) &&
                    g_variant_type_equal(g_variant_type_key(g_variant_type_element(g_variant_get_type(value))),
                                         G_VARIANT_TYPE_STRING)) {
                        JsonObject *o = json_object_new();
                        GVariantIter it;
                        const char *k;
                        GVariant *v;
                        g_variant_iter_init(&it, value);
                        while (g_variant_iter_next(&it, "{&s@*}", &k, &v)) {
                                json_object_set_member(o, k, jc_json_from_variant(v));
                                g_variant_unref(v);
                        }
                        json_node_init_object(node, o);
                        json_object_unref(o);
                        break;
                }
                __attribute__((fallthrough));
        case G_VARIANT_CLASS_TUPLE:
        case G_VARIANT_CLASS_DICT_ENTRY: {
                JsonArray *a = json_array_new();
                GVariantIter it;
                GVariant *v;
                g_variant_iter_init(&it, value);
                while ((v = g_variant_iter_next_value(&it))) {
                        json_array_add_element(a, jc_json_from_variant(v));
                        g_variant_unref(v);
                }
                json_node_init_array(node, a);
                json_array_unref(a);
                break;
        }
        default: json_node_init_null(node); break;
        }
        return node;
}

void jc_json_add_variant(JsonBuilder *b, const char *name, GVariant *value)
{
        json_builder_set_member_name(b, name);
        if (value)
                json_builder_add_value(b, jc_json_from_variant(value));
        else
                json_builder_add_null_value(b);
}

void jc_json_add_property(JsonBuilder *b, const char *name, GVariant *props, const char *property)
{
        g_autoptr(GVariant) v = props ? g_variant_lookup_value(props, property, NULL) : NULL;
        jc_json_add_variant(b, name, v);
}

gboolean jc_json_pretty;

void jc_json_print(JsonNode *root, gboolean pretty)
{
        g_autofree char *text = jt_to_text(root, pretty || jc_json_pretty);
        fputs(text, stdout);
        fputc('\n', stdout);
        fflush(stdout);
}

void jc_json_print_builder(JsonBuilder *b)
{
        JsonNode *root = json_builder_get_root(b);
        jc_json_print(root, FALSE);
        json_node_unref(root);
        g_object_unref(b);
}
