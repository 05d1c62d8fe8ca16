#include "measure_stats.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const jc_dgpu_fields[JC_DGPU_FIELDS] = { "load", "freq", "sm_freq", "mem_freq", "temp", "mem_used" };
const char *const jc_throttle_reasons[JC_THROTTLE_REASONS] = { "over_current", "thermal_cpu", "thermal_gpu",
                                                               "thermal_soc" };

/* NVML's nvmlClocksEventReason* bits as jetsond names them in
 * dgpu.N.throttle_reasons (src/readers/throttle.c; clients share no code
 * with the service, only its keys). */
static const char *const nvml_reason_names[] = { "idle",       "app_clocks", "sw_power_cap",
                                                 "hw_slowdown", "sync_boost", "sw_thermal",
                                                 "hw_thermal", "hw_power_brake", "display_clocks" };

jc_nvml_reason_kind jc_nvml_reason_kind_of(unsigned bit)
{
        if (bit == 0)
                return JC_NVML_IDLE; /* nothing to run: clocks down, nothing slowed */
        if (bit == 1 || bit == 8)
                return JC_NVML_SETTING; /* application (or locked) clocks, display clocks */
        return JC_NVML_THROTTLE;
}

const char *jc_nvml_reason_name(unsigned bit, char buf[24])
{
        if (bit < G_N_ELEMENTS(nvml_reason_names))
                return nvml_reason_names[bit];
        snprintf(buf, 24, "0x%llx", 1ull << (bit & 63));
        return buf;
}

static size_t find(char *const *columns, size_t n, const char *key)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(columns[i], key) == 0)
                        return i;
        return JC_NO_COLUMN;
}

static void window_init(const jc_measure *m, jc_window *w, const char *name, uint64_t start_ns)
{
        memset(w, 0, sizeof(*w));
        w->name = g_strdup(name);
        w->start_ns = w->end_ns = w->last_ns = start_ns;
        w->energy_mj = g_new0(double, m->n_power + 1);
        w->counter_first_mj = g_new0(double, m->n_power + 1);
        w->counter_last_mj = g_new0(double, m->n_power + 1);
        w->counter_first_ns = g_new0(uint64_t, m->n_power + 1);
        w->counter_last_ns = g_new0(uint64_t, m->n_power + 1);
        w->peak_mw = g_new(double, m->n_power + 1);
        w->last_mw = g_new(double, m->n_power + 1);
        for (size_t i = 0; i < m->n_power; i++)
                w->peak_mw[i] = w->last_mw[i] = NAN;
        for (int i = 0; i < JC_LOADS; i++)
                w->load_max[i] = NAN;
        for (int i = 0; i < JC_FREQS; i++)
                w->freq_max[i] = NAN;
        w->temp_max = g_new(double, m->n_temp + 1);
        for (size_t i = 0; i < m->n_temp; i++)
                w->temp_max[i] = NAN;
        size_t cells = m->n_dgpu * JC_DGPU_FIELDS;
        w->dgpu_sum = g_new0(double, cells + 1);
        w->dgpu_n = g_new0(size_t, cells + 1);
        w->dgpu_max = g_new(double, cells + 1);
        for (size_t i = 0; i < cells; i++)
                w->dgpu_max[i] = NAN;
        w->dgpu_reason_s = g_new0(double, m->n_dgpu * JC_NVML_REASON_BITS + 1);
        w->dgpu_throttled_s = g_new0(double, m->n_dgpu + 1);
        w->dgpu_known_s = g_new0(double, m->n_dgpu + 1);
        w->oc_base = m->oc_seen;
        w->oc_last = NAN;
}

static void window_clear(jc_window *w)
{
        g_free(w->name);
        g_free(w->energy_mj);
        g_free(w->counter_first_mj);
        g_free(w->counter_last_mj);
        g_free(w->counter_first_ns);
        g_free(w->counter_last_ns);
        g_free(w->peak_mw);
        g_free(w->last_mw);
        g_free(w->temp_max);
        g_free(w->dgpu_sum);
        g_free(w->dgpu_n);
        g_free(w->dgpu_max);
        g_free(w->dgpu_reason_s);
        g_free(w->dgpu_throttled_s);
        g_free(w->dgpu_known_s);
}

static double max_of(double a, double b)
{
        return isnan(a) || b > a ? b : a;
}

/* The NVML index of column C if it is one of the discrete GPUs' fields
 * kept ("dgpu.N.FIELD"), with the field in *FIELD (JC_DGPU_FIELDS: the
 * clock event reasons, dgpu.N.throttle); -1 otherwise. */
