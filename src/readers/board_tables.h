/* Lookup tables from the fact sheet: L4T -> JetPack, P-number -> module,
 * SoC -> CUDA architecture, CPU implementer/part -> core name. Each
 * returns NULL when the key is unknown, so callers can say "unknown"
 * instead of guessing. */
#pragma once

const char *jd_jetpack_for_l4t(const char *l4t);
const char *jd_module_for_pnumber(const char *pnumber);
const char *jd_cuda_arch_for_soc(const char *soc);
const char *jd_cpu_core_name(unsigned implementer, unsigned part);
