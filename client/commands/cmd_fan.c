/* jetsonctl fan: list the fans, set a speed or a profile. Arguments are
 * checked here first (percentage range, fan exists, profile in Profiles)
 * so mistakes get a clear message without asking polkit; jetsond checks
 * them again. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/bus.h"
#include "common/json_docs.h"
#include "common/json_out.h"
#include "jetsond-dbus.h"
#include "common/parse.h"
#include "common/props.h"

static char *fan_names(GPtrArray *fans)
{
        g_autoptr(GString) s = g_string_new(NULL);
        for (guint i = 0; i < fans->len; i++) {
                const jc_object *f = g_ptr_array_index(fans, i);
                g_string_append_printf(s, "%s%u (%s)", i ? ", " : "", f->index, jc_prop_str(f->props, "Name"));
        }
        return g_string_free(g_steal_pointer(&s), FALSE);
}

static char *profiles_text(GVariant *props)
{
        g_autoptr(GVariant) profiles = g_variant_lookup_value(props, "Profiles", G_VARIANT_TYPE_STRING_ARRAY);
        if (!profiles || !g_variant_n_children(profiles))
                return g_strdup("");
        g_autofree const char **v = g_variant_get_strv(profiles, NULL);
        return g_strjoinv(", ", (char **) v);
}

static int list(jc_ctx *c)
{
        g_autoptr(GPtrArray) fans = NULL;
        int ret = jc_fans_fetch(c, "listing the fans", &fans);
        if (ret)
                return ret;
        /* The same line as every command about a feature the board lacks. */
        if (!fans->len) {
                fprintf(stderr, "jetsonctl: " JC_NO_FAN "\n");
                return JC_EXIT_FAILURE;
        }
        if (c->json) {
                JsonArray *docs = json_array_new();
                for (guint i = 0; i < fans->len; i++)
                        json_array_add_element(docs, jc_doc_fan(g_ptr_array_index(fans, i)));
                g_autoptr(JsonNode) root = json_node_new(JSON_NODE_OBJECT);
                json_node_take_object(root, json_object_new());
                json_object_set_array_member(json_node_get_object(root), "fans", docs);
                jc_json_print(root, FALSE);
                return JC_EXIT_OK;
        }
        printf("%-4s %-14s %7s %6s  %-14s %-11s %-9s %s\n", "FAN", "NAME", "SPEED", "RPM", "PROFILE", "CONTROL",
               "GOVERNOR", "PROFILES");
        for (guint i = 0; i < fans->len; i++) {
                const jc_object *f = g_ptr_array_index(fans, i);
                double speed = 0;
                uint32_t rpm = 0;
                jc_prop_double(f->props, "Speed", &speed);
                jc_prop_u32(f->props, "Rpm", &rpm);
                g_autofree char *profiles = profiles_text(f->props);
                const char *profile = jc_prop_str(f->props, "Profile"), *control = jc_prop_str(f->props, "Control");
                const char *governor = jc_prop_str(f->props, "Governor");
                printf("%-4u %-14s %6.1f%% %6u  %-14s %-11s %-9s %s\n", f->index, jc_prop_str(f->props, "Name"),
                       speed, rpm, *profile ? profile : "-", *control ? control : "-", *governor ? governor : "-",
                       *profiles ? profiles : "-");
        }
        return JC_EXIT_OK;
}

/* The fan named by ARG (index or name), or the only fan if ARG is NULL. */
static int find_fan(jc_ctx *c, const char *arg, GPtrArray **fans, const jc_object **fan)
{
        int ret = jc_fans_fetch(c, "listing the fans", fans);
        if (ret)
                return ret;
        if (!(*fans)->len) {
                fprintf(stderr, "jetsonctl: " JC_NO_FAN "\n");
                return JC_EXIT_FAILURE;
        }
        if (!arg) {
                if ((*fans)->len > 1) {
                        g_autofree char *names = fan_names(*fans);
                        return jc_usage_error("fan", "this board has %u fans, say which: %s", (*fans)->len, names);
                }
                *fan = g_ptr_array_index(*fans, 0);
                return JC_EXIT_OK;
        }
        uint64_t index = 0;
        bool numeric = jc_parse_uint(arg, UINT32_MAX, &index);
        for (guint i = 0; i < (*fans)->len; i++) {
                const jc_object *f = g_ptr_array_index(*fans, i);
                if ((numeric && f->index == index) || (!numeric && strcmp(jc_prop_str(f->props, "Name"), arg) == 0)) {
                        *fan = f;
                        return JC_EXIT_OK;
                }
        }
        g_autofree char *names = fan_names(*fans);
        return jc_usage_error("fan", "no fan \"%s\"; fans: %s", arg, names);
}

