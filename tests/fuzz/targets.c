#include "targets.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "config_edit.h"
#include "cpu.h"
#include "dpkg.h"
#include "engines.h"
#include "fan.h"
#include "libraries.h"
#include "memory.h"
#include "nvpmodel.h"
#include "parse.h"
#include "power.h"
#include "processes.h"
#include "swap.h"
#include "system.h"
#include "thermal.h"

/* An invariant that must hold whatever the input. */
#define CHECK(cond)                     \
        do {                            \
                if (!(cond))            \
                        abort();        \
        } while (0)

static void proc_stat(const char *text, size_t len)
{
        (void) len;
        jd_cpu_ticks agg, cores[64];
        jd_parse_proc_stat(text, &agg, cores, 64);
}

static void meminfo(const char *text, size_t len)
{
        (void) len;
        jd_memory_sample m = { 0 };
        if (jd_parse_meminfo(text, &m) && m.used.present)
                CHECK(m.used.value <= m.total.value);
        uint64_t v;
        jd_buddy_free b;
        if (jd_parse_buddyinfo_free(text, &b) && b.largest_count)
                CHECK(b.largest_kib >= 4 && b.largest_kib <= 4096);
        jd_parse_nvmap_total(text, &v);
        uint64_t in, out;
        jd_parse_vmstat_swap(text, &in, &out);
}

static void proc_swaps(const char *text, size_t len)
{
        (void) len;
        jd_swap_sample s = { 0 };
        if (jd_parse_proc_swaps(text, &s))
                CHECK(s.n <= s.cap);
        for (size_t i = 0; i < s.n; i++)
                CHECK(strlen(s.swaps[i].path) < sizeof(s.swaps[i].path));
        jd_swap_sample_clear(&s);
}

static void pid_stat(const char *text, size_t len)
{
        (void) len;
        char state;
        uint32_t ppid;
        uint64_t ticks, start, btime;
        int64_t prio;
        jd_parse_pid_stat(text, &state, &ppid, &ticks, &prio, &start);
        jd_parse_btime(text, &btime);
        jd_process *procs = NULL;
        size_t cap = 0;
        jd_opt_u64 total;
        CHECK(jd_parse_nvmap_clients(text, &procs, &cap, &total) <= cap);
        free(procs);
}

static void passwd(const char *text, size_t len)
{
        (void) len;
        char user[32];
        for (uint32_t uid = 0; uid < 3; uid++)
                if (jd_passwd_name(text, uid, user, sizeof(user)))
                        CHECK(strlen(user) < sizeof(user) && !strchr(user, ':') && !strchr(user, '\n'));
}

/* Every swap entry the list gives is one has_swap finds, and back. */
static void fstab(const char *text, size_t len)
{
        (void) len;
        size_t n;
        char **specs = jd_fstab_swaps(text, &n);
        for (size_t i = 0; specs && i < n; i++) {
                CHECK(jd_fstab_has_swap(text, specs[i]));
                free(specs[i]);
        }
        free(specs);
}

static void dpkg_status(const char *text, size_t len)
{
        char *copy = g_strndup(text, len);
        jd_dpkg db;
        jd_dpkg_parse(&db, copy);
        for (size_t i = 0; i < db.n; i++)
                CHECK(db.pkgs[i].name && db.pkgs[i].version);
        jd_dpkg_free(&db);
        g_free(copy);
}

static void identity(const char *text, size_t len)
{
        char out[32];
        if (jd_parse_nv_tegra_release(text, out, sizeof(out)))
                CHECK(strlen(out) < sizeof(out));
        jd_pnumber_from_part_number(text, out, sizeof(out));
        jd_pnumber_from_compatible(text, len, out, sizeof(out));
        char key[32];
        jd_thermal_key(text, key, sizeof(key));
        char version[64];
        jd_upstream_version(text, version, sizeof(version));
}

static void version_json(const char *text, size_t len)
{
        char v[64];
        if (jd_parse_cuda_version_json(text, len, v, sizeof(v)))
                CHECK(v[0] && strlen(v) < sizeof(v));
}

static void nvpmodel_conf(const char *text, size_t len)
{
        (void) len;
        jd_nvpmodel_sample s = { 0 };
        jd_parse_nvpmodel_conf(text, &s);
        CHECK(s.n_modes <= s.cap_modes);
        jd_parse_nvpmodel_status(text, &s);
        jd_nvpmodel_sample_clear(&s);
}

