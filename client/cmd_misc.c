/* jetsonctl drop-caches, restore, serial: one call each. */
#include <stdio.h>

#include "bus.h"
#include "json_out.h"
#include "jetsond-dbus.h"

int jc_cmd_drop_caches(jc_ctx *c, int argc, char **argv)
{
        (void) argv;
        if (argc > 1)
                return jc_usage_error("drop-caches", "drop-caches takes no arguments");
        return jc_write(c, JD_OBJECT_PATH, JD_IFACE_MEMORY, "DropCaches", "dropping caches", JD_ACTION_DROP_CACHES,
                        NULL, NULL, NULL);
}

int jc_cmd_restore(jc_ctx *c, int argc, char **argv)
{
        (void) argv;
        if (argc > 1)
                return jc_usage_error("restore", "restore takes no arguments");
        g_autoptr(GVariant) reply = NULL;
        int ret = jc_write(c, JD_OBJECT_PATH, JD_IFACE_MANAGER, "RestoreDefaults", "restoring defaults",
                           JD_ACTION_SET_FAN " " JD_ACTION_SET_NVPMODEL " " JD_ACTION_SET_JETSON_CLOCKS, NULL, &reply,
                           NULL);
        if (ret)
                return ret;
        g_autoptr(GVariant) steps = g_variant_is_of_type(reply, G_VARIANT_TYPE("(as)"))
                                            ? g_variant_get_child_value(reply, 0)
                                            : NULL;
        if (c->json) {
                JsonBuilder *b = json_builder_new();
                json_builder_begin_object(b);
                jc_json_add_variant(b, "steps", steps);
                json_builder_end_object(b);
                jc_json_print_builder(b);
                return JC_EXIT_OK;
        }
        GVariantIter it;
        const char *line;
        if (steps) {
                g_variant_iter_init(&it, steps);
                while (g_variant_iter_next(&it, "&s", &line))
                        printf("%s\n", line);
        }
        return JC_EXIT_OK;
}

int jc_cmd_serial(jc_ctx *c, int argc, char **argv)
{
        (void) argv;
        if (argc > 1)
                return jc_usage_error("serial", "serial takes no arguments");
        g_autoptr(GVariant) reply = NULL;
        /* A read, but gated by polkit (read-serial): may ask a password. */
        int ret = jc_write(c, JD_OBJECT_PATH, JD_IFACE_BOARD, "GetSerialNumber", "reading the serial number",
                           JD_ACTION_READ_SERIAL, NULL, &reply, NULL);
        if (ret)
                return ret;
        const char *serial = "";
        if (g_variant_is_of_type(reply, G_VARIANT_TYPE("(s)")))
                g_variant_get(reply, "(&s)", &serial);
        if (c->json) {
                JsonBuilder *b = json_builder_new();
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "serial");
                json_builder_add_string_value(b, serial);
                json_builder_end_object(b);
                jc_json_print_builder(b);
        } else {
                printf("%s\n", serial);
        }
        return JC_EXIT_OK;
}
