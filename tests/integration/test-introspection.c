/* The contract: introspection/org.jetsond.Jetson1.*.xml against what the
 * running service says about itself (Introspect() of every object).
 * Methods, argument names, types and directions, signals, properties
 * with type, access and change semantics must match exactly; an
 * interface, member or argument on one side only is drift. */
#include <gio/gio.h>
#include <string.h>

#include "jetsond-dbus.h"
#include "testbus.h"

static const char *const interfaces[] = {
        JD_IFACE_BOARD, JD_IFACE_METRICS, JD_IFACE_NVPMODEL, JD_IFACE_JETSON_CLOCKS,
        JD_IFACE_MEMORY, JD_IFACE_FAN, JD_IFACE_MANAGER, JD_IFACE_DISCRETE_GPU, JD_IFACE_GPU,
};

static GDBusInterfaceInfo *contract(const char *name, GDBusNodeInfo **node)
{
        g_autofree char *path = g_strdup_printf("%s/introspection/%s.xml", SOURCE_DIR, name);
        g_autofree char *xml = NULL;
        assert_true(g_file_get_contents(path, &xml, NULL, NULL));
        g_autoptr(GError) error = NULL;
        *node = g_dbus_node_info_new_for_xml(xml, &error);
        if (!*node)
                fail_msg("%s: %s", path, error->message);
        GDBusInterfaceInfo *info = g_dbus_node_info_lookup_interface(*node, name);
        assert_non_null(info);
        return info;
}

static GDBusNodeInfo *introspect(sd_bus *bus, const char *path)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *reply = NULL;
        if (sd_bus_call_method(bus, JD_BUS_NAME, path, "org.freedesktop.DBus.Introspectable", "Introspect", &e, &reply,
                               NULL) < 0)
                fail_msg("Introspect %s: %s", path, e.message);
        const char *xml;
        assert_true(sd_bus_message_read(reply, "s", &xml) > 0);
        /* sd-bus marks a method callable only by privileged callers; every
         * jetsond method must reach polkit instead. */
        if (strstr(xml, "org.freedesktop.systemd1.Privileged"))
                fail_msg("%s: a method lacks SD_BUS_VTABLE_UNPRIVILEGED", path);
        g_autoptr(GError) error = NULL;
        GDBusNodeInfo *node = g_dbus_node_info_new_for_xml(xml, &error);
        if (!node)
                fail_msg("Introspect %s: %s", path, error->message);
        sd_bus_message_unref(reply);
        return node;
}

static const char *annotation(GDBusAnnotationInfo **annotations, const char *name, const char *fallback)
{
        const char *v = g_dbus_annotation_info_lookup(annotations, name);
        return v ? v : fallback;
}

static void compare_args(const char *where, GDBusArgInfo **want, GDBusArgInfo **got)
{
        size_t n = 0;
        for (; want && want[n]; n++) {
                if (!got || !got[n])
                        fail_msg("%s: argument %s missing", where, want[n]->name);
                if (strcmp(want[n]->name, got[n]->name) != 0 || strcmp(want[n]->signature, got[n]->signature) != 0)
                        fail_msg("%s: argument %zu is %s %s, contract says %s %s", where, n, got[n]->signature,
                                 got[n]->name, want[n]->signature, want[n]->name);
        }
        if (got && got[n])
                fail_msg("%s: extra argument %s", where, got[n]->name);
}

static void compare_interface(const char *path, GDBusInterfaceInfo *want, GDBusInterfaceInfo *got)
{
        char where[256];
        for (GDBusMethodInfo **m = want->methods; m && *m; m++) {
                GDBusMethodInfo *g = g_dbus_interface_info_lookup_method(got, (*m)->name);
                if (!g)
                        fail_msg("%s %s: method %s missing", path, want->name, (*m)->name);
                g_snprintf(where, sizeof(where), "%s.%s() in", want->name, (*m)->name);
                compare_args(where, (*m)->in_args, g->in_args);
                g_snprintf(where, sizeof(where), "%s.%s() out", want->name, (*m)->name);
                compare_args(where, (*m)->out_args, g->out_args);
        }
        for (GDBusMethodInfo **m = got->methods; m && *m; m++)
                if (!g_dbus_interface_info_lookup_method(want, (*m)->name))
                        fail_msg("%s %s: method %s is not in the contract", path, want->name, (*m)->name);
        for (GDBusSignalInfo **s = want->signals; s && *s; s++) {
                GDBusSignalInfo *g = g_dbus_interface_info_lookup_signal(got, (*s)->name);
                if (!g)
                        fail_msg("%s %s: signal %s missing", path, want->name, (*s)->name);
                g_snprintf(where, sizeof(where), "%s.%s signal", want->name, (*s)->name);
                compare_args(where, (*s)->args, g->args);
        }
        for (GDBusSignalInfo **s = got->signals; s && *s; s++)
                if (!g_dbus_interface_info_lookup_signal(want, (*s)->name))
                        fail_msg("%s %s: signal %s is not in the contract", path, want->name, (*s)->name);
        for (GDBusPropertyInfo **p = want->properties; p && *p; p++) {
                GDBusPropertyInfo *g = g_dbus_interface_info_lookup_property(got, (*p)->name);
                if (!g)
                        fail_msg("%s %s: property %s missing", path, want->name, (*p)->name);
                if (strcmp((*p)->signature, g->signature) != 0 || (*p)->flags != g->flags)
                        fail_msg("%s.%s: type %s flags %d, contract says %s flags %d", want->name, (*p)->name,
                                 g->signature, g->flags, (*p)->signature, (*p)->flags);
                /* sd-bus leaves out the default ("true"). */
                const char *ws = annotation((*p)->annotations, "org.freedesktop.DBus.Property.EmitsChangedSignal", "true");
                const char *gs = annotation(g->annotations, "org.freedesktop.DBus.Property.EmitsChangedSignal", "true");
                if (strcmp(ws, gs) != 0)
                        fail_msg("%s.%s: EmitsChangedSignal %s, contract says %s", want->name, (*p)->name, gs, ws);
        }
        for (GDBusPropertyInfo **p = got->properties; p && *p; p++)
                if (!g_dbus_interface_info_lookup_property(want, (*p)->name))
                        fail_msg("%s %s: property %s is not in the contract", path, want->name, (*p)->name);
}

