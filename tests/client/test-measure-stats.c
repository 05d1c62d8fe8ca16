/* jetsonctl measure's arithmetic (client/profiling/measure_stats.c) on made-up
 * records: energy is power x time whatever the record spacing, phases
 * split the run without gap or overlap, absent values stay absent. */
#include <math.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "profiling/measure_stats.h"

#define MS 1000000ull

static char *columns[] = { "power.VDD_IN.power", "power.total", "cpu.load", "temp.cpu", "gpu.freq", "ram.used", NULL };
#define N_COLUMNS 6

static void record(jc_measure *m, uint64_t t, double rail, double total, double load, double temp)
{
        double v[N_COLUMNS] = { rail, total, load, temp, 1300000, 42 };
        jc_measure_record(m, t, v);
}

static void test_columns(void **state)
{
        (void) state;
        jc_measure *m = jc_measure_new(columns, N_COLUMNS, 0);
        assert_int_equal(m->n_power, 2);
        assert_string_equal(m->power_name[0], "VDD_IN");
        assert_string_equal(m->power_name[1], "total"); /* the total last */
        assert_int_equal(m->n_temp, 1);
        assert_string_equal(m->temp_name[0], "cpu");
        assert_int_equal(m->load_col[JC_LOAD_CPU], 2);
        assert_true(m->load_col[JC_LOAD_GPU] == JC_NO_COLUMN);
        jc_measure_free(m);
}

static void test_energy(void **state)
{
        (void) state;
        /* Start at 1 s; records every 10 ms, the first 3 ms in, the last
         * 7 ms before the end at 2 s: 1 W for 1 s is 1 J. */
        uint64_t start = 1000 * MS;
        jc_measure *m = jc_measure_new(columns, N_COLUMNS, start);
        for (uint64_t t = start + 3 * MS; t < start + 1000 * MS; t += 10 * MS)
                record(m, t, 1000, 2500, 50, 40);
        jc_measure_finish(m, start + 1000 * MS);
        const jc_window *w = &m->whole;
        assert_true(fabs(jc_window_seconds(w) - 1.0) < 1e-9);
        assert_true(fabs(w->energy_mj[0] - 1000) < 1e-6);
        assert_true(fabs(w->energy_mj[1] - 2500) < 1e-6);
        assert_true(fabs(jc_window_mean_mw(w, 1) - 2500) < 1e-6);
        assert_true(w->peak_mw[1] == 2500);
        assert_int_equal(w->records, 100);
        jc_measure_free(m);
}

/* A PC's discrete GPUs: each one's load mean and max, clocks,
 * temperature and memory maxima, per window; GPUs in NVML's order
 * whatever the columns' order; a field a GPU lacks stays absent. */
static void test_dgpus(void **state)
{
        (void) state;
        char *cols[] = { "dgpu.10.load", "dgpu.0.load", "dgpu.0.freq",     "dgpu.0.sm_freq", "dgpu.0.mem_freq",
                         "dgpu.0.temp",  "dgpu.0.mem_used", "dgpu.0.power", "dgpu.0.mem_total", "dgpu.x.load", NULL };
        jc_measure *m = jc_measure_new(cols, 10, 0);
        assert_int_equal(m->n_dgpu, 2);
        assert_string_equal(m->dgpu_name[0], "dgpu.0");
        assert_string_equal(m->dgpu_name[1], "dgpu.10");
        assert_int_equal(m->dgpu_col[0 * JC_DGPU_FIELDS + JC_DGPU_LOAD], 1);
        assert_int_equal(m->dgpu_col[1 * JC_DGPU_FIELDS + JC_DGPU_LOAD], 0);
        assert_true(m->dgpu_col[1 * JC_DGPU_FIELDS + JC_DGPU_TEMP] == JC_NO_COLUMN);
        assert_int_equal(m->n_power, 1); /* dgpu.0.power: energy as before */
        double a[] = { 5, 20, 1000000, 1100000, 5000000, 40, 1000, 70000, 4000, 1 };
        double b[] = { 7, 80, 2000000, 2100000, 5000000, 60, 3000, 90000, 4000, 1 };
        double c[] = { NAN, 50, 1500000, 1600000, 5001000, 50, 2000, 80000, 4000, 1 };
        jc_measure_record(m, 10 * MS, a);
        jc_measure_record(m, 20 * MS, b);
        jc_measure_phase(m, 25 * MS, "second");
        jc_measure_record(m, 30 * MS, c);
        jc_measure_finish(m, 40 * MS);
        const jc_window *w = &m->whole;
        const double *max = &w->dgpu_max[0];
        assert_true(fabs(jc_window_dgpu_mean(w, 0, JC_DGPU_LOAD) - 50) < 1e-9);
        assert_true(max[JC_DGPU_LOAD] == 80 && max[JC_DGPU_FREQ] == 2000000 && max[JC_DGPU_SM_FREQ] == 2100000);
        assert_true(max[JC_DGPU_MEM_FREQ] == 5001000 && max[JC_DGPU_TEMP] == 60 && max[JC_DGPU_MEM_USED] == 3000);
        assert_true(fabs(jc_window_dgpu_mean(w, 1, JC_DGPU_LOAD) - 6) < 1e-9); /* the NAN left out */
        assert_true(isnan(w->dgpu_max[JC_DGPU_FIELDS + JC_DGPU_TEMP]));
        /* The phases: each its own records. */
        const jc_window *p1 = m->phases[0], *p2 = m->phases[1];
        assert_true(fabs(jc_window_dgpu_mean(p1, 0, JC_DGPU_LOAD) - 50) < 1e-9 && p1->dgpu_max[JC_DGPU_TEMP] == 60);
        assert_true(fabs(jc_window_dgpu_mean(p2, 0, JC_DGPU_LOAD) - 50) < 1e-9 && p2->dgpu_max[JC_DGPU_TEMP] == 50);
        assert_true(p2->dgpu_max[JC_DGPU_MEM_USED] == 2000 && p2->dgpu_max[JC_DGPU_LOAD] == 50);
        assert_true(isnan(jc_window_dgpu_mean(p2, 1, JC_DGPU_LOAD)));
        jc_measure_free(m);
}

