/* jetsonctl get KEY|GLOB...: sample keys for scripts, one "key=value" line
 * each (values quoted as systemctl show does), or with --value the values
 * alone, in the order asked (a glob's matches in the sample's order). All
 * or nothing: if any key is absent from the sample, or a glob matches
 * nothing, nothing is printed, so a script never reads a value on the
 * wrong line. */
#include <stdio.h>
#include <string.h>

#include "common/json_out.h"
#include "common/parse.h"
#include "common/sample.h"

gboolean jc_get_value_only;

/* Appends the keys ARG names to KEYS: ARG itself, or with *, ? or [ the
 * sample's keys it matches. False (and says why) if there are none. */
static bool expand(const jc_sample *s, const char *arg, GPtrArray *keys)
{
        if (!strpbrk(arg, "*?[")) {
                g_autoptr(GVariant) v = jc_sample_lookup(s, arg);
                if (!v) {
                        fprintf(stderr, "jetsonctl: %s is not in the sample (see 'jetsonctl watch' for the keys "
                                        "this board has)\n",
                                arg);
                        return false;
                }
                g_ptr_array_add(keys, g_strdup(arg));
                return true;
        }
        guint before = keys->len;
        GVariantIter it;
        const char *key;
        g_variant_iter_init(&it, s->values);
        while (g_variant_iter_next(&it, "{&s*}", &key, NULL))
                if (g_pattern_match_simple(arg, key))
                        g_ptr_array_add(keys, g_strdup(key));
        if (keys->len == before) {
                fprintf(stderr, "jetsonctl: no key in the sample matches %s (see 'jetsonctl watch' for the keys "
                                "this board has)\n",
                        arg);
                return false;
        }
        return true;
}

int jc_cmd_get(jc_ctx *c, int argc, char **argv)
{
        if (argc < 2)
                return jc_usage_error("get", "get needs at least one KEY or GLOB (e.g. gpu.load, 'temp.*')");
        jc_sample s = { 0 };
        int ret = jc_sample_fetch(c, &s);
        if (ret)
                return ret;
        g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func(g_free);
        for (int i = 1; i < argc; i++)
                if (!expand(&s, argv[i], keys))
                        ret = JC_EXIT_FAILURE;
        if (ret == JC_EXIT_OK && c->json) {
                JsonBuilder *b = json_builder_new();
                json_builder_begin_object(b);
                for (guint i = 0; i < keys->len; i++) {
                        g_autoptr(GVariant) v = jc_sample_lookup(&s, keys->pdata[i]);
                        jc_json_add_variant(b, keys->pdata[i], v);
                }
                json_builder_end_object(b);
                jc_json_print_builder(b);
        } else if (ret == JC_EXIT_OK) {
                for (guint i = 0; i < keys->len; i++) {
                        g_autoptr(GVariant) v = jc_sample_lookup(&s, keys->pdata[i]);
                        g_autofree char *text = jc_value_to_text(v);
                        g_autofree char *quoted = jc_quote_value(text);
                        if (jc_get_value_only)
                                printf("%s\n", text);
                        else
                                printf("%s=%s\n", (const char *) keys->pdata[i], quoted);
                }
        }
        jc_sample_clear(&s);
        return ret;
}
