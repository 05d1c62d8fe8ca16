#include "board_tables.h"

#include <stddef.h>
#include <string.h>

#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

struct pair {
        const char *key;
        const char *value;
};

static const char *lookup(const struct pair *t, size_t n, const char *key)
{
        for (size_t i = 0; i < n; i++)
                if (strcmp(t[i].key, key) == 0)
                        return t[i].value;
        return NULL;
}

/* Keys are exact strings: both "32.5" and "32.5.0" occur in the field. */
static const struct pair jetpack_by_l4t[] = {
        { "39.2.0", "7.2 GA" }, { "39.0.0", "7.2 EA" }, { "38.4.0", "7.1" },
        { "38.2.2", "7.0" }, { "38.2.1", "7.0" }, { "38.2.0", "7.0" },
        { "36.5.0", "6.2.2" }, { "36.4.7", "6.2.1" }, { "36.4.4", "6.2.1" },
        { "36.4.3", "6.2" }, { "36.4.2", "6.1 (rev1)" }, { "36.4.0", "6.1" },
        { "36.3.0", "6.0" }, { "36.2.0", "6.0 DP" }, { "36.0.0", "6.0 EA" },
        { "35.6.4", "5.1.6" }, { "35.6.3", "5.1.5" }, { "35.6.2", "5.1.5" },
        { "35.6.1", "5.1.5" }, { "35.6.0", "5.1.4" }, { "35.5.0", "5.1.3" },
        { "35.4.1", "5.1.2" }, { "35.3.1", "5.1.1" }, { "35.3.0", "5.1.1 PRE" },
        { "35.2.1", "5.1" }, { "35.1.0", "5.0.2 GA" }, { "34.1.1", "5.0.1 DP" },
        { "34.1.0", "5.0 DP" }, { "34.0.1", "5.0 PRE-DP" }, { "32.7.6", "4.6.6" },
        { "32.7.5", "4.6.5" }, { "32.7.4", "4.6.4" }, { "32.7.3", "4.6.3" },
        { "32.7.2", "4.6.2" }, { "32.7.1", "4.6.1" }, { "32.6.1", "4.6" },
        { "32.5.2", "4.5.1" }, { "32.5.1", "4.5.1" }, { "32.5.0", "4.5" },
        { "32.5", "4.5" }, { "32.4.4", "4.4.1" }, { "32.4.3", "4.4" },
        { "32.4.2", "4.4 DP" }, { "32.3.1", "4.3" }, { "32.2.3", "4.2.3" },
        { "32.2.1", "4.2.2" }, { "32.2.0", "4.2.1" }, { "32.2", "4.2.1" },
        { "32.1.0", "4.2" }, { "32.1", "4.2" }, { "31.1.0", "4.1.1" },
        { "31.1", "4.1.1" }, { "31.0.2", "4.1" }, { "31.0.1", "4.0" },
        { "28.4.0", "3.3.3" }, { "28.2.1", "3.3 | 3.2.1" }, { "28.2.0", "3.2" },
        { "28.2", "3.2" }, { "28.1.0", "3.1" }, { "28.1", "3.1" },
        { "27.1.0", "3.0" }, { "27.1", "3.0" }, { "24.2.1", "3.0 | 2.3.1" },
        { "24.2.0", "2.3" }, { "24.2", "2.3" }, { "24.1.0", "2.2.1 | 2.2" },
        { "24.1", "2.2.1 | 2.2" }, { "23.2.0", "2.1" }, { "23.2", "2.1" },
        { "23.1.0", "2.0" }, { "23.1", "2.0" }, { "21.5.0", "2.3.1 | 2.3" },
        { "21.5", "2.3.1 | 2.3" }, { "21.4.0", "2.2 | 2.1 | 2.0 | 1.2 DP" },
        { "21.4", "2.2 | 2.1 | 2.0 | 1.2 DP" }, { "21.3.0", "1.1 DP" },
        { "21.3", "1.1 DP" }, { "21.2.0", "1.0 DP" }, { "21.2", "1.0 DP" },
};

