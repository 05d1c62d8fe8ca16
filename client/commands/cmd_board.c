/* jetsonctl board: the Board interface's properties, like jetson_release. */
#include <stdio.h>

#include "common/json_docs.h"
#include "common/json_out.h"
#include "jetsond-dbus.h"
#include "common/output.h"
#include "common/props.h"

/* Property -> label, in print order. */
static const struct {
        const char *property, *label;
} fields[] = {
        { "Model", "Model" },     { "Module", "Module" },       { "PartNumber", "Part number" },
        { "PNumber", "P-number" }, { "BoardIds", "Board IDs" }, { "SoC", "SoC" },
        { "CudaArch", "CUDA arch" }, { "Codename", "Codename" }, { "L4T", "L4T" },
        { "JetPack", "JetPack" }, { "Machine", "Machine" },     { "Distribution", "Distribution" },
        { "KernelRelease", "Kernel" },
};

/* The Libraries keys the contract lists, with their usual names. */
static const struct {
        const char *key, *label;
} libraries[] = {
        { "cuda", "CUDA" }, { "cudnn", "cuDNN" }, { "tensorrt", "TensorRT" }, { "vpi", "VPI" },
        { "opencv", "OpenCV" }, { "vulkan", "Vulkan" },
};

static void print_libraries(GString *out, GVariant *libs)
{
        g_string_append(out, "\nLibraries:\n");
        for (size_t i = 0; i < G_N_ELEMENTS(libraries); i++) {
                const char *version = NULL;
                g_autofree char *label = g_strdup_printf("%s:", libraries[i].label);
                if (!libs || !g_variant_lookup(libs, libraries[i].key, "&s", &version))
                        version = "not installed";
                else if (!*version)
                        version = "installed, version unknown";
                g_string_append_printf(out, "  %-14s%s", label, version);
                const char *cuda = NULL;
                if (g_str_equal(libraries[i].key, "opencv") && libs &&
                    g_variant_lookup(libs, "opencv_cuda", "&s", &cuda))
                        g_string_append_printf(out, " (CUDA: %s)", cuda);
                g_string_append_c(out, '\n');
        }
        /* Keys added after this client was written: shown as they are. */
        GVariantIter it;
        const char *k, *v;
        if (!libs)
                return;
        g_variant_iter_init(&it, libs);
        while (g_variant_iter_next(&it, "{&s&s}", &k, &v)) {
                bool known = g_str_equal(k, "opencv_cuda");
                for (size_t i = 0; i < G_N_ELEMENTS(libraries); i++)
                        known = known || g_str_equal(k, libraries[i].key);
                if (!known) {
                        g_autofree char *label = g_strdup_printf("%s:", k);
                        g_string_append_printf(out, "  %-14s%s\n", label, *v ? v : "installed, version unknown");
                }
        }
}

int jc_cmd_board(jc_ctx *c, int argc, char **argv)
{
        (void) argv;
        if (argc > 1)
                return jc_usage_error("board", "board takes no arguments");
        g_autoptr(GVariant) props = NULL;
        int ret = jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_BOARD, false, "reading the board", NULL, &props);
        if (ret)
                return ret;
        g_autoptr(GVariant) libs = g_variant_lookup_value(props, "Libraries", G_VARIANT_TYPE("a{ss}"));

        if (c->json) {
                g_autoptr(JsonNode) doc = jc_doc_board(props);
                jc_json_print(doc, FALSE);
                return JC_EXIT_OK;
        }
        g_autoptr(GString) out = g_string_new(NULL);
        for (size_t i = 0; i < G_N_ELEMENTS(fields); i++) {
                const char *v = jc_prop_str(props, fields[i].property);
                g_autofree char *label = g_strdup_printf("%s:", fields[i].label);
                g_string_append_printf(out, "%-16s", label);
                /* Unknown values are "" on the bus; say so visibly. */
                jc_append_colored(out, c->color, *v ? JC_COLOR_BOLD : JC_COLOR_GREY, *v ? v : "-");
                g_string_append_c(out, '\n');
        }
        print_libraries(out, libs);
        fputs(out->str, stdout);
        return JC_EXIT_OK;
}
