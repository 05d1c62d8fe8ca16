#include "diagnose.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>

#include "probe_log.h"

/* Paths named in a detail: the first few; the JSON has all of them. */
#define DETAIL_PATHS 3

typedef struct {
        const char *name;
        const char *reader;           /* its probe-log reader (probe_log.h), NULL for none */
        const char *const *keys;
        int tier;                     /* JD_TIER_INDEX_*, -1: none */
        bool jetson_only;             /* a part only a Jetson (an NVIDIA SoC) has */
        const char *part;             /* "this board has no ..." */
} family;

#define KEYS(...) (const char *const[]) { __VA_ARGS__, NULL }

/* In the order jetsonctl doctor prints them; the key globs cover every key
 * of Metrics.xml's table (tests/client/test-doctor.py checks it). */
static const family families[] = {
        { "board", "board", KEYS(NULL), -1, false, "identity" },
        { "cpu", "cpu", KEYS("cpu.*"), JD_TIER_INDEX_FAST, false, "CPU" },
        { "gpu", "gpu", KEYS("gpu.*"), JD_TIER_INDEX_FAST, true, "integrated GPU" },
        { "emc", "emc", KEYS("emc.*"), JD_TIER_INDEX_FAST, true, "EMC (memory controller) clock or load" },
        { "memory", "memory", KEYS("ram.*", "iram.*"), JD_TIER_INDEX_FAST, false, "memory information" },
        { "swap", "swap", KEYS("swap.*"), JD_TIER_INDEX_FAST, false, "swap information" },
        { "engines", "engines", KEYS("engine.*"), JD_TIER_INDEX_MEDIUM, true, "hardware engine clocks" },
        { "power", "power", KEYS("power.*", "energy.*"), JD_TIER_INDEX_MEDIUM, false,
          "power monitor (INA3221, INA238) or RAPL zone" },
        { "throttle", "throttle", KEYS("throttle.*"), JD_TIER_INDEX_MEDIUM, false,
          "over-current counter or cooling device" },
        { "thermal", "thermal", KEYS("temp.*", "temp_trip.*"), JD_TIER_INDEX_SLOW, false,
          "thermal zone or hwmon temperature" },
        { "fans", "fans", KEYS("fan.*"), JD_TIER_INDEX_SLOW, false, "fan" },
        { "nvpmodel", "nvpmodel", KEYS("nvpmodel.*"), JD_TIER_INDEX_SLOW, true, "nvpmodel power modes" },
        { "jetson_clocks", NULL, KEYS("jetson_clocks.*"), JD_TIER_INDEX_FAST, true, "jetson_clocks" },
        { "processes", "processes", KEYS("process.*"), JD_TIER_INDEX_SLOW, false, "GPU process list" },
        { "dgpu", NULL, KEYS("dgpu.*"), -1, false, "discrete NVIDIA GPU" },
        { "system", "system", KEYS("uptime", "disk.*", "net.*"), JD_TIER_INDEX_SLOW, false,
          "uptime, disk or network counters" },
};

#define N_FAMILIES (sizeof(families) / sizeof(families[0]))
_Static_assert(N_FAMILIES <= JD_DIAG_MAX_FAMILIES, "jd_diag_input.present has a slot per family");

enum { F_BOARD, F_CPU, F_GPU, F_EMC, F_MEMORY, F_SWAP, F_ENGINES, F_POWER, F_THROTTLE, F_THERMAL, F_FANS,
       F_NVPMODEL, F_JETSON_CLOCKS, F_PROCESSES, F_DGPU, F_SYSTEM };

size_t jd_diag_family_count(void) { return N_FAMILIES; }
const char *jd_diag_family_name(size_t i) { return i < N_FAMILIES ? families[i].name : NULL; }

/* GLOB is "group.*" (every key of the group) or a key. Run for every
 * key of a sample on the main loop: a prefix compare, no fnmatch. */
