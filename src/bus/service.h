/* The service: the bus connection, the exported interfaces and what
 * drives them, the sampling engine's events. The main loop never reads
 * hardware: every property, Sample and GetSnapshot is built from the
 * engine's latest readings (a jd_snapshot). Interfaces are small objects
 * (one file each) that the service creates at start-up, only where the
 * hardware exists, and asks to publish their changes after every sample. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>
#include <systemd/sd-bus.h>

#include "board.h"
#include "config.h"
#include "fan_control.h"
#include "gpu_control.h"
#include "jetson_clocks_control.h"
#include "engine.h"
#include "sampler.h"
#include "sysroot.h"
#include "values.h"

typedef struct jd_service jd_service;

/* One exported interface. UPDATE runs after each sample and emits
 * PropertiesChanged for the properties whose value changed; DESTROY
 * releases the interface (its vtable slot and any state). */
typedef struct jd_iface {
        jd_service *svc;
        sd_bus_slot *slot;
        void (*update)(struct jd_iface *self);
        void (*destroy)(struct jd_iface *self);
} jd_iface;

struct jd_service {
        sd_bus *bus;
        const jd_sysroot *sr;
        jd_board board;
        jd_sampling_engine *engine;   /* not owned */
        jd_snapshot snapshot;         /* the latest readings */
        uint64_t snapshot_serial;     /* bumped with every refresh of it: what caches key on */
        const jd_sample *sample;      /* &snapshot.sample: what every getter answers from */
        uint64_t default_interval_us;
        uint64_t interval_us;         /* the Interval property */
        GSource *events;              /* the engine's events and the service's timers */
        uint64_t watchdog_us;         /* a Sample is due by then even if the fast tier is stuck */
        GPtrArray *resamples;         /* pending jd_service_resample() calls */
        bool stalled[JD_TIER_COUNT];  /* a stall was logged */
        uint64_t gpus_stalled;        /* bit N: NVML GPU N's stall was logged */
        /* The interfaces that exist only if the slow tier says so (power
         * modes, fans) were decided on a reading of it: false while the
         * daemon started without one (the tier was stuck). */
        bool slow_ifaces_decided;
        jd_iface *metrics;
        sd_bus_slot *object_manager;
        GPtrArray *ifaces;            /* jd_iface *, in creation order */
        jd_config config;
        unsigned busy_domains;        /* jd_domain bits of changes in flight */
        const char *busy_what[8];     /* per bit: the change holding it, for Error.Busy */
        struct jd_unit *fan_service;  /* nvfancontrol.service, on JetPack 5+ boards */
        jd_iface *jetson_clocks;      /* the JetsonClocks interface, NULL without the tool */
        jd_iface *gpu;                /* the Gpu interface, NULL without an integrated GPU */
        jd_gpu_probe *gpu_probe;      /* looking for one, in a thread of its own */
        uint64_t gpu_probe_at_us;     /* when to look again */
        uint32_t dgpu_exported;       /* bit N: /org/jetsond/Jetson1/dgpu/N exists */
        bool user;                    /* jetsond --user: reads only, does nothing by itself (user_mode.h) */
        sd_bus *systemd_bus;          /* where the system's systemd is asked about units; NULL: nowhere */
};

/* A GSource that dispatches CALLBACK with DATA when the engine has events
 * (its event fd is readable), at the source's ready time, or when
 * DEADLINE(DATA), if not NULL, says its CLOCK_MONOTONIC µs have come. */
GSource *jd_engine_source_new(jd_sampling_engine *engine, const char *name, GSourceFunc callback,
                              uint64_t (*deadline)(gpointer data), gpointer data);

/* Exports every interface the board supports, from ENGINE's first
 * readings (jd_engine_started()); the name is requested separately, once
 * all objects exist, so no client ever sees a half-built service. */
jd_service *jd_service_new(sd_bus *bus, const jd_sysroot *sr, jd_sampling_engine *engine, const jd_board *board,
                           uint64_t default_interval_us, GError **error);
/* The same for jetsond --user: nothing is done at boot, and systemd is
 * asked about nvfancontrol.service on SYSTEMD_BUS (the system bus; NULL
 * where there is none), not on BUS, where only the user's systemd is. */
jd_service *jd_service_new_user(sd_bus *bus, sd_bus *systemd_bus, const jd_sysroot *sr, jd_sampling_engine *engine,
                                const jd_board *board, uint64_t default_interval_us, GError **error);
