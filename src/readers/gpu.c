#include "gpu.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

enum {
        F_LOAD, F_CUR, F_MIN, F_MAX, F_GOVERNOR, F_RAILGATE, F_3D, F_TPC, F_POWER_CONTROL, F_VIDEO,
        F_GPC0, N_FILES = F_GPC0 + JD_GPU_MAX_GPC
};

#define THOR_GPC "/sys/class/devfreq/gpu-gpc-0"
#define THOR_NVD "/sys/class/devfreq/gpu-nvd-0"
#define THOR_GPU_PCI "/sys/bus/pci/devices/0000:01:00.0"   /* jetson-jp7-thor.md §2b */

struct jd_gpu_reader {
        const jd_sysroot *sr;
        char status_dir[PATH_MAX];   /* S: load, railgate_enable, ... */
        char devfreq_dir[PATH_MAX];  /* F: cur/min/max_freq, governor */
        jd_file files[N_FILES];
        jd_gpu_sample sample;
        /* No GPU yet (a PC, a GPU driver still probing): looked for again
         * at the recheck interval, not on every slow reading. */
        jd_recheck look_again;
};

bool jd_gpu_is_node_name(const char *of_name)
{
        static const char *const names[] = { "gv11b", "gp10b", "ga10b", "gb10b", "gpu" };
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
                if (strcmp(of_name, names[i]) == 0)
                        return true;
        return strstr(of_name, "gpu") != NULL;
}

static void close_all(jd_gpu_reader *r)
{
        for (size_t i = 0; i < N_FILES; i++)
                jd_file_close(&r->files[i]);
        memset(&r->sample, 0, sizeof(r->sample));
}

/* "0000:01:00.0": domain:bus:device.function, as PCI devices are named. */
static bool is_pci_address(const char *s)
{
        unsigned dom, bus, dev, fn;
        return jd_parse_pci_address(s, false, &dom, &bus, &dev, &fn);
}

bool jd_gpu_thor_pci_dir(const jd_sysroot *sr, char *out, size_t size)
{
        /* The node's device, or the nearest of its parents, that is a PCI
         * function: the GPU the NVIDIA driver registered it for. */
        char dev[PATH_MAX];
        if (jd_sysroot_resolve(sr, THOR_GPC "/device", dev, sizeof(dev)) == 0) {
                char *base;
                for (int up = 0; up < 4 && (base = strrchr(dev, '/')) && base != dev; up++, *base = '\0')
                        if (is_pci_address(base + 1))
                                return (size_t) snprintf(out, size, "%s", dev) < size;
        }
        if (!jd_sysroot_exists(sr, THOR_GPU_PCI))
                return false;
        return (size_t) snprintf(out, size, "%s", THOR_GPU_PCI) < size;
}

/* Thor: the devfreq node gpu-gpc-0 (graphics clock; a load file only where
 * a release adds one), gpu-nvd-0 (video clock), the PCI device's runtime
 * PM for rail gating. Paths stay in-root: jd_file_open resolves them. */
static bool discover_thor(jd_gpu_reader *r)
{
        char pci[PATH_MAX];
        if (!jd_sysroot_exists(r->sr, THOR_GPC))
                return false;
        jd_strlcpy(r->sample.name, "gpu-gpc-0", sizeof(r->sample.name));
        jd_strlcpy(r->devfreq_dir, THOR_GPC, sizeof(r->devfreq_dir));
        if (jd_gpu_thor_pci_dir(r->sr, pci, sizeof(pci)))
                jd_file_open(&r->files[F_POWER_CONTROL], r->sr, "%s/power/control", pci);
        jd_file_open(&r->files[F_VIDEO], r->sr, THOR_NVD "/cur_freq");
        r->status_dir[0] = '\0';
        return true;
}

