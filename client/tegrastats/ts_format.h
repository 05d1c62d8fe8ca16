/* One tegrastats line from one jetsond sample, in the form NVIDIA's
 * tegrastats prints on each L4T release (docs/tegrastats.md has the rules
 * and where they come from). Pure: no D-Bus, no I/O; the values come
 * through a lookup function, so the unit tests feed it synthetic samples
 * and the command feeds it the compact ValuesAt stream or Sample. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* The L4T release whose line is printed. */
typedef enum {
        TS_R32 = 32,    /* JetPack 4: no timestamp, rails without unit */
        TS_R35 = 35,    /* JetPack 5: timestamp, rails in mW, gated zones at -256C */
        TS_R36 = 36,    /* JetPack 6: the engine list with "off", GPC clocks in [] */
        TS_R38 = 38,    /* JetPack 7.1, Thor */
        TS_R39 = 39,    /* JetPack 7.2: max since start on temperatures and rails */
} ts_gen;

/* One entry of the Metrics Sensors property. */
typedef struct {
        char *key;      /* "temp.cpu", "power.VDD_IN" */
        char *kind;     /* "thermal_zone", "hwmon", "rail" */
        char *label;    /* "CPU-therm", "VDD_IN" */
} ts_sensor;

typedef struct {
        ts_gen gen;
        /* Thor (tegra264): three GPCs on one clock and no GPU load in the
         * line, video engines on the GPU's video clock. */
        bool thor;
        /* Orin (tegra234): two JPEG engines, NVJPG and NVJPG1. */
        bool two_nvjpg;
        GPtrArray *sensors;     /* of ts_sensor, in the hardware's order */
} ts_board;

/* The value of KEY in the sample being printed, NAN when absent. */
typedef double (*ts_value_fn)(void *data, const char *key);

/* The mean and maximum of each temperature and rail since the command
 * started, over the lines printed. */
typedef struct ts_stats ts_stats;
ts_stats *ts_stats_new(void);
void ts_stats_free(ts_stats *stats);

void ts_sensor_free(gpointer sensor);
/* "r32", "r35", "r36", "r38", "r39" (also "R36", "36"). */
bool ts_gen_parse(const char *text, ts_gen *gen);
/* The release of an L4T version ("36.4.3"); a PC's empty version, or a
 * release older than R32 or newer than R39, gets the nearest form. */
ts_gen ts_gen_for_l4t(const char *l4t);
const char *ts_gen_name(ts_gen gen);

/* Appends one line (no newline) for the sample at TIMESTAMP_USEC
 * (CLOCK_REALTIME), adding its temperatures and rails to STATS first. */
void ts_format_line(GString *out, const ts_board *board, ts_value_fn value, void *data, uint64_t timestamp_usec,
                    ts_stats *stats);
