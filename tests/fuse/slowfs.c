/* slowfs: a FUSE mirror of a fake board that makes chosen files slow or
 * stuck, as sensors on a real board are (an INA3221 read takes ~0.5 ms
 * over I2C; a debugfs read can hang; so can a write to the attribute of
 * a fan controller that stopped answering).
 *
 *   slowfs SOURCE MOUNTPOINT CONTROL_DIR
 *
 * CONTROL_DIR holds the rules, re-read on every read so a test can
 * change them while jetsond runs:
 *   CONTROL_DIR/delay   lines "GLOB MICROSECONDS": reads of matching
 *                       paths (relative to SOURCE, fnmatch) sleep first
 *   CONTROL_DIR/block   lines "GLOB": reads of matching paths wait for
 *                       as long as the line is there, or until the
 *                       kernel interrupts them (the caller is killed)
 *   CONTROL_DIR/block-write  the same for writes (files stay writable
 *                       as in the tree below; reads are not held)
 *   CONTROL_DIR/error   lines "GLOB ERRNO": reads of matching paths fail
 *                       with that errno (11, EAGAIN: Thor's gpu-thermal
 *                       zone while the GPU is rail-gated)
 *   CONTROL_DIR/endless lines "GLOB": reads of matching paths never reach
 *                       the end: the file's bytes again and again at any
 *                       offset (a driver that never returns 0)
 * Every file is opened direct_io, so each pread(2) reaches slowfs as it
 * reaches the driver on sysfs. Multithreaded: a blocked read holds only
 * its own caller. Ends (and unmounts) on SIGTERM. */
#define FUSE_USE_VERSION 35

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <fuse.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char source[PATH_MAX];
static char control[PATH_MAX];

/* Paths longer than PATH_MAX do not occur in a fake board. */
static void backing(char *out, const char *path)
{
        size_t n = strlen(source);
        memcpy(out, source, n);
        snprintf(out + n, PATH_MAX - n, "%s", path);
}

/* The delay for PATH in µs from the rules in FILE; -1 if no rule matches. */
static long rule(const char *file, const char *path)
{
        char name[PATH_MAX + 16];
        snprintf(name, sizeof(name), "%s/%s", control, file);
        FILE *f = fopen(name, "re");
        if (!f)
                return -1;
        char line[PATH_MAX + 32];
        long found = -1;
        while (found < 0 && fgets(line, sizeof(line), f)) {
                char glob[PATH_MAX];
                long us = 0;
                int n = sscanf(line, "%4095s %ld", glob, &us);
                if (n >= 1 && fnmatch(glob, path + 1, FNM_PATHNAME) == 0)
                        found = n == 2 ? us : 0;
        }
        fclose(f);
        return found;
}

static void sleep_us(long us)
{
        struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
        (void) fi;
        char b[PATH_MAX];
        backing(b, path);
        return lstat(b, st) < 0 ? -errno : 0;
}

static int fs_readlink(const char *path, char *buf, size_t size)
{
        char b[PATH_MAX];
        backing(b, path);
        ssize_t n = readlink(b, buf, size - 1);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags)
{
        (void) off, (void) fi, (void) flags;
        char b[PATH_MAX];
        backing(b, path);
        DIR *d = opendir(b);
        if (!d)
                return -errno;
        struct dirent *e;
        while ((e = readdir(d)))
                fill(buf, e->d_name, NULL, 0, 0);
        closedir(d);
        return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
        char b[PATH_MAX];
        backing(b, path);
        int fd = open(b, fi->flags & ~(O_CREAT | O_EXCL));
        if (fd < 0)
                return -errno;
        fi->fh = (uint64_t) fd;
        fi->direct_io = 1;
        return 0;
}

/* Waits while RULES lists PATH; -EINTR if the caller is killed meanwhile. */
static int wait_unblocked(const char *rules, const char *path)
{
        while (rule(rules, path) >= 0) {
                if (fuse_interrupted())
                        return -EINTR;
                sleep_us(10000);
        }
        return 0;
}

/* The file's bytes repeated without end ("0\n" for an empty file). */
static int endless_read(int fd, char *buf, size_t size, off_t off)
{
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        size_t have = 0;
        while (have < size) {
                ssize_t n = st.st_size > 0 ? pread(fd, buf + have, size - have, (off + (off_t) have) % st.st_size) : 0;
                if (n < 0)
                        return -errno;
                if (n == 0) {
                        buf[have] = (off + (off_t) have) % 2 ? '\n' : '0';
                        have++;
                        continue;
                }
                have += (size_t) n;
        }
        return (int) size;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
        /* The kernel asks to interrupt a request whose caller gets a
         * fatal signal; honouring it lets a process with a stuck reader
         * exit instead of staying a zombie until the rule goes. */
        if (wait_unblocked("block", path) < 0)
                return -EINTR;
        long delay = rule("delay", path);
        if (delay > 0)
                sleep_us(delay);
        long error = rule("error", path);
        if (error > 0)
                return (int) -error;
        if (rule("endless", path) >= 0)
                return endless_read((int) fi->fh, buf, size, off);
        ssize_t n = pread((int) fi->fh, buf, size, off);
        return n < 0 ? -errno : (int) n;
}

static int fs_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
        if (wait_unblocked("block-write", path) < 0)
                return -EINTR;
        ssize_t n = pwrite((int) fi->fh, buf, size, off);
        return n < 0 ? -errno : (int) n;
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
        if (fi)
                return ftruncate((int) fi->fh, size) < 0 ? -errno : 0;
        char b[PATH_MAX];
        backing(b, path);
        return truncate(b, size) < 0 ? -errno : 0;
}

static int fs_release(const char *path, struct fuse_file_info *fi)
{
        (void) path;
        close((int) fi->fh);
        return 0;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
        (void) conn;
        cfg->use_ino = 1;
        cfg->attr_timeout = 1.0;
        cfg->entry_timeout = 1.0;
        return NULL;
}

static const struct fuse_operations ops = {
        .init = fs_init,
        .getattr = fs_getattr,
        .readlink = fs_readlink,
        .readdir = fs_readdir,
        .open = fs_open,
        .read = fs_read,
        .write = fs_write,
        .truncate = fs_truncate,
        .release = fs_release,
};

int main(int argc, char **argv)
{
        if (argc != 4) {
                fprintf(stderr, "usage: slowfs SOURCE MOUNTPOINT CONTROL_DIR\n");
                return 2;
        }
        if (!realpath(argv[1], source) || !realpath(argv[3], control)) {
                perror("slowfs");
                return 2;
        }
        /* Foreground, multithreaded, readable by every user (jetsond's
         * tests run as root, but the fake tools may not). */
        char *fargv[] = { argv[0], argv[2], "-f", "-o", "allow_other,default_permissions,fsname=slowfs", NULL };
        return fuse_main(5, fargv, &ops, NULL);
}