static bool glob_matches(const char *glob, const char *key)
{
        size_t n = strlen(glob);
        if (n >= 2 && glob[n - 2] == '.' && glob[n - 1] == '*')
                return strncmp(glob, key, n - 1) == 0;
        return strcmp(glob, key) == 0;
}

int jd_diag_family_of_key(const char *key)
{
        for (size_t i = 0; i < N_FAMILIES; i++)
                for (const char *const *k = families[i].keys; *k; k++)
                        if (glob_matches(*k, key))
                                return (int) i;
        return -1;
}

const char *jd_diag_state_name(jd_diag_state s)
{
        return s == JD_DIAG_FOUND ? "found" : s == JD_DIAG_PARTIAL ? "partial" : "missing";
}

/* NAME's path under SR as the board names it ("/usr/sbin/nvpmodel"),
 * "" when it is not installed. */
static void find_tool(const jd_sysroot *sr, const char *name, char *out, size_t size)
{
        char host[PATH_MAX];
        out[0] = '\0';
        if (jd_sysroot_find_tool(sr, name, host, sizeof(host)) < 0)
                return;
        size_t dir = jd_sysroot_is_host(sr) ? 0 : strlen(jd_sysroot_dir(sr));
        g_strlcpy(out, host + dir, size);
}

void jd_diag_find_tools(const jd_sysroot *sr, jd_diag_input *in)
{
        find_tool(sr, "nvpmodel", in->nvpmodel_tool, sizeof(in->nvpmodel_tool));
        find_tool(sr, "jetson_clocks", in->jetson_clocks_tool, sizeof(in->jetson_clocks_tool));
}

/* ---- records ------------------------------------------------------------ */

static void record_free(gpointer p)
{
        jd_diag_record *r = p;
        g_ptr_array_unref(r->sources);
        g_ptr_array_unref(r->paths);
        g_free(r->detail);
        g_free(r->advice);
        g_free(r);
}

static jd_diag_record *record_new(const family *f, unsigned present)
{
        jd_diag_record *r = g_new0(jd_diag_record, 1);
        r->family = f->name;
        r->keys = f->keys;
        r->present = present;
        r->state = present ? JD_DIAG_FOUND : JD_DIAG_MISSING;
        r->sources = g_ptr_array_new_with_free_func(g_free);
        r->paths = g_ptr_array_new_with_free_func(g_free);
        return r;
}

/* The cause of what is missing: the family is partial when it has keys,
 * missing when it has none. A cause set before wins (the checks run from
 * the most specific). */
static void G_GNUC_PRINTF(4, 5) set_cause(jd_diag_record *r, const char *cause, const char *advice,
                                          const char *fmt, ...)
{
        if (r->cause)
                return;
        r->cause = cause;
        r->state = r->present ? JD_DIAG_PARTIAL : JD_DIAG_MISSING;
        va_list ap;
        va_start(ap, fmt);
        r->detail = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        r->advice = advice ? g_strdup(advice) : NULL;
}

/* A detail without a cause (how a value was found). */
static void G_GNUC_PRINTF(2, 3) note(jd_diag_record *r, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        g_autofree char *text = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        char *joined = r->detail ? g_strdup_printf("%s; %s", r->detail, text) : g_strdup(text);
        g_free(r->detail);
        r->detail = joined;
}

static void add_sources(jd_diag_record *r, char *const *places, size_t n, size_t more)
{
        for (size_t i = 0; i < n; i++)
                g_ptr_array_add(r->sources, g_strdup(places[i]));
        if (more)
                g_ptr_array_add(r->sources, g_strdup_printf("(%zu more)", more));
}

/* "A, B, C (and 4 more)" of the first DETAIL_PATHS of ITEMS. */
static char *list_text(char *const *items, size_t n, size_t more)
{
        GString *s = g_string_new(NULL);
        for (size_t i = 0; i < n && i < DETAIL_PATHS; i++)
                g_string_append_printf(s, "%s%s", i ? ", " : "", items[i]);
        size_t rest = (n > DETAIL_PATHS ? n - DETAIL_PATHS : 0) + more;
        if (rest)
                g_string_append_printf(s, " (and %zu more)", rest);
        return g_string_free(s, FALSE);
}

