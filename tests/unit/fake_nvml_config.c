#include "fake_nvml_config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>

static char *config_path;

void fake_nvml_write_config(const char *json)
{
        g_autofree char *tmp = g_strconcat(config_path, ".new", NULL);
        assert_true(g_file_set_contents(tmp, json, -1, NULL));
        assert_int_equal(rename(tmp, config_path), 0);
}

void fake_nvml_remove_config(void)
{
        g_unlink(config_path);
}

int fake_nvml_setup(void **state)
{
        (void) state;
        g_autofree char *dir = g_dir_make_tmp("jetsond-nvml.XXXXXX", NULL);
        config_path = g_build_filename(dir, "nvml.json", NULL);
        setenv("FAKE_NVML_CONFIG", config_path, 1);
        return 0;
}

int fake_nvml_teardown(void **state)
{
        (void) state;
        g_unlink(config_path);
        g_autofree char *dir = g_path_get_dirname(config_path);
        g_rmdir(dir);
        g_clear_pointer(&config_path, g_free);
        return 0;
}
