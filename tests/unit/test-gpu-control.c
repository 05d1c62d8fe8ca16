/* The GPU controls (src/control/gpu_control.c) on private copies of
 * boards: the AGX Orin on JetPack 6.2 (enable_3d_scaling, railgate_enable),
 * the same with enable_3d_scaling removed as JetPack 7.2 leaves it (the
 * nvgpu devfreq governor), a Thor tree built here from the fact sheet
 * (jetson-jp7-thor.md §2a, §2b: devfreq gpu-gpc-0 and gpu-nvd-0, PCI
 * 0000:01:00.0's power/control), and the fake boards agx-thor-jp71 and
 * agx-orin-jp72. */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "gpu_control.h"

#define ORIN_DEV "sys/class/devfreq/17000000.gpu/device/"
#define ORIN_GOV "sys/class/devfreq/17000000.gpu/governor"
#define STATE "/var/lib/jetsond/gpu.state"

static char *slurp(const char *dir, const char *rel)
{
        g_autofree char *path = fixture_host_path(dir, rel);
        char *text = NULL;
        if (!g_file_get_contents(path, &text, NULL, NULL))
                return g_strdup("<missing>");
        return text;
}

#define assert_file(dir, rel, want)                          \
        do {                                                 \
                g_autofree char *got_ = slurp(dir, rel);     \
                assert_string_equal(got_, want);             \
        } while (0)

static void set(const jd_sysroot *sr, const jd_gpu_controls *c, jd_gpu_memory *m, jd_gpu_setting s, bool on,
                jd_gpu_change *out)
{
        jd_gpu_set(sr, c, m, STATE, s, on, out);
        *m = out->memory;
}

/* ---- JetPack 4-6: nvgpu's files --------------------------------------- */

static void test_jp6_files(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_gpu_controls c;
        assert_true(jd_gpu_controls_probe(sr, &c));
        assert_string_equal(c.name, "17000000.gpu");
        assert_int_equal(c.scaling, JD_GPU_SCALING_FILE);
        assert_int_equal(c.railgate, JD_GPU_RAILGATE_FILE);
        assert_string_equal(c.scaling_path, "/" ORIN_DEV "enable_3d_scaling");
        assert_string_equal(c.railgate_path, "/" ORIN_DEV "railgate_enable");

        jd_gpu_state st;
        jd_gpu_state_read(sr, &c, &st);
        assert_true(st.scaling_3d.present && st.scaling_3d.value);
        assert_true(st.railgate.present && st.railgate.value);

        jd_gpu_memory m = { 0 };
        jd_gpu_change ch;
        set(sr, &c, &m, JD_GPU_SET_RAILGATE, false, &ch);
        assert_int_equal(ch.result.outcome, JD_OK);
        assert_string_equal(ch.result.message, "rail gating on -> off");
        assert_file(dir, ORIN_DEV "railgate_enable", "0\n");
        assert_false(ch.after.railgate.value);
        assert_file(dir, ORIN_DEV "enable_3d_scaling", "1\n");

        set(sr, &c, &m, JD_GPU_SET_SCALING_3D, false, &ch);
        assert_string_equal(ch.result.message, "3D scaling on -> off");
        assert_file(dir, ORIN_DEV "enable_3d_scaling", "0\n");
        /* enable_3d_scaling is no governor: nothing saved. */
        assert_file(dir, "var/lib/jetsond/gpu.state", "<missing>");

        /* Asking for what is there writes nothing. */
        g_autofree char *host = fixture_host_path(dir, ORIN_DEV "enable_3d_scaling");
        struct stat before, after;
        assert_int_equal(stat(host, &before), 0);
        set(sr, &c, &m, JD_GPU_SET_SCALING_3D, false, &ch);
        assert_int_equal(ch.result.outcome, JD_OK);
        assert_string_equal(ch.result.message, "3D scaling already off");
        assert_int_equal(stat(host, &after), 0);
        assert_memory_equal(&before.st_mtim, &after.st_mtim, sizeof(before.st_mtim));

        set(sr, &c, &m, JD_GPU_SET_SCALING_3D, true, &ch);
        set(sr, &c, &m, JD_GPU_SET_RAILGATE, true, &ch);
        assert_string_equal(ch.result.message, "rail gating off -> on");
        assert_file(dir, ORIN_DEV "enable_3d_scaling", "1\n");
        assert_file(dir, ORIN_DEV "railgate_enable", "1\n");
        fixture_remove_copy(sr, dir);
}