static const struct pair module_by_pnumber[] = {
        { "p3834-0008", "NVIDIA Jetson AGX Thor (Developer kit)" },
        { "p3767-0005", "NVIDIA Jetson Orin Nano (Developer kit)" },
        { "p3767-0004", "NVIDIA Jetson Orin Nano (4GB ram)" },
        { "p3767-0003", "NVIDIA Jetson Orin Nano (8GB ram)" },
        { "p3767-0001", "NVIDIA Jetson Orin NX (8GB ram)" },
        { "p3767-0000", "NVIDIA Jetson Orin NX (16GB ram)" },
        { "p3701-0005", "NVIDIA Jetson AGX Orin (64GB ram)" },
        { "p3701-0004", "NVIDIA Jetson AGX Orin (32GB ram)" },
        { "p3701-0002", "NVIDIA Jetson IGX Orin (Developer kit)" },
        { "p3701-0000", "NVIDIA Jetson AGX Orin" },
        { "p3668-0003", "NVIDIA Jetson Xavier NX (16GB ram)" },
        { "p3668-0001", "NVIDIA Jetson Xavier NX" },
        { "p3668-0000", "NVIDIA Jetson Xavier NX (Developer kit)" },
        { "p2888-0008", "NVIDIA Jetson AGX Xavier Industrial (32 GB ram)" },
        { "p2888-0006", "NVIDIA Jetson AGX Xavier (8 GB ram)" },
        { "p2888-0005", "NVIDIA Jetson AGX Xavier (64 GB ram)" },
        { "p2888-0004", "NVIDIA Jetson AGX Xavier (32 GB ram)" },
        { "p2888-0003", "NVIDIA Jetson AGX Xavier (32 GB ram)" },
        { "p2888-0001", "NVIDIA Jetson AGX Xavier (16 GB ram)" },
        { "p3448-0003", "NVIDIA Jetson Nano (2 GB ram)" },
        { "p3448-0002", "NVIDIA Jetson Nano module (16Gb eMMC)" },
        { "p3448-0000", "NVIDIA Jetson Nano (4 GB ram)" },
        { "p3636-0001", "NVIDIA Jetson TX2 NX" },
        { "p3509-0000", "NVIDIA Jetson TX2 NX" },
        { "p3489-0888", "NVIDIA Jetson TX2 (4 GB ram)" },
        { "p3489-0000", "NVIDIA Jetson TX2i" },
        { "p3310-1000", "NVIDIA Jetson TX2" },
        { "p2180-1000", "NVIDIA Jetson TX1" },
        { "r375-0001", "NVIDIA Jetson TK1" },
        { "p3904-0000", "NVIDIA Clara AGX" },
        { "p2595-0000-A0", "Nintendo Switch" },
};

/* Substring match, most specific first. */
static const struct pair arch_by_soc[] = {
        { "tegra264", "11.0" }, { "tegra26x", "11.0" }, { "tegra234", "8.7" },
        { "tegra23x", "8.7" }, { "tegra194", "7.2" }, { "tegra186", "6.2" },
        { "tegra210", "5.3" }, { "tegra124", "3.2" },
};

const char *jd_jetpack_for_l4t(const char *l4t)
{
        return lookup(jetpack_by_l4t, N_ELEMENTS(jetpack_by_l4t), l4t);
}

const char *jd_module_for_pnumber(const char *pnumber)
{
        return lookup(module_by_pnumber, N_ELEMENTS(module_by_pnumber), pnumber);
}

const char *jd_cuda_arch_for_soc(const char *soc)
{
        for (size_t i = 0; i < N_ELEMENTS(arch_by_soc); i++)
                if (strstr(soc, arch_by_soc[i].key))
                        return arch_by_soc[i].value;
        return NULL;
}

const char *jd_cpu_core_name(unsigned implementer, unsigned part)
{
        static const struct {
                unsigned implementer, part;
                const char *name;
        } cores[] = {
                { 0x41, 0xd07, "ARM Cortex-A57" },
                { 0x4e, 0x004, "NVIDIA Carmel" },
                { 0x41, 0xd42, "ARM Cortex-A78AE" },
                { 0x41, 0xd81, "ARM Cortex-A720" },
                { 0x41, 0xd83, "ARM Neoverse V3AE" },
        };
        for (size_t i = 0; i < N_ELEMENTS(cores); i++)
                if (cores[i].implementer == implementer && cores[i].part == part)
                        return cores[i].name;
        return NULL;
}
