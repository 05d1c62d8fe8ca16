/* jetsonctl drop-caches, restore, serial: one call each (restore --json
 * also reads what it changes, before and after). */
#include <stdio.h>

#include "common/bus.h"
#include "common/json_docs.h"
#include "common/json_out.h"
#include "common/props.h"
#include "jetsond-dbus.h"

int jc_cmd_drop_caches(jc_ctx *c, int argc, char **argv)
{
        (void) argv;
        if (argc > 1)
                return jc_usage_error("drop-caches", "drop-caches takes no arguments");
        int ret = jc_write(c, JD_OBJECT_PATH, JD_IFACE_MEMORY, "DropCaches", "dropping caches",
                           JD_ACTION_DROP_CACHES, NULL, NULL, NULL);
        /* Dropping caches changes no setting: an empty list of changes. */
        if (ret == JC_EXIT_OK && c->json)
                jc_doc_print_result("memory", NULL, NULL, NULL);
        return ret;
}

/* What restore changes, read before and after it. */
typedef struct {
        JsonNode *clocks, *nvpmodel, *gpu;
        GPtrArray *fans;
} restore_state;

static void restore_state_read(jc_ctx *c, restore_state *st)
{
        g_autoptr(GVariant) clocks = NULL, nvpmodel = NULL, gpu = NULL;
        jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, true, "reading jetson_clocks", NULL, &clocks);
        jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_NVPMODEL, true, "reading the power mode", NULL, &nvpmodel);
        jc_props_fetch(c, JD_OBJECT_PATH, JD_IFACE_GPU, true, "reading the GPU", NULL, &gpu);
        st->clocks = jc_doc_clocks(clocks);
        st->nvpmodel = jc_doc_nvpmodel(nvpmodel);
        st->gpu = jc_doc_gpu(gpu);
        if (jc_fans_fetch(c, "listing the fans", &st->fans) != JC_EXIT_OK)
                st->fans = g_ptr_array_new();
}

static void restore_state_clear(restore_state *st)
{
        g_clear_pointer(&st->clocks, json_node_unref);
        g_clear_pointer(&st->nvpmodel, json_node_unref);
        g_clear_pointer(&st->gpu, json_node_unref);
        g_clear_pointer(&st->fans, g_ptr_array_unref);
}

/* One step: STEP went FROM -> TO and should have reached TARGET (NULL:
 * whatever jetsond chose). Status: "absent" (the board lacks it),
 * "unchanged", "changed", "next_boot" (a power mode that needs a reboot,
 * as RestoreDefaults documents) or "failed". */
static void add_step(JsonArray *steps, const char *step, JsonNode *from, JsonNode *to, JsonNode *target,
                     bool reboot_ok)
{
        JsonObject *o = json_object_new();
        json_object_set_string_member(o, "step", step);
        json_object_set_member(o, "from", from ? json_node_copy(from) : json_node_new(JSON_NODE_NULL));
        json_object_set_member(o, "to", to ? json_node_copy(to) : json_node_new(JSON_NODE_NULL));
        const char *status = !from || !to                                  ? "absent"
                             : target && !json_node_equal(to, target)       ? (reboot_ok ? "next_boot" : "failed")
                             : json_node_equal(from, to)                    ? "unchanged"
                                                                            : "changed";
        json_object_set_string_member(o, "status", status);
        json_array_add_object_element(steps, o);
}

static JsonNode *bool_node(gboolean v)
{
        JsonNode *n = json_node_new(JSON_NODE_VALUE);
        json_node_set_boolean(n, v);
        return n;
}

/* restore --json: the steps of RestoreDefaults (in its order), each from
 * the state read before and after it rather than from its sentences. */
