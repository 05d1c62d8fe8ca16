#include "power.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "parse.h"

#define MAX_PLAUSIBLE_MW 10000000u

typedef struct {
        jd_file voltage, current, power;   /* power: JP4 iio (mW), INA238 (µW) */
        unsigned power_per_mw;             /* 1 for mW, 1000 for µW */
        double last_mw;
        bool have_last;
        /* RAPL: a counter of µJ that wraps at range_uj; power and energy
         * come from its steps, not from volts and amperes. */
        bool rapl;
        jd_file energy;
        uint64_t range_uj, last_uj;
        uint64_t last_uj_us;               /* when last_uj was read; 0: never */
} rail_files;

struct jd_power_reader {
        rail_files *files;                 /* one per rail, like sample.rails */
        size_t cap_files, cap_rails;
        size_t n_ina;                      /* rails that are INA3221 channels */
        uint64_t last_us;
        jd_power_sample sample;
};

static bool is_input_rail(const char *name)
{
        return strcmp(name, "VDD_IN") == 0 || strcmp(name, "POM_5V_IN") == 0 || strcmp(name, "VIN") == 0;
}

static jd_rail *new_rail(jd_power_reader *r, const char *name, rail_files **files)
{
        rail_files *all = jd_grow(r->files, &r->cap_files, r->sample.n + 1, sizeof(*all));
        if (all)
                r->files = all;
        jd_rail *rails = jd_grow(r->sample.rails, &r->cap_rails, r->sample.n + 1, sizeof(*rails));
        if (rails)
                r->sample.rails = rails;
        if (!all || !rails)
                return NULL; /* out of memory */
        size_t i = r->sample.n++;
        jd_rail *rail = &r->sample.rails[i];
        memset(rail, 0, sizeof(*rail));
        jd_strlcpy(rail->name, name, sizeof(rail->name));
        *files = &r->files[i];
        memset(*files, 0, sizeof(**files));
        (*files)->voltage = (*files)->current = (*files)->power = (*files)->energy = JD_FILE_INIT;
        (*files)->power_per_mw = 1;
        return rail;
}

/* Thor's carrier: one INA238 (mainline hwmon driver, no labels) on the
 * board's input, which tegrastats and jtop call VIN: in1_input the bus
 * voltage (mV), curr1_input (mA), power1_input (µW, the chip's own
 * product). jetson-jp7-thor.md §3b. */
static void add_ina238(jd_power_reader *r, const jd_sysroot *sr, const char *dev)
{
        char hwdir[512], **names;
        snprintf(hwdir, sizeof(hwdir), "%s/hwmon", dev);
        size_t n = jd_sysroot_list(sr, hwdir, &names);
        for (size_t h = 0; h < n; h++) {
                rail_files *f;
                if (strncmp(names[h], "hwmon", 5) != 0 || !new_rail(r, "VIN", &f))
                        continue;
                jd_file_open(&f->voltage, sr, "%s/%s/in1_input", hwdir, names[h]);
                jd_file_open(&f->current, sr, "%s/%s/curr1_input", hwdir, names[h]);
                jd_file_open(&f->power, sr, "%s/%s/power1_input", hwdir, names[h]);
                f->power_per_mw = 1000;
                break;
        }
        jd_names_free(names, n);
}

/* JP5/JP6: D/hwmon/hwmonN/in<n>_label, in<n>_input (mV), curr<n>_input (mA). */
static gint compare_ints(gconstpointer a, gconstpointer b)
{
        int x = *(const int *) a, y = *(const int *) b;
        return (x > y) - (x < y);
}

/* The channels N of DIR's inN_label files, in order: an INA3221 has
 * three, an INA238 one, and nothing bounds what a board may carry. */
static GArray *labelled_channels(const jd_sysroot *sr, const char *dir)
{
        GArray *channels = g_array_new(FALSE, FALSE, sizeof(int));
        char **files;
        size_t n = jd_sysroot_list(sr, dir, &files);
        for (size_t i = 0; i < n; i++) {
                int ch, end = 0;
                if (sscanf(files[i], "in%d_label%n", &ch, &end) == 1 && files[i][end] == '\0' && ch >= 0)
                        g_array_append_val(channels, ch);
        }
        jd_names_free(files, n);
        g_array_sort(channels, compare_ints);
        return channels;
}