static long dgpu_column(const char *c, int *field)
{
        if (!g_str_has_prefix(c, "dgpu.") || !g_ascii_isdigit(c[5]))
                return -1;
        char *end;
        long index = strtol(c + 5, &end, 10);
        if (*end != '.')
                return -1;
        for (int f = 0; f < JC_DGPU_FIELDS; f++)
                if (strcmp(end + 1, jc_dgpu_fields[f]) == 0) {
                        *field = f;
                        return index;
                }
        if (strcmp(end + 1, "throttle") == 0) {
                *field = JC_DGPU_FIELDS;
                return index;
        }
        return -1;
}

static gint compare_long(gconstpointer a, gconstpointer b)
{
        long x = *(const long *) a, y = *(const long *) b;
        return x < y ? -1 : x > y;
}

/* The discrete GPUs of COLUMNS, in NVML's order, and their columns. */
static void find_dgpus(jc_measure *m, char *const *columns, size_t n)
{
        g_autoptr(GArray) indexes = g_array_new(FALSE, FALSE, sizeof(long));
        int field;
        for (size_t i = 0; i < n; i++) {
                long index = dgpu_column(columns[i], &field);
                bool known = false;
                for (guint k = 0; index >= 0 && k < indexes->len && !known; k++)
                        known = g_array_index(indexes, long, k) == index;
                if (index >= 0 && !known)
                        g_array_append_val(indexes, index);
        }
        g_array_sort(indexes, compare_long);
        m->n_dgpu = indexes->len;
        m->dgpu_name = g_new0(char *, m->n_dgpu + 1);
        m->dgpu_col = g_new(size_t, m->n_dgpu * JC_DGPU_FIELDS + 1);
        m->dgpu_throttle_col = g_new(size_t, m->n_dgpu + 1);
        m->dgpu_time_col = g_new(size_t, m->n_dgpu + 1);
        m->dgpu_time_seen = g_new(double, m->n_dgpu + 1);
        m->dgpu_fresh = g_new(bool, m->n_dgpu + 1);
        for (size_t g = 0; g < m->n_dgpu; g++) {
                m->dgpu_name[g] = g_strdup_printf("dgpu.%ld", g_array_index(indexes, long, g));
                g_autofree char *time_key = g_strdup_printf("capture.time.%s", m->dgpu_name[g]);
                m->dgpu_time_col[g] = find(columns, n, time_key);
                m->dgpu_time_seen[g] = NAN;
                m->dgpu_throttle_col[g] = JC_NO_COLUMN;
                for (int f = 0; f < JC_DGPU_FIELDS; f++)
                        m->dgpu_col[g * JC_DGPU_FIELDS + f] = JC_NO_COLUMN;
        }
        for (size_t i = 0; i < n; i++) {
                long index = dgpu_column(columns[i], &field);
                for (size_t g = 0; index >= 0 && g < m->n_dgpu; g++) {
                        if (g_array_index(indexes, long, g) != index)
                                continue;
                        if (field == JC_DGPU_FIELDS)
                                m->dgpu_throttle_col[g] = i;
                        else
                                m->dgpu_col[g * JC_DGPU_FIELDS + field] = i;
                }
        }
}