/* With the GPU's tier time column, a reading the records repeat counts
 * once in the means: 1 ms records, the GPU read at 10 ms; a load of 90
 * held for 9 records and a load of 10 for 1 mean 50, not 82 as the
 * records would have it. Its maximum is the same either way. */
static void test_dgpu_readings_once(void **state)
{
        (void) state;
        char *cols[] = { "dgpu.0.load", "capture.time.dgpu.0", NULL };
        jc_measure *m = jc_measure_new(cols, 2, 0);
        assert_int_equal(m->dgpu_time_col[0], 1);
        uint64_t t = 0;
        for (int reading = 0; reading < 10; reading++) {
                double load = reading % 2 ? 10 : 90, read_at = (double) (reading * 10 * MS);
                int repeats = reading % 2 ? 1 : 9;
                for (int k = 0; k < repeats; k++) {
                        double v[] = { load, read_at };
                        jc_measure_record(m, t += MS, v);
                }
        }
        /* A stalled GPU: NaN time and value, nothing counted. */
        double stalled[] = { NAN, NAN };
        jc_measure_record(m, t += MS, stalled);
        jc_measure_finish(m, t + MS);
        assert_true(fabs(jc_window_dgpu_mean(&m->whole, 0, JC_DGPU_LOAD) - 50) < 1e-9);
        assert_true(m->whole.dgpu_max[JC_DGPU_LOAD] == 90);
        assert_int_equal(m->whole.dgpu_n[JC_DGPU_LOAD], 10);
        jc_measure_free(m);
}

static void test_phases(void **state)
{
        (void) state;
        jc_measure *m = jc_measure_new(columns, N_COLUMNS, 0);
        for (uint64_t t = 10 * MS; t <= 300 * MS; t += 10 * MS) {
                if (t == 110 * MS)
                        jc_measure_phase(m, 105 * MS, "second");
                if (t == 210 * MS)
                        jc_measure_phase(m, 200 * MS, "third");
                /* 1 W, then 3 W from 100 ms on, a load that peaks once */
                record(m, t, t > 100 * MS ? 3000 : 1000, NAN, t == 150 * MS ? 90 : 10, (double) (t / MS) / 10);
        }
        jc_measure_finish(m, 300 * MS);
        assert_int_equal(m->n_phases, 3);
        double sum = 0, energy = 0;
        for (size_t i = 0; i < 3; i++) {
                sum += jc_window_seconds(m->phases[i]);
                energy += m->phases[i]->energy_mj[0];
        }
        assert_true(fabs(sum - jc_window_seconds(&m->whole)) < 1e-12);
        assert_true(fabs(energy - m->whole.energy_mj[0]) < 1e-6);
        /* 0.1 s at 1 W and 0.2 s at 3 W */
        assert_true(fabs(m->whole.energy_mj[0] - 700) < 1e-6);
        assert_string_equal(m->phases[1]->name, "second");
        assert_true(m->phases[1]->load_max[JC_LOAD_CPU] == 90);
        assert_true(m->phases[2]->load_max[JC_LOAD_CPU] == 10);
        assert_true(m->phases[2]->temp_max[0] == 30);
        /* power.total was never there: no energy, no mean, no peak */
        assert_true(isnan(m->whole.peak_mw[1]));
        assert_true(isnan(jc_window_mean_mw(&m->whole, 1)));
        assert_true(isnan(m->whole.load_max[JC_LOAD_GPU]));
        jc_measure_free(m);
}

