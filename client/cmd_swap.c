/* jetsonctl swap: the swap areas, and jetsond's one swap file. Sizes are
 * checked here (format, 64 MiB minimum, page multiple); the free-space
 * bound can only be checked by jetsond, whose InvalidArgs is then
 * reported with exit status 2 like any other argument error. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bus.h"
#include "json_out.h"
#include "jetsond-dbus.h"
#include "output.h"
#include "parse.h"
#include "props.h"

static int show(jc_ctx *c)
{
        g_autoptr(GVariant) props = NULL;
        int ret = jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_MEMORY, false, "reading swap", NULL, &props);
        if (ret)
                return ret;
        g_autoptr(GVariant) swaps = g_variant_lookup_value(props, "Swaps", G_VARIANT_TYPE("a(ssttib)"));
        uint64_t total = 0, ram = 0;
        jc_prop_u64(props, "SwapTotal", &total);
        jc_prop_u64(props, "RamTotal", &ram);
        GVariantIter it;
        const char *path, *type;
        uint64_t size, used;
        int32_t prio;
        gboolean on_boot;
        if (c->json) {
                JsonBuilder *b = json_builder_new();
                json_builder_begin_object(b);
                jc_json_add_property(b, "swap_total", props, "SwapTotal");
                jc_json_add_property(b, "ram_total", props, "RamTotal");
                json_builder_set_member_name(b, "swaps");
                json_builder_begin_array(b);
                if (swaps) {
                        g_variant_iter_init(&it, swaps);
                        while (g_variant_iter_next(&it, "(&s&sttib)", &path, &type, &size, &used, &prio, &on_boot)) {
                                json_builder_begin_object(b);
                                json_builder_set_member_name(b, "path");
                                json_builder_add_string_value(b, path);
                                json_builder_set_member_name(b, "type");
                                json_builder_add_string_value(b, type);
                                json_builder_set_member_name(b, "size");
                                json_builder_add_int_value(b, (gint64) size);
                                json_builder_set_member_name(b, "used");
                                json_builder_add_int_value(b, (gint64) used);
                                json_builder_set_member_name(b, "priority");
                                json_builder_add_int_value(b, prio);
                                json_builder_set_member_name(b, "on_boot");
                                json_builder_add_boolean_value(b, on_boot);
                                json_builder_end_object(b);
                        }
                }
                json_builder_end_array(b);
                json_builder_end_object(b);
                jc_json_print_builder(b);
                return JC_EXIT_OK;
        }
        if (!swaps || !g_variant_n_children(swaps)) {
                g_autofree char *r = jc_format_bytes(ram);
                printf("No swap (RAM %s).\n", r);
                return JC_EXIT_OK;
        }
        printf("%-36s %-9s %10s %10s %5s %s\n", "PATH", "TYPE", "SIZE", "USED", "PRIO", "AT BOOT");
        g_variant_iter_init(&it, swaps);
        while (g_variant_iter_next(&it, "(&s&sttib)", &path, &type, &size, &used, &prio, &on_boot)) {
                g_autofree char *s = jc_format_bytes(size), *u = jc_format_bytes(used);
                printf("%-36s %-9s %10s %10s %5d %s\n", path, type, s, u, prio, on_boot ? "yes" : "no");
        }
        g_autofree char *t = jc_format_bytes(total), *r = jc_format_bytes(ram);
        printf("Total swap %s, RAM %s.\n", t, r);
        return JC_EXIT_OK;
}

int jc_cmd_swap(jc_ctx *c, int argc, char **argv)
{
        const char *sub = argc > 1 ? argv[1] : "show";
        if (jc_swap_on_boot && strcmp(sub, "create") != 0)
                return jc_usage_error("swap", "--on-boot goes with swap create");
        if (strcmp(sub, "show") == 0) {
                if (argc > 2)
                        return jc_usage_error("swap", "swap show takes no arguments");
                return show(c);
        }
        if (strcmp(sub, "create") == 0) {
                if (argc != 3)
                        return jc_usage_error("swap", "usage: jetsonctl swap create SIZE [--on-boot]");
                uint64_t bytes;
                g_autofree char *error = NULL;
                long page = sysconf(_SC_PAGESIZE);
                if (!jc_parse_swap_size(argv[2], page > 0 ? (uint64_t) page : 4096, &bytes, &error))
                        return jc_usage_error("swap", "%s", error);
                return jc_write(c, JD_OBJECT_PATH, JD_IFACE_MEMORY, "CreateSwap", "creating the swap file",
                                JD_ACTION_MANAGE_SWAP, NULL, NULL, "tb", bytes, (int) jc_swap_on_boot);
        }
        if (strcmp(sub, "remove") == 0) {
                if (argc != 2)
                        return jc_usage_error("swap", "swap remove takes no arguments");
                return jc_write(c, JD_OBJECT_PATH, JD_IFACE_MEMORY, "RemoveSwap", "removing the swap file",
                                JD_ACTION_MANAGE_SWAP, NULL, NULL, NULL);
        }
        return jc_usage_error("swap", "unknown swap command \"%s\" (show, create, remove)", sub);
}