/* ---- causes ------------------------------------------------------------- */

static const char ADVICE_SANDBOX[] =
        "Something confines jetsond beyond the shipped unit: look for a drop-in in 'systemctl cat jetsond' "
        "(InaccessiblePaths=, ReadOnlyPaths=, a smaller CapabilityBoundingSet=) and for an AppArmor or SELinux "
        "denial in 'journalctl -k'; the shipped unit's rules are explained in systemd/README.md";

/* The refusals READER met: sandbox (EROFS, or EACCES/EPERM for root,
 * which file modes alone never cause) or permission (jetsond is not
 * root). */
static void refusals(jd_diag_record *r, const jd_probe_entry *e, const jd_diag_input *in)
{
        if (!e->n_refused)
                return;
        bool sandbox = false, debugfs = false;
        GString *what = g_string_new(NULL);
        for (size_t i = 0; i < e->n_refused; i++) {
                const jd_probe_refusal *x = &e->refused[i];
                g_ptr_array_add(r->paths, g_strdup(x->path));
                sandbox = sandbox || x->err == EROFS || in->euid == 0;
                debugfs = debugfs || g_str_has_prefix(x->path, "/sys/kernel/debug");
                if (i < DETAIL_PATHS)
                        g_string_append_printf(what, "%s%s: %s", i ? "; " : "", x->path, g_strerror(x->err));
        }
        if (e->n_refused > DETAIL_PATHS || e->more_refused)
                g_string_append_printf(what, " (and %zu more)",
                                       e->n_refused - MIN(e->n_refused, (size_t) DETAIL_PATHS) + e->more_refused);
        if (sandbox) {
                set_cause(r, "sandbox", ADVICE_SANDBOX,
                          "not accessible under jetsond's sandbox, although it runs as root: %s", what->str);
        } else {
                g_autofree char *advice = g_strdup_printf(
                        "%s runs as uid %u, not root; %sthe system service (sudo systemctl start jetsond%s) "
                        "reads them as root", in->user ? "jetsond --user" : "jetsond", in->euid,
                        debugfs ? "debugfs (/sys/kernel/debug) is readable by root only; " : "",
                        in->user ? ", then jetsonctl without --user" : "");
                set_cause(r, "permission", advice, "jetsond (uid %u) may not read %s", in->euid, what->str);
        }
        g_string_free(what, TRUE);
}

/* A tier that stopped answering leaves its keys out. */
static void stalled(jd_diag_record *r, const family *f, const jd_diag_input *in)
{
        if (f->tier < 0)
                return;
        if (in->stale[f->tier])
                set_cause(r, "stalled",
                          "a sensor stopped answering (a stuck I2C or debugfs read): see jetsond's log "
                          "(journalctl -u jetsond); the keys come back with its next reading",
                          "the %s sampling tier has not finished a reading lately (stuck reading %s)",
                          f->tier == JD_TIER_INDEX_FAST ? "fast" : f->tier == JD_TIER_INDEX_MEDIUM ? "medium" : "slow",
                          in->stage[f->tier][0] ? in->stage[f->tier] : "unknown");
        else if (!in->answered[f->tier])
                set_cause(r, "starting", "ask again in a few seconds",
                          "the sampling tier that reads it has not answered yet");
}

/* Nothing found and nothing refused: the board has no such part, and
 * this is where the reader looked. */
