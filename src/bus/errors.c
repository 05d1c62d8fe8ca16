#include "errors.h"

#include <errno.h>

#include "jetsond-dbus.h"

/* The errno side is what a handler returns when it has no message of
 * its own; every handler in jetsond sets a message, so these mostly make
 * sd_bus_error_get_errno() meaningful for logging. */
static const sd_bus_error_map jd_error_map[] = {
        SD_BUS_ERROR_MAP(JD_ERROR_NOT_SUPPORTED, EOPNOTSUPP),
        SD_BUS_ERROR_MAP(JD_ERROR_BUSY, EBUSY),
        SD_BUS_ERROR_MAP(JD_ERROR_FAILED, EIO),
        SD_BUS_ERROR_MAP(JD_ERROR_TIMEOUT, ETIMEDOUT),
        SD_BUS_ERROR_MAP(JD_ERROR_REBOOT_REQUIRED, ENOTRECOVERABLE),
        SD_BUS_ERROR_MAP(JD_ERROR_READ_ONLY, EROFS),
        SD_BUS_ERROR_MAP(JD_ERROR_UNKNOWN_PROCESS, ESRCH),
        SD_BUS_ERROR_MAP_END,
};

int jd_errors_register(void)
{
        return sd_bus_error_add_map(jd_error_map);
}

void jd_reply_deferred_error(sd_bus_message *m, int r, sd_bus_error *error)
{
        if (r < 0) {
                if (!sd_bus_error_is_set(error))
                        sd_bus_error_set_errno(error, r);
                sd_bus_reply_method_error(m, error);
        }
        sd_bus_error_free(error);
}
