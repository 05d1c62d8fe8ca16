#include "caller_pids.h"

#include <inttypes.h>
#include <string.h>

#include "jetsond-dbus.h"

bool jc_translate_pids(jc_ctx *c, const char *method, const uint32_t *in, size_t n, uint32_t *out)
{
        sd_bus_message *m = NULL, *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        const void *data = NULL;
        size_t size = 0;
        int r = sd_bus_message_new_method_call(c->bus, &m, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_METRICS, method);
        if (r >= 0)
                r = sd_bus_message_append_array(m, 'u', in, n * sizeof(uint32_t));
        if (r >= 0)
                r = sd_bus_call(c->bus, m, 0, &error, &reply);
        if (r >= 0)
                r = sd_bus_message_read_array(reply, 'u', &data, &size);
        bool ok = r >= 0 && size == n * sizeof(uint32_t);
        if (ok && n)
                memcpy(out, data, size);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        sd_bus_message_unref(m);
        return ok;
}

bool jc_pid_cache_from_caller(jc_ctx *c, jc_pid_cache *cache, const uint32_t *pids, size_t n, const uint32_t **out)
{
        /* A failed answer is kept too: jetsond that cannot see this
         * process will not see it a tick later either. */
        if (!cache->asked || cache->n != n || (n && memcmp(cache->asked, pids, n * sizeof(uint32_t)) != 0)) {
                jc_pid_cache_clear(cache);
                cache->asked = g_new(uint32_t, n ? n : 1);
                if (n)
                        memcpy(cache->asked, pids, n * sizeof(uint32_t));
                cache->answer = g_new0(uint32_t, n ? n : 1);
                cache->n = n;
                cache->valid = jc_translate_pids(c, "PidsFromCaller", pids, n, cache->answer);
        }
        *out = cache->answer;
        return cache->valid;
}

void jc_pid_cache_clear(jc_pid_cache *cache)
{
        g_free(cache->asked);
        g_free(cache->answer);
        memset(cache, 0, sizeof(*cache));
}

#define RETRY_US (10 * G_USEC_PER_SEC)

struct jc_caller_names {
        GHashTable *known;            /* "PID start_time" -> GUINT_TO_POINTER(caller's PID + 1) */
        int64_t failed_at;            /* g_get_monotonic_time() of a failed call; 0: none */
};

jc_caller_names *jc_caller_names_new(void)
{
        jc_caller_names *names = g_new0(jc_caller_names, 1);
        names->known = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
        return names;
}

void jc_caller_names_free(jc_caller_names *names)
{
        if (!names)
                return;
        g_hash_table_unref(names->known);
        g_free(names);
}

/* The PID of a "process.PID.rest" key, and where REST starts. */
static bool process_key(const char *key, uint32_t *pid, const char **rest)
{
        if (!g_str_has_prefix(key, "process."))
                return false;
        char *end = NULL;
        guint64 v = g_ascii_strtoull(key + 8, &end, 10);
        if (end == key + 8 || *end != '.' || v == 0 || v > UINT32_MAX)
                return false;
        *pid = (uint32_t) v;
        *rest = end + 1;
        return true;
}

/* "PID start_time": a PID that is reused is another process. */
static char *identity(GVariant *values, uint32_t pid)
{
        g_autofree char *key = g_strdup_printf("process.%" PRIu32 ".start_time", pid);
        double start = 0;
        g_variant_lookup(values, key, "d", &start);
        return g_strdup_printf("%" PRIu32 " %.3f", pid, start);
}

static void add_pid(GArray *pids, uint32_t pid)
{
        for (guint i = 0; i < pids->len; i++)
                if (g_array_index(pids, uint32_t, i) == pid)
                        return;
        g_array_append_val(pids, pid);
}

/* The caller's PID for PID (0: not visible); false when not known. */
static bool caller_pid(jc_caller_names *names, GVariant *values, uint32_t pid, uint32_t *out)
{
        g_autofree char *id = identity(values, pid);
        gpointer v = g_hash_table_lookup(names->known, id);
        if (!v)
                return false;
        *out = GPOINTER_TO_UINT(v) - 1;
        return true;
}

void jc_sample_values_to_caller(jc_ctx *c, jc_caller_names *names, GVariant **values)
{
        if (!*values || (names->failed_at && g_get_monotonic_time() - names->failed_at < RETRY_US))
                return;
        /* Every process and parent named, and those not asked before. */
        g_autoptr(GArray) pids = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        GVariantIter it;
        const char *key, *rest;
        GVariant *value;
        uint32_t pid;
        g_variant_iter_init(&it, *values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                if (process_key(key, &pid, &rest)) {
                        add_pid(pids, pid);
                        if (strcmp(rest, "ppid") == 0 && g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32) &&
                            g_variant_get_uint32(value))
                                add_pid(pids, g_variant_get_uint32(value));
                }
                g_variant_unref(value);
        }
        g_autoptr(GArray) unknown = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        bool same = true;
        for (guint i = 0; i < pids->len; i++) {
                uint32_t p = g_array_index(pids, uint32_t, i), mine;
                if (!caller_pid(names, *values, p, &mine))
                        g_array_append_val(unknown, p);
                else
                        same = same && mine == p;
        }
        if (unknown->len) {
                g_autofree uint32_t *got = g_new0(uint32_t, unknown->len);
                if (!jc_translate_pids(c, "PidsToCaller", (const uint32_t *) (const void *) unknown->data,
                                       unknown->len, got)) {
                        names->failed_at = g_get_monotonic_time();
                        return;
                }
                names->failed_at = 0;
                for (guint i = 0; i < unknown->len; i++) {
                        uint32_t p = g_array_index(unknown, uint32_t, i);
                        g_hash_table_replace(names->known, identity(*values, p), GUINT_TO_POINTER(got[i] + 1));
                        same = same && got[i] == p;
                }
        }
        /* Only the processes of this sample are remembered. */
        if (g_hash_table_size(names->known) > 2 * pids->len + 64)
                g_hash_table_remove_all(names->known);
        if (same)
                return;
        GVariantBuilder b;
        g_variant_builder_init(&b, G_VARIANT_TYPE("a{sv}"));
        g_variant_iter_init(&it, *values);
        while (g_variant_iter_next(&it, "{&sv}", &key, &value)) {
                uint32_t mine = 0, parent = 0;
                if (!process_key(key, &pid, &rest)) {
                        g_variant_builder_add(&b, "{sv}", key, value);
                } else if (caller_pid(names, *values, pid, &mine) && mine) {
                        g_autofree char *renamed = g_strdup_printf("process.%" PRIu32 ".%s", mine, rest);
                        if (strcmp(rest, "ppid") != 0)
                                g_variant_builder_add(&b, "{sv}", renamed, value);
                        else if (g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32) &&
                                 caller_pid(names, *values, g_variant_get_uint32(value), &parent) && parent)
                                g_variant_builder_add(&b, "{sv}", renamed, g_variant_new_uint32(parent));
                        /* else: a parent this namespace cannot see is not named */
                }
                g_variant_unref(value);
        }
        g_variant_unref(*values);
        *values = g_variant_ref_sink(g_variant_builder_end(&b));
}