static bool discover(jd_gpu_reader *r)
{
        char **names;
        size_t n = jd_sysroot_list(r->sr, "/sys/class/devfreq", &names);
        bool found = false;

        close_all(r);
        for (size_t i = 0; i < n && !found; i++) {
                char of_name[32], path[PATH_MAX];
                snprintf(path, sizeof(path), "/sys/class/devfreq/%s/device/of_node/name", names[i]);
                if (!jd_read_str(r->sr, of_name, sizeof(of_name), "%s", path) || !jd_gpu_is_node_name(of_name))
                        continue;
                snprintf(path, sizeof(path), "/sys/class/devfreq/%s/device", names[i]);
                if (jd_sysroot_resolve(r->sr, path, r->status_dir, sizeof(r->status_dir)) < 0)
                        continue;
                snprintf(path, sizeof(path), "/sys/class/devfreq/%s", names[i]);
                if (jd_sysroot_resolve(r->sr, path, r->devfreq_dir, sizeof(r->devfreq_dir)) < 0)
                        continue;
                jd_strlcpy(r->sample.name, names[i], sizeof(r->sample.name));
                found = true;
        }
        jd_names_free(names, n);
        if (found) {
                const char *S = r->status_dir;
                jd_file_open(&r->files[F_LOAD], r->sr, "%s/load", S);
                jd_file_open(&r->files[F_RAILGATE], r->sr, "%s/railgate_enable", S);
                jd_file_open(&r->files[F_3D], r->sr, "%s/enable_3d_scaling", S);
                jd_file_open(&r->files[F_TPC], r->sr, "%s/tpc_pg_mask", S);
                jd_file_open(&r->files[F_POWER_CONTROL], r->sr, "%s/power/control", S);
        } else if (discover_thor(r)) {
                jd_file_open(&r->files[F_LOAD], r->sr, "%s/load", r->devfreq_dir);
        } else {
                return false;
        }

        const char *F = r->devfreq_dir;
        r->sample.has_load = jd_file_present(&r->files[F_LOAD]);
        jd_file_open(&r->files[F_CUR], r->sr, "%s/cur_freq", F);
        jd_file_open(&r->files[F_MIN], r->sr, "%s/min_freq", F);
        jd_file_open(&r->files[F_MAX], r->sr, "%s/max_freq", F);
        jd_file_open(&r->files[F_GOVERNOR], r->sr, "%s/governor", F);
        for (size_t g = 0; g < JD_GPU_MAX_GPC; g++) {
                if (!jd_file_open(&r->files[F_GPC0 + g], r->sr, "/sys/kernel/debug/bpmp/debug/clk/nafll_gpc%zu/pto_counter", g))
                        break;
                r->sample.n_gpc = g + 1;
        }
        r->sample.present = true;
        return true;
}

jd_gpu_reader *jd_gpu_reader_new(const jd_sysroot *sr)
{
        jd_gpu_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        r->sr = sr;
        for (size_t i = 0; i < N_FILES; i++)
                r->files[i] = JD_FILE_INIT;
        if (discover(r))
                jd_gpu_reader_sample_limits(r);
        return r;
}

void jd_gpu_reader_free(jd_gpu_reader *r)
{
        if (!r)
                return;
        close_all(r);
        free(r);
}

static void read_opt(jd_file *f, jd_opt_u64 *o)
{
        o->present = jd_file_u64(f, &o->value);
}

static void read_flag(jd_file *f, jd_opt_bool *o)
{
        uint64_t v = 0;
        o->present = jd_file_u64(f, &v);
        o->value = v != 0;
}

const jd_gpu_sample *jd_gpu_reader_sample(jd_gpu_reader *r)
{
        jd_gpu_sample *s = &r->sample;
        if (!s->present)
                return s;
        uint64_t load;
        s->load.present = jd_file_u64(&r->files[F_LOAD], &load) && load <= 1000;
        s->load.value = s->load.present ? (double) load / 10.0 : 0;
        read_opt(&r->files[F_CUR], &s->cur_hz);
        read_opt(&r->files[F_VIDEO], &s->video_hz);
        for (size_t g = 0; g < s->n_gpc; g++)
                read_opt(&r->files[F_GPC0 + g], &s->gpc_hz[g]);
        if (r->files[F_LOAD].gone || r->files[F_CUR].gone)
                discover(r);
        return s;
}

void jd_gpu_reader_sample_limits(jd_gpu_reader *r)
{
        jd_gpu_sample *s = &r->sample;
        if (!s->present && !(jd_recheck_due(&r->look_again) && discover(r)))
                return;
        read_opt(&r->files[F_MIN], &s->min_hz);
        read_opt(&r->files[F_MAX], &s->max_hz);
        read_opt(&r->files[F_TPC], &s->tpc_pg_mask);
        if (!jd_file_str(&r->files[F_GOVERNOR], s->governor, sizeof(s->governor)))
                s->governor[0] = '\0';
        if (!jd_file_str(&r->files[F_POWER_CONTROL], s->power_control, sizeof(s->power_control)))
                s->power_control[0] = '\0';
        /* JetPack 4-6 have the nvgpu switches; JetPack 7 dropped
         * enable_3d_scaling (3D scaling is the devfreq governor:
         * "performance" holds the clock, so scaling is off) and Thor has
         * no railgate_enable (rail gating is runtime PM: "auto" lets the
         * GPU power off when idle). */
        if (jd_file_present(&r->files[F_3D])) {
                read_flag(&r->files[F_3D], &s->scaling_3d);
        } else {
                s->scaling_3d.present = s->governor[0] != '\0';
                s->scaling_3d.value = strcmp(s->governor, "performance") != 0;
        }
        if (jd_file_present(&r->files[F_RAILGATE])) {
                read_flag(&r->files[F_RAILGATE], &s->railgate);
        } else {
                s->railgate.present = s->power_control[0] != '\0';
                s->railgate.value = strcmp(s->power_control, "auto") == 0;
        }
}

const jd_gpu_sample *jd_gpu_reader_last(const jd_gpu_reader *r)
{
        return &r->sample;
}
