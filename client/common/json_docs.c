#include "json_docs.h"

#include <string.h>

#include "json_out.h"

/* A string property; "" (the bus's "unknown") is null. */
static void add_string(JsonBuilder *b, const char *name, GVariant *props, const char *property)
{
        const char *v = jc_prop_str(props, property);
        json_builder_set_member_name(b, name);
        if (*v)
                json_builder_add_string_value(b, v);
        else
                json_builder_add_null_value(b);
}

/* A uint32 property where 4294967295 means "not known": null. */
static void add_u32_or_unknown(JsonBuilder *b, const char *name, uint32_t v)
{
        json_builder_set_member_name(b, name);
        if (v != UINT32_MAX)
                json_builder_add_int_value(b, v);
        else
                json_builder_add_null_value(b);
}

static JsonNode *finish(JsonBuilder *b)
{
        JsonNode *root = json_builder_get_root(b);
        g_object_unref(b);
        return root;
}

JsonNode *jc_doc_board(GVariant *props)
{
        static const char *const fields[][2] = {
                { "model", "Model" },   { "module", "Module" },     { "part_number", "PartNumber" },
                { "p_number", "PNumber" }, { "board_ids", "BoardIds" }, { "soc", "SoC" },
                { "cuda_arch", "CudaArch" }, { "codename", "Codename" }, { "l4t", "L4T" },
                { "jetpack", "JetPack" }, { "machine", "Machine" }, { "distribution", "Distribution" },
                { "kernel_release", "KernelRelease" },
        };
        JsonBuilder *b = json_builder_new();
        json_builder_begin_object(b);
        for (size_t i = 0; i < G_N_ELEMENTS(fields); i++)
                add_string(b, fields[i][0], props, fields[i][1]);
        /* Installed libraries by name: the version, null when installed
         * but of unknown version; "opencv_cuda" ("yes"/"no" on the bus)
         * is a boolean. A library that is not installed is not listed. */
        json_builder_set_member_name(b, "libraries");
        json_builder_begin_object(b);
        g_autoptr(GVariant) libs = props ? g_variant_lookup_value(props, "Libraries", G_VARIANT_TYPE("a{ss}")) : NULL;
        GVariantIter it;
        const char *k, *v;
        if (libs) {
                g_variant_iter_init(&it, libs);
                while (g_variant_iter_next(&it, "{&s&s}", &k, &v)) {
                        json_builder_set_member_name(b, k);
                        if (strcmp(k, "opencv_cuda") == 0)
                                json_builder_add_boolean_value(b, strcmp(v, "yes") == 0);
                        else if (*v)
                                json_builder_add_string_value(b, v);
                        else
                                json_builder_add_null_value(b);
                }
        }
        json_builder_end_object(b);
        json_builder_end_object(b);
        return finish(b);
}