jc_measure *jc_measure_new(char *const *columns, size_t n, uint64_t start_ns)
{
        jc_measure *m = g_new0(jc_measure, 1);
        GArray *pc = g_array_new(FALSE, FALSE, sizeof(size_t)), *tc = g_array_new(FALSE, FALSE, sizeof(size_t));
        GPtrArray *pn = g_ptr_array_new(), *tn = g_ptr_array_new();
        for (size_t i = 0; i < n; i++) {
                const char *c = columns[i];
                size_t len = strlen(c);
                if (g_str_has_prefix(c, "power.") && len > 12 && g_str_has_suffix(c, ".power")) {
                        g_array_append_val(pc, i);
                        g_ptr_array_add(pn, g_strndup(c + 6, len - 12));
                } else if (g_str_has_prefix(c, "dgpu.") && len > 11 && g_str_has_suffix(c, ".power")) {
                        /* A discrete GPU's power (NVML), named as its keys: "dgpu.0". */
                        g_array_append_val(pc, i);
                        g_ptr_array_add(pn, g_strndup(c, len - 6));
                } else if (g_str_has_prefix(c, "temp.") && len > 5) {
                        g_array_append_val(tc, i);
                        g_ptr_array_add(tn, g_strdup(c + 5));
                }
        }
        size_t total = find(columns, n, "power.total");
        if (total != JC_NO_COLUMN) {
                g_array_append_val(pc, total);
                g_ptr_array_add(pn, g_strdup("total"));
        }
        g_ptr_array_add(pn, NULL);
        g_ptr_array_add(tn, NULL);
        m->n_power = pc->len;
        m->power_col = (size_t *) g_array_free(pc, FALSE);
        m->power_name = (char **) g_ptr_array_free(pn, FALSE);
        m->energy_col = g_new(size_t, m->n_power + 1);
        m->counter_mj = g_new(double, m->n_power + 1);
        for (size_t i = 0; i < m->n_power; i++) {
                m->counter_mj[i] = NAN;
                m->energy_col[i] = JC_NO_COLUMN;
                if (g_str_has_prefix(m->power_name[i], "dgpu.")) {
                        g_autofree char *key = g_strdup_printf("%s.energy", m->power_name[i]);
                        m->energy_col[i] = find(columns, n, key);
                }
        }
        m->n_temp = tc->len;
        m->temp_col = (size_t *) g_array_free(tc, FALSE);
        m->temp_name = (char **) g_ptr_array_free(tn, FALSE);
        static const char *const loads[JC_LOADS] = { "cpu.load", "gpu.load", "emc.load" };
        static const char *const freqs[JC_FREQS] = { "gpu.freq", "emc.freq" };
        for (int i = 0; i < JC_LOADS; i++)
                m->load_col[i] = find(columns, n, loads[i]);
        for (int i = 0; i < JC_FREQS; i++)
                m->freq_col[i] = find(columns, n, freqs[i]);
        find_dgpus(m, columns, n);
        for (int i = 0; i < JC_THROTTLE_REASONS; i++) {
                g_autofree char *key = g_strdup_printf("throttle.reason.%s.active", jc_throttle_reasons[i]);
                m->reason_col[i] = find(columns, n, key);
        }
        m->oc_col = find(columns, n, "throttle.oc_events_counted");
        m->oc_seen = NAN;
        window_init(m, &m->whole, "whole", start_ns);
        m->phases = g_new0(jc_window *, 2);
        m->phases[0] = g_new(jc_window, 1);
        window_init(m, m->phases[0], "start", start_ns);
        m->n_phases = 1;
        return m;
}

void jc_measure_free(jc_measure *m)
{
        if (!m)
                return;
        window_clear(&m->whole);
        for (size_t i = 0; i < m->n_phases; i++) {
                window_clear(m->phases[i]);
                g_free(m->phases[i]);
        }
        g_free(m->phases);
        g_free(m->power_col);
        g_free(m->energy_col);
        g_free(m->counter_mj);
        g_strfreev(m->power_name);
        g_free(m->temp_col);
        g_strfreev(m->temp_name);
        g_strfreev(m->dgpu_name);
        g_free(m->dgpu_col);
        g_free(m->dgpu_throttle_col);
        g_free(m->dgpu_time_col);
        g_free(m->dgpu_time_seen);
        g_free(m->dgpu_fresh);
        g_free(m);
}

/* Discrete GPU G's clock event reasons in a record, counted over DT as
 * the SoC's reasons are; a record without the bitmask (NAN: the GPU unread
 * or lost) is unknown time, counted nowhere. */
static void account_dgpu_reasons(jc_window *w, size_t g, double v, double dt)
{
        if (!isfinite(v) || v < 0 || v >= 0x1p64)
                return;
        uint64_t mask = (uint64_t) v;
        bool throttled = false;
        w->dgpu_known_s[g] += dt;
        for (unsigned b = 0; b < JC_NVML_REASON_BITS; b++) {
                jc_nvml_reason_kind kind = jc_nvml_reason_kind_of(b);
                if (!(mask >> b & 1) || kind == JC_NVML_IDLE)
                        continue;
                w->dgpu_reason_s[g * JC_NVML_REASON_BITS + b] += dt;
                throttled |= kind == JC_NVML_THROTTLE;
        }
        if (throttled)
                w->dgpu_throttled_s[g] += dt;
}

/* Each power counts over the interval that ends with the record that
 * holds it: sensors are read and then held. */
