/* Integrated GPU: load, frequencies and controls, found through devfreq by
 * the device-tree node name (gv11b, ga10b, gpu...), never by a fixed path,
 * so the JP4, JP5 and JP6 layouts all work. */
#pragma once

#include "opt.h"
#include "sysfile.h"

#define JD_GPU_MAX_GPC 4

typedef struct {
        bool present;
        char name[48];            /* devfreq entry, "17000000.gpu" */
        jd_opt_dbl load;          /* %, from the 0-1000 "load" file */
        jd_opt_u64 cur_hz;
        jd_opt_u64 gpc_hz[JD_GPU_MAX_GPC];   /* measured per-GPC clock (Orin) */
        size_t n_gpc;
        /* slow tier */
        jd_opt_u64 min_hz, max_hz;
        char governor[32];
        jd_opt_bool railgate;
        jd_opt_bool scaling_3d;
        jd_opt_u64 tpc_pg_mask;   /* a bitmask, kept as the integer */
        char power_control[8];    /* "auto" / "on" */
} jd_gpu_sample;

typedef struct jd_gpu_reader jd_gpu_reader;

/* Whether a devfreq device's device-tree node name (device/of_node/name)
 * is an integrated GPU's; shared with the GPU controls (gpu_control.h),
 * which must find the same GPU. */
bool jd_gpu_is_node_name(const char *of_name);

jd_gpu_reader *jd_gpu_reader_new(const jd_sysroot *sr);
void jd_gpu_reader_free(jd_gpu_reader *r);
const jd_gpu_sample *jd_gpu_reader_sample(jd_gpu_reader *r);
/* Slow tier; also re-probes when no GPU was found (the node can appear late in boot). */
void jd_gpu_reader_sample_limits(jd_gpu_reader *r);
const jd_gpu_sample *jd_gpu_reader_last(const jd_gpu_reader *r);
