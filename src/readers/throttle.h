/* Why the clocks are held down: the SoC's over-current (OC) event
 * counters and the thermal caps the kernel applies through cooling
 * devices, and one summary of both (issue 39; docs/throttling.md).
 *
 * Over-current: hwmon "soctherm_oc" (NVIDIA's tegra234-oc-event driver,
 * Orin and Thor) has ocN_event_cnt (events since boot, counted by the
 * BPMP) and ocN_throt_en (1: the BPMP throttles on that channel). Its
 * hwmonN is followed: after a driver reload brings it back under another
 * number, it is found again by name (docs/throttling.md). Xavier's
 * (tegra19x_oc_event) has ocN_irq_cnt, the over-current interrupts since
 * boot, and no throt_en. Nano/TX1 have no such hwmon: the "soctherm_edp"
 * line of /proc/interrupts counts every pin's, as channel 0.
 * Thermal caps: cooling devices whose type is "cpufreq-*" or "devfreq-*"
 * (the kernel's frequency caps; cur_state 0 = no cap) or "*-alert" (the
 * throttle alerts of Orin and Thor; cur_state > 0 = throttling). */
#pragma once

#include <stddef.h>

#include "opt.h"
#include "sysfile.h"


/* The reasons of the summary, in the order the views list them. */
typedef enum {
        JD_THROTTLE_OVER_CURRENT,
        JD_THROTTLE_THERMAL_CPU,
        JD_THROTTLE_THERMAL_GPU,
        JD_THROTTLE_THERMAL_SOC,
        JD_THROTTLE_REASONS
} jd_throttle_reason;

/* What the last reading of an OC counter found. */
typedef enum {
        JD_OC_COUNTER_OK,
        JD_OC_COUNTER_WENT_BACK,   /* lower than before: the driver or BPMP restarted it */
        JD_OC_COUNTER_UNREADABLE,  /* the read failed or was not a number */
        JD_OC_COUNTER_VANISHED,    /* the file went away (its device left) */
} jd_oc_counter_state;

typedef struct {
        unsigned channel;          /* N of ocN */
        jd_opt_u64 events;         /* the counter as read: events since boot */
        jd_opt_bool armed;         /* ocN_throt_en */
        jd_oc_counter_state state;
        uint64_t counted;          /* events jetsond saw since it started: never decreases */
        bool fired;                /* the counter rose at this reading */
        uint64_t resets;           /* readings that found it lower than before */
        uint64_t failed_reads;     /* readings that found no number */
        bool has_last;
        uint64_t last;             /* the last good reading */
} jd_oc_channel;

typedef struct {
        char type[48];             /* cooling device type, e.g. "gpu-throttle-alert" */
        jd_throttle_reason reason; /* which reason a cap here is */
        jd_opt_u64 state, max_state;
} jd_cooling_cap;

typedef struct {
        jd_oc_channel *oc;
        size_t n_oc;
        jd_cooling_cap *caps;
        size_t n_caps;
        /* The summary: which reasons the board can report, which hold now. */
        bool has_reason[JD_THROTTLE_REASONS];
        bool active[JD_THROTTLE_REASONS];
        jd_opt_u64 oc_events_since_boot; /* the readable counters summed */
        uint64_t oc_events_counted;      /* the channels' counted summed */
} jd_throttle_sample;

typedef struct jd_throttle_reader jd_throttle_reader;

jd_throttle_reader *jd_throttle_reader_new(const jd_sysroot *sr);
void jd_throttle_reader_free(jd_throttle_reader *r);
const jd_throttle_sample *jd_throttle_reader_sample(jd_throttle_reader *r);

/* The interrupts of /proc/interrupts' line named NAME (TEXT: the file),
 * summed over the CPUs' columns; false where there is no such line or
 * its counts are garbage. */
bool jd_interrupts_count(const char *text, const char *name, uint64_t *out);
/* "over_current", "thermal_cpu", "thermal_gpu", "thermal_soc". */
const char *jd_throttle_reason_name(jd_throttle_reason r);
/* "ok", "went_back", "unreadable", "vanished". */
const char *jd_oc_counter_state_name(jd_oc_counter_state s);
/* The reasons active in S as "over_current,thermal_gpu", or "none". */
void jd_throttle_reasons_text(const jd_throttle_sample *s, char *out, size_t size);

/* NVML's clock event reasons (nvml-notes.md) as names joined by ",", e.g.
 * "sw_power_cap,hw_thermal"; "none" for 0. Bits NVML has not named are
 * "0x..." so that nothing is hidden. */
void jd_nvml_clock_reasons_text(uint64_t mask, char *out, size_t size);
