/* jetsonctl swap: the swap areas, and jetsond's one swap file. Sizes are
 * checked here (format, 64 MiB minimum, page multiple); the free-space
 * bound can only be checked by jetsond, whose InvalidArgs is then
 * reported with exit status 2 like any other argument error. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/bus.h"
#include "common/json_docs.h"
#include "common/json_out.h"
#include "jetsond-dbus.h"
#include "common/output.h"
#include "common/parse.h"
#include "common/props.h"

/* The swap document for a write's result (null members if unreadable). */
static JsonNode *fetch_doc(jc_ctx *c)
{
        g_autoptr(GVariant) props = NULL;
        jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_MEMORY, false, "reading swap", NULL, &props);
        return jc_doc_swap(props);
}

/* A swap write and, with --json, what it changed. */
static int swap_write(jc_ctx *c, const char *method, const char *doing, const char *type, ...)
{
        g_autoptr(JsonNode) before = c->json ? fetch_doc(c) : NULL;
        va_list ap;
        va_start(ap, type);
        int ret = jc_writev(c, JD_OBJECT_PATH, JD_IFACE_MEMORY, method, doing, JD_ACTION_MANAGE_SWAP, NULL, NULL, type,
                            ap);
        va_end(ap);
        if (ret)
                return ret;
        if (c->json) {
                g_autoptr(JsonNode) after = fetch_doc(c);
                static const char *const unchanged[] = { "ram_total_bytes", NULL };
                jc_doc_print_result("swap", before, after, unchanged);
        }
        return JC_EXIT_OK;
}

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
                g_autoptr(JsonNode) doc = jc_doc_swap(props);
                jc_json_print(doc, FALSE);
                return JC_EXIT_OK;
        }
        if (!swaps || !g_variant_n_children(swaps)) {
                g_autofree char *r = jc_format_bytes(ram);
                printf("No swap (RAM %s).\n", r);
                return JC_EXIT_OK;
        }
        printf("%-30s %-9s %10s %10s %5s %s\n", "PATH", "TYPE", "SIZE", "USED", "PRIO", "AT BOOT");
        g_variant_iter_init(&it, swaps);
        while (g_variant_iter_next(&it, "(&s&sttib)", &path, &type, &size, &used, &prio, &on_boot)) {
                g_autofree char *s = jc_format_bytes(size), *u = jc_format_bytes(used);
                printf("%-30s %-9s %10s %10s %5d %s\n", path, type, s, u, prio, on_boot ? "yes" : "no");
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
                return swap_write(c, "CreateSwap", "creating the swap file", "tb", bytes, (int) jc_swap_on_boot);
        }
        if (strcmp(sub, "remove") == 0) {
                if (argc != 2)
                        return jc_usage_error("swap", "swap remove takes no arguments");
                return swap_write(c, "RemoveSwap", "removing the swap file", NULL);
        }
        return jc_usage_error("swap", "unknown swap command \"%s\" (show, create, remove)", sub);
}
