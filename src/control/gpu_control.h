/* The integrated GPU's 3D scaling and rail gating: where each JetPack
 * keeps them, what they read, and changing them (jetson-hardware.md §3,
 * jetson-jp7-thor.md §2a, §2b, §9b). Pure C and GLib, no D-Bus, so the
 * unit tests drive it on a fake tree.
 *
 *   3D scaling   JetPack 4-6: nvgpu's enable_3d_scaling (1/0).
 *                JetPack 7 (Thor's gpu-gpc-0 and gpu-nvd-0; 7.2 Orin's
 *                nvgpu node, which lost enable_3d_scaling): the devfreq
 *                governor of every GPU node, "performance" = off. On
 *                puts back the governor a node had before (remembered),
 *                else nvhost_podgov, L4T's default.
 *   rail gating  nvgpu's railgate_enable (1/0), JetPack 4-7.2; Thor (and
 *                a GPU without railgate_enable): the device's runtime
 *                PM, power/control "auto" (gating allowed) or "on".
 *
 * Every path is in the sysroot. Reads and writes block while the driver
 * does: the daemon calls them through the _async functions. */
#pragma once

#include <gio/gio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opt.h"
#include "result.h"
#include "sysfs_write.h"
#include "sysroot.h"

#define JD_GPU_MAX_NODES 4

typedef enum {
        JD_GPU_SCALING_NONE,
        JD_GPU_SCALING_FILE,          /* enable_3d_scaling */
        JD_GPU_SCALING_GOVERNOR,      /* the devfreq governor of every node */
} jd_gpu_scaling_kind;

typedef enum {
        JD_GPU_RAILGATE_NONE,
        JD_GPU_RAILGATE_FILE,         /* railgate_enable */
        JD_GPU_RAILGATE_RUNTIME_PM,   /* power/control: auto / on */
} jd_gpu_railgate_kind;

/* Where the controls are, found once (jd_gpu_controls_probe). */
typedef struct {
        bool present;                 /* the board has an integrated GPU */
        char name[48];                /* its device: "17000000.gpu", "0000:01:00.0" */
        jd_gpu_scaling_kind scaling;
        char scaling_path[256];       /* in-root enable_3d_scaling */
        size_t n_nodes;               /* GOVERNOR: the nodes, graphics first */
        struct {
                char name[48];        /* "gpu-gpc-0", "17000000.gpu" */
                char dir[256];        /* in-root devfreq directory */
        } nodes[JD_GPU_MAX_NODES];
        jd_gpu_railgate_kind railgate;
        char railgate_path[256];      /* in-root railgate_enable or power/control */
} jd_gpu_controls;

/* What the controls read now. */
typedef struct {
        jd_opt_bool scaling_3d;       /* GOVERNOR: the graphics node is not "performance" */
        jd_opt_bool railgate;
        char governor[JD_GPU_MAX_NODES][32];     /* "" when unreadable */
        char available[JD_GPU_MAX_NODES][256];   /* available_governors, "" when unknown */
} jd_gpu_state;

/* The governor each node had before 3D scaling went off, to give back. */
typedef struct {
        char governor[JD_GPU_MAX_NODES][32];
} jd_gpu_memory;

typedef enum {
        JD_GPU_SET_SCALING_3D,
        JD_GPU_SET_RAILGATE,
} jd_gpu_setting;

/* Finds the integrated GPU and its controls. Thor first (devfreq
 * gpu-gpc-0, as jtop detects it), then an nvgpu devfreq node found by its
 * device-tree name as src/readers/gpu.c finds it. False (and
 * OUT->present false) on a board without one. */
bool jd_gpu_controls_probe(const jd_sysroot *sr, jd_gpu_controls *out);

void jd_gpu_state_read(const jd_sysroot *sr, const jd_gpu_controls *c, jd_gpu_state *out);

/* Remembers every node's governor in ST that is not "performance". */
void jd_gpu_memory_note(jd_gpu_memory *m, const jd_gpu_controls *c, const jd_gpu_state *st);
/* The memory as a key file ([Scaling3D] NODE=GOVERNOR; g_free) and back:
 * what the daemon keeps in its state directory across restarts. */
char *jd_gpu_memory_to_text(const jd_gpu_memory *m, const jd_gpu_controls *c);
void jd_gpu_memory_from_text(jd_gpu_memory *m, const jd_gpu_controls *c, const char *text);

/* The writes that switch SETTING to ON from ST (at most JD_GPU_MAX_NODES,
 * in WRITES, with the writes that undo them in UNDO), none when it is
 * there already. JD_NOT_SUPPORTED in R (nothing to write) when the board
 * lacks the control or a node offers no governor for it; JD_OK
 * otherwise. */
jd_outcome jd_gpu_plan(const jd_gpu_controls *c, const jd_gpu_state *st, const jd_gpu_memory *m,
                       jd_gpu_setting setting, bool on, jd_attribute_write *writes, jd_attribute_write *undo,
                       size_t *n, jd_result *r);

/* What a change did: R's message says what it did in words for a log
 * line or a restore step ("3D scaling off -> on", "rail gating already
 * on"); BEFORE and AFTER as read around it; MEMORY updated (and saved). */
typedef struct {
        jd_result result;
        jd_gpu_state before, after;
        jd_gpu_memory memory;
} jd_gpu_change;

/* Reads the controls, plans, and makes the writes in order. Switching
 * governors off first saves the ones to give back in STATE_FILE
 * (in-root, written atomically; a failure to save is told in the
 * message, not fatal: "on" then falls back to nvhost_podgov). A write
 * that fails puts the nodes already written back, so no GPU is left
 * half switched. Blocking: for a worker thread or a test. */
void jd_gpu_set(const jd_sysroot *sr, const jd_gpu_controls *c, const jd_gpu_memory *m, const char *state_file,
                jd_gpu_setting setting, bool on, jd_gpu_change *out);

/* jd_gpu_set() in a worker thread. DONE runs on the thread-default main
 * context with the outcome, or with JD_TIMEOUT (before and after left
 * unread) if it has not finished within TIMEOUT_MS; a stuck write is then
 * left to finish on its own and its outcome dropped. Once CANCELLABLE
 * (may be NULL) is cancelled, DONE is not called at all: its caller is
 * gone. */
typedef void (*jd_gpu_change_done)(const jd_gpu_change *change, void *userdata);
void jd_gpu_set_async(const jd_sysroot *sr, const jd_gpu_controls *c, const jd_gpu_memory *m,
                      const char *state_file, jd_gpu_setting setting, bool on, unsigned timeout_ms,
                      GCancellable *cancellable, jd_gpu_change_done done, void *userdata);

/* jd_gpu_controls_probe() and a first jd_gpu_state_read() in a thread of
 * their own, which the caller looks at when it suits it (at start-up,
 * waiting a little; later, on every sample) without a main loop in
 * between: a driver stuck in sysfs holds up only that thread. */
typedef struct jd_gpu_probe jd_gpu_probe;
jd_gpu_probe *jd_gpu_probe_start(const jd_sysroot *sr);
/* Waits up to TIMEOUT_US (0: only looks) for P; true once it has ended,
 * with what it found in C and ST (C->present false: no integrated GPU). */
bool jd_gpu_probe_wait(jd_gpu_probe *p, uint64_t timeout_us, jd_gpu_controls *c, jd_gpu_state *st);
/* Lets go of P; a thread still stuck keeps it until it ends. */
void jd_gpu_probe_free(jd_gpu_probe *p);
