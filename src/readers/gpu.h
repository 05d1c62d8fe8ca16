/* Integrated GPU: load, frequencies and controls, found through devfreq by
 * the device-tree node name (gv11b, ga10b, gpu...), never by a fixed path,
 * so the JP4, JP5, JP6 and JetPack 7.2 Orin layouts all work; on Thor
 * (JetPack 7, the NVIDIA driver stack) by its devfreq node gpu-gpc-0,
 * which has no device-tree name and no load file: its load comes from NVML
 * (sampler/values.c), its rail gating from its PCI device's runtime PM. */
#pragma once

#include "opt.h"
#include "sysfile.h"

#define JD_GPU_MAX_GPC 4

typedef struct {
        bool present;
        char name[48];            /* devfreq entry, "17000000.gpu" */
        jd_opt_dbl load;          /* %, from the 0-1000 "load" file */
        jd_opt_u64 cur_hz;
        jd_opt_u64 video_hz;      /* Thor: gpu-nvd-0, the video engines' clock */
        jd_opt_u64 gpc_hz[JD_GPU_MAX_GPC];   /* measured per-GPC clock (Orin) */
        size_t n_gpc;
        /* slow tier */
        jd_opt_u64 min_hz, max_hz;
        char governor[32];
        jd_opt_bool railgate;
        jd_opt_bool scaling_3d;
        jd_opt_u64 tpc_pg_mask;   /* a bitmask, kept as the integer */
        char power_control[8];    /* "auto" / "on" */
        bool has_load;            /* a load file exists (not on Thor: NVML's) */
} jd_gpu_sample;

typedef struct jd_gpu_reader jd_gpu_reader;

/* Whether a devfreq device's device-tree node name (device/of_node/name)
 * is an integrated GPU's; shared with the GPU controls (gpu_control.h),
 * which must find the same GPU. */
bool jd_gpu_is_node_name(const char *of_name);

/* Thor: the GPU's PCI device directory (in-root path, e.g.
 * "/sys/bus/pci/devices/0000:01:00.0"): where gpu-gpc-0's device link
 * points if it is a PCI device, else the fact sheet's address if present.
 * False if neither exists. Shared with the GPU controls. */
bool jd_gpu_thor_pci_dir(const jd_sysroot *sr, char *out, size_t size);

jd_gpu_reader *jd_gpu_reader_new(const jd_sysroot *sr);
void jd_gpu_reader_free(jd_gpu_reader *r);
const jd_gpu_sample *jd_gpu_reader_sample(jd_gpu_reader *r);
/* Slow tier; also re-probes when no GPU was found (the node can appear late in boot). */
void jd_gpu_reader_sample_limits(jd_gpu_reader *r);
const jd_gpu_sample *jd_gpu_reader_last(const jd_gpu_reader *r);