static void nvfancontrol(const char *text, size_t len)
{
        (void) len;
        jd_fan_profile *names = NULL;
        size_t cap = 0;
        char def[32], out[32];
        CHECK(jd_parse_nvfancontrol_profiles(text, &names, &cap, def, sizeof(def)) <= cap);
        free(names);
        jd_parse_nvfancontrol_status(text, 1, "FAN_PROFILE", out, sizeof(out));
}

static void net_and_disks(const char *text, size_t len)
{
        (void) len;
        uint64_t a, b;
        char *disks[] = { "mmcblk0", "nvme0n1", NULL };
        jd_parse_diskstats(text, disks, 2, &a, &b);
        jd_parse_net_dev(text, &a, &b);
        jd_parse_uptime(text, &a);
        int64_t i;
        jd_parse_u64(text, &a);
        jd_parse_i64(text, &i);
        jd_parse_u64_any_base(text, &a);
        jd_parse_u64_prefix(text, &a);
}

/* One sysfs value as the readers take it: a number (GPU load, devfreq
 * frequencies, hwmon inputs), a hex mask, a "1500 ma" limit, or a name
 * (hwmon and iio rail labels, clock names, thermal zone types). */
static void sysfs_value(const char *text, size_t len)
{
        (void) len;
        uint64_t u;
        int64_t i;
        if (jd_parse_u64(text, &u))
                CHECK(jd_parse_u64_prefix(text, &u) && jd_parse_i64(text, &i) == (u <= INT64_MAX));
        jd_parse_u64_any_base(text, &u);
        char out[32];
        jd_thermal_key(text, out, sizeof(out));
        CHECK(strlen(out) < sizeof(out));
        if (jd_engine_group(text, out, sizeof(out)))
                CHECK(strlen(out) < sizeof(out));
}

/* Each line of TEXT, as a NUL-terminated name of at most 255 bytes (as
 * sysfs names are), to FN. */
static void each_name(const char *text, void (*fn)(const char *name))
{
        JD_FOR_EACH_LINE(l, text) {
                char name[256];
                size_t n = (size_t) (jd_line_end(l) - l);
                if (n >= sizeof(name))
                        continue;
                memcpy(name, l, n);
                name[n] = '\0';
                fn(name);
        }
}

static bool only(const char *s, const char *allowed)
{
        return strspn(s, allowed) == strlen(s);
}

#define KEY_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_"
#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

/* Power discovery: powercap directory names and INA3221 labels. */
static void power_name(const char *name)
{
        unsigned pkg = 0, sub = 0;
        int kind = jd_parse_rapl_zone(name, &pkg, &sub);
        CHECK(kind >= 0 && kind <= 2);
        /* Digits and colons only after the prefix: no sign, blank or 0x slipped in. */
        if (kind)
                CHECK(only(name + strlen("intel-rapl:"), "0123456789:"));
        char rail[32];
        jd_rapl_rail_name(rail, sizeof(rail), kind == 2 ? "RAPL_PACKAGE_0" : NULL, name);
        CHECK(strlen(rail) < sizeof(rail) && only(rail, NAME_CHARS));
        jd_power_label_is_rail(name);
}

static void power_names(const char *text, size_t len)
{
        (void) len;
        each_name(text, power_name);
}

/* Engines scan: clock directory names into groups. */
static void engine_clock(const char *name)
{
        char group[16];
        if (jd_engine_group(name, group, sizeof(group))) {
                CHECK(group[0] && strlen(group) < sizeof(group) && only(group, NAME_CHARS));
                char again[16];
                CHECK(jd_engine_group(name, again, sizeof(again)) && strcmp(group, again) == 0);
        }
}

static void engine_clocks(const char *text, size_t len)
{
        (void) len;
        each_name(text, engine_clock);
}

/* Thermal zones and hwmon channels: types into keys. */
static void thermal_type(const char *name)
{
        char key[48];
        jd_thermal_key(name, key, sizeof(key));
        CHECK(strlen(key) < sizeof(key) && only(key, KEY_CHARS));
        jd_thermal_sanitize_key(name, key, sizeof(key));
        CHECK(strlen(key) < sizeof(key) && only(key, KEY_CHARS));
}