/* A control file that vanished after the probe: a clear error naming
 * it, and no file made in its place. */
static void test_vanished_file(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_gpu_controls c;
        assert_true(jd_gpu_controls_probe(sr, &c));
        fixture_unlink(dir, ORIN_DEV "railgate_enable");
        jd_gpu_memory m = { 0 };
        jd_gpu_change ch;
        set(sr, &c, &m, JD_GPU_SET_RAILGATE, false, &ch);
        assert_int_equal(ch.result.outcome, JD_FAILED);
        assert_string_equal(ch.result.message, "Cannot switch GPU rail gating off: writing \"0\" to "
                                               "/" ORIN_DEV "railgate_enable: No such file or directory");
        assert_false(ch.after.railgate.present);
        assert_file(dir, ORIN_DEV "railgate_enable", "<missing>");
        fixture_remove_copy(sr, dir);
}

/* An nvgpu GPU without railgate_enable: its runtime PM, as the reader
 * reads it. */
static void test_nvgpu_runtime_pm(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        fixture_unlink(dir, ORIN_DEV "railgate_enable");
        jd_gpu_controls c;
        assert_true(jd_gpu_controls_probe(sr, &c));
        assert_int_equal(c.railgate, JD_GPU_RAILGATE_RUNTIME_PM);
        assert_string_equal(c.railgate_path, "/" ORIN_DEV "power/control");
        jd_gpu_memory m = { 0 };
        jd_gpu_change ch;
        set(sr, &c, &m, JD_GPU_SET_RAILGATE, false, &ch);
        assert_string_equal(ch.result.message, "rail gating on -> off");
        assert_file(dir, ORIN_DEV "power/control", "on\n");
        fixture_remove_copy(sr, dir);
}

/* A board without the controls, and governors that cannot do it. */
static void test_not_supported(void **state)
{
        (void) state;
        jd_sysroot *pc = fixture_open("x86-pc");
        jd_gpu_controls c;
        assert_false(jd_gpu_controls_probe(pc, &c));
        assert_false(c.present);
        jd_gpu_state st = { 0 };
        jd_gpu_memory m = { 0 };
        jd_attribute_write w[JD_GPU_MAX_NODES], undo[JD_GPU_MAX_NODES];
        size_t n = 9;
        jd_result r;
        assert_int_equal(jd_gpu_plan(&c, &st, &m, JD_GPU_SET_SCALING_3D, true, w, undo, &n, &r), JD_NOT_SUPPORTED);
        assert_int_equal(n, 0);
        assert_non_null(strstr(r.message, "no 3D scaling control"));
        assert_int_equal(jd_gpu_plan(&c, &st, &m, JD_GPU_SET_RAILGATE, true, w, undo, &n, &r), JD_NOT_SUPPORTED);
        assert_non_null(strstr(r.message, "no rail-gating control"));
        jd_sysroot_free(pc);

        /* A governor node: off needs "performance", on a governor that scales. */
        jd_gpu_controls g = { .present = true, .name = "gpu-gpc-0", .scaling = JD_GPU_SCALING_GOVERNOR, .n_nodes = 1 };
        g_strlcpy(g.nodes[0].name, "gpu-gpc-0", sizeof(g.nodes[0].name));
        g_strlcpy(g.nodes[0].dir, "/sys/class/devfreq/gpu-gpc-0", sizeof(g.nodes[0].dir));
        g_strlcpy(st.governor[0], "nvhost_podgov", sizeof(st.governor[0]));
        g_strlcpy(st.available[0], "nvhost_podgov userspace", sizeof(st.available[0]));
        assert_int_equal(jd_gpu_plan(&g, &st, &m, JD_GPU_SET_SCALING_3D, false, w, undo, &n, &r), JD_NOT_SUPPORTED);
        assert_string_equal(r.message,
                            "GPU devfreq node gpu-gpc-0 has no performance governor (available: nvhost_podgov userspace)");
        g_strlcpy(st.governor[0], "performance", sizeof(st.governor[0]));
        g_strlcpy(st.available[0], "userspace performance", sizeof(st.available[0]));
        assert_int_equal(jd_gpu_plan(&g, &st, &m, JD_GPU_SET_SCALING_3D, true, w, undo, &n, &r), JD_NOT_SUPPORTED);
        /* ... the kernel's generic one does, and a word is a whole word. */
        g_strlcpy(st.available[0], "xnvhost_podgov simple_ondemand performance", sizeof(st.available[0]));
        assert_int_equal(jd_gpu_plan(&g, &st, &m, JD_GPU_SET_SCALING_3D, true, w, undo, &n, &r), JD_OK);
        assert_int_equal(n, 1);
        assert_string_equal(w[0].path, "/sys/class/devfreq/gpu-gpc-0/governor");
        assert_string_equal(w[0].value, "simple_ondemand\n");
        assert_string_equal(undo[0].value, "performance\n");
        /* A scaling governor of the user's own stays. */
        g_strlcpy(st.governor[0], "simple_ondemand", sizeof(st.governor[0]));
        assert_int_equal(jd_gpu_plan(&g, &st, &m, JD_GPU_SET_SCALING_3D, true, w, undo, &n, &r), JD_OK);
        assert_int_equal(n, 0);
        assert_string_equal(r.message, "3D scaling already on");
}

