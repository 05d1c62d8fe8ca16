/* org.jetsond.Jetson1.Manager: operations that span several parts of the
 * board (introspection/org.jetsond.Jetson1.Manager.xml). */
#include "jetsond-dbus.h"
#include "service.h"

/* Issue 4, not done yet: refused before polkit is asked or anything is
 * touched, so the interface matches the contract without pretending. */
static int method_restore_defaults(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        (void) m, (void) userdata;
        return sd_bus_error_set(error, JD_ERROR_NOT_SUPPORTED,
                                "Restoring defaults is not available in this version of jetsond yet");
}

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD_WITH_ARGS("RestoreDefaults", SD_BUS_NO_ARGS, SD_BUS_RESULT("as", steps),
                                method_restore_defaults, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static void manager_destroy(jd_iface *base)
{
        g_free(base);
}

jd_iface *jd_manager_iface_new(jd_service *svc, GError **error)
{
        jd_iface *self = g_new0(jd_iface, 1);
        self->svc = svc;
        self->destroy = manager_destroy;
        int r = sd_bus_add_object_vtable(svc->bus, &self->slot, JD_OBJECT_PATH, JD_IFACE_MANAGER, manager_vtable, NULL);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_MANAGER);
                g_free(self);
                return NULL;
        }
        return self;
}
