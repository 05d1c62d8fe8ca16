/* Power rails from INA3221 monitors: hwmon on JP5/JP6/JP7, iio on JP4.
 * Channels labelled NC and the "sum of shunt voltages" channel are no
 * rails. Thor's carrier adds an INA238 on the board's input: rail "VIN".
 * The board total is the input rail (VDD_IN / POM_5V_IN / VIN) where one
 * exists, never the input plus the rails it feeds, else the sum of the
 * rails (and then flagged as such). USB-PD power supplies (ucsi-source-psy-*)
 * report negotiated limits, not measurements: never rails. Energy is
 * integrated per rail from the first sample on. */
#pragma once

#include "opt.h"
#include "sysfile.h"

typedef struct {
        char name[32];
        jd_opt_u64 voltage_mv, current_ma, power_mw;
        jd_opt_u64 warn_ma, crit_ma;     /* averaged / instantaneous limits */
        double energy_mj;                /* since the reader started */
        bool energy_known;               /* a reading has come: energy_mj is one (else 0 would be made up) */
} jd_rail;

typedef struct {
        size_t n;
        jd_rail *rails;                  /* every rail found: grows with the board */
        jd_opt_u64 total_mw;
        bool total_is_sum;               /* no input rail: a sum, only an estimate */
        double total_energy_mj;
} jd_power_sample;

typedef struct jd_power_reader jd_power_reader;

jd_power_reader *jd_power_reader_new(const jd_sysroot *sr);
void jd_power_reader_free(jd_power_reader *r);
/* NOW_US: CLOCK_MONOTONIC time of the reading, for the energy integral. */
const jd_power_sample *jd_power_reader_sample(jd_power_reader *r, uint64_t now_us);

/* Text of the power discovery, exposed for tests and fuzzing. */
/* A powercap directory name: 1 for a package "intel-rapl:N", 2 for a
 * sub-zone "intel-rapl:N:M" (decimal, nothing after), else 0. */
int jd_parse_rapl_zone(const char *name, unsigned *package, unsigned *sub);
/* The rail name of a RAPL zone: PARENT (or "RAPL") "_" NAME upper-cased,
 * other than letters and digits as '_', cut to SIZE. */
void jd_rapl_rail_name(char *out, size_t size, const char *parent, const char *name);
/* Whether an INA3221 channel label is a rail: not "NC" (not connected),
 * not the "sum of shunt voltages" channel. */
bool jd_power_label_is_rail(const char *label);