/* ---- JetPack 7.2 Orin: the nvgpu node's governor ------------------------ */

static void test_jp72_governor(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        fixture_unlink(dir, ORIN_DEV "enable_3d_scaling");
        g_autofree char *lib = g_build_filename(dir, "var/lib/jetsond", NULL);
        assert_int_equal(g_mkdir_with_parents(lib, 0700), 0);
        jd_gpu_controls c;
        assert_true(jd_gpu_controls_probe(sr, &c));
        assert_int_equal(c.scaling, JD_GPU_SCALING_GOVERNOR);
        assert_int_equal(c.n_nodes, 1);
        assert_string_equal(c.nodes[0].name, "17000000.gpu");
        assert_int_equal(c.railgate, JD_GPU_RAILGATE_FILE);   /* railgate_enable stays on 7.2 */

        /* A governor chosen by the user comes back after off and on. */
        fixture_write_str(dir, ORIN_GOV, "wmark_active\n");
        jd_gpu_memory m = { 0 };
        jd_gpu_change ch;
        set(sr, &c, &m, JD_GPU_SET_SCALING_3D, false, &ch);
        assert_string_equal(ch.result.message, "3D scaling on -> off");
        assert_file(dir, ORIN_GOV, "performance\n");
        assert_false(ch.after.scaling_3d.value);
        g_autofree char *saved = slurp(dir, "var/lib/jetsond/gpu.state");
        assert_non_null(strstr(saved, "[Scaling3D]\n17000000.gpu=wmark_active\n"));

        /* ... also after a restart, from the state file alone. */
        jd_gpu_memory fresh = { 0 };
        jd_gpu_memory_from_text(&fresh, &c, saved);
        set(sr, &c, &fresh, JD_GPU_SET_SCALING_3D, true, &ch);
        assert_string_equal(ch.result.message, "3D scaling off -> on");
        assert_file(dir, ORIN_GOV, "wmark_active\n");

        /* Nothing remembered: L4T's default. */
        fixture_write_str(dir, ORIN_GOV, "performance\n");
        jd_gpu_memory none = { 0 };
        set(sr, &c, &none, JD_GPU_SET_SCALING_3D, true, &ch);
        assert_file(dir, ORIN_GOV, "nvhost_podgov\n");
        fixture_remove_copy(sr, dir);
}

/* ---- Thor ------------------------------------------------------------------ */

static void put(const char *root, const char *rel, const char *text)
{
        g_autofree char *path = g_build_filename(root, rel, NULL);
        g_autofree char *parent = g_path_get_dirname(path);
        assert_int_equal(g_mkdir_with_parents(parent, 0755), 0);
        assert_true(g_file_set_contents(path, text, -1, NULL));
}

static void link_to(const char *root, const char *rel, const char *target)
{
        g_autofree char *path = g_build_filename(root, rel, NULL);
        g_autofree char *parent = g_path_get_dirname(path);
        assert_int_equal(g_mkdir_with_parents(parent, 0755), 0);
        assert_int_equal(symlink(target, path), 0);
}

#define PCI_DEV "sys/devices/pci0000:00/0000:00:00.0/0000:01:00.0"

/* A Thor as the sheet describes it: devfreq nodes under sys/devices
 * linked from sys/class/devfreq (gpu-gpc-0's device the PCI GPU when
 * WITH_DEVICE, else only /sys/bus/pci/devices/0000:01:00.0 leads there). */
