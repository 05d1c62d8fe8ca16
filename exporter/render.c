/* A sample and the board as a /metrics page, in the Prometheus text format
 * 0.0.4 or in OpenMetrics 1.0. Both group every sample of a family under
 * one TYPE line (OpenMetrics forbids a family appearing twice), keep
 * jetsond's order within a family, and convert to base units exactly where
 * the value is an integer (mJ to J without float noise). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "exposition.h"
#include "families.h"
#include "text_out.h"

typedef struct {
        int family;
        guint order; /* position in the sample: keeps jetsond's order */
        const exp_value *value;
        fam_instances inst;
} entry;

static int entry_compare(gconstpointer a, gconstpointer b)
{
        const entry *x = a, *y = b;
        if (x->family != y->family)
                return x->family < y->family ? -1 : 1;
        return x->order < y->order ? -1 : x->order > y->order;
}

/* The value in the family's base unit; false for a type the family
 * cannot show (a string where a number belongs: left out). */
static bool append_value(GString *out, const fam_family *f, const exp_value *v)
{
        if (f->kind == FAM_INFO) {
                g_string_append(out, "1");
                return true;
        }
        switch (v->type) {
        case EXP_BOOL:
                g_string_append(out, v->v.b ? "1" : "0");
                return true;
        case EXP_UINT:
                switch (f->scale) {
                case SCALE_KILO:
                        if (v->v.u > UINT64_MAX / 1000)
                                tout_double(out, (double)v->v.u * 1e3);
                        else
                                g_string_append_printf(out, "%" PRIu64, v->v.u * 1000);
                        return true;
                case SCALE_KIBI:
                        if (v->v.u > UINT64_MAX / 1024)
                                tout_double(out, (double)v->v.u * 1024.0);
                        else
                                g_string_append_printf(out, "%" PRIu64, v->v.u * 1024);
                        return true;
                case SCALE_MILLI:
                        tout_fixed(out, v->v.u, 3);
                        return true;
                case SCALE_PERCENT:
                        tout_fixed(out, v->v.u, 2);
                        return true;
                case SCALE_NONE:
                        g_string_append_printf(out, "%" PRIu64, v->v.u);
                        return true;
                }
                return false;
        case EXP_DOUBLE: {
                double d = v->v.d;
                switch (f->scale) {
                case SCALE_KILO:
                        d *= 1e3;
                        break;
                case SCALE_KIBI:
                        d *= 1024.0;
                        break;
                case SCALE_MILLI:
                        d /= 1e3;
                        break;
                case SCALE_PERCENT:
                        d /= 100.0;
                        break;
                case SCALE_NONE:
                        break;
                }
                tout_double(out, d);
                return true;
        }
        case EXP_STRING:
                return false;
        }
        return false;
}

/* Prometheus text has no info type: there an info family is a gauge. */
static const char *type_word(fam_kind kind, exp_format format)
{
        return kind == FAM_INFO && format == EXP_FORMAT_PROMETHEUS ? "gauge" : fam_type_name(kind);
}

/* The metadata lines of a family. Prometheus text names its TYPE after
 * the samples (jetson_board_energy_joules_total); OpenMetrics after the
 * family, with UNIT. */
static void append_header(GString *out, const fam_family *f, exp_format format)
{
        const char *name = f->name, *unit = f->unit, *help = f->help;
        fam_kind kind = f->kind;
        if (format == EXP_FORMAT_OPENMETRICS) {
                g_string_append_printf(out, "# TYPE %s %s\n", name, type_word(kind, format));
                if (unit)
                        g_string_append_printf(out, "# UNIT %s %s\n", name, unit);
                g_string_append_printf(out, "# HELP %s ", name);
        } else {
                g_string_append_printf(out, "# HELP %s%s ", name, fam_sample_suffix(kind));
        }
        tout_help_text(out, help, format);
        g_string_append_c(out, '\n');
        if (format == EXP_FORMAT_PROMETHEUS)
                g_string_append_printf(out, "# TYPE %s%s %s\n", name, fam_sample_suffix(kind), type_word(kind, format));
}

static const char *string_of(GHashTable *strings, const char *key)
{
        const exp_value *v = g_hash_table_lookup(strings, key);
        return v ? v->v.s : NULL;
}

