#include "board.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>

#include "board_tables.h"
#include "dpkg.h"
#include "libraries.h"
#include "parse.h"
#include "probe_log.h"
#include "sysfile.h"

#define DT "/sys/firmware/devicetree/base"
#define EEPROM_SIZE 256
#define EEPROM_PART_OFFSET 20
#define EEPROM_PART_LEN 30

/* Device-tree strings are NUL-terminated; lists are NUL-separated. */
static char *read_dt(const jd_sysroot *sr, const char *prop, size_t *len)
{
        char path[256];
        snprintf(path, sizeof(path), DT "/%s", prop);
        return jd_sysroot_read_file(sr, path, 4096, len);
}

static void read_dt_string(const jd_sysroot *sr, const char *prop, char *out, size_t size)
{
        char *s = read_dt(sr, prop, NULL);
        out[0] = '\0';
        if (s)
                jd_strlcpy(out, jd_rstrip(s), size);
        free(s);
}

bool jd_parse_nv_tegra_release(const char *text, char *l4t, size_t size)
{
        unsigned major;
        char rev[32];
        /* "# R36 (release), REVISION: 4.3, GCID: ..." */
        if (sscanf(text, "# R%u (release), REVISION: %31[0-9.]", &major, rev) != 2)
                return false;
        snprintf(l4t, size, "%u.%s", major, rev);
        return true;
}

/* "699-13668-0000-300 B.0": characters 5-8 and 10-13 -> "p3668-0000". */
bool jd_pnumber_from_part_number(const char *part, char *out, size_t size)
{
        if (strlen(part) < 14 || strncmp(part, "699-", 4) != 0 || part[9] != '-')
                return false;
        for (int i = 5; i <= 13; i++)
                if (i != 9 && !isdigit((unsigned char) part[i]))
                        return false;
        snprintf(out, size, "p%.4s-%.4s", part + 5, part + 10);
        return true;
}

static bool looks_like_pnumber(const char *s)
{
        if (s[0] != 'p')
                return false;
        for (int i = 1; i <= 9; i++) {
                if (i == 5 ? s[i] != '-' : !isdigit((unsigned char) s[i]))
                        return false;
        }
        return true;
}

/* The compatible list names carrier and module ("nvidia,p3737-0000+p3701-0005"):
 * the module is the part after '+', or an entry that is a bare P-number.
 * Needs no root, unlike the EEPROM. */
bool jd_pnumber_from_compatible(const char *compat, size_t len, char *out, size_t size)
{
        for (const char *e = compat; e < compat + len; e += strlen(e) + 1) {
                const char *plus = strrchr(e, '+');
                const char *comma = strchr(e, ',');
                const char *cand = plus ? plus + 1 : comma ? comma + 1 : e;
                if (strlen(cand) >= 10 && looks_like_pnumber(cand)) {
                        snprintf(out, size, "%.10s", cand);
                        return true;
                }
        }
        return false;
}

static bool part_number_printable(const char *p)
{
        if (!*p)
                return false;
        for (; *p; p++)
                if (!isprint((unsigned char) *p))
                        return false;
        return true;
}

/* The module EEPROM sits at 0x50 on bus 0, 1, 2 or 7; readable through the
 * at24 driver's sysfs file (root only on real boards). */
static void read_eeprom(const jd_sysroot *sr, jd_board *b)
{
        static const int buses[] = { 0, 1, 2, 7 };
        for (size_t i = 0; i < sizeof(buses) / sizeof(buses[0]); i++) {
                char path[64];
                size_t len = 0;
                snprintf(path, sizeof(path), "/sys/bus/i2c/devices/%d-0050/eeprom", buses[i]);
                unsigned char *rom = (unsigned char *) jd_sysroot_read_file(sr, path, EEPROM_SIZE, &len);
                if (!rom)
                        continue;
                char part[EEPROM_PART_LEN + 1];
                if (len >= EEPROM_PART_OFFSET + EEPROM_PART_LEN) {
                        memcpy(part, rom + EEPROM_PART_OFFSET, EEPROM_PART_LEN);
                        part[EEPROM_PART_LEN] = '\0';
                        jd_rstrip(part);
                        /* An erased EEPROM reads 0xFF: not a part number. */
                        if (part_number_printable(part))
                                jd_strlcpy(b->part_number, part, sizeof(b->part_number));
                }
                if (len >= 89 && !b->serial[0]) {
                        char serial[16];
                        memcpy(serial, rom + 74, 15);
                        serial[15] = '\0';
                        if (part_number_printable(serial))
                                jd_strlcpy(b->serial, serial, sizeof(b->serial));
                }
                free(rom);
                if (b->part_number[0])
                        return;
        }
}

