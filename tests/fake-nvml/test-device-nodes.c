/* The fake NVML's "device_nodes" (README.md): nvmlInit opens
 * DIR/nvidiactl, a GPU's handle DIR/nvidiaN, both stay open until the
 * last nvmlShutdown, and a node that cannot be opened fails the call as
 * the driver library does. Loaded with dlopen(), as jetsond loads it. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fixture.h"
#include "nvml_api.h"

static char *dir, *nodes;
static void *lib;
static nvml_init_fn *init;
static nvml_shutdown_fn *shutdown_nvml;
static nvml_handle_fn *handle;

static void write_config_with(const char *nodes_dir, const char *extra)
{
        g_autofree char *path = g_build_filename(dir, "nvml.json", NULL);
        g_autofree char *json = g_strdup_printf(
                "{\"device_nodes\": \"%s\", %s\"devices\": [{\"name\": \"A\"}, {\"name\": \"B\"}]}",
                nodes_dir, extra);
        g_autofree char *tmp = g_strconcat(path, ".new", NULL);
        assert_true(g_file_set_contents(tmp, json, -1, NULL));
        assert_int_equal(rename(tmp, path), 0);
}

static void write_config(const char *nodes_dir)
{
        write_config_with(nodes_dir, "");
}

static void make_node(const char *name, int mode)
{
        g_autofree char *path = g_build_filename(nodes, name, NULL);
        assert_true(g_file_set_contents(path, "", 0, NULL));
        assert_int_equal(chmod(path, (mode_t) mode), 0);
}

/* Whether this process has PATH open (its /proc/self/fd links). */
static bool has_open(const char *name)
{
        g_autofree char *want = g_build_filename(nodes, name, NULL);
        GDir *d = g_dir_open("/proc/self/fd", 0, NULL);
        assert_non_null(d);
        bool found = false;
        for (const char *e; !found && (e = g_dir_read_name(d));) {
                g_autofree char *link = g_strdup_printf("/proc/self/fd/%s", e);
                g_autofree char *target = g_file_read_link(link, NULL);
                found = target && strcmp(target, want) == 0;
        }
        g_dir_close(d);
        return found;
}

static int setup(void **state)
{
        (void) state;
        dir = g_dir_make_tmp("jetsond-fake-nodes.XXXXXX", NULL);
        nodes = g_build_filename(dir, "dev", NULL);
        assert_int_equal(g_mkdir(nodes, 0755), 0);
        g_autofree char *config = g_build_filename(dir, "nvml.json", NULL);
        setenv("FAKE_NVML_CONFIG", config, 1);
        lib = dlopen(FAKE_NVML_PATH, RTLD_NOW | RTLD_LOCAL);
        assert_non_null(lib);
        init = (nvml_init_fn *) dlsym(lib, "nvmlInit_v2");
        shutdown_nvml = (nvml_shutdown_fn *) dlsym(lib, "nvmlShutdown");
        handle = (nvml_handle_fn *) dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
        assert_true(init && shutdown_nvml && handle);
        return 0;
}

static int teardown(void **state)
{
        (void) state;
        dlclose(lib);
        g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        g_clear_pointer(&dir, g_free);
        g_clear_pointer(&nodes, g_free);
        return 0;
}

static void opened_until_shutdown(void **state)
{
        (void) state;
        make_node("nvidiactl", 0666);
        make_node("nvidia0", 0666);
        write_config(nodes);
        assert_int_equal(init(), NVML_SUCCESS);
        assert_true(has_open("nvidiactl"));
        assert_false(has_open("nvidia0"));          /* only once a handle is asked for */
        nvmlDevice_t dev;
        assert_int_equal(handle(0, &dev), NVML_SUCCESS);
        assert_true(has_open("nvidia0"));
        /* No node for GPU 1: that GPU fails, the other keeps working. */
        assert_int_equal(handle(1, &dev), NVML_ERROR_UNKNOWN);
        assert_int_equal(handle(0, &dev), NVML_SUCCESS);
        /* Reference counted, as NVML: the nodes stay open until the last. */
        assert_int_equal(init(), NVML_SUCCESS);
        assert_int_equal(shutdown_nvml(), NVML_SUCCESS);
        assert_true(has_open("nvidiactl") && has_open("nvidia0"));
        assert_int_equal(shutdown_nvml(), NVML_SUCCESS);
        assert_false(has_open("nvidiactl"));
        assert_false(has_open("nvidia0"));
}