/* The key FIELD of the same instance as E's first one (process.PID.name
 * for process.PID.gpu_mem and for process.PID.dgpu.N.mem), or of the same
 * group for a key without one (nvpmodel.name for nvpmodel.mode). */
static char *sibling_key(const entry *e, const char *field)
{
        const char *key = e->value->key, *dot = strrchr(key, '.');
        size_t prefix = e->inst.n ? (size_t)(e->inst.start[0] + e->inst.len[0] - key) : dot ? (size_t)(dot - key) : 0;
        return g_strdup_printf("%.*s.%s", (int)prefix, key, field);
}

static void append_sample_line(GString *out, const fam_family *f, const entry *e, GHashTable *strings)
{
        GString *line = g_string_new(f->name);
        g_string_append(line, fam_sample_suffix(f->kind));
        bool first = true;
        if (f->label && e->inst.n > 0)
                tout_label(line, &first, f->label, e->inst.start[0], e->inst.len[0]);
        if (f->label2 && e->inst.n > 1)
                tout_label(line, &first, f->label2, e->inst.start[1], e->inst.len[1]);
        for (size_t i = 0; i < G_N_ELEMENTS(f->extra_label) && f->extra_label[i]; i++) {
                g_autofree char *key = sibling_key(e, f->extra_key[i]);
                const char *v = string_of(strings, key);
                if (v) /* a label the sample lacks is left out, never "" */
                        tout_label(line, &first, f->extra_label[i], v, strlen(v));
        }
        if (f->kind == FAM_INFO)
                tout_label(line, &first, f->value_label, e->value->v.s, strlen(e->value->v.s));
        if (!first)
                g_string_append_c(line, '}');
        g_string_append_c(line, ' ');
        if (append_value(line, f, e->value)) {
                g_string_append_c(line, '\n');
                g_string_append_len(out, line->str, (gssize)line->len);
        }
        g_string_free(line, TRUE);
}

/* Whether the value's type fits the family: numbers and booleans for
 * gauges and counters, strings for info families. */
static bool type_fits(const fam_family *f, const exp_value *v)
{
        if (f->kind == FAM_LABEL_ONLY)
                return false;
        return (f->kind == FAM_INFO) == (v->type == EXP_STRING);
}

static void append_sample_families(GString *out, const exp_sample *sample, exp_format format)
{
        g_autoptr(GArray) entries = g_array_sized_new(FALSE, FALSE, sizeof(entry), sample->values->len);
        g_autoptr(GHashTable) strings = g_hash_table_new(g_str_hash, g_str_equal);
        for (guint i = 0; i < sample->values->len; i++) {
                const exp_value *v = &g_array_index(sample->values, exp_value, i);
                if (v->type == EXP_STRING)
                        g_hash_table_insert(strings, v->key, (gpointer)v);
                entry e = { .order = i, .value = v };
                /* Keys the table does not know are new keys of a newer
                 * jetsond: left out, as the contract asks of clients. */
                e.family = fam_match(v->key, &e.inst);
                if (e.family >= 0 && type_fits(&fam_table[e.family], v))
                        g_array_append_val(entries, e);
        }
        g_array_sort(entries, entry_compare);
        int current = -1;
        for (guint i = 0; i < entries->len; i++) {
                const entry *e = &g_array_index(entries, entry, i);
                const fam_family *f = &fam_table[e->family];
                if (e->family != current) {
                        append_header(out, f, format);
                        current = e->family;
                }
                append_sample_line(out, f, e, strings);
        }
}

static void append_info(GString *out, const exp_board *board, exp_format format)
{
        append_header(out, &fam_board, format);
        const char *names[] = { "model", "module", "soc", "l4t", "jetpack", "cuda_arch" };
        const char *values[] = { board->model, board->module, board->soc, board->l4t, board->jetpack,
                                 board->cuda_arch };
        g_string_append(out, "jetson_info");
        bool first = true;
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
                const char *v = values[i] ? values[i] : "";
                tout_label(out, &first, names[i], v, strlen(v));
        }
        g_string_append(out, "} 1\n");
}