/* A fan write (SetSpeed, SetProfile) and, with --json, what it changed
 * on that fan. */
static int fan_write(jc_ctx *c, const jc_object *fan, const char *method, const char *doing, const char *type, ...)
{
        va_list ap;
        va_start(ap, type);
        int ret = jc_writev(c, fan->path, JD_IFACE_FAN, method, doing, JD_ACTION_SET_FAN, "this board has no such fan",
                            NULL, type, ap);
        va_end(ap);
        if (ret)
                return ret;
        if (!c->json)
                return JC_EXIT_OK;
        g_autoptr(GPtrArray) now = NULL;
        ret = jc_fans_fetch(c, "listing the fans", &now);
        if (ret)
                return ret;
        g_autoptr(JsonNode) before = jc_doc_fan(fan), after = NULL;
        for (guint i = 0; i < now->len; i++) {
                const jc_object *f = g_ptr_array_index(now, i);
                if (f->index == fan->index)
                        after = jc_doc_fan(f);
        }
        g_autofree char *prefix = g_strdup_printf("fan.%u", fan->index);
        static const char *const measured[] = { "rpm", NULL };
        jc_doc_print_result(prefix, before, after, measured);
        return JC_EXIT_OK;
}

static int set_speed(jc_ctx *c, int argc, char **argv)
{
        if (argc < 3 || argc > 4)
                return jc_usage_error("fan", "usage: jetsonctl fan speed [FAN] PERCENT");
        const char *pct_arg = argv[argc - 1];
        double pct;
        g_autofree char *error = NULL;
        if (!jc_parse_percent(pct_arg, &pct, &error))
                return jc_usage_error("fan", "fan speed: %s", error);
        g_autoptr(GPtrArray) fans = NULL;
        const jc_object *fan = NULL;
        int ret = find_fan(c, argc == 4 ? argv[2] : NULL, &fans, &fan);
        if (ret)
                return ret;
        return fan_write(c, fan, "SetSpeed", "setting fan speed", "d", pct);
}

static int set_profile(jc_ctx *c, int argc, char **argv)
{
        if (argc < 3 || argc > 4)
                return jc_usage_error("fan", "usage: jetsonctl fan profile [FAN] NAME");
        const char *profile = argv[argc - 1];
        g_autoptr(GPtrArray) fans = NULL;
        const jc_object *fan = NULL;
        int ret = find_fan(c, argc == 4 ? argv[2] : NULL, &fans, &fan);
        if (ret)
                return ret;
        g_autoptr(GVariant) profiles = g_variant_lookup_value(fan->props, "Profiles", G_VARIANT_TYPE_STRING_ARRAY);
        g_autofree const char **names = profiles ? g_variant_get_strv(profiles, NULL) : NULL;
        if (!names || !g_strv_contains(names, profile)) {
                g_autofree char *list = profiles_text(fan->props);
                if (!*list)
                        return jc_usage_error("fan", "fan %u has no controller, so no profiles (set a speed instead)",
                                              fan->index);
                return jc_usage_error("fan", "fan %u has no profile \"%s\"; profiles: %s", fan->index, profile, list);
        }
        return fan_write(c, fan, "SetProfile", "setting fan profile", "s", profile);
}

int jc_cmd_fan(jc_ctx *c, int argc, char **argv)
{
        const char *sub = argc > 1 ? argv[1] : "list";
        if (strcmp(sub, "list") == 0) {
                if (argc > 2)
                        return jc_usage_error("fan", "fan list takes no arguments");
                return list(c);
        }
        if (strcmp(sub, "speed") == 0)
                return set_speed(c, argc, argv);
        if (strcmp(sub, "profile") == 0)
                return set_profile(c, argc, argv);
        return jc_usage_error("fan", "unknown fan command \"%s\" (list, speed, profile)", sub);
}