static void read_codename(const jd_sysroot *sr, jd_board *b)
{
        char dts[512];
        read_dt_string(sr, "nvidia,dtsfilename", dts, sizeof(dts));
        char *k = strstr(dts, "/kernel-dts/");
        if (!k)
                return;
        *k = '\0';
        char *slash = strrchr(dts, '/');
        jd_strlcpy(b->codename, slash ? slash + 1 : dts, sizeof(b->codename));
        b->codename[0] = (char) toupper((unsigned char) b->codename[0]);
}

/* What firmware writers leave in a DMI field they did not fill in: no
 * name, so not shown as one. */
static bool dmi_placeholder(const char *s)
{
        static const char *const fillers[] = {
                "", "To Be Filled By O.E.M.", "System manufacturer", "System Product Name", "Default string",
                "Not Applicable", "Not Specified", "O.E.M.", "OEM", "None",
        };
        for (size_t i = 0; i < sizeof(fillers) / sizeof(fillers[0]); i++)
                if (strcasecmp(s, fillers[i]) == 0)
                        return true;
        return false;
}

/* Not a device-tree machine: a PC tells its name through DMI, vendor and
 * product ("LENOVO 20L7S0ET00"), either alone where the other is missing. */
static void read_dmi_model(const jd_sysroot *sr, jd_board *b)
{
        char vendor[60], product[60];
        bool v = jd_read_str(sr, vendor, sizeof(vendor), "/sys/class/dmi/id/sys_vendor") && !dmi_placeholder(vendor);
        bool p = jd_read_str(sr, product, sizeof(product), "/sys/class/dmi/id/product_name") &&
                 !dmi_placeholder(product);
        if (v || p)
                snprintf(b->model, sizeof(b->model), "%s%s%s", v ? vendor : "", v && p ? " " : "", p ? product : "");
}

static void read_identity(const jd_sysroot *sr, jd_board *b)
{
        read_dt_string(sr, "model", b->model, sizeof(b->model));
        read_dt_string(sr, "serial-number", b->serial, sizeof(b->serial));

        size_t clen = 0;
        char *compat = read_dt(sr, "compatible", &clen);
        if (compat && clen > 0) {
                /* SoC: after the last comma of the last entry. */
                const char *last = compat;
                for (const char *e = compat; e < compat + clen && *e; e += strlen(e) + 1)
                        last = e;
                const char *comma = strrchr(last, ',');
                jd_strlcpy(b->soc, comma ? comma + 1 : last, sizeof(b->soc));
        }
        const char *arch = b->soc[0] ? jd_cuda_arch_for_soc(b->soc) : NULL;
        b->is_jetson = arch != NULL;
        if (arch)
                jd_strlcpy(b->cuda_arch, arch, sizeof(b->cuda_arch));

        char ids[48];
        read_dt_string(sr, "nvidia,boardids", ids, sizeof(ids));
        if (ids[0]) {
                snprintf(b->board_ids, sizeof(b->board_ids), "p%s", ids);
                for (char *c = b->board_ids; *c; c++)
                        if (*c == ':')
                                *c = '-';
        }
        read_codename(sr, b);

        read_eeprom(sr, b);
        if (!jd_pnumber_from_part_number(b->part_number, b->p_number, sizeof(b->p_number)) &&
            !(compat && jd_pnumber_from_compatible(compat, clen, b->p_number, sizeof(b->p_number))))
                jd_strlcpy(b->p_number, b->board_ids, sizeof(b->p_number));
        free(compat);
        const char *module = b->p_number[0] ? jd_module_for_pnumber(b->p_number) : NULL;
        if (module)
                jd_strlcpy(b->module, module, sizeof(b->module));

        if (!b->model[0])
                read_dmi_model(sr, b);
}