/* 1, 0 or nothing (unknown) for a mode in words. */
static int mode_value(const char *mode)
{
        return !mode ? -1 : strcmp(mode, "enabled") == 0 ? 1 : strcmp(mode, "disabled") == 0 ? 0 : -1;
}

static void append_gpu_label(GString *out, const char *name, unsigned index, bool *first)
{
        g_autofree char *gpu = g_strdup_printf("%u", index);
        g_string_append(out, name);
        tout_label(out, first, "gpu", gpu, strlen(gpu));
}

/* The discrete GPUs' DiscreteGpu properties: a family at a time, a line
 * per GPU that has the value (an unknown one is left out, never 0). */
static void append_dgpu_props(GString *out, const exp_board *board, exp_format format)
{
        for (int f = 0; f < FAM_DGPU_PROPS; f++) {
                bool header = false;
                for (guint i = 0; i < board->dgpus->len; i++) {
                        const exp_gpu_identity *g = g_ptr_array_index(board->dgpus, i);
                        const char *modes[FAM_DGPU_PROPS] = {
                                [FAM_DGPU_PERSISTENCE] = g->persistence_mode, [FAM_DGPU_ECC] = g->ecc_mode,
                                [FAM_DGPU_ECC_PENDING] = g->ecc_mode_pending,
                                [FAM_DGPU_DISPLAY_MODE] = g->display_mode,
                                [FAM_DGPU_DISPLAY_ACTIVE] = g->display_active,
                        };
                        int mode = mode_value(modes[f]);
                        if ((f == FAM_DGPU_BAR1_TOTAL && !g->bar1_total) ||
                            (f == FAM_DGPU_COMPUTE_MODE && !*g->compute_mode) ||
                            (f != FAM_DGPU_INFO && f != FAM_DGPU_BAR1_TOTAL && f != FAM_DGPU_COMPUTE_MODE && mode < 0))
                                continue;
                        if (!header)
                                append_header(out, &fam_dgpu_props[f], format);
                        header = true;
                        bool first = true;
                        g_autofree char *name =
                                g_strconcat(fam_dgpu_props[f].name, fam_sample_suffix(fam_dgpu_props[f].kind), NULL);
                        append_gpu_label(out, name, g->index, &first);
                        if (f == FAM_DGPU_INFO) {
                                const char *names[] = { "name", "uuid", "pci_bus_id", "driver_version",
                                                        "cuda_driver_version", "compute_capability" };
                                const char *values[] = { g->name, g->uuid, g->pci_bus_id, g->driver_version,
                                                         g->cuda_driver_version, g->compute_capability };
                                for (size_t k = 0; k < G_N_ELEMENTS(names); k++)
                                        tout_label(out, &first, names[k], values[k], strlen(values[k]));
                                g_string_append(out, "} 1\n");
                        } else if (f == FAM_DGPU_COMPUTE_MODE) {
                                tout_label(out, &first, "mode", g->compute_mode, strlen(g->compute_mode));
                                g_string_append(out, "} 1\n");
                        } else if (f == FAM_DGPU_BAR1_TOTAL) {
                                g_string_append_printf(out, "} %" PRIu64 "\n", g->bar1_total);
                        } else {
                                g_string_append_printf(out, "} %d\n", mode);
                        }
                }
        }
}

GString *exp_render(const exp_sample *sample, const exp_board *board, exp_format format)
{
        GString *out = g_string_sized_new(16384);
        append_header(out, &fam_up, format);
        g_string_append_printf(out, "jetson_up %d\n", sample ? 1 : 0);
        if (sample) {
                if (board && board->model)
                        append_info(out, board, format);
                append_sample_families(out, sample, format);
                if (board && board->dgpus)
                        append_dgpu_props(out, board, format);
                if (board && board->default_mode >= 0) {
                        append_header(out, &fam_default_mode, format);
                        g_string_append_printf(out, "jetson_nvpmodel_default_mode %" PRId64 "\n",
                                               board->default_mode);
                }
                append_header(out, &fam_timestamp, format);
                g_string_append(out, "jetson_sample_timestamp_seconds ");
                tout_fixed(out, sample->timestamp_usec, 6);
                g_string_append_c(out, '\n');
        }
        if (format == EXP_FORMAT_OPENMETRICS)
                g_string_append(out, "# EOF\n");
        return out;
}