static void account(const jc_measure *m, jc_window *w, uint64_t time_ns, const double *values)
{
        double dt = time_ns > w->last_ns ? (double) (time_ns - w->last_ns) / 1e9 : 0;
        for (size_t i = 0; i < m->n_power; i++) {
                double v = values[m->power_col[i]];
                if (!isfinite(v))
                        continue;
                w->energy_mj[i] += v * dt;
                w->peak_mw[i] = max_of(w->peak_mw[i], v);
                w->last_mw[i] = v;
        }
        for (int i = 0; i < JC_LOADS; i++) {
                double v = m->load_col[i] == JC_NO_COLUMN ? NAN : values[m->load_col[i]];
                if (isfinite(v)) {
                        w->load_sum[i] += v;
                        w->load_n[i]++;
                        w->load_max[i] = max_of(w->load_max[i], v);
                }
        }
        for (int i = 0; i < JC_FREQS; i++)
                if (m->freq_col[i] != JC_NO_COLUMN && isfinite(values[m->freq_col[i]]))
                        w->freq_max[i] = max_of(w->freq_max[i], values[m->freq_col[i]]);
        for (size_t i = 0; i < m->n_temp; i++)
                if (isfinite(values[m->temp_col[i]]))
                        w->temp_max[i] = max_of(w->temp_max[i], values[m->temp_col[i]]);
        for (size_t i = 0; i < m->n_dgpu * JC_DGPU_FIELDS; i++) {
                double v = m->dgpu_col[i] == JC_NO_COLUMN ? NAN : values[m->dgpu_col[i]];
                /* A reading repeated by the records is one value. */
                if (isfinite(v) && m->dgpu_fresh[i / JC_DGPU_FIELDS]) {
                        w->dgpu_sum[i] += v;
                        w->dgpu_n[i]++;
                        w->dgpu_max[i] = max_of(w->dgpu_max[i], v);
                }
        }
        /* An over-current event holds the clocks down for the reading that
         * counts it, which the records can miss (a capture's missed tick
         * under load); the counted events' step they cannot, so a record
         * whose count rose is over-current time too. */
        double oc_now = m->oc_col == JC_NO_COLUMN ? NAN : values[m->oc_col];
        bool oc_step = isfinite(oc_now) && isfinite(m->oc_seen) && oc_now > m->oc_seen;
        for (int i = 0; i < JC_THROTTLE_REASONS; i++)
                if ((m->reason_col[i] != JC_NO_COLUMN && values[m->reason_col[i]] > 0.5) ||
                    (oc_step && strcmp(jc_throttle_reasons[i], "over_current") == 0))
                        w->throttled_s[i] += dt;
        for (size_t g = 0; g < m->n_dgpu; g++)
                if (m->dgpu_throttle_col[g] != JC_NO_COLUMN)
                        account_dgpu_reasons(w, g, values[m->dgpu_throttle_col[g]], dt);
        double oc = m->oc_col == JC_NO_COLUMN ? NAN : values[m->oc_col];
        if (isfinite(oc)) {
                if (isnan(w->oc_base))
                        w->oc_base = oc; /* the first record: what came before it is unknown */
                w->oc_last = oc;
        }
        w->records++;
        if (time_ns > w->last_ns)
                w->last_ns = time_ns;
}

/* The powers in LAST_MW count from W's last record up to END_NS; a
 * counter that stepped twice or more gives the energy instead. */
static void close_window(const jc_measure *m, jc_window *w, uint64_t end_ns, const double *last_mw)
{
        double dt = end_ns > w->last_ns ? (double) (end_ns - w->last_ns) / 1e9 : 0;
        for (size_t i = 0; i < m->n_power; i++)
                if (isfinite(last_mw[i]))
                        w->energy_mj[i] += last_mw[i] * dt;
        w->last_ns = w->end_ns = end_ns > w->start_ns ? end_ns : w->start_ns;
        for (size_t i = 0; i < m->n_power; i++) {
                uint64_t first = w->counter_first_ns[i], last = w->counter_last_ns[i];
                if (!first || last <= first)
                        continue;
                double mean_mw = (w->counter_last_mj[i] - w->counter_first_mj[i]) / ((double) (last - first) / 1e9);
                w->energy_mj[i] = mean_mw * jc_window_seconds(w);
        }
}

/* A step of power column I's counter, to VALUE at TIME_NS: the time the
 * counter was read, as near as the records tell (the value it held
 * before was read at an unknown time). */
static void counter_step(jc_window *w, size_t i, uint64_t time_ns, double value)
{
        if (!w->counter_first_ns[i]) {
                w->counter_first_ns[i] = time_ns;
                w->counter_first_mj[i] = value;
        }
        w->counter_last_ns[i] = time_ns;
        w->counter_last_mj[i] = value;
}

