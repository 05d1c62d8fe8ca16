#include "user_mode.h"

#include <string.h>

#include "jetsond-dbus.h"
#include "write_methods.h"

#define IFACE_PREFIX "org.jetsond.Jetson1."

bool jd_user_mode_is_write(const char *interface, const char *member)
{
        if (!interface || !member)
                return false;
        for (size_t i = 0; i < sizeof(jd_write_methods) / sizeof(jd_write_methods[0]); i++)
                if (strcmp(jd_write_methods[i].interface, interface) == 0 &&
                    strcmp(jd_write_methods[i].member, member) == 0)
                        return true;
        return false;
}

int jd_user_mode_error(sd_bus_error *error, const char *interface, const char *member)
{
        /* "Fan.SetSpeed()": the name a reader of service.md knows. */
        if (interface && strncmp(interface, IFACE_PREFIX, strlen(IFACE_PREFIX)) == 0)
                interface += strlen(IFACE_PREFIX);
        return sd_bus_error_setf(error, JD_ERROR_READ_ONLY,
                                 "A per-user jetsond (jetsond --user) cannot change the board: %s.%s() is for the "
                                 "system service (jetsonctl without --user, busctl --system)",
                                 interface ? interface : "?", member ? member : "?");
}

/* Runs before sd-bus looks for the object, so the refusal does not depend
 * on the arguments, on the hardware or on a lock: the same answer for
 * every write, at once. */
static int refuse_write(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void) userdata, (void) ret_error;
        if (!sd_bus_message_is_method_call(m, NULL, NULL))
                return 0;
        const char *interface = sd_bus_message_get_interface(m), *member = sd_bus_message_get_member(m);
        if (!jd_user_mode_is_write(interface, member))
                return 0;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        jd_user_mode_error(&error, interface, member);
        int r = sd_bus_reply_method_error(m, &error);
        sd_bus_error_free(&error);
        return r < 0 ? r : 1; /* handled: no object sees it */
}

int jd_user_mode_refuse_writes(sd_bus *bus, sd_bus_slot **slot)
{
        return sd_bus_add_filter(bus, slot, refuse_write, NULL);
}