static void add_hwmon(jd_power_reader *r, const jd_sysroot *sr, const char *dev)
{
        char hwdir[512], **names;
        snprintf(hwdir, sizeof(hwdir), "%s/hwmon", dev);
        size_t n = jd_sysroot_list(sr, hwdir, &names);
        for (size_t h = 0; h < n; h++) {
                if (strncmp(names[h], "hwmon", 5) != 0)
                        continue;
                char dir[600];
                snprintf(dir, sizeof(dir), "%s/%s", hwdir, names[h]);
                g_autoptr(GArray) channels = labelled_channels(sr, dir);
                for (guint c = 0; c < channels->len; c++) {
                        int ch = g_array_index(channels, int, c);
                        char label[32];
                        if (!jd_read_str(sr, label, sizeof(label), "%s/%s/in%d_label", hwdir, names[h], ch))
                                continue;
                        if (!jd_power_label_is_rail(label))
                                continue;
                        rail_files *f;
                        jd_rail *rail = new_rail(r, label, &f);
                        if (!rail)
                                break;
                        jd_file_open(&f->voltage, sr, "%s/%s/in%d_input", hwdir, names[h], ch);
                        jd_file_open(&f->current, sr, "%s/%s/curr%d_input", hwdir, names[h], ch);
                        rail->warn_ma.present = jd_read_u64(sr, &rail->warn_ma.value, "%s/%s/curr%d_max", hwdir, names[h], ch);
                        rail->crit_ma.present = jd_read_u64(sr, &rail->crit_ma.value, "%s/%s/curr%d_crit", hwdir, names[h], ch);
                }
        }
        jd_names_free(names, n);
}

static bool read_limit(const jd_sysroot *sr, uint64_t *out, const char *dir, const char *file, int k)
{
        char text[32];
        /* JP4 limits may read "1500 ma". */
        return jd_read_str(sr, text, sizeof(text), "%s/%s_%d", dir, file, k) && jd_parse_u64_prefix(text, out);
}

/* JP4: D/iio:deviceN/rail_name_<k>, in_{voltage,current,power}<k>_input. */
static void add_iio(jd_power_reader *r, const jd_sysroot *sr, const char *dev)
{
        char **names;
        size_t n = jd_sysroot_list(sr, dev, &names);
        for (size_t d = 0; d < n; d++) {
                if (strncmp(names[d], "iio:device", 10) != 0)
                        continue;
                char dir[512];
                snprintf(dir, sizeof(dir), "%s/%s", dev, names[d]);
                for (int k = 0; k < 8; k++) {
                        char label[32];
                        if (!jd_read_str(sr, label, sizeof(label), "%s/rail_name_%d", dir, k))
                                continue;
                        if (strcmp(label, "NC") == 0)
                                continue;
                        rail_files *f;
                        jd_rail *rail = new_rail(r, label, &f);
                        if (!rail)
                                break;
                        jd_file_open(&f->voltage, sr, "%s/in_voltage%d_input", dir, k);
                        jd_file_open(&f->current, sr, "%s/in_current%d_input", dir, k);
                        jd_file_open(&f->power, sr, "%s/in_power%d_input", dir, k);
                        rail->warn_ma.present = read_limit(sr, &rail->warn_ma.value, dir, "warn_current_limit", k);
                        rail->crit_ma.present = read_limit(sr, &rail->crit_ma.value, dir, "crit_current_limit", k);
                }
        }
        jd_names_free(names, n);
}

bool jd_power_label_is_rail(const char *label)
{
        return strcmp(label, "NC") != 0 && strncmp(label, "sum of shunt", 12) != 0;
}

/* Decimal digits at *P (at least one, no overflow past UINT_MAX). */
static bool decimal(const char **p, unsigned *out)
{
        uint64_t v = 0;
        const char *s = *p;
        while (**p >= '0' && **p <= '9' && v <= UINT32_MAX)
                v = v * 10 + (uint64_t) (*(*p)++ - '0');
        if (*p == s || v > UINT32_MAX)
                return false;
        *out = (unsigned) v;
        return true;
}

