#include "gpu_identity.h"

#include <stdlib.h>
#include <string.h>

#include "exposition.h"
#include "jetsond-dbus.h"
#include "sample_reader.h"

/* N of JD_DGPU_PATH_PREFIX "N"; false for any other object. */
static bool dgpu_index(const char *path, unsigned *index)
{
        if (!g_str_has_prefix(path, JD_DGPU_PATH_PREFIX))
                return false;
        const char *digits = path + strlen(JD_DGPU_PATH_PREFIX);
        char *end;
        unsigned long n = strtoul(digits, &end, 10);
        if (end == digits || *end || n > 1023)
                return false;
        *index = (unsigned)n;
        return true;
}

/* MinorNumber ("i", -1 unknown), -1 from a jetsond without it. */
static int minor_of(const exp_sample *props)
{
        for (guint i = 0; i < props->values->len; i++) {
                const exp_value *v = &g_array_index(props->values, exp_value, i);
                if (strcmp(v->key, "MinorNumber") == 0 && v->type == EXP_DOUBLE && v->v.d >= 0 && v->v.d < 1e9)
                        return (int)v->v.d;
        }
        return -1;
}

/* A uint64 property (Bar1Total), 0 when absent. */
static uint64_t u64_of(const exp_sample *props, const char *name)
{
        for (guint i = 0; i < props->values->len; i++) {
                const exp_value *v = &g_array_index(props->values, exp_value, i);
                if (strcmp(v->key, name) == 0 && v->type == EXP_UINT)
                        return v->v.u;
        }
        return 0;
}

/* The facts and modes of PROPS into ID ("" from a jetsond without them). */
static void read_facts(exp_gpu_identity *id, const exp_sample *props)
{
        const struct {
                char **field;
                const char *property;
        } facts[] = {
                { &id->cuda_driver_version, "CudaDriverVersion" }, { &id->compute_capability, "ComputeCapability" },
                { &id->ecc_mode, "EccMode" },                     { &id->ecc_mode_pending, "EccModePending" },
                { &id->persistence_mode, "PersistenceMode" },     { &id->compute_mode, "ComputeMode" },
                { &id->display_mode, "DisplayMode" },             { &id->display_active, "DisplayActive" },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(facts); i++) {
                g_free(*facts[i].field);
                *facts[i].field = g_strdup(sample_reader_string(props, facts[i].property, ""));
        }
        id->bar1_total = u64_of(props, "Bar1Total");
}

/* One object's "a{sa{sv}}": the DiscreteGpu properties, else NULL (and
 * *OK false if the message is malformed). */
static exp_gpu_identity *read_interfaces(sd_bus_message *m, unsigned index, bool *ok)
{
        exp_gpu_identity *id = NULL;
        if (sd_bus_message_enter_container(m, 'a', "{sa{sv}}") <= 0)
                goto bad;
        int r;
        while ((r = sd_bus_message_enter_container(m, 'e', "sa{sv}")) > 0) {
                const char *iface;
                if (sd_bus_message_read_basic(m, 's', &iface) <= 0)
                        goto bad;
                if (strcmp(iface, JD_IFACE_DISCRETE_GPU) == 0) {
                        exp_sample *props = sample_reader_read_dict(m);
                        if (!props)
                                goto bad;
                        exp_gpu_identity_free(id);
                        id = exp_gpu_identity_new(index, sample_reader_string(props, "Name", ""),
                                                  sample_reader_string(props, "UUID", ""),
                                                  sample_reader_string(props, "PciBusId", ""),
                                                  sample_reader_string(props, "DriverVersion", ""),
                                                  minor_of(props));
                        read_facts(id, props);
                        exp_sample_unref(props);
                } else if (sd_bus_message_skip(m, "a{sv}") < 0) {
                        goto bad;
                }
                if (sd_bus_message_exit_container(m) < 0)
                        goto bad;
        }
        if (r < 0 || sd_bus_message_exit_container(m) < 0)
                goto bad;
        return id;
bad:
        exp_gpu_identity_free(id);
        *ok = false;
        return NULL;
}

static int compare_index(gconstpointer a, gconstpointer b)
{
        const exp_gpu_identity *x = *(exp_gpu_identity *const *)a, *y = *(exp_gpu_identity *const *)b;
        return x->index < y->index ? -1 : x->index > y->index;
}

GPtrArray *gpu_identity_read_objects(sd_bus_message *m)
{
        if (sd_bus_message_is_method_error(m, NULL) || sd_bus_message_enter_container(m, 'a', "{oa{sa{sv}}}") <= 0)
                return NULL;
        GPtrArray *out = g_ptr_array_new_with_free_func(exp_gpu_identity_free);
        bool ok = true;
        int r = 0;
        while (ok && (r = sd_bus_message_enter_container(m, 'e', "oa{sa{sv}}")) > 0) {
                const char *path;
                unsigned index;
                if (sd_bus_message_read_basic(m, 'o', &path) <= 0) {
                        ok = false;
                        break;
                }
                if (dgpu_index(path, &index)) {
                        exp_gpu_identity *id = read_interfaces(m, index, &ok);
                        if (id)
                                g_ptr_array_add(out, id);
                } else if (sd_bus_message_skip(m, "a{sa{sv}}") < 0) {
                        ok = false;
                }
                if (ok && sd_bus_message_exit_container(m) < 0)
                        ok = false;
        }
        if (!ok || r < 0 || sd_bus_message_exit_container(m) < 0) {
                g_ptr_array_unref(out);
                return NULL;
        }
        g_ptr_array_sort(out, compare_index);
        return out;
}