void jd_service_free(jd_service *svc);
/* Starts following the engine on the thread-default main context. */
void jd_service_start(jd_service *svc);
/* Changes the sampling period (Metrics.Subscribe) and emits
 * PropertiesChanged for Interval if it changed. */
void jd_service_set_interval(jd_service *svc, uint64_t interval_us);

/* Has every tier read now (after a change jetsond made), then publishes
 * it like a regular tick (Sample and PropertiesChanged) and calls DONE
 * (may be NULL). A stale tier is not waited for, nor one that takes more
 * than JD_RESAMPLE_TIMEOUT_US. */
#define JD_RESAMPLE_TIMEOUT_US 2000000u
void jd_service_resample(jd_service *svc, void (*done)(void *data), void *data);

/* The fans' PWM files and their latest readings, which jetson_clocks
 * must put back (it drives the fans to their maximum); OUT is the
 * caller's to clear (jd_fan_pwms_clear, or g_auto). */
void jd_service_fan_pwms(const jd_service *svc, jd_fan_pwms *out);

/* Starts and stops nvfancontrol.service through systemd, for
 * src/control/fan_control.c. */
jd_fan_switch jd_service_fan_switch(jd_service *svc);

/* Emits PropertiesChanged for NAMES (NULL-terminated) if any. */
void jd_emit_changed(jd_service *svc, const char *path, const char *iface, const char **names);

/* Metrics: the Sample signal (and Values, if asked for) from
 * svc->snapshot, REGULAR for a tick (a Sample may be left out when only
 * SubscribeValues() wants the tick's rate), not for a requested reading;
 * capture streams whose reader left are closed. */
void jd_metrics_emit_sample(jd_iface *metrics, bool regular);
void jd_metrics_reap_captures(jd_iface *metrics);

/* The interfaces (one file each). A constructor returns NULL with no
 * error when the board lacks the hardware, so the interface is not
 * exported. */
jd_iface *jd_board_iface_new(jd_service *svc, GError **error);
jd_iface *jd_metrics_iface_new(jd_service *svc, GError **error);
jd_iface *jd_nvpmodel_iface_new(jd_service *svc, GError **error);
jd_iface *jd_jetson_clocks_iface_new(jd_service *svc, GError **error);
jd_iface *jd_memory_iface_new(jd_service *svc, GError **error);
jd_iface *jd_fan_iface_new(jd_service *svc, size_t index, GError **error);
/* /org/jetsond/Jetson1/dgpu/N for NVML's GPU N (a discrete one). */
jd_iface *jd_dgpu_iface_new(jd_service *svc, unsigned index, GError **error);
jd_iface *jd_manager_iface_new(jd_service *svc, GError **error);
/* org.jetsond.Jetson1.Gpu, for the integrated GPU C (probed, with its
 * controls' first reading ST). */
jd_iface *jd_gpu_iface_new(jd_service *svc, const jd_gpu_controls *c, const jd_gpu_state *st, GError **error);

/* jetson_clocks for Manager.RestoreDefaults, which holds the locks and
 * has asked polkit itself. jd_jetson_clocks_switch() returns false, with
 * ALREADY set, when there is nothing to do; otherwise DONE follows. */
bool jd_jetson_clocks_switch(jd_service *svc, bool on, jd_result_fn done, void *userdata, jd_result *already);
/* OnBoot, saved in jetsond's state file; IFACE is svc->jetson_clocks. */
void jd_jetson_clocks_set_on_boot(jd_iface *iface, bool on, jd_result_fn done, void *userdata);

/* The GPU's SETTING on or off, for the Gpu interface's methods and for
 * Manager.RestoreDefaults (which holds the locks and has asked polkit
 * itself); IFACE is svc->gpu. DONE gets the outcome, whose message says
 * what was done ("3D scaling off -> on", "rail gating already on"). */
void jd_gpu_switch(jd_iface *iface, jd_gpu_setting setting, bool enable, jd_result_fn done, void *userdata);
const char *jd_gpu_name(const jd_iface *iface);
/* Whether the GPU has SETTING at all (a file or a governor to write). */
bool jd_gpu_has(const jd_iface *iface, jd_gpu_setting setting);

/* For constructors: sets ERROR from a negative errno of sd-bus. */
void jd_set_bus_error(GError **error, int r, const char *what);