static jd_sysroot *thor_tree(char **dir, bool with_device)
{
        g_autoptr(GError) error = NULL;
        *dir = g_dir_make_tmp("jetsond-thor-XXXXXX", &error);
        assert_non_null(*dir);
        const char *nodes[] = { "gpu-gpc-0", "gpu-nvd-0" };
        for (size_t i = 0; i < 2; i++) {
                g_autofree char *df = g_strdup_printf("sys/devices/platform/%s/devfreq/%s", nodes[i], nodes[i]);
                g_autofree char *gov = g_strdup_printf("%s/governor", df);
                g_autofree char *avail = g_strdup_printf("%s/available_governors", df);
                put(*dir, gov, "nvhost_podgov\n");
                put(*dir, avail, "nvhost_podgov userspace performance simple_ondemand\n");
                g_autofree char *cls = g_strdup_printf("sys/class/devfreq/%s", nodes[i]);
                g_autofree char *target = g_strdup_printf("../../devices/platform/%s/devfreq/%s", nodes[i], nodes[i]);
                link_to(*dir, cls, target);
                g_autofree char *dev = g_strdup_printf("%s/device", df);
                link_to(*dir, dev, i == 0 && with_device ? "../../../../pci0000:00/0000:00:00.0/0000:01:00.0" : "../..");
        }
        put(*dir, PCI_DEV "/power/control", "auto\n");
        put(*dir, PCI_DEV "/vendor", "0x10de\n");
        link_to(*dir, "sys/bus/pci/devices/0000:01:00.0", "../../../devices/pci0000:00/0000:00:00.0/0000:01:00.0");
        put(*dir, "var/lib/jetsond/.keep", "");
        const char *why = NULL;
        jd_sysroot *sr = jd_sysroot_new(*dir, &why);
        assert_non_null(sr);
        return sr;
}

static void thor_free(jd_sysroot *sr, char *dir)
{
        jd_sysroot_free(sr);
        const char *argv[] = { "rm", "-rf", dir, NULL };
        g_spawn_sync(NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL, NULL);
        g_free(dir);
}

#define GPC_GOV "sys/class/devfreq/gpu-gpc-0/governor"
#define NVD_GOV "sys/class/devfreq/gpu-nvd-0/governor"

static void test_thor(void **state)
{
        (void) state;
        for (int with_device = 1; with_device >= 0; with_device--) {
                char *dir;
                jd_sysroot *sr = thor_tree(&dir, with_device);
                jd_gpu_controls c;
                assert_true(jd_gpu_controls_probe(sr, &c));
                assert_string_equal(c.name, "0000:01:00.0");
                assert_int_equal(c.scaling, JD_GPU_SCALING_GOVERNOR);
                assert_int_equal(c.n_nodes, 2);
                assert_string_equal(c.nodes[0].name, "gpu-gpc-0");
                assert_string_equal(c.nodes[1].name, "gpu-nvd-0");
                assert_int_equal(c.railgate, JD_GPU_RAILGATE_RUNTIME_PM);
                assert_string_equal(c.railgate_path, with_device ? "/" PCI_DEV "/power/control"
                                                                 : "/sys/bus/pci/devices/0000:01:00.0/power/control");
                jd_gpu_state st;
                jd_gpu_state_read(sr, &c, &st);
                assert_true(st.scaling_3d.present && st.scaling_3d.value);
                assert_true(st.railgate.present && st.railgate.value);

                jd_gpu_memory m = { 0 };
                jd_gpu_change ch;
                set(sr, &c, &m, JD_GPU_SET_RAILGATE, false, &ch);
                assert_string_equal(ch.result.message, "rail gating on -> off");
                assert_file(dir, PCI_DEV "/power/control", "on\n");
                set(sr, &c, &m, JD_GPU_SET_RAILGATE, true, &ch);
                assert_file(dir, PCI_DEV "/power/control", "auto\n");

                set(sr, &c, &m, JD_GPU_SET_SCALING_3D, false, &ch);
                assert_string_equal(ch.result.message, "3D scaling on -> off");
                assert_file(dir, GPC_GOV, "performance\n");
                assert_file(dir, NVD_GOV, "performance\n");
                assert_file(dir, "var/lib/jetsond/gpu.state",
                            "# jetsond: the devfreq governor of each GPU node before 3D scaling was switched off\n\n"
                            "[Scaling3D]\ngpu-gpc-0=nvhost_podgov\ngpu-nvd-0=nvhost_podgov\n");
                set(sr, &c, &m, JD_GPU_SET_SCALING_3D, true, &ch);
                assert_file(dir, GPC_GOV, "nvhost_podgov\n");
                assert_file(dir, NVD_GOV, "nvhost_podgov\n");
                thor_free(sr, dir);
        }
}