static void absent(jd_diag_record *r, const family *f, const jd_probe_entry *e, const jd_diag_input *in)
{
        if (r->present)
                return;
        if (f->jetson_only && !in->board.is_jetson) {
                set_cause(r, "not-jetson", "nothing to do",
                          "%s is not a Jetson (no NVIDIA SoC in its device tree): no %s", in->board.model, f->part);
                return;
        }
        /* Where it looked: the places it read (a hwmon's name, to tell a
         * fan) and those it did not find. */
        GPtrArray *places = g_ptr_array_new();
        for (size_t i = 0; i < e->n_found; i++)
                g_ptr_array_add(places, e->found[i]);
        for (size_t i = 0; i < e->n_missed; i++)
                g_ptr_array_add(places, e->missed[i]);
        for (size_t i = 0; i < places->len; i++)
                g_ptr_array_add(r->paths, g_strdup(g_ptr_array_index(places, i)));
        g_autofree char *looked = places->len ? list_text((char *const *) places->pdata, places->len,
                                                          e->more_found + e->more_missed)
                                              : NULL;
        g_ptr_array_unref(places);
        set_cause(r, "no-hardware", "nothing to do: the board has none", "this board has no %s%s%s", f->part,
                  looked ? "; looked for " : "", looked ? looked : "");
}

/* ---- families with their own rules ---------------------------------------- */

static void board(jd_diag_record *r, const jd_diag_input *in)
{
        const jd_board *b = &in->board;
        if (!b->is_jetson) {
                note(r, "%s is not a Jetson: it has no L4T release and no JetPack", b->model);
                return;
        }
        if (!b->l4t[0]) {
                set_cause(r, "l4t-unknown",
                          "install NVIDIA's L4T packages (nvidia-l4t-core), or in a container bind-mount the "
                          "board's /etc/nv_tegra_release read-only",
                          "the L4T release is unknown: no /etc/nv_tegra_release and no nvidia-l4t-core package; "
                          "JetPack is unknown too");
                r->state = JD_DIAG_PARTIAL;
                return;
        }
        if (!b->jetpack[0]) {
                set_cause(r, "jetpack-unknown",
                          "nothing to do: the L4T release is right; a newer jetsond knows its JetPack",
                          "L4T %s (from %s) is newer than jetsond's L4T-to-JetPack table and there is no "
                          "nvidia-jetpack package: JetPack is unknown", b->l4t, b->l4t_source);
                r->state = JD_DIAG_PARTIAL;
                return;
        }
        note(r, "L4T %s from %s, JetPack %s from %s", b->l4t, b->l4t_source, b->jetpack,
             g_strcmp0(b->jetpack_source, "table") == 0 ? "jetsond's L4T-to-JetPack table" : b->jetpack_source);
}

/* NVML: the one source of discrete GPUs (and of Thor's GPU load). False
 * when it is not loaded, with the cause set on R, whose detail ends with
 * what that costs: LOST ("no discrete GPU is read"). */
static bool nvml_loaded(jd_diag_record *r, const jd_diag_input *in, const char *lost)
{
        const jd_nvml_status *s = &in->nvml;
        if (!in->nvml_used) {
                set_cause(r, "nvml-off", "start jetsond with --nvml-library PATH to read NVIDIA GPUs through NVML",
                          "jetsond reads no NVML: it serves a board under --sysroot without --nvml-library, "
                          "so %s", lost);
                return false;
        }
        if (!s->tried) {
                set_cause(r, "starting", "ask again in a few seconds", "NVML (%s) is being loaded", s->library);
                return false;
        }
        switch (s->failure) {
        case JD_NVML_LOADED:
                return true;
        case JD_NVML_NO_LIBRARY:
        case JD_NVML_NOT_NVML:
                set_cause(r, "nvml-missing",
                          "nothing to do unless the machine has an NVIDIA GPU NVML serves (a PCIe card, Thor's "
                          "GPU): then install the NVIDIA driver, which ships libnvidia-ml.so.1 (jetsond looks for "
                          "it again every 10 s)",
                          "NVML is not installed: %s; so %s", s->why, lost);
                return false;
        case JD_NVML_NO_PERMISSION:
                set_cause(r, "permission",
                          "NVML needs the NVIDIA device nodes (/dev/nvidiactl, /dev/nvidiaN): run the system "
                          "service, whose unit allows them",
                          "NVML may not open the NVIDIA devices for jetsond (uid %u): %s; so %s", in->euid, s->why,
                          lost);
                return false;
        case JD_NVML_NO_DRIVER:
        case JD_NVML_INIT_FAILED:
                break;
        }
        set_cause(r, "nvml-failed", "load the NVIDIA kernel driver (modprobe nvidia); nvidia-smi shows the same error",
                  "NVML is installed but does not start: %s; so %s", s->why, lost);
        return false;
}