static void print_restore_steps(const restore_state *was, const restore_state *now, bool call_ok)
{
        JsonArray *steps = json_array_new();
        g_autoptr(JsonNode) off = bool_node(FALSE), on = bool_node(TRUE);
        static const char *const clock_steps[][2] = { { "jetson_clocks.active", "active" },
                                                       { "jetson_clocks.on_boot", "on_boot" } };
        for (size_t i = 0; i < G_N_ELEMENTS(clock_steps); i++)
                add_step(steps, clock_steps[i][0], jc_doc_member(was->clocks, clock_steps[i][1]),
                         jc_doc_member(now->clocks, clock_steps[i][1]), off, false);
        for (guint i = 0; i < now->fans->len; i++) {
                const jc_object *f = g_ptr_array_index(now->fans, i);
                g_autoptr(JsonNode) after = jc_doc_fan(f), before = NULL;
                for (guint k = 0; k < was->fans->len; k++) {
                        const jc_object *w = g_ptr_array_index(was->fans, k);
                        if (w->index == f->index)
                                before = jc_doc_fan(w);
                }
                JsonNode *def = jc_doc_member(after, "default_profile");
                g_autofree char *step = g_strdup_printf("fan.%u.profile", f->index);
                add_step(steps, step, jc_doc_member(before, "profile"), jc_doc_member(after, "profile"),
                         def && !JSON_NODE_HOLDS_NULL(def) ? def : NULL, false);
        }
        add_step(steps, "nvpmodel.mode", jc_doc_member(was->nvpmodel, "mode"), jc_doc_member(now->nvpmodel, "mode"),
                 jc_doc_member(now->nvpmodel, "default_mode"), call_ok);
        static const char *const gpu_steps[][2] = { { "gpu.scaling_3d", "scaling_3d" }, { "gpu.railgate", "railgate" } };
        for (size_t i = 0; i < G_N_ELEMENTS(gpu_steps); i++)
                add_step(steps, gpu_steps[i][0], jc_doc_member(was->gpu, gpu_steps[i][1]),
                         jc_doc_member(now->gpu, gpu_steps[i][1]), on, false);
        g_autoptr(JsonNode) root = json_node_new(JSON_NODE_OBJECT);
        json_node_take_object(root, json_object_new());
        json_object_set_array_member(json_node_get_object(root), "steps", steps);
        jc_json_print(root, FALSE);
}

int jc_cmd_restore(jc_ctx *c, int argc, char **argv)
{
        (void) argv;
        if (argc > 1)
                return jc_usage_error("restore", "restore takes no arguments");
        static const char action[] =
                JD_ACTION_SET_FAN " " JD_ACTION_SET_NVPMODEL " " JD_ACTION_SET_JETSON_CLOCKS " " JD_ACTION_SET_GPU;
        restore_state was = { 0 }, now = { 0 };
        if (c->json)
                restore_state_read(c, &was);
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = 0, ret = JC_EXIT_OK;
        g_autoptr(GVariant) reply = jc_write_call(c, JD_OBJECT_PATH, JD_IFACE_MANAGER, "RestoreDefaults", &error, &r,
                                                  NULL);
        /* Failed: every step was attempted and at least one failed; any
         * other error means none was, so there are no steps to show. */
        bool attempted = reply || sd_bus_error_has_name(&error, JD_ERROR_FAILED);
        if (!reply)
                ret = jc_report_error("restoring defaults", &error, r, action, NULL);
        sd_bus_error_free(&error);
        if (c->json && attempted) {
                restore_state_read(c, &now);
                print_restore_steps(&was, &now, reply != NULL);
        } else if (reply && g_variant_is_of_type(reply, G_VARIANT_TYPE("(as)"))) {
                g_autoptr(GVariant) steps = g_variant_get_child_value(reply, 0);
                GVariantIter it;
                const char *line;
                g_variant_iter_init(&it, steps);
                while (g_variant_iter_next(&it, "&s", &line))
                        printf("%s\n", line);
        }
        restore_state_clear(&was);
        restore_state_clear(&now);
        return ret;
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