int jd_parse_rapl_zone(const char *name, unsigned *package, unsigned *sub)
{
        static const char prefix[] = "intel-rapl:";
        const char *p = name;
        if (strncmp(p, prefix, sizeof(prefix) - 1) != 0)
                return 0;
        p += sizeof(prefix) - 1;
        if (!decimal(&p, package))
                return 0;
        if (*p == '\0')
                return 1;
        if (*p++ != ':' || !decimal(&p, sub) || *p != '\0')
                return 0;
        return 2;
}

/* "RAPL_" + NAME upper-cased, '-' and other non-alphanumerics as '_'. */
void jd_rapl_rail_name(char *out, size_t size, const char *parent, const char *name)
{
        size_t w = (size_t)snprintf(out, size, "%s_", parent ? parent : "RAPL");
        for (const char *p = name; *p && w + 1 < size; p++)
                out[w++] = (*p >= 'a' && *p <= 'z') ? (char) (*p - 'a' + 'A')
                         : ((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) ? *p : '_';
        out[w < size ? w : size - 1] = '\0';
}

static void add_rapl_zone(jd_power_reader *r, const jd_sysroot *sr, const char *zone, const char *parent_rail,
                          char *rail_out, size_t rail_size)
{
        char name[32], rail_name[32];
        rail_out[0] = '\0';
        if (!jd_read_str(sr, name, sizeof(name), "/sys/class/powercap/%s/name", zone))
                return;
        jd_rapl_rail_name(rail_name, sizeof(rail_name), parent_rail, name);
        rail_files *f;
        if (!new_rail(r, rail_name, &f))
                return;
        f->rapl = true;
        jd_file_open(&f->energy, sr, "/sys/class/powercap/%s/energy_uj", zone);
        if (!jd_read_u64(sr, &f->range_uj, "/sys/class/powercap/%s/max_energy_range_uj", zone))
                f->range_uj = 0;
        jd_strlcpy(rail_out, rail_name, rail_size);
}

/* PCs: the CPU package, its core/uncore/DRAM sub-zones and the platform
 * (psys) from powercap's intel-rapl zones ("intel-rapl:N", sub-zones
 * "intel-rapl:N:M"). intel-rapl-mmio repeats a package: left out. */
static void add_rapl(jd_power_reader *r, const jd_sysroot *sr)
{
        char **names;
        size_t n = jd_sysroot_list(sr, "/sys/class/powercap", &names);
        for (size_t i = 0; i < n; i++) {
                unsigned pkg, sub;
                if (jd_parse_rapl_zone(names[i], &pkg, &sub) != 1)
                        continue;
                char parent[32];
                add_rapl_zone(r, sr, names[i], NULL, parent, sizeof(parent));
                if (!parent[0])
                        continue;
                for (size_t j = 0; j < n; j++) {
                        unsigned p2;
                        if (jd_parse_rapl_zone(names[j], &p2, &sub) == 2 && p2 == pkg) {
                                char ignored[32];
                                add_rapl_zone(r, sr, names[j], parent, ignored, sizeof(ignored));
                        }
                }
        }
        jd_names_free(names, n);
}

jd_power_reader *jd_power_reader_new(const jd_sysroot *sr)
{
        jd_power_reader *r = calloc(1, sizeof(*r));
        if (!r)
                return NULL;
        char **names;
        size_t n = jd_sysroot_list(sr, "/sys/bus/i2c/devices", &names);
        for (size_t i = 0; i < n; i++) {
                char dev[256], name[32];
                snprintf(dev, sizeof(dev), "/sys/bus/i2c/devices/%s", names[i]);
                if (!jd_read_str(sr, name, sizeof(name), "%s/name", dev))
                        continue;
                if (strcmp(name, "ina238") == 0)
                        add_ina238(r, sr, dev);
                else if (!strstr(name, "ina3221"))
                        continue;
                else if (strcmp(name, "ina3221x") == 0)
                        add_iio(r, sr, dev);
                else
                        add_hwmon(r, sr, dev);
        }
        jd_names_free(names, n);
        r->n_ina = r->sample.n;            /* RAPL zones come after */
        add_rapl(r, sr);
        return r;
}

void jd_power_reader_free(jd_power_reader *r)
{
        if (!r)
                return;
        for (size_t i = 0; i < r->sample.n; i++) {
                jd_file_close(&r->files[i].voltage);
                jd_file_close(&r->files[i].current);
                jd_file_close(&r->files[i].power);
                jd_file_close(&r->files[i].energy);
        }
        free(r->files);
        free(r->sample.rails);
        free(r);
}

/* A RAPL rail: the counter's step since the last reading is energy, and
 * over the time between the readings, power. A step back is a wrap (at
 * max_energy_range_uj); without a known range the step is dropped. */
static void read_rapl(jd_rail *rail, rail_files *f, uint64_t now_us)
{
        uint64_t uj;
        rail->power_mw.present = false;
        if (!jd_file_u64(&f->energy, &uj)) {
                f->last_uj_us = 0;
                return;
        }
        rail->energy_known = true;
        if (f->last_uj_us && now_us > f->last_uj_us) {
                uint64_t step = 0;
                bool ok = true;
                if (uj >= f->last_uj)
                        step = uj - f->last_uj;
                else if (f->range_uj >= f->last_uj)
                        step = (f->range_uj - f->last_uj) + uj + 1;
                else
                        ok = false;
                if (ok) {
                        rail->energy_mj += (double) step / 1000.0;
                        /* µJ per µs is W: times 1000 for mW. */
                        double mw = (double) step * 1000.0 / (double) (now_us - f->last_uj_us);
                        if (mw <= MAX_PLAUSIBLE_MW) {
                                rail->power_mw.value = (uint64_t) (mw + 0.5);
                                rail->power_mw.present = true;
                        }
                }
        }
        f->last_uj = uj;
        f->last_uj_us = now_us;
}

const jd_power_sample *jd_power_reader_sample(jd_power_reader *r, uint64_t now_us)
{
        jd_power_sample *s = &r->sample;
        double dt_s = r->last_us && now_us > r->last_us ? (double) (now_us - r->last_us) / 1e6 : 0.0;
        uint64_t sum = 0;
        /* RAPL measures the CPU and DRAM, not the board: only INA3221
         * rails make a board total. */
        bool have_sum = r->n_ina > 0;
        const jd_rail *input = NULL;

        for (size_t i = 0; i < s->n; i++) {
                jd_rail *rail = &s->rails[i];
                rail_files *f = &r->files[i];
                if (f->rapl) {
                        read_rapl(rail, f, now_us);
                        continue;
                }
                rail->voltage_mv.present = jd_file_u64(&f->voltage, &rail->voltage_mv.value);
                rail->current_ma.present = jd_file_u64(&f->current, &rail->current_ma.value);
                uint64_t uw = 0;
                if (jd_file_present(&f->power)) {
                        rail->power_mw.present = jd_file_u64(&f->power, &rail->power_mw.value);
                        rail->power_mw.value /= f->power_per_mw;
                } else if ((rail->power_mw.present = rail->voltage_mv.present && rail->current_ma.present &&
                                                   !__builtin_mul_overflow(rail->voltage_mv.value,
                                                                           rail->current_ma.value, &uw)))
                        rail->power_mw.value = uw / 1000;
                /* No board rail draws 10 kW: such a number is a broken read. */
                if (rail->power_mw.present && rail->power_mw.value > MAX_PLAUSIBLE_MW)
                        rail->power_mw.present = false;
                if (rail->power_mw.present) {
                        double mw = (double) rail->power_mw.value;
                        rail->energy_known = true;
                        /* Trapezoid: mW x s = mJ. */
                        if (f->have_last && dt_s > 0)
                                rail->energy_mj += (mw + f->last_mw) / 2.0 * dt_s;
                        f->last_mw = mw;
                        f->have_last = true;
                        sum += rail->power_mw.value;
                } else {
                        f->have_last = false;
                        have_sum = false;
                }
                if (is_input_rail(rail->name))
                        input = rail;
        }
        if (input) {
                s->total_mw = input->power_mw;
                s->total_is_sum = false;
                s->total_energy_mj = input->energy_mj;
        } else {
                s->total_mw = (jd_opt_u64) { .value = sum, .present = have_sum };
                s->total_is_sum = true;
                s->total_energy_mj = 0;
                for (size_t i = 0; i < s->n; i++)
                        if (!r->files[i].rapl)
                                s->total_energy_mj += s->rails[i].energy_mj;
        }
        r->last_us = now_us;
        return s;
}