/* A discrete GPU whose power key (an average, 200 W here) is not what
 * its energy counter says (300 W): the counter, read every 100 ms and
 * seen 7 ms later in a record every 10 ms, gives the energy over the run
 * within 1 %, whole and per phase; a GPU with no counter column keeps the
 * power's. */
static void test_dgpu_counter(void **state)
{
        (void) state;
        char *cols[] = { "dgpu.0.power", "dgpu.0.energy", "dgpu.1.power", NULL };
        uint64_t start = 5000 * MS, end = start + 3000 * MS, mark = start + 1500 * MS;
        jc_measure *m = jc_measure_new(cols, 3, start);
        assert_int_equal(m->n_power, 2);
        assert_int_equal(m->energy_col[0], 1);
        assert_true(m->energy_col[1] == JC_NO_COLUMN);
        bool marked = false;
        for (uint64_t t = start + 4 * MS; t < end; t += 10 * MS) {
                if (!marked && t >= mark) {
                        jc_measure_phase(m, mark, "second");
                        marked = true;
                }
                /* The newest counter read at least 7 ms ago, reads at
                 * 3 ms past each 100 ms, counting from long before. */
                uint64_t seen = t - 7 * MS, read = (seen - 3 * MS) / (100 * MS) * (100 * MS) + 3 * MS;
                double counter = 1e9 + 300000.0 * (double) read / 1e9;
                double v[3] = { 200000, counter, 50000 };
                jc_measure_record(m, t, v);
        }
        jc_measure_finish(m, end);
        assert_true(fabs(m->whole.energy_mj[0] - 900000) < 9000);
        assert_true(fabs(m->whole.energy_mj[1] - 150000) < 1e-3);
        assert_int_equal(m->n_phases, 2);
        for (size_t i = 0; i < 2; i++)
                assert_true(fabs(m->phases[i]->energy_mj[0] - 450000) < 4500);
        jc_measure_free(m);
}

/* Issue 39: the time each throttle reason held (a record's state over the
 * interval it ends) and the over-current events per window: the counted
 * total's rise, whole run and phases alike; no counter column: NAN. */
static void test_throttle(void **state)
{
        (void) state;
        char *cols[] = { "throttle.reason.over_current.active", "throttle.reason.thermal_gpu.active",
                         "throttle.oc_events_counted", NULL };
        jc_measure *m = jc_measure_new(cols, 3, 0);
        double v[3] = { 0, 0, 7 };
        jc_measure_record(m, 100 * MS, v);   /* 7 before the run: not its events */
        v[1] = 1;
        jc_measure_record(m, 200 * MS, v);   /* GPU cap over 100-200 ms */
        jc_measure_phase(m, 250 * MS, "hot");
        v[0] = 1, v[2] = 10;
        jc_measure_record(m, 300 * MS, v);   /* 3 events; both reasons 250-300 ms in "hot" */
        v[0] = 0;
        jc_measure_record(m, 400 * MS, v);
        jc_measure_finish(m, 400 * MS);
        assert_true(fabs(m->whole.throttled_s[2] - 0.3) < 1e-9);
        assert_true(fabs(m->whole.throttled_s[0] - 0.1) < 1e-9);
        assert_true(fabs(jc_window_oc_events(&m->whole) - 3) < 1e-9);
        assert_true(fabs(jc_window_oc_events(m->phases[0]) - 0) < 1e-9);
        assert_true(fabs(jc_window_oc_events(m->phases[1]) - 3) < 1e-9);
        assert_true(fabs(m->phases[1]->throttled_s[0] - 0.05) < 1e-9);
        assert_true(fabs(m->phases[1]->throttled_s[2] - 0.15) < 1e-9);
        assert_true(m->reason_col[1] == JC_NO_COLUMN && m->reason_col[3] == JC_NO_COLUMN);
        jc_measure_free(m);
        jc_measure *none = jc_measure_new(columns, N_COLUMNS, 0);
        record(none, 100 * MS, 1, 1, 1, 1);
        jc_measure_finish(none, 100 * MS);
        assert_true(isnan(jc_window_oc_events(&none->whole)));
        jc_measure_free(none);
}

/* The reading whose over_current.active was 1 never reached a record (a
 * capture's missed tick): the counted events' step still makes that
 * record's interval over-current time. tests/python/test_units.py
 * test_stats_oc_step_without_active gives measure() the same records. */