static void dgpu(jd_diag_record *r, const jd_diag_input *in)
{
        if (!nvml_loaded(r, in, "no discrete GPU is read"))
                return;
        const jd_nvml_status *s = &in->nvml;
        g_ptr_array_add(r->sources, g_strdup_printf("NVML %s (driver %s)", s->library, s->driver[0] ? s->driver : "unknown"));
        GString *unsupported = g_string_new(NULL), *lost = g_string_new(NULL), *stale = g_string_new(NULL);
        size_t discrete = 0;
        for (size_t i = 0; i < in->n_gpus; i++) {
                const jd_diag_gpu *g = &in->gpus[i];
                if (g->integrated)
                        continue;
                discrete++;
                g_ptr_array_add(r->sources, g_strdup_printf("NVML GPU %u: %s", g->index, g->name[0] ? g->name : "?"));
                if (g->lost) {
                        g_string_append_printf(lost, "%sGPU %u", lost->len ? ", " : "", g->index);
                        continue;
                }
                if (g->stale)
                        g_string_append_printf(stale, "%sGPU %u", stale->len ? ", " : "", g->index);
                const char *keys[32];
                size_t n = jd_nvml_unsupported_keys(g->unsupported, keys, G_N_ELEMENTS(keys));
                if (!n)
                        continue;
                g_string_append_printf(unsupported, "%sGPU %u (%s):", unsupported->len ? "; " : "", g->index, g->name);
                for (size_t k = 0; k < n; k++) {
                        g_string_append_printf(unsupported, "%s%s", k ? ", " : " ", keys[k]);
                        g_ptr_array_add(r->paths, g_strdup_printf("dgpu.%u.%s", g->index, keys[k]));
                }
        }
        if (!discrete && in->n_gpus < s->count)
                set_cause(r, "starting", "ask again in a few seconds",
                          "NVML lists %u GPU%s; their first readings are not in yet", s->count,
                          s->count == 1 ? "" : "s");
        if (!discrete)
                set_cause(r, "no-hardware", "nothing to do",
                          "NVML (driver %s) lists no discrete GPU (%u GPU%s, none discrete)",
                          s->driver[0] ? s->driver : "unknown", s->count, s->count == 1 ? "" : "s");
        if (lost->len)
                set_cause(r, "gpu-lost",
                          "the GPU fell off the bus (NVML: GPU is lost): see 'dmesg' for Xid errors; a reset "
                          "(nvidia-smi -r) or a reboot brings it back",
                          "%s no longer answer%s", lost->str, strchr(lost->str, ',') ? "" : "s");
        if (stale->len)
                set_cause(r, "stalled", "the driver does not answer: see jetsond's log (journalctl -u jetsond)",
                          "%s: NVML has not answered lately", stale->str);
        if (unsupported->len)
                set_cause(r, "nvml-not-supported", "nothing to do: this GPU or its driver does not report them",
                          "NVML answers NOT_SUPPORTED for %s", unsupported->str);
        g_string_free(unsupported, TRUE);
        g_string_free(lost, TRUE);
        g_string_free(stale, TRUE);
}

/* Thor's GPU has no load file: its load, temperature and processes come
 * from NVML (the integrated device "NVIDIA Thor"). */
static void gpu_nvml(jd_diag_record *r, const jd_diag_input *in)
{
        for (size_t i = 0; i < in->n_gpus; i++)
                if (in->gpus[i].integrated)
                        g_ptr_array_add(r->sources, g_strdup_printf("NVML GPU %u: %s", in->gpus[i].index,
                                                                    in->gpus[i].name));
        if (strcmp(in->board.soc, "tegra264") == 0)
                nvml_loaded(r, in, "Thor's GPU load, temperature and processes are not read");
}

