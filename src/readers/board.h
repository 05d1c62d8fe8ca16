/* Board identity: what the machine is and what software it runs. Read once
 * at start-up; every field is a string, empty when unknown. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "sysroot.h"

/* A real bound, not a cap: one slot per library jetsond knows
 * (libraries.c's table, checked at compile time), each found once. */
#define JD_MAX_LIBRARIES 8

typedef struct {
        char name[24];     /* "cuda", "cudnn", "tensorrt", "vpi", "opencv", "opencv_cuda", "vulkan" */
        char version[64];
} jd_library;

typedef struct {
        bool is_jetson;             /* an NVIDIA Tegra SoC was identified */
        char model[128];            /* device-tree model, else DMI vendor + product, else "x86_64 PC" */
        char module[96];            /* "NVIDIA Jetson AGX Orin (64GB ram)" */
        char part_number[32];       /* "699-13701-0005-500 M.0" from the module EEPROM */
        char p_number[32];          /* "p3701-0005" */
        char board_ids[64];         /* "p3448" from nvidia,boardids (old boards) */
        char soc[32];               /* "tegra234" */
        char cuda_arch[8];          /* "8.7" */
        char codename[64];          /* "Porg" from nvidia,dtsfilename */
        char serial[64];            /* device tree, else EEPROM: never a D-Bus property */
        char l4t[32];               /* "36.4.3" */
        char jetpack[32];           /* "6.2"; empty when the L4T is not in the table */
        /* Where the two came from (for Manager.Diagnose): "/etc/nv_tegra_release"
         * or "dpkg: nvidia-l4t-core"; "table" (jetsond's L4T -> JetPack
         * table) or "dpkg: nvidia-jetpack"; NULL when unknown. */
        const char *l4t_source;
        const char *jetpack_source;
        char kernel_release[96];
        char distribution[128];     /* os-release PRETTY_NAME */
        char machine[32];           /* "aarch64" */
        char cpu_model[96];         /* "ARM Cortex-A78AE" or /proc/cpuinfo model name */
        jd_library libraries[JD_MAX_LIBRARIES];
        size_t n_libraries;
} jd_board;

void jd_board_read(jd_board *b, const jd_sysroot *sr);

/* Exposed for unit tests. */
bool jd_parse_nv_tegra_release(const char *text, char *l4t, size_t size);
bool jd_pnumber_from_part_number(const char *part, char *out, size_t size);
bool jd_pnumber_from_compatible(const char *compat, size_t len, char *out, size_t size);
const char *jd_board_library(const jd_board *b, const char *name);
