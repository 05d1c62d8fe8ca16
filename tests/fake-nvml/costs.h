/* What the fake NVML's calls cost and how many were made (README.md:
 * "costs", "costs_profile", FAKE_NVML_CALLS): a driver's call takes time
 * (an H200's energy counter 4 ms of CPU, its PCIe rate 20 ms of waiting),
 * and a test counts the calls of each entry point. */
#pragma once

#include <json-glib/json-glib.h>
#include <time.h>

typedef struct {
        double cpu_us, wall_us;
} fake_cost;

/* CONFIG (the file at CONFIG_PATH, just read; NULL: none) names its
 * costs_profile or not: loads it, once per name. Under the fake's lock. */
void fake_load_profile(JsonParser *config, const char *config_path);
/* FN's cost: CONFIG's "costs" entry, else the profile's; 0 without one.
 * Under the fake's lock. */
fake_cost fake_cost_of(JsonParser *config, const char *fn);
/* Counts a call of FN in the FAKE_NVML_CALLS file. Under the fake's lock. */
void fake_count_call(const char *fn);
/* Spends COST: its CPU time spinning on this thread's clock, then its
 * wall time asleep. Without the lock. */
void fake_spend(fake_cost cost);
double fake_now_s(clockid_t clock);
