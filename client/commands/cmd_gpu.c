/* jetsonctl gpu: the integrated GPU's 3D scaling (SetScaling3D) and rail
 * gating (SetRailgate). */
#include <stdio.h>
#include <string.h>

#include "common/bus.h"
#include "common/json_docs.h"
#include "common/json_out.h"
#include "jetsond-dbus.h"
#include "common/parse.h"
#include "common/props.h"

/* The gpu document for a write's result (null if unreadable). */
static JsonNode *fetch_doc(jc_ctx *c)
{
        g_autoptr(GVariant) props = NULL;
        jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_GPU, true, "reading the GPU", JC_NO_GPU, &props);
        return jc_doc_gpu(props);
}

static int show(jc_ctx *c)
{
        g_autoptr(GVariant) props = NULL;
        int ret = jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_GPU, false, "reading the GPU", JC_NO_GPU, &props);
        if (ret)
                return ret;
        if (c->json) {
                g_autoptr(JsonNode) doc = jc_doc_gpu(props);
                jc_json_print(doc, FALSE);
                return JC_EXIT_OK;
        }
        bool scaling = false, railgate = false;
        jc_prop_bool(props, "Scaling3D", &scaling);
        jc_prop_bool(props, "Railgate", &railgate);
        printf("gpu:         %s\n3D scaling:  %s\nrail gating: %s\n", jc_prop_str(props, "Name"), scaling ? "on" : "off",
               railgate ? "on" : "off");
        return JC_EXIT_OK;
}

int jc_cmd_gpu(jc_ctx *c, int argc, char **argv)
{
        static const char usage[] = "usage: jetsonctl gpu [show] | scaling on|off | railgate on|off";
        const char *sub = argc > 1 ? argv[1] : "show";
        if (strcmp(sub, "show") == 0) {
                if (argc > 2)
                        return jc_usage_error("gpu", "gpu show takes no arguments");
                return show(c);
        }
        bool scaling = strcmp(sub, "scaling") == 0;
        if (!scaling && strcmp(sub, "railgate") != 0)
                return jc_usage_error("gpu", "gpu: unknown subcommand \"%s\"; %s", sub, usage);
        if (argc != 3)
                return jc_usage_error("gpu", "%s", usage);
        bool on;
        g_autofree char *error = NULL;
        if (!jc_parse_on_off(argv[2], &on, &error))
                return jc_usage_error("gpu", "gpu %s: %s", sub, error);
        g_autofree char *doing = g_strdup_printf("switching GPU %s %s", scaling ? "3D scaling" : "rail gating",
                                                 on ? "on" : "off");
        g_autoptr(JsonNode) before = c->json ? fetch_doc(c) : NULL;
        int ret = jc_write(c, JD_OBJECT_PATH, JD_IFACE_GPU, scaling ? "SetScaling3D" : "SetRailgate", doing,
                           JD_ACTION_SET_GPU, JC_NO_GPU, NULL, "b", (int) on);
        if (ret == JC_EXIT_OK && c->json) {
                g_autoptr(JsonNode) after = fetch_doc(c);
                jc_doc_print_result("gpu", before, after, NULL);
        }
        return ret;
}
