/* cuse-nvidia NAME MAJOR MINOR LOG
 *
 * A character device in user space (CUSE) that stands in for one of the
 * NVIDIA driver's nodes inside the VM test (scripts/test-vm.sh). The kernel
 * registers the region under NAME, so /proc/devices lists "MAJOR NAME" as
 * it does for the real driver ("195 nvidia-frontend", "195 nvidia"), and
 * systemd's DeviceAllow=char-NAME resolves it the same way. Every open and
 * close is appended to LOG with the caller's pid, so the test can tell that
 * the fake NVML inside jetsond's sandbox really opened the node. Reads
 * return nothing, writes and ioctls fail: NVML's real protocol is not
 * modelled, only the access the sandbox decides on.
 *
 * Daemonizes once the device is registered (libfuse's default). */
#define FUSE_USE_VERSION 31
#include <cuse_lowlevel.h>
#include <errno.h>
#include <fuse_opt.h>
#include <stdio.h>
#include <stdlib.h>

static const char *log_path;

static void log_event(fuse_req_t req, const char *what)
{
        FILE *f = fopen(log_path, "a");
        if (f) {
                fprintf(f, "%s pid=%d\n", what, (int)fuse_req_ctx(req)->pid);
                fclose(f);
        }
}

static void nv_open(fuse_req_t req, struct fuse_file_info *fi)
{
        log_event(req, "open");
        fuse_reply_open(req, fi);
}

static void nv_release(fuse_req_t req, struct fuse_file_info *fi)
{
        (void)fi;
        log_event(req, "close");
        fuse_reply_err(req, 0);
}

static void nv_read(fuse_req_t req, size_t size, off_t off, struct fuse_file_info *fi)
{
        (void)size, (void)off, (void)fi;
        fuse_reply_buf(req, NULL, 0);
}

static void nv_write(fuse_req_t req, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
        (void)buf, (void)size, (void)off, (void)fi;
        fuse_reply_err(req, EINVAL);
}

static void nv_ioctl(fuse_req_t req, int cmd, void *arg, struct fuse_file_info *fi, unsigned flags,
                     const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
        (void)cmd, (void)arg, (void)fi, (void)flags, (void)in_buf, (void)in_bufsz, (void)out_bufsz;
        fuse_reply_err(req, ENOTTY);
}

static const struct cuse_lowlevel_ops ops = {
        .open = nv_open,
        .release = nv_release,
        .read = nv_read,
        .write = nv_write,
        .ioctl = nv_ioctl,
};

int main(int argc, char **argv)
{
        if (argc != 5) {
                fprintf(stderr, "usage: %s NAME MAJOR MINOR LOG\n", argv[0]);
                return 2;
        }
        char devname[128];
        snprintf(devname, sizeof(devname), "DEVNAME=%s", argv[1]);
        const char *dev_info[] = { devname };
        struct cuse_info ci = {
                .dev_major = (unsigned)strtoul(argv[2], NULL, 10),
                .dev_minor = (unsigned)strtoul(argv[3], NULL, 10),
                .dev_info_argc = 1,
                .dev_info_argv = dev_info,
                .flags = CUSE_UNRESTRICTED_IOCTL,
        };
        log_path = argv[4];
        /* Single-threaded; daemonizes after the kernel accepted the device. */
        char *fuse_argv[] = { argv[0], "-s", NULL };
        return cuse_lowlevel_main(2, fuse_argv, &ci, &ops, NULL);
}
