/* jetsonctl nvpmodel: list the power modes, switch now, or choose the
 * mode applied at boot. A mode is given by ID or name; both are checked
 * against Modes here, and again by jetsond. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/bus.h"
#include "common/json_docs.h"
#include "common/json_out.h"
#include "jetsond-dbus.h"
#include "common/parse.h"
#include "common/props.h"

#define NO_NVPMODEL JC_NO_NVPMODEL

static int fetch(jc_ctx *c, GVariant **props)
{
        return jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, false, "reading the power modes", NO_NVPMODEL,
                              props);
}

static int list(jc_ctx *c)
{
        g_autoptr(GVariant) props = NULL;
        int ret = fetch(c, &props);
        if (ret)
                return ret;
        uint32_t mode = UINT32_MAX, def = UINT32_MAX;
        jc_prop_u32(props, "Mode", &mode);
        jc_prop_u32(props, "DefaultMode", &def);
        g_autoptr(GVariant) modes = g_variant_lookup_value(props, "Modes", G_VARIANT_TYPE("a(us)"));
        if (c->json) {
                g_autoptr(JsonNode) doc = jc_doc_nvpmodel(props);
                jc_json_print(doc, FALSE);
                return JC_EXIT_OK;
        }
        printf("%-4s %s\n", "ID", "NAME");
        GVariantIter it;
        uint32_t id;
        const char *name;
        g_variant_iter_init(&it, modes);
        while (g_variant_iter_next(&it, "(u&s)", &id, &name)) {
                const char *note = id == mode && id == def ? "current, at boot" : id == mode ? "current"
                                                                   : id == def                 ? "at boot"
                                                                                               : "";
                g_autofree char *line = g_strdup_printf("%-4u %-20s %s", id, name, note);
                g_strchomp(line);
                printf("%s\n", line);
        }
        if (mode == UINT32_MAX)
                printf("The current mode is unknown: nvpmodel's status file is missing or was changed by hand. "
                       "It is known again after the next mode switch or boot.\n");
        return JC_EXIT_OK;
}

/* ID or NAME -> an ID in Modes (names exactly, then ignoring case). */
static int resolve(GVariant *props, const char *arg, uint32_t *id)
{
        g_autoptr(GVariant) modes = g_variant_lookup_value(props, "Modes", G_VARIANT_TYPE("a(us)"));
        g_autoptr(GString) known = g_string_new(NULL);
        uint64_t want = 0;
        bool numeric = jc_parse_uint(arg, UINT32_MAX, &want);
        for (int pass = 0; pass < 2; pass++) {
                GVariantIter it;
                uint32_t mid;
                const char *name;
                g_variant_iter_init(&it, modes);
                while (g_variant_iter_next(&it, "(u&s)", &mid, &name)) {
                        bool match = numeric ? mid == want
                                             : pass == 0 ? strcmp(name, arg) == 0 : g_ascii_strcasecmp(name, arg) == 0;
                        if (match) {
                                *id = mid;
                                return JC_EXIT_OK;
                        }
                        if (pass == 0)
                                g_string_append_printf(known, "%s%u %s", known->len ? ", " : "", mid, name);
                }
        }
        return jc_usage_error("nvpmodel", "no power mode \"%s\"; modes: %s", arg, known->str);
}

/* --json: what the write changed, from the properties read before it
 * (BEFORE) and now. */
static int print_result(jc_ctx *c, GVariant *before)
{
        if (!c->json)
                return JC_EXIT_OK;
        g_autoptr(GVariant) after = NULL;
        int ret = fetch(c, &after);
        if (ret)
                return ret;
        g_autoptr(JsonNode) from = jc_doc_nvpmodel(before), to = jc_doc_nvpmodel(after);
        static const char *const constant[] = { "modes", NULL };
        jc_doc_print_result("nvpmodel", from, to, constant);
        return JC_EXIT_OK;
}

static int set(jc_ctx *c, const char *arg, bool boot)
{
        g_autoptr(GVariant) props = NULL;
        int ret = fetch(c, &props);
        if (ret)
                return ret;
        uint32_t id = 0;
        ret = resolve(props, arg, &id);
        if (ret)
                return ret;
        if (boot) {
                ret = jc_write(c, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetDefaultMode", "setting the boot power mode",
                               JD_ACTION_SET_NVPMODEL, NO_NVPMODEL, NULL, "u", id);
                return ret ? ret : print_result(c, props);
        }
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = 0;
        g_autoptr(GVariant) reply = jc_write_call(c, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, "SetMode", &error, &r, "u", id);
        if (reply)
                return print_result(c, props);
        /* The way forward, as a command to type rather than jetsond's
         * D-Bus method. */
        if (sd_bus_error_has_name(&error, JD_ERROR_REBOOT_REQUIRED)) {
                fprintf(stderr, "jetsonctl: switching power mode: mode %" PRIu32 " needs a reboot, nothing changed; "
                                "make it the boot mode with \"jetsonctl nvpmodel default %" PRIu32 "\" and reboot\n",
                        id, id);
                sd_bus_error_free(&error);
                return JC_EXIT_FAILURE;
        }
        ret = jc_report_error("switching power mode", &error, r, JD_ACTION_SET_NVPMODEL, NO_NVPMODEL);
        sd_bus_error_free(&error);
        return ret;
}

int jc_cmd_nvpmodel(jc_ctx *c, int argc, char **argv)
{
        const char *sub = argc > 1 ? argv[1] : "list";
        if (strcmp(sub, "list") == 0 || strcmp(sub, "show") == 0) {
                if (argc > 2)
                        return jc_usage_error("nvpmodel", "nvpmodel %s takes no arguments", sub);
                return list(c);
        }
        if (strcmp(sub, "set") == 0 || strcmp(sub, "default") == 0) {
                if (argc != 3)
                        return jc_usage_error("nvpmodel", "usage: jetsonctl nvpmodel %s ID|NAME", sub);
                return set(c, argv[2], strcmp(sub, "default") == 0);
        }
        return jc_usage_error("nvpmodel", "unknown nvpmodel command \"%s\" (list, set, default)", sub);
}
