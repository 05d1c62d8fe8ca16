/* The exporter's model: a sample as jetsond sends it (flat keys with typed
 * values), the board identity, and how both become Prometheus text or
 * OpenMetrics text. Pure C over GLib: no D-Bus, no HTTP, so the whole
 * mapping is unit-tested (tests/exporter/test-exposition.c). */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum { EXP_UINT, EXP_DOUBLE, EXP_BOOL, EXP_STRING } exp_type;

typedef struct {
        char *key;
        exp_type type;
        union {
                uint64_t u;
                double d;
                bool b;
                char *s;
        } v;
} exp_value;

/* One Sample signal or GetSnapshot() reply, in the order jetsond sent it.
 * Immutable once filled and reference-counted, so pages of the same
 * readings (a new board, the same sample) share it across threads. */
typedef struct {
        gint refs;
        uint64_t timestamp_usec; /* CLOCK_REALTIME, as the signal carries it */
        GArray *values;          /* of exp_value */
} exp_sample;

exp_sample *exp_sample_new(uint64_t timestamp_usec);
exp_sample *exp_sample_ref(exp_sample *s);
void exp_sample_unref(exp_sample *s);
void exp_sample_add_uint(exp_sample *s, const char *key, uint64_t v);
void exp_sample_add_double(exp_sample *s, const char *key, double v);
void exp_sample_add_bool(exp_sample *s, const char *key, bool v);
void exp_sample_add_string(exp_sample *s, const char *key, const char *v);

/* One discrete GPU's identity (org.jetsond.Jetson1.DiscreteGpu): strings
 * "" where jetsond has none. */
typedef struct {
        unsigned index; /* the N of /org/jetsond/Jetson1/dgpu/N and dgpu.N.* */
        char *name, *uuid, *pci_bus_id, *driver_version;
        int minor; /* N of /dev/nvidiaN, -1: unknown */
        /* The facts and modes, as on the bus: "" unknown; the modes
         * "enabled"/"disabled", the compute mode by name. */
        char *cuda_driver_version, *compute_capability;
        char *ecc_mode, *ecc_mode_pending, *persistence_mode, *compute_mode, *display_mode, *display_active;
        uint64_t bar1_total; /* bytes, 0: unknown */
} exp_gpu_identity;

/* Board properties (org.jetsond.Jetson1.Board) and the NVPModel default;
 * strings are "" when jetsond has them empty (not a Jetson). */
typedef struct {
        char *model, *module, *soc, *l4t, *jetpack, *cuda_arch;
        int64_t default_mode; /* -1: unknown or no nvpmodel */
        char *igpu_name;      /* Gpu.Name: the SoC's GPU device; NULL without one */
        char *igpu_uuid, *igpu_driver; /* Gpu.UUID, Gpu.DriverVersion: NVML's (Thor); "" or NULL: none */
        char *hostname;       /* this machine's, for DCGM's Hostname label */
        GPtrArray *dgpus;     /* of exp_gpu_identity *, by index; NULL: none known */
} exp_board;

exp_gpu_identity *exp_gpu_identity_new(unsigned index, const char *name, const char *uuid,
                                       const char *pci_bus_id, const char *driver_version, int minor);
void exp_gpu_identity_free(gpointer p);
/* The identity of discrete GPU INDEX on BOARD, or NULL. */
const exp_gpu_identity *exp_board_dgpu(const exp_board *board, unsigned index);

/* Frees the strings and sets default_mode to -1 (the state of "nothing
 * known": model NULL). */
void exp_board_clear(exp_board *b);
/* A deep copy into DST (which holds nothing). */
void exp_board_copy(exp_board *dst, const exp_board *src);

typedef enum { EXP_FORMAT_PROMETHEUS, EXP_FORMAT_OPENMETRICS } exp_format;

/* The whole /metrics body. SAMPLE NULL means jetsond is not there (or its
 * samples stopped): only jetson_up 0, nothing cached shown as live. BOARD
 * may be NULL while its properties are not known yet. */
GString *exp_render(const exp_sample *sample, const exp_board *board, exp_format format);

/* Every family, for --list-metrics, docs/exporter.md and the tests: one line
 * each, "NAME<TAB>TYPE<TAB>LABELS<TAB>SOURCE<TAB>HELP", NAME as Prometheus
 * text shows its samples (with _total or _info), LABELS comma-separated
 * ("-" for none), SOURCE the D-Bus key or property it comes from. */
GString *exp_list_families(void);

/* Whether the family table maps KEY (a sample key, or a key pattern of
 * the XML's key table such as "cpu.*.load") to a metric, or knows it as a
 * label of another one. For the test that holds the table to the XML. */
bool exp_key_known(const char *key);