/* The second node cannot be written: the first goes back, no GPU is left
 * half switched. */
static void test_thor_rollback(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = thor_tree(&dir, true);
        jd_gpu_controls c;
        assert_true(jd_gpu_controls_probe(sr, &c));
        g_autofree char *nvd = fixture_host_path(dir, NVD_GOV);
        assert_int_equal(unlink(nvd), 0);
        assert_int_equal(mkdir(nvd, 0755), 0);   /* not a file: the write fails */
        jd_gpu_memory m = { 0 };
        jd_gpu_change ch;
        set(sr, &c, &m, JD_GPU_SET_SCALING_3D, false, &ch);
        assert_int_equal(ch.result.outcome, JD_FAILED);
        assert_non_null(strstr(ch.result.message, "Cannot switch GPU 3D scaling off: writing \"performance\" to "
                                                  "/sys/class/devfreq/gpu-nvd-0/governor: "));
        assert_true(g_str_has_suffix(ch.result.message, "; the nodes already switched were put back"));
        assert_file(dir, GPC_GOV, "nvhost_podgov\n");
        assert_true(ch.after.scaling_3d.value);
        thor_free(sr, dir);
}

/* The fake boards of JetPack 7: Thor's devfreq devices are children of
 * the PCI GPU (0000:00:00.0, the bridge, comes first in the path). */
static void test_jp7_fixtures(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-thor-jp71", &dir);
        jd_gpu_controls c;
        assert_true(jd_gpu_controls_probe(sr, &c));
        assert_string_equal(c.name, "0000:01:00.0");
        assert_int_equal(c.scaling, JD_GPU_SCALING_GOVERNOR);
        assert_int_equal(c.n_nodes, 2);
        assert_string_equal(c.nodes[0].name, "gpu-gpc-0");
        assert_string_equal(c.nodes[1].name, "gpu-nvd-0");
        assert_int_equal(c.railgate, JD_GPU_RAILGATE_RUNTIME_PM);
        assert_string_equal(c.railgate_path, "/" PCI_DEV "/power/control");
        g_autofree char *lib = g_build_filename(dir, "var/lib/jetsond", NULL);
        assert_int_equal(g_mkdir_with_parents(lib, 0700), 0);
        jd_gpu_memory m = { 0 };
        jd_gpu_change ch;
        set(sr, &c, &m, JD_GPU_SET_SCALING_3D, false, &ch);
        assert_string_equal(ch.result.message, "3D scaling on -> off");
        assert_file(dir, GPC_GOV, "performance\n");
        assert_file(dir, NVD_GOV, "performance\n");
        set(sr, &c, &m, JD_GPU_SET_RAILGATE, false, &ch);
        assert_file(dir, PCI_DEV "/power/control", "on\n");
        set(sr, &c, &m, JD_GPU_SET_SCALING_3D, true, &ch);
        assert_file(dir, GPC_GOV, "nvhost_podgov\n");
        assert_file(dir, NVD_GOV, "nvhost_podgov\n");
        fixture_remove_copy(sr, dir);

        jd_sysroot *orin = fixture_open("agx-orin-jp72");
        assert_true(jd_gpu_controls_probe(orin, &c));
        assert_string_equal(c.name, "17000000.gpu");
        assert_int_equal(c.scaling, JD_GPU_SCALING_GOVERNOR);
        assert_int_equal(c.n_nodes, 1);
        assert_int_equal(c.railgate, JD_GPU_RAILGATE_FILE);
        jd_gpu_state st;
        jd_gpu_state_read(orin, &c, &st);
        assert_true(st.scaling_3d.present && st.scaling_3d.value);
        assert_string_equal(st.available[0], "wmark_active nvhost_podgov userspace performance");
        assert_true(st.railgate.present && st.railgate.value);
        jd_sysroot_free(orin);
}

/* ---- memory and the worker thread ---------------------------------------- */

