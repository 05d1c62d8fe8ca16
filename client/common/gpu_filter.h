/* Which GPUs and processes a view shows, as nvitop's -o/--only,
 * --only-visible, --user and --pid: status, top and watch take the same
 * options and the same rules.
 *
 * A GPU is named by its NVML index, its UUID (or a prefix naming one GPU
 * alone), its PCI bus id ("0000:01:00.0", "01:00.0"; any case), or "soc"
 * for a Jetson's own GPU. --only-visible takes CUDA_VISIBLE_DEVICES as
 * CUDA reads it: ordinals in PCI bus order (CUDA_DEVICE_ORDER=PCI_BUS_ID;
 * on a Jetson without a discrete GPU, 0 is the SoC's), UUIDs or their
 * prefixes, MIG devices' UUIDs (their GPU is shown); set but empty, no
 * GPU. Where CUDA would silently stop at an entry that names nothing,
 * here it is an error that names the entry. */
#pragma once

#include <glib.h>
#include <stdbool.h>

#include "common/props.h"
#include "common/sample.h"

/* The options (jetsonctl's command table adds them to status, top and
 * watch; the process ones to status and top). */
extern char *jc_filter_only;          /* -o/--only: IDs, comma-separated */
extern gboolean jc_filter_only_visible;
extern char *jc_filter_owners;        /* --owner: user names, comma-separated */
extern char *jc_filter_pids;          /* --pid: PIDs, comma-separated */
gboolean jc_filter_owner_arg(const char *name, const char *value, gpointer data, GError **error);

/* A discrete GPU as the filter names it (from its DiscreteGpu object). */
typedef struct {
        unsigned index;
        const char *uuid, *pci;       /* "" unknown */
} jc_gpu_ident;

typedef struct {
        bool gpus_limited;            /* --only or --only-visible: only the GPUs named */
        bool soc;                     /* the SoC's GPU is one of them */
        GHashTable *dgpus;            /* NVML indices named (GUINT_TO_POINTER(index + 1)) */
        char **owners;                /* NULL: every user's processes */
        GArray *pids;                 /* uint32_t; NULL: every process */
} jc_gpu_filter;

void jc_gpu_filter_clear(jc_gpu_filter *f);
/* The filter the options ask for, on this machine: GPUS (N of them) its
 * discrete GPUs, S the latest sample (whether there is a SoC GPU, MIG
 * devices' UUIDs). ONLY: --only's value or NULL; VISIBLE: with
 * ONLY_VISIBLE, CUDA_VISIBLE_DEVICES (NULL: unset, every GPU). OWNERS and
 * PIDS: comma-separated, or NULL. False with *ERROR (a new string saying
 * which entry and why) when an entry names no GPU or more than one, or a
 * PID is malformed. */
bool jc_gpu_filter_from_options(jc_gpu_filter *f, const jc_gpu_ident *gpus, size_t n, const jc_sample *s,
                                const char *only, bool only_visible, const char *visible, const char *owners,
                                const char *pids, char **error);
/* The same from jetsonctl's options (jc_filter_*, the environment's
 * CUDA_VISIBLE_DEVICES) and DGPUS, the DiscreteGpu objects (NULL: none). */
bool jc_gpu_filter_from_jetsonctl(jc_gpu_filter *f, GPtrArray *dgpus, const jc_sample *s, char **error);
/* jc_gpu_filter_from_jetsonctl() on what jetsond lists now (when an
 * option asks for a filter; else F stays empty, showing everything): an
 * exit code, a usage error of COMMAND when an entry names nothing. */
int jc_gpu_filter_fetch(jc_ctx *c, const char *command, jc_gpu_filter *f);
/* Whether GPU (an NVML index, or -1 the SoC's) is shown. */
bool jc_gpu_filter_keeps_gpu(const jc_gpu_filter *f, int gpu);
/* Whether the process PID of USER ("" unknown) is shown. */
bool jc_gpu_filter_keeps_process(const jc_gpu_filter *f, uint32_t pid, const char *user);
/* Takes out of S the keys of the GPUs not shown: dgpu.N.* and
 * process.PID.dgpu.N.*, gpu.* when the SoC's is not shown; and the
 * processes not shown: those of other users and PIDs, and with GPUs
 * named, those on none of them. A process shown keeps process.PID.gpu_mem
 * for the GPUs shown alone. */
void jc_gpu_filter_sample(const jc_gpu_filter *f, jc_sample *s);
/* Takes the DiscreteGpu objects not shown out of DGPUS. */
void jc_gpu_filter_objects(const jc_gpu_filter *f, GPtrArray *dgpus);