JsonNode *jc_doc_nvpmodel(GVariant *props)
{
        if (!props)
                return json_node_new(JSON_NODE_NULL);
        uint32_t mode = UINT32_MAX, def = UINT32_MAX;
        jc_prop_u32(props, "Mode", &mode);
        jc_prop_u32(props, "DefaultMode", &def);
        const char *def_name = jc_mode_name(props, def);
        JsonBuilder *b = json_builder_new();
        json_builder_begin_object(b);
        add_u32_or_unknown(b, "mode", mode);
        add_string(b, "mode_name", props, "ModeName");
        add_u32_or_unknown(b, "default_mode", def);
        json_builder_set_member_name(b, "default_mode_name");
        if (def_name)
                json_builder_add_string_value(b, def_name);
        else
                json_builder_add_null_value(b);
        json_builder_set_member_name(b, "modes");
        json_builder_begin_array(b);
        g_autoptr(GVariant) modes = g_variant_lookup_value(props, "Modes", G_VARIANT_TYPE("a(us)"));
        GVariantIter it;
        uint32_t id;
        const char *name;
        if (modes) {
                g_variant_iter_init(&it, modes);
                while (g_variant_iter_next(&it, "(u&s)", &id, &name)) {
                        json_builder_begin_object(b);
                        json_builder_set_member_name(b, "id");
                        json_builder_add_int_value(b, id);
                        json_builder_set_member_name(b, "name");
                        json_builder_add_string_value(b, name);
                        json_builder_end_object(b);
                }
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
        return finish(b);
}

JsonNode *jc_doc_clocks(GVariant *props)
{
        if (!props)
                return json_node_new(JSON_NODE_NULL);
        JsonBuilder *b = json_builder_new();
        json_builder_begin_object(b);
        jc_json_add_property(b, "active", props, "Active");
        jc_json_add_property(b, "on_boot", props, "OnBoot");
        json_builder_end_object(b);
        return finish(b);
}

JsonNode *jc_doc_gpu(GVariant *props)
{
        if (!props)
                return json_node_new(JSON_NODE_NULL);
        JsonBuilder *b = json_builder_new();
        json_builder_begin_object(b);
        add_string(b, "name", props, "Name");
        jc_json_add_property(b, "scaling_3d", props, "Scaling3D");
        jc_json_add_property(b, "railgate", props, "Railgate");
        json_builder_end_object(b);
        return finish(b);
}

JsonNode *jc_doc_fan(const jc_object *f)
{
        JsonBuilder *b = json_builder_new();
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "index");
        json_builder_add_int_value(b, f->index);
        json_builder_set_member_name(b, "path");
        json_builder_add_string_value(b, f->path);
        add_string(b, "name", f->props, "Name");
        jc_json_add_property(b, "speed_percent", f->props, "Speed");
        jc_json_add_property(b, "rpm", f->props, "Rpm");
        add_string(b, "profile", f->props, "Profile");
        add_string(b, "default_profile", f->props, "DefaultProfile");
        jc_json_add_property(b, "profiles", f->props, "Profiles");
        add_string(b, "governor", f->props, "Governor");
        add_string(b, "control", f->props, "Control");
        json_builder_end_object(b);
        return finish(b);
}

JsonNode *jc_doc_dgpu(const jc_object *g)
{
        JsonBuilder *b = json_builder_new();
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "index");
        json_builder_add_int_value(b, g->index);
        json_builder_set_member_name(b, "path");
        json_builder_add_string_value(b, g->path);
        add_string(b, "name", g->props, "Name");
        add_string(b, "uuid", g->props, "UUID");
        add_string(b, "pci_bus_id", g->props, "PciBusId");
        /* 0 on the bus is "NVML does not say": null. */
        uint64_t bytes = 0;
        uint32_t mw = 0;
        json_builder_set_member_name(b, "memory_total_bytes");
        if (jc_prop_u64(g->props, "MemoryTotal", &bytes) && bytes)
                json_builder_add_int_value(b, (gint64) bytes);
        else
                json_builder_add_null_value(b);
        json_builder_set_member_name(b, "power_limit_mw");
        if (jc_prop_u32(g->props, "PowerLimit", &mw) && mw)
                json_builder_add_int_value(b, mw);
        else
                json_builder_add_null_value(b);
        jc_json_add_property(b, "max_clocks_khz", g->props, "MaxClocks");
        /* The facts and modes, named as nvitop's DeviceSnapshot names
         * them; "" on the bus (NVML does not say) is null. */
        static const char *const facts[][2] = {
                { "driver_version", "DriverVersion" },     { "cuda_driver_version", "CudaDriverVersion" },
                { "cuda_compute_capability", "ComputeCapability" }, { "ecc_mode", "EccMode" },
                { "ecc_mode_pending", "EccModePending" }, { "persistence_mode", "PersistenceMode" },
                { "compute_mode", "ComputeMode" },         { "display_mode", "DisplayMode" },
                { "display_active", "DisplayActive" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(facts); i++)
                add_string(b, facts[i][0], g->props, facts[i][1]);
        json_builder_set_member_name(b, "bar1_memory_total_bytes");
        if (jc_prop_u64(g->props, "Bar1Total", &bytes) && bytes)
                json_builder_add_int_value(b, (gint64) bytes);
        else
                json_builder_add_null_value(b);
        /* -1 on the bus: null. */
        g_autoptr(GVariant) minor =
                g->props ? g_variant_lookup_value(g->props, "MinorNumber", G_VARIANT_TYPE_INT32) : NULL;
        json_builder_set_member_name(b, "minor_number");
        if (minor && g_variant_get_int32(minor) >= 0)
                json_builder_add_int_value(b, g_variant_get_int32(minor));
        else
                json_builder_add_null_value(b);
        json_builder_end_object(b);
        return finish(b);
}

