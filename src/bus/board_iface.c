/* org.jetsond.Jetson1.Board: the board's identity, read once at start-up
 * (introspection/org.jetsond.Jetson1.Board.xml). */
#include <stddef.h>

#include "auth.h"
#include "jetsond-dbus.h"
#include "service.h"

/* Properties point into jd_board with an offset: sd-bus hands the getter
 * the address of the field. */
static int get_string(sd_bus *bus, const char *path, const char *interface, const char *property,
                      sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        return sd_bus_message_append_basic(reply, 's', (const char *) userdata);
}

static int get_libraries(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_board *b = userdata;
        int r = sd_bus_message_open_container(reply, 'a', "{ss}");
        for (size_t i = 0; r >= 0 && i < b->n_libraries; i++)
                r = sd_bus_message_append(reply, "{ss}", b->libraries[i].name, b->libraries[i].version);
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

static void reply_serial(sd_bus_message *call, bool authorized, void *userdata)
{
        const jd_board *b = userdata;
        if (!authorized)
                return;
        if (!b->serial[0]) {
                sd_bus_reply_method_errorf(call, JD_ERROR_NOT_SUPPORTED,
                                           "This board exposes no readable serial number");
                return;
        }
        sd_bus_reply_method_return(call, "s", b->serial);
}

static int method_get_serial_number(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        return jd_auth_then(m, JD_ACTION_READ_SERIAL, reply_serial, userdata, error);
}

#define BOARD_STRING(name, field)                                                        \
        SD_BUS_PROPERTY(name, "s", get_string, offsetof(jd_board, field), SD_BUS_VTABLE_PROPERTY_CONST)

static const sd_bus_vtable board_vtable[] = {
        SD_BUS_VTABLE_START(0),
        BOARD_STRING("Model", model),
        BOARD_STRING("Module", module),
        BOARD_STRING("PartNumber", part_number),
        BOARD_STRING("PNumber", p_number),
        BOARD_STRING("BoardIds", board_ids),
        BOARD_STRING("SoC", soc),
        BOARD_STRING("CudaArch", cuda_arch),
        BOARD_STRING("Codename", codename),
        BOARD_STRING("L4T", l4t),
        BOARD_STRING("JetPack", jetpack),
        BOARD_STRING("Machine", machine),
        BOARD_STRING("Distribution", distribution),
        BOARD_STRING("KernelRelease", kernel_release),
        SD_BUS_PROPERTY("Libraries", "a{ss}", get_libraries, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_METHOD_WITH_ARGS("GetSerialNumber", SD_BUS_NO_ARGS, SD_BUS_RESULT("s", serial),
                                method_get_serial_number, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static void board_destroy(jd_iface *self)
{
        g_free(self);
}

jd_iface *jd_board_iface_new(jd_service *svc, GError **error)
{
        jd_iface *self = g_new0(jd_iface, 1);
        self->svc = svc;
        self->destroy = board_destroy;
        int r = sd_bus_add_object_vtable(svc->bus, &self->slot, JD_OBJECT_PATH, JD_IFACE_BOARD,
                                         board_vtable, &svc->board);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_BOARD);
                g_free(self);
                return NULL;
        }
        return self;
}
