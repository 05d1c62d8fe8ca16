#include "sysfs_write.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int jd_write_attribute(const jd_sysroot *sr, const char *path, const char *value)
{
        int fd = jd_sysroot_open(sr, path, O_WRONLY | O_TRUNC);
        if (fd < 0)
                return fd;
        size_t len = strlen(value);
        ssize_t n = write(fd, value, len);
        int r = n < 0 ? -errno : (size_t) n != len ? -EIO : 0;
        /* sysfs reports some errors only at close. */
        if (close(fd) < 0 && r == 0)
                r = -errno;
        return r;
}
