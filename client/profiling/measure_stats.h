/* jetsonctl measure's arithmetic: from capture records to energy, power,
 * loads, temperatures and frequencies, for the whole run and for each
 * phase between sync points. No I/O: unit-tested on its own. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JC_NO_COLUMN ((size_t) -1)

enum { JC_LOAD_CPU, JC_LOAD_GPU, JC_LOAD_EMC, JC_LOADS };
enum { JC_FREQ_GPU, JC_FREQ_EMC, JC_FREQS };
/* What is kept of each discrete GPU (NVML, dgpu.N.*): the mean and the
 * maximum of each of these keys' values. */
enum { JC_DGPU_LOAD, JC_DGPU_FREQ, JC_DGPU_SM_FREQ, JC_DGPU_MEM_FREQ, JC_DGPU_TEMP, JC_DGPU_MEM_USED, JC_DGPU_FIELDS };
extern const char *const jc_dgpu_fields[JC_DGPU_FIELDS]; /* "load", "freq", ... as in dgpu.N.FIELD */
/* Throttle reasons (jetsond's throttle.reason.NAME.active, issue 39). */
enum { JC_THROTTLE_REASONS = 4 };
extern const char *const jc_throttle_reasons[JC_THROTTLE_REASONS]; /* "over_current", ... */
/* A discrete GPU's clock event reasons (dgpu.N.throttle, NVML's bitmask;
 * issue 39): the time each bit held, per bit. What a bit means for "is it
 * throttled": the GPU idle is no throttle and is not counted; application
 * and display clocks are settings someone made, timed but not called
 * throttling; every other bit, those NVML has not named included, is. */
enum { JC_NVML_REASON_BITS = 64 };
typedef enum { JC_NVML_IDLE, JC_NVML_SETTING, JC_NVML_THROTTLE } jc_nvml_reason_kind;
jc_nvml_reason_kind jc_nvml_reason_kind_of(unsigned bit);
/* BIT's name as dgpu.N.throttle_reasons spells it ("sw_power_cap"), or its
 * value in hex ("0x200") for a bit NVML has not named, written into BUF. */
const char *jc_nvml_reason_name(unsigned bit, char buf[24]);

/* What the command's processes did in a window (filled in by the caller). */
typedef struct {
        bool present;
        double user_s, system_s;
        uint64_t peak_rss_bytes, peak_pss_bytes, read_bytes, write_bytes;
        bool have_gpu_mem;
        uint64_t peak_gpu_mem_kib;
        /* Some process of the tree hid the figure from the caller (another
         * user's): it is unknown, not the sum of the others'. */
        bool rss_unknown, pss_unknown, io_unknown;
} jc_window_procs;

typedef struct {
        char *name;                /* the phase's: "start" or the mark that began it */
        uint64_t start_ns, end_ns;
        uint64_t last_ns;          /* the last record's time */
        size_t records;
        double *energy_mj, *peak_mw, *last_mw;  /* per power column; NAN: none yet */
        /* A discrete GPU's energy counter (dgpu.N.energy) where it
         * stepped within the window: the first and last step, per power
         * column (times 0: none). */
        double *counter_first_mj, *counter_last_mj;
        uint64_t *counter_first_ns, *counter_last_ns;
        double load_sum[JC_LOADS], load_max[JC_LOADS];
        size_t load_n[JC_LOADS];
        double *temp_max;          /* per temperature column; NAN: none */
        double freq_max[JC_FREQS]; /* kHz; NAN: none */
        /* Per discrete GPU and field (index gpu * JC_DGPU_FIELDS + field). */
        double *dgpu_sum, *dgpu_max; /* max NAN: none */
        size_t *dgpu_n;
        /* Per discrete GPU with a bitmask column: seconds each reason bit
         * held (index gpu * JC_NVML_REASON_BITS + bit), seconds any
         * throttling bit held, seconds the records had a bitmask (counted
         * as the SoC's reasons are: each record over the interval it ends). */
        double *dgpu_reason_s, *dgpu_throttled_s, *dgpu_known_s;
        /* Time each throttle reason held (a record's reasons count over the
         * interval it ends, as its powers do), and the over-current events
         * counted (throttle.oc_events_counted: its last value in the window
         * minus the last one before it; NAN base: none yet). */
        double throttled_s[JC_THROTTLE_REASONS];
        double oc_base, oc_last;
        jc_window_procs procs;
} jc_window;