static void counter_restart(jc_window *w, size_t i)
{
        w->counter_first_ns[i] = w->counter_last_ns[i] = 0;
}

static void account_counters(jc_measure *m, uint64_t time_ns, const double *values)
{
        jc_window *phase = m->phases[m->n_phases - 1];
        for (size_t i = 0; i < m->n_power; i++) {
                if (m->energy_col[i] == JC_NO_COLUMN)
                        continue;
                double v = values[m->energy_col[i]], before = m->counter_mj[i];
                if (!isfinite(v))
                        continue;
                m->counter_mj[i] = v;
                if (!isfinite(before) || v == before)
                        continue;
                if (v < before) {
                        /* The driver reloaded: the counter starts again. */
                        counter_restart(&m->whole, i);
                        counter_restart(phase, i);
                }
                counter_step(&m->whole, i, time_ns, v);
                counter_step(phase, i, time_ns, v);
        }
}

void jc_measure_record(jc_measure *m, uint64_t time_ns, const double *values)
{
        /* Phases that ended since the last record get their share of this
         * record's interval, at its powers, as the whole run does. */
        double *now = g_newa(double, m->n_power + 1);
        for (size_t i = 0; i < m->n_power; i++)
                now[i] = values[m->power_col[i]];
        for (; m->settled + 1 < m->n_phases; m->settled++)
                close_window(m, m->phases[m->settled], m->phases[m->settled]->end_ns, now);
        /* Without its time column (a jetsond before tier times) every
         * record counts. */
        for (size_t g = 0; g < m->n_dgpu; g++) {
                double t = m->dgpu_time_col[g] == JC_NO_COLUMN ? NAN : values[m->dgpu_time_col[g]];
                m->dgpu_fresh[g] = m->dgpu_time_col[g] == JC_NO_COLUMN || (isfinite(t) && t != m->dgpu_time_seen[g]);
                if (isfinite(t))
                        m->dgpu_time_seen[g] = t;
        }
        account(m, &m->whole, time_ns, values);
        account(m, m->phases[m->n_phases - 1], time_ns, values);
        account_counters(m, time_ns, values);
        if (m->oc_col != JC_NO_COLUMN && isfinite(values[m->oc_col]))
                m->oc_seen = values[m->oc_col];
}

void jc_measure_phase(jc_measure *m, uint64_t time_ns, const char *label)
{
        jc_window *open = m->phases[m->n_phases - 1];
        /* Its tail is counted when the next record tells the power. */
        open->end_ns = time_ns > open->start_ns ? time_ns : open->start_ns;
        jc_window *next = g_new(jc_window, 1);
        window_init(m, next, label, open->end_ns);
        m->phases = g_renew(jc_window *, m->phases, m->n_phases + 2);
        m->phases[m->n_phases++] = next;
        m->phases[m->n_phases] = NULL;
}

void jc_measure_finish(jc_measure *m, uint64_t end_ns)
{
        /* No record after them: the last powers known go on to the end. */
        const double *last = m->whole.last_mw;
        for (; m->settled + 1 < m->n_phases; m->settled++)
                close_window(m, m->phases[m->settled], m->phases[m->settled]->end_ns, last);
        close_window(m, m->phases[m->n_phases - 1], end_ns, last);
        close_window(m, &m->whole, end_ns, last);
}

double jc_window_seconds(const jc_window *w)
{
        return (double) (w->end_ns - w->start_ns) / 1e9;
}

double jc_window_mean_mw(const jc_window *w, size_t i)
{
        double s = jc_window_seconds(w);
        return s > 0 && isfinite(w->peak_mw[i]) ? w->energy_mj[i] / s : NAN;
}

double jc_window_oc_events(const jc_window *w)
{
        /* The count never decreases (jetsond's own); a jetsond restarted
         * within the run starts it again: its new value is what it saw. */
        if (isnan(w->oc_last))
                return NAN;
        return w->oc_last >= w->oc_base ? w->oc_last - w->oc_base : w->oc_last;
}

double jc_window_dgpu_mean(const jc_window *w, size_t gpu, int field)
{
        size_t i = gpu * JC_DGPU_FIELDS + (size_t) field;
        return w->dgpu_n[i] ? w->dgpu_sum[i] / (double) w->dgpu_n[i] : NAN;
}

double jc_window_dgpu_unknown_s(const jc_window *w, size_t gpu)
{
        double unknown = jc_window_seconds(w) - w->dgpu_known_s[gpu];
        return unknown > 0 ? unknown : 0;
}