/* Every org.jetsond interface on PATH must be one of EXPECTED, and each
 * of EXPECTED must be there and match its file. */
static void check_object(sd_bus *bus, const char *path, const char *const *expected)
{
        GDBusNodeInfo *live = introspect(bus, path);
        for (GDBusInterfaceInfo **i = live->interfaces; i && *i; i++)
                if (g_str_has_prefix((*i)->name, "org.jetsond.") &&
                    !g_strv_contains(expected, (*i)->name))
                        fail_msg("%s exports %s, which has no contract there", path, (*i)->name);
        for (const char *const *name = expected; *name; name++) {
                GDBusInterfaceInfo *got = g_dbus_node_info_lookup_interface(live, *name);
                if (!got)
                        fail_msg("%s does not export %s", path, *name);
                GDBusNodeInfo *node;
                GDBusInterfaceInfo *want = contract(*name, &node);
                compare_interface(path, want, got);
                g_dbus_node_info_unref(node);
        }
        g_dbus_node_info_unref(live);
}

static void test_live_matches_contract(void **state)
{
        testbus_start(state, "agx-orin-jp62", NULL); /* a board with every interface */
        sd_bus *bus = testbus_connect();
        const char *const root[] = { JD_IFACE_BOARD, JD_IFACE_METRICS, JD_IFACE_NVPMODEL, JD_IFACE_JETSON_CLOCKS,
                                     JD_IFACE_MEMORY, JD_IFACE_MANAGER, JD_IFACE_GPU, NULL };
        check_object(bus, JD_OBJECT_PATH, root);
        check_object(bus, JD_FAN_PATH_PREFIX "0", (const char *const[]) { JD_IFACE_FAN, NULL });
        sd_bus_flush_close_unref(bus);
}

/* The PC board with two discrete GPUs from the fake NVML. */
static void test_discrete_gpu_matches_contract(void **state)
{
        g_setenv("FAKE_NVML_CONFIG", SOURCE_DIR "/tests/fixtures/x86-pc.nvml.json", TRUE);
        const char *const args[] = { "--nvml-library", FAKE_NVML_PATH, NULL };
        testbus_start(state, "x86-pc", args);
        sd_bus *bus = testbus_connect();
        /* Exported once the GPU's thread has read it. */
        for (int i = 0; i < 600; i++) {
                sd_bus_error e = SD_BUS_ERROR_NULL;
                char *name = NULL;
                int r = sd_bus_get_property_string(bus, JD_BUS_NAME, JD_DGPU_PATH_PREFIX "1", JD_IFACE_DISCRETE_GPU,
                                                   "Name", &e, &name);
                sd_bus_error_free(&e);
                free(name);
                if (r >= 0)
                        break;
                g_usleep(50000);
        }
        check_object(bus, JD_DGPU_PATH_PREFIX "0", (const char *const[]) { JD_IFACE_DISCRETE_GPU, NULL });
        check_object(bus, JD_DGPU_PATH_PREFIX "1", (const char *const[]) { JD_IFACE_DISCRETE_GPU, NULL });
        sd_bus_flush_close_unref(bus);
}

/* Every contract file is covered by the tests above. */
static void test_every_file_checked(void **state)
{
        (void) state;
        g_autoptr(GDir) dir = g_dir_open(SOURCE_DIR "/introspection", 0, NULL);
        assert_non_null(dir);
        const char *f;
        unsigned n = 0;
        while ((f = g_dir_read_name(dir))) {
                if (!g_str_has_suffix(f, ".xml"))
                        continue;
                g_autofree char *name = g_strndup(f, strlen(f) - 4);
                if (!g_strv_contains(interfaces, name))
                        fail_msg("introspection/%s is not checked against the service", f);
                n++;
        }
        assert_int_equal(n, G_N_ELEMENTS(interfaces));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_teardown(test_live_matches_contract, testbus_teardown),
                cmocka_unit_test_teardown(test_discrete_gpu_matches_contract, testbus_teardown),
                cmocka_unit_test(test_every_file_checked),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