static void test_memory_text(void **state)
{
        (void) state;
        jd_gpu_controls c = { .present = true, .scaling = JD_GPU_SCALING_GOVERNOR, .n_nodes = 2 };
        g_strlcpy(c.nodes[0].name, "gpu-gpc-0", sizeof(c.nodes[0].name));
        g_strlcpy(c.nodes[1].name, "gpu-nvd-0", sizeof(c.nodes[1].name));
        jd_gpu_memory m = { 0 };
        /* "performance" is never remembered; blanks are no governor. */
        jd_gpu_memory_from_text(&m, &c, "[Scaling3D]\ngpu-gpc-0=performance\ngpu-nvd-0=a b\n");
        assert_string_equal(m.governor[0], "");
        assert_string_equal(m.governor[1], "");
        jd_gpu_memory_from_text(&m, &c, "not a key file");
        jd_gpu_state st = { 0 };
        g_strlcpy(st.governor[0], "performance", sizeof(st.governor[0]));
        g_strlcpy(st.governor[1], "simple_ondemand", sizeof(st.governor[1]));
        jd_gpu_memory_note(&m, &c, &st);
        assert_string_equal(m.governor[0], "");
        assert_string_equal(m.governor[1], "simple_ondemand");
        g_autofree char *text = jd_gpu_memory_to_text(&m, &c);
        jd_gpu_memory back = { 0 };
        jd_gpu_memory_from_text(&back, &c, text);
        assert_memory_equal(&back, &m, sizeof(m));
}

typedef struct {
        GMainLoop *loop;
        int calls;
        jd_gpu_change change;
} async_seen;

static void on_change(const jd_gpu_change *change, void *userdata)
{
        async_seen *s = userdata;
        s->calls++;
        s->change = *change;
        g_main_loop_quit(s->loop);
}

static gboolean quit(gpointer loop)
{
        g_main_loop_quit(loop);
        return G_SOURCE_REMOVE;
}

/* The probe thread, and changes in a worker thread. */
static void test_async(void **state)
{
        (void) state;
        char *dir;
        jd_sysroot *sr = fixture_copy("agx-orin-jp62", &dir);
        jd_gpu_probe *p = jd_gpu_probe_start(sr);
        jd_gpu_controls c;
        jd_gpu_state first;
        assert_true(jd_gpu_probe_wait(p, 30 * G_USEC_PER_SEC, &c, &first));
        assert_true(jd_gpu_probe_wait(p, 0, &c, &first));   /* it stays done */
        jd_gpu_probe_free(p);
        assert_string_equal(c.name, "17000000.gpu");
        assert_true(first.railgate.value);

        async_seen s = { .loop = g_main_loop_new(NULL, FALSE) };
        jd_gpu_memory m = { 0 };
        jd_gpu_set_async(sr, &c, &m, STATE, JD_GPU_SET_RAILGATE, false, 5000, NULL, on_change, &s);
        g_main_loop_run(s.loop);
        assert_int_equal(s.calls, 1);
        assert_string_equal(s.change.result.message, "rail gating on -> off");
        assert_false(s.change.after.railgate.value);
        assert_file(dir, ORIN_DEV "railgate_enable", "0\n");

        /* Its caller gone: the change is made, nobody is told. */
        GCancellable *gone = g_cancellable_new();
        g_cancellable_cancel(gone);
        jd_gpu_set_async(sr, &c, &m, STATE, JD_GPU_SET_RAILGATE, true, 5000, gone, on_change, &s);
        g_timeout_add(300, quit, s.loop);
        g_main_loop_run(s.loop);
        assert_int_equal(s.calls, 1);
        assert_file(dir, ORIN_DEV "railgate_enable", "1\n");
        g_object_unref(gone);
        g_main_loop_unref(s.loop);
        fixture_remove_copy(sr, dir);

        /* No GPU: the probe ends with nothing. */
        jd_sysroot *pc = fixture_open("x86-pc");
        p = jd_gpu_probe_start(pc);
        assert_true(jd_gpu_probe_wait(p, 30 * G_USEC_PER_SEC, &c, &first));
        assert_false(c.present);
        jd_gpu_probe_free(p);
        jd_sysroot_free(pc);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_jp6_files),
                cmocka_unit_test(test_vanished_file),
                cmocka_unit_test(test_nvgpu_runtime_pm),
                cmocka_unit_test(test_not_supported),
                cmocka_unit_test(test_jp72_governor),
                cmocka_unit_test(test_thor),
                cmocka_unit_test(test_thor_rollback),
                cmocka_unit_test(test_jp7_fixtures),
                cmocka_unit_test(test_memory_text),
                cmocka_unit_test(test_async),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