JsonNode *jc_doc_swap(GVariant *props)
{
        JsonBuilder *b = json_builder_new();
        json_builder_begin_object(b);
        jc_json_add_property(b, "swap_total_bytes", props, "SwapTotal");
        jc_json_add_property(b, "ram_total_bytes", props, "RamTotal");
        json_builder_set_member_name(b, "swaps");
        json_builder_begin_array(b);
        g_autoptr(GVariant) swaps = props ? g_variant_lookup_value(props, "Swaps", G_VARIANT_TYPE("a(ssttib)")) : NULL;
        GVariantIter it;
        const char *path, *type;
        uint64_t size, used;
        int32_t prio;
        gboolean on_boot;
        if (swaps) {
                g_variant_iter_init(&it, swaps);
                while (g_variant_iter_next(&it, "(&s&sttib)", &path, &type, &size, &used, &prio, &on_boot)) {
                        json_builder_begin_object(b);
                        json_builder_set_member_name(b, "path");
                        json_builder_add_string_value(b, path);
                        json_builder_set_member_name(b, "type");
                        json_builder_add_string_value(b, type);
                        json_builder_set_member_name(b, "size_bytes");
                        json_builder_add_int_value(b, (gint64) size);
                        json_builder_set_member_name(b, "used_bytes");
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
        return finish(b);
}

JsonNode *jc_doc_member(JsonNode *object, const char *name)
{
        if (!object || !JSON_NODE_HOLDS_OBJECT(object) || !json_object_has_member(json_node_get_object(object), name))
                return NULL;
        return json_object_get_member(json_node_get_object(object), name);
}

void jc_doc_add_changes(JsonArray *changes, const char *prefix, JsonNode *before, JsonNode *after,
                        const char *const *ignore)
{
        /* Members of either side: an object that appeared or went away
         * changes every member from or to null. */
        JsonNode *shape = after && JSON_NODE_HOLDS_OBJECT(after) ? after : before;
        if (!shape || !JSON_NODE_HOLDS_OBJECT(shape))
                return;
        GList *names = json_object_get_members(json_node_get_object(shape));
        for (GList *l = names; l; l = l->next) {
                const char *name = l->data;
                if (ignore && g_strv_contains(ignore, name))
                        continue;
                JsonNode *from = jc_doc_member(before, name), *to = jc_doc_member(after, name);
                JsonNode *null_node = json_node_new(JSON_NODE_NULL);
                JsonNode *f = from ? from : null_node, *t = to ? to : null_node;
                if (!json_node_equal(f, t)) {
                        g_autofree char *what = g_strdup_printf("%s.%s", prefix, name);
                        JsonObject *change = json_object_new();
                        json_object_set_string_member(change, "what", what);
                        json_object_set_member(change, "from", json_node_copy(f));
                        json_object_set_member(change, "to", json_node_copy(t));
                        json_array_add_object_element(changes, change);
                }
                json_node_unref(null_node);
        }
        g_list_free(names);
}

void jc_doc_print_result(const char *prefix, JsonNode *before, JsonNode *after, const char *const *ignore)
{
        JsonArray *changes = json_array_new();
        jc_doc_add_changes(changes, prefix, before, after, ignore);
        JsonObject *o = json_object_new();
        json_object_set_array_member(o, "changes", changes);
        JsonNode *root = json_node_new(JSON_NODE_OBJECT);
        json_node_take_object(root, o);
        jc_json_print(root, FALSE);
        json_node_unref(root);
}
