#include "watch_stats.h"
#include "common/variant_number.h"

#include <json-glib/json-glib.h>
#include <stdio.h>

#include "jetsond-dbus.h"

#include "common/json_out.h"

typedef struct {
        double sum, min, max;
        unsigned n;
        uint64_t period_us;       /* its tier's floor: 0 for the fast tier */
        uint64_t counted_us;      /* the sample it was last counted in */
} key_stat;

struct jc_key_stats {
        GHashTable *by_key;       /* key -> key_stat */
        GPtrArray *order;         /* keys in the order first seen */
        unsigned samples;
        uint64_t now_us;          /* the sample being added */
};

/* The slack on a tier's period: the samples' times jitter by a few ms. */
#define SLACK_US 10000u

static uint64_t tier_period_us(const char *key)
{
        char column[64];
        if (!jd_capture_time_column(key, column, sizeof(column)))
                return 0;
        return strcmp(column, JD_CAPTURE_TIME_PREFIX "slow") == 0 ? JD_CAPTURE_SLOW_MIN_USEC
                                                                   : JD_CAPTURE_MEDIUM_MIN_USEC;
}

void jc_key_stats_sample_at(jc_key_stats *s, uint64_t timestamp_usec)
{
        s->now_us = timestamp_usec;
}

jc_key_stats *jc_key_stats_new(void)
{
        jc_key_stats *s = g_new0(jc_key_stats, 1);
        s->by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
        s->order = g_ptr_array_new();
        return s;
}

void jc_key_stats_free(jc_key_stats *s)
{
        if (!s)
                return;
        g_ptr_array_unref(s->order);
        g_hash_table_unref(s->by_key);
        g_free(s);
}

void jc_key_stats_add(jc_key_stats *s, const char *key, GVariant *value)
{
        double v;
        if (!jc_variant_number(value, &v))
                return;
        key_stat *k = g_hash_table_lookup(s->by_key, key);
        if (!k) {
                k = g_new0(key_stat, 1);
                k->min = k->max = v;
                k->period_us = tier_period_us(key);
                char *owned = g_strdup(key);
                g_hash_table_insert(s->by_key, owned, k);
                g_ptr_array_add(s->order, owned);
        } else if (k->period_us && s->now_us < k->counted_us + k->period_us - SLACK_US) {
                return; /* the same reading again */
        }
        k->counted_us = s->now_us;
        k->sum += v;
        k->min = MIN(k->min, v);
        k->max = MAX(k->max, v);
        k->n++;
}

void jc_key_stats_sample_done(jc_key_stats *s)
{
        s->samples++;
}

void jc_key_stats_print(const jc_key_stats *s, bool json)
{
        if (json) {
                JsonBuilder *b = json_builder_new(); /* jc_json_print_builder frees it */
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "samples");
                json_builder_add_int_value(b, s->samples);
                json_builder_set_member_name(b, "stats");
                json_builder_begin_object(b);
                for (guint i = 0; i < s->order->len; i++) {
                        const char *key = g_ptr_array_index(s->order, i);
                        const key_stat *k = g_hash_table_lookup(s->by_key, key);
                        json_builder_set_member_name(b, key);
                        json_builder_begin_object(b);
                        json_builder_set_member_name(b, "mean");
                        json_builder_add_double_value(b, k->sum / k->n);
                        json_builder_set_member_name(b, "min");
                        json_builder_add_double_value(b, k->min);
                        json_builder_set_member_name(b, "max");
                        json_builder_add_double_value(b, k->max);
                        json_builder_set_member_name(b, "samples");
                        json_builder_add_int_value(b, k->n);
                        json_builder_end_object(b);
                }
                json_builder_end_object(b);
                json_builder_end_object(b);
                jc_json_print_builder(b);
                return;
        }
        printf("Over %u samples:\n%-32s %12s %12s %12s\n", s->samples, "key", "mean", "min", "max");
        for (guint i = 0; i < s->order->len; i++) {
                const char *key = g_ptr_array_index(s->order, i);
                const key_stat *k = g_hash_table_lookup(s->by_key, key);
                printf("%-32s %12.6g %12.6g %12.6g\n", key, k->sum / k->n, k->min, k->max);
        }
}