static bool any_found_under(const jd_probe_entry *e, const char *prefix)
{
        for (size_t i = 0; i < e->n_found; i++)
                if (g_str_has_prefix(e->found[i], prefix))
                        return true;
        return false;
}

/* process.* keys exist while a process uses a GPU: none now is no
 * failure. The lists are nvmap's (a Jetson's debugfs) and NVML's. */
static void processes(jd_diag_record *r, const jd_probe_entry *e, const jd_diag_input *in)
{
        bool nvmap = any_found_under(e, "/sys/kernel/debug/nvmap");
        bool nvml = in->nvml_used && in->nvml.failure == JD_NVML_LOADED && in->nvml.count > 0;
        if (nvmap)
                g_ptr_array_add(r->sources, g_strdup("/sys/kernel/debug/nvmap (nvmap's clients)"));
        if (nvml)
                g_ptr_array_add(r->sources, g_strdup_printf("NVML %s", in->nvml.library));
        if ((nvmap || nvml) && !r->present) {
                /* One list refused, the other read: partial. */
                r->state = r->cause ? JD_DIAG_PARTIAL : JD_DIAG_FOUND;
                note(r, "no process uses a GPU now");
        }
        /* A PC's and Thor's GPU processes come from NVML alone. */
        if (!nvml && !r->present && (!in->board.is_jetson || strcmp(in->board.soc, "tegra264") == 0))
                nvml_loaded(r, in, "no GPU process is listed");
}

static void tool(jd_diag_record *r, const char *name, const char *path, const jd_diag_input *in)
{
        if (path[0]) {
                g_ptr_array_add(r->sources, g_strdup_printf("tool %s", path));
                return;
        }
        if (!in->board.is_jetson)
                return;
        g_autofree char *advice = g_strdup_printf("install NVIDIA's %s (JetPack's nvidia-l4t-tools or "
                                                  "nvidia-l4t-nvpmodel package)", name);
        set_cause(r, "tool-missing", advice,
                  "%s is not installed (looked in /usr/sbin, /usr/bin, /sbin, /bin): jetsond reads what it can, "
                  "but cannot change it", name);
}

GPtrArray *jd_diagnose(const jd_sysroot *sr, const jd_diag_input *in)
{
        GPtrArray *out = g_ptr_array_new_with_free_func(record_free);
        jd_probe_log *log = jd_sysroot_probe_log(sr);
        for (size_t i = 0; i < N_FAMILIES; i++) {
                const family *f = &families[i];
                jd_diag_record *r = record_new(f, in->present[i]);
                jd_probe_entry e = { 0 };
                if (f->reader)
                        jd_probe_log_copy(log, f->reader, &e);
                if (i != F_BOARD && i != F_PROCESSES)
                        add_sources(r, e.found, e.n_found, e.more_found);
                if (i == F_BOARD) {
                        r->state = JD_DIAG_FOUND;
                        add_sources(r, e.found, e.n_found, e.more_found);
                        refusals(r, &e, in);
                        if (r->cause)
                                r->state = JD_DIAG_PARTIAL;
                        board(r, in);
                } else if (i == F_DGPU) {
                        dgpu(r, in);
                } else {
                        stalled(r, f, in);
                        refusals(r, &e, in);
                        if (i == F_GPU)
                                gpu_nvml(r, in);
                        if (i == F_PROCESSES)
                                processes(r, &e, in);
                        /* Modes read from nvpmodel.conf, but no tool to switch. */
                        if (i == F_NVPMODEL && r->present)
                                tool(r, "nvpmodel", in->nvpmodel_tool, in);
                        if (i == F_JETSON_CLOCKS)
                                tool(r, "jetson_clocks", in->jetson_clocks_tool, in);
                        if (r->state == JD_DIAG_MISSING)
                                absent(r, f, &e, in);
                        /* Found nothing: the places it read are where it looked. */
                        if (r->state == JD_DIAG_MISSING)
                                g_ptr_array_set_size(r->sources, 0);
                }
                jd_probe_entry_clear(&e);
                g_ptr_array_add(out, r);
        }
        return out;
}