static void test_oc_step_without_active(void **state)
{
        (void) state;
        char *cols[] = { "throttle.reason.over_current.active", "throttle.oc_events_counted", NULL };
        jc_measure *m = jc_measure_new(cols, 2, 0);
        double v[2] = { 0, 4 };
        jc_measure_record(m, 100 * MS, v);
        jc_measure_record(m, 110 * MS, v);
        v[1] = 6;
        jc_measure_record(m, 130 * MS, v);   /* 2 events, active missed: 20 ms */
        jc_measure_record(m, 140 * MS, v);
        v[0] = 1, v[1] = 7;
        jc_measure_record(m, 150 * MS, v);   /* both seen: 10 ms, once */
        jc_measure_finish(m, 150 * MS);
        assert_true(fabs(m->whole.throttled_s[0] - 0.03) < 1e-9);
        assert_true(fabs(jc_window_oc_events(&m->whole) - 3) < 1e-9);
        jc_measure_free(m);
}

/* Issue 39: a discrete GPU's clock event reasons (NVML's bitmask), each
 * bit's time counted as the SoC's reasons are; the GPU idle nowhere, the
 * application clocks timed but not throttling, a bit NVML has not named
 * throttling under its hex value, a record without the bitmask unknown
 * time with the ends no record covers. tests/python/test_units.py gives
 * jetsond.measure() the same records and expects the same numbers. */
static void test_dgpu_reasons(void **state)
{
        (void) state;
        char *cols[] = { "dgpu.0.throttle", "dgpu.0.load", "dgpu.1.load", NULL };
        jc_measure *m = jc_measure_new(cols, 3, 0);
        assert_int_equal(m->n_dgpu, 2);
        assert_int_equal(m->dgpu_throttle_col[0], 0);
        assert_true(m->dgpu_throttle_col[1] == JC_NO_COLUMN);
        static const struct {
                uint64_t t_ms;
                double mask;
        } records[] = { { 10, 0x1 }, { 20, 0x4 }, { 30, 0x44 }, { 40, NAN }, { 50, 0x202 }, { 60, 0x6 } };
        for (size_t i = 0; i < sizeof(records) / sizeof(records[0]); i++) {
                if (records[i].t_ms == 40)
                        jc_measure_phase(m, 35 * MS, "second");
                double v[3] = { records[i].mask, 50, 5 };
                jc_measure_record(m, records[i].t_ms * MS, v);
        }
        jc_measure_finish(m, 70 * MS);
        /* Per window: sw_power_cap, hw_thermal, app_clocks, 0x200 and any
         * reason held (s); unknown (s). */
        static const double want[3][6] = { { 0.030, 0.010, 0.020, 0.010, 0.040, 0.020 },
                                           { 0.020, 0.010, 0, 0, 0.020, 0.005 },
                                           { 0.010, 0, 0.020, 0.010, 0.020, 0.015 } };
        const jc_window *windows[3] = { &m->whole, m->phases[0], m->phases[1] };
        for (int i = 0; i < 3; i++) {
                const double *held = windows[i]->dgpu_reason_s;
                const double got[6] = { held[2], held[6], held[1], held[9], windows[i]->dgpu_throttled_s[0],
                                        jc_window_dgpu_unknown_s(windows[i], 0) };
                for (int k = 0; k < 6; k++)
                        assert_float_equal(got[k], want[i][k], 1e-12);
                assert_true(held[0] == 0); /* idle: no time */
                for (unsigned b = 10; b < JC_NVML_REASON_BITS; b++)
                        assert_true(held[b] == 0);
        }
        char hex[24];
        assert_string_equal(jc_nvml_reason_name(2, hex), "sw_power_cap");
        assert_string_equal(jc_nvml_reason_name(9, hex), "0x200");
        assert_string_equal(jc_nvml_reason_name(63, hex), "0x8000000000000000");
        assert_int_equal(jc_nvml_reason_kind_of(0), JC_NVML_IDLE);
        assert_int_equal(jc_nvml_reason_kind_of(1), JC_NVML_SETTING);
        assert_int_equal(jc_nvml_reason_kind_of(8), JC_NVML_SETTING);
        assert_int_equal(jc_nvml_reason_kind_of(7), JC_NVML_THROTTLE);
        jc_measure_free(m);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_columns),
                cmocka_unit_test(test_energy),
                cmocka_unit_test(test_phases),
                cmocka_unit_test(test_dgpus),
                cmocka_unit_test(test_dgpu_readings_once),
                cmocka_unit_test(test_dgpu_counter),
                cmocka_unit_test(test_throttle),
                cmocka_unit_test(test_oc_step_without_active),
                cmocka_unit_test(test_dgpu_reasons),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