static void no_control_node(void **state)
{
        (void) state;
        g_autofree char *ctl = g_build_filename(nodes, "nvidiactl", NULL);
        g_unlink(ctl);
        write_config(nodes);
        assert_int_equal(init(), NVML_ERROR_DRIVER_NOT_LOADED);
        /* nvmlInit failed: nothing to shut down. */
        assert_int_equal(shutdown_nvml(), NVML_ERROR_UNINITIALIZED);
        /* Without the field nothing is opened, so no node is needed. */
        g_autofree char *path = g_build_filename(dir, "nvml.json", NULL);
        assert_true(g_file_set_contents(path, "{\"devices\": [{\"name\": \"A\"}]}", -1, NULL));
        assert_int_equal(init(), NVML_SUCCESS);
        assert_int_equal(shutdown_nvml(), NVML_SUCCESS);
}

static void permission_denied(void **state)
{
        (void) state;
        if (geteuid() != 0)
                skip();
        make_node("nvidiactl", 0);
        make_node("nvidia0", 0666);
        write_config(nodes);
        fixture_dac_capabilities(false);
        nvmlReturn_t r = init();
        /* A GPU node the process may not open. */
        g_autofree char *ctl = g_build_filename(nodes, "nvidiactl", NULL);
        g_autofree char *gpu = g_build_filename(nodes, "nvidia0", NULL);
        assert_int_equal(chmod(ctl, 0666), 0);
        assert_int_equal(chmod(gpu, 0), 0);
        nvmlReturn_t init_again = init();
        nvmlDevice_t dev;
        nvmlReturn_t h = init_again == NVML_SUCCESS ? handle(0, &dev) : NVML_SUCCESS;
        if (init_again == NVML_SUCCESS)
                shutdown_nvml();
        fixture_dac_capabilities(true);
        assert_int_equal(r, NVML_ERROR_NO_PERMISSION);
        assert_int_equal(init_again, NVML_SUCCESS);
        assert_int_equal(h, NVML_ERROR_NO_PERMISSION);
}

/* Character devices of a major no driver registered (195 without the
 * NVIDIA module): ENXIO, which is the missing driver's answer, not the
 * sandbox's; "device_nodes_without_driver" lets it through. */
static void no_driver_behind_node(void **state)
{
        (void) state;
        if (geteuid() != 0)
                skip();
        for (unsigned i = 0; i < 2; i++) {
                g_autofree char *path = g_build_filename(nodes, i ? "nvidia0" : "nvidiactl", NULL);
                g_unlink(path);
                if (mknod(path, S_IFCHR | 0666, makedev(195, i ? 0 : 255)) != 0)
                        skip();   /* a container without CAP_MKNOD */
        }
        g_autofree char *ctl = g_build_filename(nodes, "nvidiactl", NULL);
        int fd = open(ctl, O_RDWR);
        if (fd >= 0 || errno != ENXIO) {
                /* The NVIDIA driver is loaded here, or the node is refused. */
                if (fd >= 0)
                        close(fd);
                skip();
        }
        write_config(nodes);
        assert_int_equal(init(), NVML_ERROR_DRIVER_NOT_LOADED);
        write_config_with(nodes, "\"device_nodes_without_driver\": true, ");
        assert_int_equal(init(), NVML_SUCCESS);
        nvmlDevice_t dev;
        assert_int_equal(handle(0, &dev), NVML_SUCCESS);
        /* Not a permission problem, nor a missing node: those still fail. */
        assert_int_equal(handle(1, &dev), NVML_ERROR_UNKNOWN);
        assert_int_equal(shutdown_nvml(), NVML_SUCCESS);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(opened_until_shutdown),
                cmocka_unit_test(no_control_node),
                cmocka_unit_test(no_driver_behind_node),
                cmocka_unit_test(permission_denied),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