static void thermal_types(const char *text, size_t len)
{
        (void) len;
        each_name(text, thermal_type);
}

/* PCI addresses: sysfs's and NVML's busId; a parsed one prints back the same. */
static void pci_name(const char *name)
{
        unsigned dom, bus, dev, fn;
        for (int longer = 0; longer < 2; longer++) {
                if (!jd_parse_pci_address(name, longer, &dom, &bus, &dev, &fn))
                        continue;
                char again[32];
                snprintf(again, sizeof(again), longer ? "%08x:%02x:%02x.%u" : "%04x:%02x:%02x.%u", dom, bus, dev, fn);
                CHECK(g_ascii_strcasecmp(again, name) == 0);
        }
}

static void pci_bus_ids(const char *text, size_t len)
{
        (void) len;
        each_name(text, pci_name);
}

/* hwmon pairing: one device a line, "NAME FILE..." (the files of its
 * directory). Each PWM part is exactly one fan's PWM; each part with a
 * tachometer is at most one fan's, its own when it has a PWM too; a
 * tachometer-only part is a fan's exactly once, joined or alone; a part
 * with neither is no fan's; the files chosen are the line's, in order of
 * preference. */
typedef struct {
        jd_span files[64];
        size_t n;
} part_files;

static bool part_has(const char *file, void *data)
{
        const part_files *f = data;
        for (size_t i = 0; i < f->n; i++)
                if (jd_span_eq(f->files[i], file))
                        return true;
        return false;
}

static void hwmon_pairing(const char *text, size_t len)
{
        (void) len;
        enum { MAX_PARTS = 64 };
        static jd_fan_part parts[MAX_PARTS];
        size_t n = 0;
        JD_FOR_EACH_LINE(l, text) {
                if (n == MAX_PARTS)
                        break;
                jd_span f[65];
                size_t nf = jd_line_fields(l, f, 65);
                if (nf == 0)
                        continue;
                jd_fan_part *p = &parts[n++];
                snprintf(p->dir, sizeof(p->dir), "/sys/class/hwmon/hwmon%zu", n - 1);
                if (!jd_span_copy(f[0], p->name, sizeof(p->name)))
                        p->name[0] = '\0';
                part_files files = { .n = nf - 1 };
                memcpy(files.files, f + 1, (nf - 1) * sizeof(jd_span));
                jd_fan_part_choose(p, part_has, &files);
                CHECK(!p->pwm_file[0] || part_has(p->pwm_file, &files));
                CHECK(!p->rpm_file[0] || part_has(p->rpm_file, &files));
                CHECK(!part_has("pwm1", &files) || strcmp(p->pwm_file, "pwm1") == 0);
                CHECK(!part_has("rpm", &files) || strcmp(p->rpm_file, "rpm") == 0);
        }
        jd_fan_pair pairs[MAX_PARTS], again[MAX_PARTS];
        size_t k = jd_fan_pair_parts(parts, n, pairs);
        CHECK(k <= n && jd_fan_pair_parts(parts, n, again) == k && memcmp(pairs, again, k * sizeof(*pairs)) == 0);
        unsigned as_pwm[MAX_PARTS] = { 0 }, as_tach[MAX_PARTS] = { 0 };
        bool pwm_fans_done = false;
        for (size_t i = 0; i < k; i++) {
                long pwm = pairs[i].pwm, tach = pairs[i].tach;
                CHECK(pwm >= -1 && pwm < (long) n && tach >= -1 && tach < (long) n && (pwm >= 0 || tach >= 0));
                CHECK(!(pwm >= 0 && pwm_fans_done)); /* PWM fans first */
                pwm_fans_done |= pwm < 0;
                if (pwm >= 0) {
                        CHECK(parts[pwm].pwm_file[0]);
                        as_pwm[pwm]++;
                        CHECK(!parts[pwm].rpm_file[0] || tach == pwm);
                } else {
                        CHECK(!parts[tach].pwm_file[0]);
                }
                if (tach >= 0) {
                        CHECK(parts[tach].rpm_file[0]);
                        as_tach[tach]++;
                }
        }
        for (size_t i = 0; i < n; i++) {
                const jd_fan_part *p = &parts[i];
                CHECK(as_pwm[i] == (p->pwm_file[0] ? 1u : 0u));
                CHECK(as_tach[i] <= 1);
                if (p->rpm_file[0] && !p->pwm_file[0])
                        CHECK(as_tach[i] == 1);
                if (!p->rpm_file[0])
                        CHECK(as_tach[i] == 0);
        }
}