static void read_release(const jd_sysroot *sr, const jd_dpkg *db, jd_board *b)
{
        char *rel = jd_sysroot_read_whole(sr, "/etc/nv_tegra_release", 4096, NULL);
        if (rel && jd_parse_nv_tegra_release(rel, b->l4t, sizeof(b->l4t))) {
                b->l4t_source = "/etc/nv_tegra_release";
        } else {
                const char *core = jd_dpkg_version(db, "nvidia-l4t-core");
                if (core) {
                        jd_strlcpy(b->l4t, core, sizeof(b->l4t));
                        b->l4t_source = "dpkg: nvidia-l4t-core";
                }
        }
        free(rel);
        if (!b->l4t[0])
                return;
        const char *jp = jd_jetpack_for_l4t(b->l4t);
        b->jetpack_source = jp ? "table" : NULL;
        if (!jp && (jp = jd_dpkg_version(db, "nvidia-jetpack")))
                b->jetpack_source = "dpkg: nvidia-jetpack";
        /* Still nothing: a BSP newer than our table. Report the L4T and
         * leave JetPack empty ("unknown") rather than guess. */
        if (jp)
                jd_strlcpy(b->jetpack, jp, sizeof(b->jetpack));
}

static void read_os_release(const jd_sysroot *sr, jd_board *b)
{
        char *os = jd_sysroot_read_whole(sr, "/etc/os-release", 16384, NULL);
        if (!os)
                os = jd_sysroot_read_whole(sr, "/usr/lib/os-release", 16384, NULL);
        if (!os)
                return;
        char *save = NULL;
        for (char *l = strtok_r(os, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                if (strncmp(l, "PRETTY_NAME=", 12) != 0)
                        continue;
                char *v = l + 12;
                size_t n = strlen(v);
                if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
                        v[n - 1] = '\0';
                        v++;
                }
                jd_strlcpy(b->distribution, v, sizeof(b->distribution));
                break;
        }
        free(os);
}

static void read_cpu_model(const jd_sysroot *sr, jd_board *b)
{
        char *info = jd_sysroot_read_file(sr, "/proc/cpuinfo", 1 << 20, NULL);
        if (!info)
                return;
        unsigned implementer = 0, part = 0;
        bool have_impl = false, have_part = false;
        char *save = NULL;
        for (char *l = strtok_r(info, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
                char *colon = strchr(l, ':');
                if (!colon)
                        continue;
                const char *val = colon + 1 + strspn(colon + 1, " \t");
                if (strncmp(l, "model name", 10) == 0 && !b->cpu_model[0])
                        jd_strlcpy(b->cpu_model, val, sizeof(b->cpu_model));
                else if (strncmp(l, "CPU implementer", 15) == 0 && !have_impl)
                        have_impl = sscanf(val, "%x", &implementer) == 1;
                else if (strncmp(l, "CPU part", 8) == 0 && !have_part)
                        have_part = sscanf(val, "%x", &part) == 1;
        }
        free(info);
        /* JP4 prints a vague "ARMv8 Processor rev 1 (v8l)": the core name is more useful. */
        const char *core = have_impl && have_part ? jd_cpu_core_name(implementer, part) : NULL;
        if (core)
                jd_strlcpy(b->cpu_model, core, sizeof(b->cpu_model));
}

void jd_board_read(jd_board *b, const jd_sysroot *sr)
{
        memset(b, 0, sizeof(*b));
        /* What it finds, misses and is refused is noted for
         * Manager.Diagnose, whichever thread reads it. */
        bool was_tracing;
        const char *before = jd_probe_attribute("board", true, &was_tracing);
        jd_dpkg db;
        jd_dpkg_load(&db, sr);

        read_identity(sr, b);
        read_release(sr, &db, b);
        read_os_release(sr, b);
        read_cpu_model(sr, b);
        jd_read_str(sr, b->kernel_release, sizeof(b->kernel_release), "/proc/sys/kernel/osrelease");
        if (!jd_read_str(sr, b->machine, sizeof(b->machine), "/proc/sys/kernel/arch") &&
            jd_sysroot_is_host(sr)) {
                struct utsname u;
                if (uname(&u) == 0)
                        jd_strlcpy(b->machine, u.machine, sizeof(b->machine));
        }
        /* A machine that names itself nowhere (no device tree, no DMI: a
         * VM, a container without /sys/class/dmi) is still named, by its
         * architecture: "x86_64 PC", never an empty Model. */
        if (!b->model[0])
                snprintf(b->model, sizeof(b->model), "%s%sPC", b->machine, b->machine[0] ? " " : "");
        jd_libraries_read(sr, &db, b);
        jd_dpkg_free(&db);
        jd_probe_attribute(before, was_tracing, NULL);
}

const char *jd_board_library(const jd_board *b, const char *name)
{
        for (size_t i = 0; i < b->n_libraries; i++)
                if (strcmp(b->libraries[i].name, name) == 0)
                        return b->libraries[i].version;
        return NULL;
}
