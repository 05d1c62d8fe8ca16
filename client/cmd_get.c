/* jetsonctl get KEY...: values of sample keys for scripts, one per line,
 * in the order asked. All or nothing: if any key is absent from the
 * sample nothing is printed, so a script never reads a value on the
 * wrong line. */
#include <stdio.h>

#include "json_out.h"
#include "sample.h"

int jc_cmd_get(jc_ctx *c, int argc, char **argv)
{
        if (argc < 2)
                return jc_usage_error("get", "get needs at least one KEY (e.g. gpu.load, temp.cpu, power.total)");
        jc_sample s = { 0 };
        int ret = jc_sample_fetch(c, &s);
        if (ret)
                return ret;
        g_autoptr(GPtrArray) values = g_ptr_array_new_with_free_func((GDestroyNotify) g_variant_unref);
        for (int i = 1; i < argc; i++) {
                GVariant *v = jc_sample_lookup(&s, argv[i]);
                if (!v) {
                        fprintf(stderr, "jetsonctl: %s is not in the sample (see 'jetsonctl watch' for the keys "
                                        "this board has)\n",
                                argv[i]);
                        ret = JC_EXIT_FAILURE;
                        continue;
                }
                g_ptr_array_add(values, v);
        }
        if (ret == JC_EXIT_OK && c->json) {
                JsonBuilder *b = json_builder_new();
                json_builder_begin_object(b);
                for (int i = 1; i < argc; i++)
                        jc_json_add_variant(b, argv[i], g_ptr_array_index(values, (guint) i - 1));
                json_builder_end_object(b);
                jc_json_print_builder(b);
        } else if (ret == JC_EXIT_OK) {
                for (guint i = 0; i < values->len; i++) {
                        g_autofree char *text = jc_value_to_text(g_ptr_array_index(values, i));
                        printf("%s\n", text);
                }
        }
        jc_sample_clear(&s);
        return ret;
}
