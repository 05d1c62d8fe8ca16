/* jetsonctl clocks: jetson_clocks now (SetActive) and at boot (SetOnBoot). */
#include <stdio.h>
#include <string.h>

#include "common/bus.h"
#include "common/json_docs.h"
#include "common/json_out.h"
#include "jetsond-dbus.h"
#include "common/parse.h"
#include "common/props.h"

#define NO_CLOCKS JC_NO_JETSON_CLOCKS

/* The clocks document for a write's result (null if unreadable). */
static JsonNode *fetch_doc(jc_ctx *c)
{
        g_autoptr(GVariant) props = NULL;
        jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, true, "reading jetson_clocks", NO_CLOCKS, &props);
        return jc_doc_clocks(props);
}

static int show(jc_ctx *c)
{
        g_autoptr(GVariant) props = NULL;
        int ret = jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, false, "reading jetson_clocks", NO_CLOCKS,
                                 &props);
        if (ret)
                return ret;
        if (c->json) {
                g_autoptr(JsonNode) doc = jc_doc_clocks(props);
                jc_json_print(doc, FALSE);
                return JC_EXIT_OK;
        }
        bool active = false, on_boot = false;
        jc_prop_bool(props, "Active", &active);
        jc_prop_bool(props, "OnBoot", &on_boot);
        printf("jetson_clocks: %s\nat boot:       %s\n", active ? "on" : "off", on_boot ? "on" : "off");
        return JC_EXIT_OK;
}

int jc_cmd_clocks(jc_ctx *c, int argc, char **argv)
{
        const char *sub = argc > 1 ? argv[1] : "show";
        if (strcmp(sub, "show") == 0) {
                if (argc > 2)
                        return jc_usage_error("clocks", "clocks show takes no arguments");
                return show(c);
        }
        bool boot = strcmp(sub, "boot") == 0;
        if ((boot && argc != 3) || (!boot && argc != 2))
                return jc_usage_error("clocks", "usage: jetsonctl clocks [show] | on | off | boot on|off");
        bool on;
        g_autofree char *error = NULL;
        if (!jc_parse_on_off(boot ? argv[2] : sub, &on, &error))
                return jc_usage_error("clocks", "clocks: %s", error);
        g_autoptr(JsonNode) before = c->json ? fetch_doc(c) : NULL;
        int ret = jc_write(c, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, boot ? "SetOnBoot" : "SetActive",
                           boot ? "setting jetson_clocks at boot" : on ? "switching jetson_clocks on"
                                                                       : "switching jetson_clocks off",
                           JD_ACTION_SET_JETSON_CLOCKS, NO_CLOCKS, NULL, "b", (int) on);
        if (ret == JC_EXIT_OK && c->json) {
                g_autoptr(JsonNode) after = fetch_doc(c);
                jc_doc_print_result("jetson_clocks", before, after, NULL);
        }
        return ret;
}
