/* common/json_text.c: shortest round-trip doubles, member order, escapes
 * and indentation, against the exact text expected. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "json_text.h"

static void assert_double_text(double d, const char *expected)
{
        char buf[G_ASCII_DTOSTR_BUF_SIZE];
        assert_string_equal(jt_format_double(buf, d), expected);
}

static void test_doubles(void **state)
{
        (void) state;
        assert_double_text(34.7, "34.7");
        assert_double_text(75.9, "75.9");
        assert_double_text(43.906, "43.906");
        assert_double_text(40.0, "40.0");
        assert_double_text(0.0, "0.0");
        assert_double_text(-2.5, "-2.5");
        assert_double_text(0.1 + 0.2, "0.30000000000000004");   /* a different double than 0.3 */
        assert_double_text(1.0 / 3.0, "0.3333333333333333");
        assert_double_text(1e300, "1e+300");
        assert_double_text(5e-324, "5e-324");
        assert_double_text(NAN, "null");
        assert_double_text(INFINITY, "null");
        /* Every printed value reads back as the same double. */
        for (int i = 0; i < 20000; i++) {
                double d = (double) rand() / RAND_MAX * pow(10, rand() % 20 - 10);
                char buf[G_ASCII_DTOSTR_BUF_SIZE];
                assert_true(g_ascii_strtod(jt_format_double(buf, d), NULL) == d);
        }
}

static JsonNode *sample_tree(void)
{
        g_autoptr(JsonBuilder) b = json_builder_new();
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "zeta");
        json_builder_add_int_value(b, -42);
        json_builder_set_member_name(b, "alpha");
        json_builder_add_double_value(b, 75.9);
        json_builder_set_member_name(b, "text");
        json_builder_add_string_value(b, "a \"quoted\"\\ line\n\ttab \x01 é");
        json_builder_set_member_name(b, "list");
        json_builder_begin_array(b);
        json_builder_add_boolean_value(b, TRUE);
        json_builder_add_null_value(b);
        json_builder_begin_object(b);
        json_builder_end_object(b);
        json_builder_begin_array(b);
        json_builder_end_array(b);
        json_builder_end_array(b);
        json_builder_end_object(b);
        return json_builder_get_root(b);
}

static void test_compact(void **state)
{
        (void) state;
        g_autoptr(JsonNode) root = sample_tree();
        g_autofree char *text = jt_to_text(root, FALSE);
        assert_string_equal(text, "{\"zeta\":-42,\"alpha\":75.9,\"text\":\"a \\\"quoted\\\"\\\\ line\\n\\ttab \\u0001 é\","
                                  "\"list\":[true,null,{},[]]}");
        /* json-glib reads back what it wrote. */
        g_autoptr(JsonParser) p = json_parser_new();
        assert_true(json_parser_load_from_data(p, text, -1, NULL));
        JsonObject *o = json_node_get_object(json_parser_get_root(p));
        assert_string_equal(json_object_get_string_member(o, "text"), "a \"quoted\"\\ line\n\ttab \x01 é");
        assert_true(json_object_get_double_member(o, "alpha") == 75.9);
}

static void test_pretty(void **state)
{
        (void) state;
        g_autoptr(JsonNode) root = sample_tree();
        g_autofree char *text = jt_to_text(root, TRUE);
        assert_string_equal(text, "{\n"
                                  "  \"zeta\": -42,\n"
                                  "  \"alpha\": 75.9,\n"
                                  "  \"text\": \"a \\\"quoted\\\"\\\\ line\\n\\ttab \\u0001 é\",\n"
                                  "  \"list\": [\n"
                                  "    true,\n"
                                  "    null,\n"
                                  "    {},\n"
                                  "    []\n"
                                  "  ]\n"
                                  "}");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_doubles),
                cmocka_unit_test(test_compact),
                cmocka_unit_test(test_pretty),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