/* Where two texts differ: after their common prefix and before their
 * common suffix; both middles must be made of ALLOWED only. */
static void check_only_token_changed(const char *before, const char *after, const char *allowed)
{
        size_t lb = strlen(before), la = strlen(after), p = 0, q = 0;
        while (p < lb && p < la && before[p] == after[p])
                p++;
        while (q < lb - p && q < la - p && before[lb - 1 - q] == after[la - 1 - q])
                q++;
        for (size_t i = p; i < lb - q; i++)
                CHECK(strchr(allowed, before[i]));
        for (size_t i = p; i < la - q; i++)
                CHECK(strchr(allowed, after[i]));
}

/* An edit the editor makes is the one the reader then sees, and only the
 * edited token changes; an edit it refuses is of a file whose default
 * the reader does not know either. */
static void edit_nvpmodel(const char *text, size_t len)
{
        (void) len;
        jd_nvpmodel_sample before = { 0 }, after = { 0 };
        jd_parse_nvpmodel_conf(text, &before);
        const char *error = NULL;
        char *edited = jd_edit_nvpmodel_default(text, 7, &error);
        jd_nvpmodel_sample_clear(&before);
        if (!edited) {
                CHECK(error && !before.default_id.present);
                return;
        }
        CHECK(before.default_id.present);
        jd_parse_nvpmodel_conf(edited, &after);
        jd_nvpmodel_sample_clear(&after);
        CHECK(after.default_id.present && after.default_id.value == 7);
        check_only_token_changed(text, edited, "0123456789");
        g_free(edited);
}

static void edit_nvfancontrol(const char *text, size_t len)
{
        (void) len;
        jd_fan_profile *names = NULL;
        size_t cap = 0;
        char def[32];
        const char *error = NULL;
        char *edited = jd_edit_nvfancontrol_profile(text, "quiet", &error);
        if (!edited)
                return;
        jd_parse_nvfancontrol_profiles(edited, &names, &cap, def, sizeof(def));
        free(names);
        CHECK(strcmp(def, "quiet") == 0);
        g_free(edited);
}

static void edit_fstab(const char *text, size_t len)
{
        (void) len;
        static const char path[] = "/var/lib/jetsond/swap/swapfile";
        const char *error = NULL;
        char *added = jd_fstab_add_swap(text, path, &error);
        if (added) {
                CHECK(!jd_fstab_has_swap(text, path) && jd_fstab_has_swap(added, path));
                CHECK(strncmp(added, text, strlen(text)) == 0); /* appended: the rest as it was */
                char *removed = jd_fstab_remove_swap(added, path, &error);
                CHECK(removed && !jd_fstab_has_swap(removed, path));
                g_free(removed);
                g_free(added);
        } else {
                CHECK(jd_fstab_has_swap(text, path));
        }
}

const fuzz_target fuzz_targets[] = {
        { "proc-stat", proc_stat },         { "meminfo", meminfo },
        { "proc-swaps", proc_swaps },       { "pid-stat", pid_stat },
        { "passwd", passwd },               { "fstab", fstab },
        { "dpkg-status", dpkg_status },     { "identity", identity },
        { "version-json", version_json },   { "nvpmodel-conf", nvpmodel_conf },
        { "nvfancontrol", nvfancontrol },   { "net-and-disks", net_and_disks },
        { "edit-nvpmodel", edit_nvpmodel }, { "edit-nvfancontrol", edit_nvfancontrol },
        { "edit-fstab", edit_fstab },       { "sysfs-value", sysfs_value },
        { "power-names", power_names },     { "engine-clocks", engine_clocks },
        { "thermal-types", thermal_types }, { "pci-bus-id", pci_bus_ids },
        { "hwmon-pairing", hwmon_pairing },
};
const size_t n_fuzz_targets = sizeof(fuzz_targets) / sizeof(fuzz_targets[0]);

const fuzz_target *fuzz_target_find(const char *name)
{
        for (size_t i = 0; i < n_fuzz_targets; i++)
                if (strcmp(fuzz_targets[i].name, name) == 0)
                        return &fuzz_targets[i];
        return NULL;
}
