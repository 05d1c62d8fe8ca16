/* What the fake NVML's calls cost, and how many were made (costs.h). */
#include "costs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static JsonParser *profile;           /* the costs_profile file; NULL: none */
static char *profile_path;

void fake_load_profile(JsonParser *config, const char *config_path)
{
        JsonNode *root = config ? json_parser_get_root(config) : NULL;
        JsonObject *o = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
        const char *name = o && json_object_has_member(o, "costs_profile")
                                   ? json_object_get_string_member(o, "costs_profile") : NULL;
        if (!name || !config_path) {
                g_clear_object(&profile);
                g_clear_pointer(&profile_path, g_free);
                return;
        }
        /* Relative to the config's folder. */
        g_autofree char *dir = g_path_get_dirname(config_path);
        g_autofree char *path = g_path_is_absolute(name) ? g_strdup(name) : g_build_filename(dir, name, NULL);
        if (profile_path && strcmp(profile_path, path) == 0)
                return;
        g_clear_object(&profile);
        g_free(profile_path);
        profile_path = g_steal_pointer(&path);
        profile = json_parser_new();
        if (!json_parser_load_from_file(profile, profile_path, NULL))
                g_clear_object(&profile);
}

/* FN's entry in the "costs" object of FROM's root, or NULL. */
static JsonObject *cost_entry(JsonParser *from, const char *fn)
{
        JsonNode *root = from ? json_parser_get_root(from) : NULL;
        if (!root || !JSON_NODE_HOLDS_OBJECT(root))
                return NULL;
        JsonNode *costs = json_object_get_member(json_node_get_object(root), "costs");
        if (!costs || !JSON_NODE_HOLDS_OBJECT(costs))
                return NULL;
        JsonNode *e = json_object_get_member(json_node_get_object(costs), fn);
        return e && JSON_NODE_HOLDS_OBJECT(e) ? json_node_get_object(e) : NULL;
}

static double member(JsonObject *e, const char *name)
{
        return e && json_object_has_member(e, name) ? json_object_get_double_member(e, name) : 0;
}

fake_cost fake_cost_of(JsonParser *config, const char *fn)
{
        JsonObject *e = cost_entry(config, fn);
        if (!e)
                e = cost_entry(profile, fn);
        return (fake_cost) { member(e, "cpu_us"), member(e, "wall_us") };
}

/* The FAKE_NVML_CALLS table: CALL_SLOTS slots, each a NUL-padded name
 * and a count (uint64, the machine's order), in the order of first use,
 * shared with whoever reads the file while the library runs. */
#define CALL_SLOTS 64
typedef struct {
        char name[56];
        uint64_t count;
} call_slot;
static call_slot *calls;              /* mapped; NULL: not counting */

static void map_calls(void)
{
        const char *path = getenv("FAKE_NVML_CALLS");
        if (calls || !path)
                return;
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
                return;
        size_t size = CALL_SLOTS * sizeof(call_slot);
        if (ftruncate(fd, (off_t) size) == 0) {
                void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
                calls = m == MAP_FAILED ? NULL : m;
        }
        close(fd);
}

void fake_count_call(const char *fn)
{
        map_calls();
        for (size_t i = 0; calls && i < CALL_SLOTS; i++) {
                if (!calls[i].name[0])
                        snprintf(calls[i].name, sizeof(calls[i].name), "%s", fn);
                if (strcmp(calls[i].name, fn) == 0) {
                        __atomic_fetch_add(&calls[i].count, 1, __ATOMIC_RELAXED);
                        return;
                }
        }
}

double fake_now_s(clockid_t clock)
{
        struct timespec ts;
        clock_gettime(clock, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

void fake_spend(fake_cost cost)
{
        /* Without the lock: GPUs read from several threads pay in
         * parallel, as with a driver. */
        if (cost.cpu_us > 0) {
                double until = fake_now_s(CLOCK_THREAD_CPUTIME_ID) + cost.cpu_us / 1e6;
                while (fake_now_s(CLOCK_THREAD_CPUTIME_ID) < until)
                        ;
        }
        if (cost.wall_us > 0) {
                struct timespec ts = { .tv_sec = (time_t) (cost.wall_us / 1e6),
                                       .tv_nsec = (long) ((long long) cost.wall_us % 1000000) * 1000 };
                while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
                        ;
        }
}
