/* org.jetsond.Jetson1.JetsonClocks: whether every clock is pinned at its
 * maximum, read from sysfs so it also follows jetson_clocks runs outside
 * jetsond; exported only on boards with the jetson_clocks tool
 * (introspection/org.jetsond.Jetson1.JetsonClocks.xml). */
#include <limits.h>
#include <string.h>

#include "jetsond-dbus.h"
#include "service.h"

typedef struct {
        jd_iface base;
        bool active, on_boot;         /* last published */
} jetson_clocks_iface;

static bool is_active(const jd_service *svc)
{
        return svc->sample->jetson_clocks_active.present && svc->sample->jetson_clocks_active.value;
}

static int get_active(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) error;
        const jetson_clocks_iface *self = userdata;
        int v = strcmp(property, "Active") == 0 ? is_active(self->base.svc) : self->on_boot;
        return sd_bus_message_append_basic(reply, 'b', &v);
}

static const sd_bus_vtable jetson_clocks_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Active", "b", get_active, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("OnBoot", "b", get_active, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_VTABLE_END,
};

static void jetson_clocks_update(jd_iface *base)
{
        jetson_clocks_iface *self = (jetson_clocks_iface *) base;
        bool active = is_active(base->svc);
        if (active == self->active)
                return;
        self->active = active;
        jd_emit_changed(base->svc, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS, (const char *[]) { "Active", NULL });
}

static void jetson_clocks_destroy(jd_iface *base)
{
        g_free(base);
}

jd_iface *jd_jetson_clocks_iface_new(jd_service *svc, GError **error)
{
        char tool[PATH_MAX];
        if (jd_sysroot_find_tool(svc->sr, "jetson_clocks", tool, sizeof(tool)) < 0)
                return NULL;
        jetson_clocks_iface *self = g_new0(jetson_clocks_iface, 1);
        self->base.svc = svc;
        self->base.update = jetson_clocks_update;
        self->base.destroy = jetson_clocks_destroy;
        self->active = is_active(svc);
        int r = sd_bus_add_object_vtable(svc->bus, &self->base.slot, JD_OBJECT_PATH, JD_IFACE_JETSON_CLOCKS,
                                         jetson_clocks_vtable, self);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_JETSON_CLOCKS);
                g_free(self);
                return NULL;
        }
        return &self->base;
}