typedef struct {
        /* Rails ("power.NAME.power"), then the board's total ("power.total",
         * its input rail where there is one) if there is one. */
        size_t n_power;
        size_t *power_col;
        size_t *energy_col;        /* per power column: its counter (dgpu.N.energy) or JC_NO_COLUMN */
        double *counter_mj;        /* per power column: the counter's value in the last record; NAN: none */
        char **power_name;         /* "VDD_GPU_SOC", ..., "total" */
        size_t load_col[JC_LOADS], freq_col[JC_FREQS];
        size_t n_temp;
        size_t *temp_col;
        char **temp_name;          /* "cpu", "gpu", ... */
        /* Discrete GPUs, by NVML index, with a column per field or
         * JC_NO_COLUMN (index gpu * JC_DGPU_FIELDS + field). */
        size_t n_dgpu;
        char **dgpu_name;          /* "dgpu.0", ... as the power columns name them */
        size_t *dgpu_col;
        size_t *dgpu_throttle_col; /* per discrete GPU: dgpu.N.throttle or JC_NO_COLUMN */
        /* Per discrete GPU: its tier time column (capture.time.dgpu.N) or
         * JC_NO_COLUMN, the time last counted, and whether this record
         * holds a new reading: its means count each reading once. */
        size_t *dgpu_time_col;
        double *dgpu_time_seen;
        bool *dgpu_fresh;
        size_t reason_col[JC_THROTTLE_REASONS], oc_col;
        double oc_seen;            /* the last throttle.oc_events_counted seen; NAN: none */
        /* CLOCK_REALTIME minus CLOCK_MONOTONIC, the capture header's: for
         * the windows' start and end in absolute time (0 until set). */
        int64_t realtime_offset_ns;
        jc_window whole;
        jc_window **phases;        /* NULL-terminated; the last is open */
        size_t n_phases;
        size_t settled;            /* phases before this one have their energy counted to their end */
} jc_measure;

jc_measure *jc_measure_new(char *const *columns, size_t n, uint64_t start_ns);
void jc_measure_free(jc_measure *m);
/* A record at TIME_NS: the power of each column counts from the previous
 * record (or the window's start) to TIME_NS. A discrete GPU whose records
 * have its energy counter (dgpu.N.energy) gets the counter's energy
 * instead, where it stepped twice or more in the window: the counter's
 * mean power between its first and last step, over the whole window (the
 * counter is exact where the power key is an average, issue 35). */
void jc_measure_record(jc_measure *m, uint64_t time_ns, const double *values);
/* A sync point at TIME_NS: the open phase ends, one called LABEL begins. */
void jc_measure_phase(jc_measure *m, uint64_t time_ns, const char *label);
/* The run ended at END_NS: the last powers count up to it. */
void jc_measure_finish(jc_measure *m, uint64_t end_ns);

double jc_window_seconds(const jc_window *w);
/* Mean power in mW of power column I over the window; NAN without data. */
double jc_window_mean_mw(const jc_window *w, size_t i);
/* Over-current events counted in the window; NAN where the board has no
 * counter (or the window saw no record of it). */
double jc_window_oc_events(const jc_window *w);
/* Mean of discrete GPU GPU's FIELD over the window's records; NAN without data. */
double jc_window_dgpu_mean(const jc_window *w, size_t gpu, int field);
/* The window's seconds without a bitmask of discrete GPU GPU's: records
 * that lacked it (the GPU unread or lost) and the ends no record covers.
 * Neither throttled nor not. */
double jc_window_dgpu_unknown_s(const jc_window *w, size_t gpu);
