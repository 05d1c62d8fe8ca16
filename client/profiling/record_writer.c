#include "record_writer.h"

#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "jetsond-dbus.h"
#include "json_text.h"

struct jc_record_writer {
        FILE *out;
        jc_record_format format;
        size_t n;
        jc_record_time time;
        uint64_t start_ns;
        int64_t realtime_offset_ns;
        int error;
        /* jsonl: each column's name as a JSON string, quotes included. */
        char **json_names;
        /* trace: the group (key less its last part) and the member name
         * of each column, the groups in order of first appearance, and the
         * values last written, so a group is written only when it changed. */
        char **member;
        size_t *group_of;
        GPtrArray *groups;
        double *last;
        bool any_event;
        /* Per column: whether it is a tier time column (capture.time.*:
         * written as seconds since the start, named TIER_time_s), and the
         * column of its own tier's time (-1: the fast tier's, the record's
         * time). */
        bool *is_time;
        long *time_col;
};

bool jc_record_format_parse(const char *name, jc_record_format *out)
{
        static const char *const names[] = { [JC_RECORD_CSV] = "csv", [JC_RECORD_JSONL] = "jsonl",
                                             [JC_RECORD_TRACE] = "trace" };
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
                if (strcmp(name, names[i]) == 0) {
                        *out = (jc_record_format) i;
                        return true;
                }
        return false;
}

bool jc_record_time_parse(const char *name, jc_record_time *out)
{
        static const char *const names[] = { [JC_RECORD_TIME_UNIX] = "unix", [JC_RECORD_TIME_ISO] = "iso",
                                             [JC_RECORD_TIME_RELATIVE] = "relative" };
        for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
                if (strcmp(name, names[i]) == 0) {
                        *out = (jc_record_time) i;
                        return true;
                }
        return false;
}

static void put(jc_record_writer *w, const char *s, size_t len)
{
        if (!w->error && fwrite(s, 1, len, w->out) != len)
                w->error = errno ? errno : EIO;
}

static void puts_w(jc_record_writer *w, const char *s)
{
        put(w, s, strlen(s));
}

/* %.15g: every integer a counter holds exactly, and no binary noise
 * (0.1, not 0.10000000000000001). */
static void put_number(jc_record_writer *w, double v)
{
        char buf[32];
        int n = snprintf(buf, sizeof(buf), "%.15g", v);
        put(w, buf, (size_t) n);
}

static char *json_string(const char *s)
{
        JsonNode *node = json_node_new(JSON_NODE_VALUE);
        json_node_set_string(node, s);
        char *text = jt_to_text(node, FALSE);
        json_node_unref(node);
        return text;
}

/* A CSV field: quoted when it holds a separator, a quote or a line end. */
static void put_csv_field(jc_record_writer *w, const char *s)
{
        if (!strpbrk(s, ",\"\r\n")) {
                puts_w(w, s);
                return;
        }
        put(w, "\"", 1);
        for (const char *p = s; *p; p++) {
                if (*p == '"')
                        put(w, "\"", 1); /* doubled */
                put(w, p, 1);
        }
        put(w, "\"", 1);
}

static double seconds_since_start(const jc_record_writer *w, uint64_t time_ns)
{
        return time_ns >= w->start_ns ? (double) (time_ns - w->start_ns) / 1e9 : -(double) (w->start_ns - time_ns) / 1e9;
}

/* CLOCK_REALTIME µs of a record's CLOCK_MONOTONIC ns, rounded: computed
 * in integers, as %.15g of a double would keep only 10 µs of it. */
static int64_t unix_us(const jc_record_writer *w, uint64_t time_ns)
{
        int64_t ns = (int64_t) time_ns + w->realtime_offset_ns;
        return ns >= 0 ? (ns + 500) / 1000 : -((-ns + 500) / 1000);
}

/* "1796660401.123456": seconds since the epoch, six decimals. */
static void format_unix(char *buf, size_t size, int64_t us)
{
        const char *sign = us < 0 ? "-" : "";
        uint64_t a = us < 0 ? (uint64_t) -us : (uint64_t) us;
        snprintf(buf, size, "%s%" PRIu64 ".%06" PRIu64, sign, a / 1000000, a % 1000000);
}

/* "2026-12-07T16:20:01.123456Z" (RFC 3339, UTC). */
static void format_iso(char *buf, size_t size, int64_t us)
{
        int64_t s = us >= 0 ? us / 1000000 : -((-us + 999999) / 1000000);
        time_t t = (time_t) s;
        struct tm tm;
        if (!gmtime_r(&t, &tm) || size < 32) {
                snprintf(buf, size, "?");
                return;
        }
        size_t n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf + n, size - n, ".%06dZ", (int) (us - s * 1000000));
}

static void put_absolute_time(jc_record_writer *w, uint64_t time_ns, bool quoted)
{
        char buf[64];
        if (w->time == JC_RECORD_TIME_UNIX) {
                format_unix(buf, sizeof(buf), unix_us(w, time_ns));
                puts_w(w, buf);
        } else {
                format_iso(buf, sizeof(buf), unix_us(w, time_ns));
                if (quoted)
                        put(w, "\"", 1);
                puts_w(w, buf);
                if (quoted)
                        put(w, "\"", 1);
        }
}

/* The name of the absolute time's column or member, NULL for none. */
static const char *absolute_name(const jc_record_writer *w)
{
        switch (w->time) {
        case JC_RECORD_TIME_UNIX:
                return "time_unix_s";
        case JC_RECORD_TIME_ISO:
                return "time_utc";
        case JC_RECORD_TIME_RELATIVE:
                break;
        }
        return NULL;
}

/* The tier time columns (introspection/capture.md): which they are, and
 * which is each column's. */
static void find_time_columns(jc_record_writer *w, char *const *columns)
{
        w->is_time = g_new0(bool, w->n ? w->n : 1);
        w->time_col = g_new(long, w->n ? w->n : 1);
        for (size_t i = 0; i < w->n; i++) {
                w->is_time[i] = g_str_has_prefix(columns[i], JD_CAPTURE_TIME_PREFIX);
                w->time_col[i] = -1;
                char name[64];
                if (!w->is_time[i] && jd_capture_time_column(columns[i], name, sizeof(name)))
                        for (size_t k = 0; k < w->n; k++)
                                if (strcmp(columns[k], name) == 0)
                                        w->time_col[i] = (long) k;
        }
}

/* A column's name in csv and jsonl: a tier time column's is
 * "medium_time_s", "slow_time_s", "dgpu.0_time_s". */
static char *column_name(const jc_record_writer *w, char *const *columns, size_t i)
{
        if (!w->is_time[i])
                return g_strdup(columns[i]);
        return g_strdup_printf("%s_time_s", columns[i] + strlen(JD_CAPTURE_TIME_PREFIX));
}

static void setup_trace(jc_record_writer *w, char *const *columns)
{
        w->member = g_new0(char *, w->n + 1);
        w->group_of = g_new0(size_t, w->n ? w->n : 1);
        w->groups = g_ptr_array_new_with_free_func(g_free);
        w->last = g_new(double, w->n ? w->n : 1);
        for (size_t i = 0; i < w->n; i++) {
                w->last[i] = NAN;
                const char *dot = strrchr(columns[i], '.');
                g_autofree char *group = dot ? g_strndup(columns[i], (gsize) (dot - columns[i])) : g_strdup("");
                w->member[i] = g_strdup(dot ? dot + 1 : columns[i]);
                guint g;
                if (!g_ptr_array_find_with_equal_func(w->groups, group, g_str_equal, &g)) {
                        g = w->groups->len;
                        g_ptr_array_add(w->groups, g_steal_pointer(&group));
                }
                w->group_of[i] = g;
        }
        /* ts stays relative (µs, as the viewers expect); where ts 0 lies
         * in absolute time goes to the metadata, for merging runs. */
        char unix_origin[40], iso_origin[40];
        format_unix(unix_origin, sizeof(unix_origin), unix_us(w, w->start_ns));
        format_iso(iso_origin, sizeof(iso_origin), unix_us(w, w->start_ns));
        puts_w(w, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"jetsonctl record\","
                  "\"realtime_origin_unix_s\":");
        puts_w(w, unix_origin);
        puts_w(w, ",\"realtime_origin\":\"");
        puts_w(w, iso_origin);
        puts_w(w, "\"},\"traceEvents\":[\n");
}

jc_record_writer *jc_record_writer_new(FILE *out, jc_record_format format, jc_record_time time, char *const *columns,
                                       size_t n, uint64_t start_ns, int64_t realtime_offset_ns)
{
        jc_record_writer *w = g_new0(jc_record_writer, 1);
        w->out = out;
        w->format = format;
        w->time = time;
        w->n = n;
        w->start_ns = start_ns;
        w->realtime_offset_ns = realtime_offset_ns;
        find_time_columns(w, columns);
        errno = 0;
        switch (format) {
        case JC_RECORD_CSV:
                puts_w(w, "time_s");
                if (absolute_name(w)) {
                        put(w, ",", 1);
                        puts_w(w, absolute_name(w));
                }
                for (size_t i = 0; i < n; i++) {
                        g_autofree char *name = column_name(w, columns, i);
                        put(w, ",", 1);
                        put_csv_field(w, name);
                }
                puts_w(w, ",mark\n");
                break;
        case JC_RECORD_JSONL:
                w->json_names = g_new0(char *, n + 1);
                for (size_t i = 0; i < n; i++) {
                        g_autofree char *name = column_name(w, columns, i);
                        w->json_names[i] = json_string(name);
                }
                break;
        case JC_RECORD_TRACE:
                setup_trace(w, columns);
                break;
        }
        return w;
}

static char *joined_marks(char *const *marks)
{
        return marks && marks[0] ? g_strjoinv("; ", (char **) marks) : NULL;
}

/* Column I's value as written: a tier time in seconds since the start. */
static double value_of(const jc_record_writer *w, const double *values, size_t i)
{
        return w->is_time[i] ? seconds_since_start(w, (uint64_t) values[i]) : values[i];
}

static void write_csv(jc_record_writer *w, uint64_t time_ns, double t, const double *values, char *const *marks)
{
        put_number(w, t);
        if (absolute_name(w)) {
                put(w, ",", 1);
                put_absolute_time(w, time_ns, false);
        }
        for (size_t i = 0; i < w->n; i++) {
                put(w, ",", 1);
                if (!isnan(values[i]))
                        put_number(w, value_of(w, values, i));
        }
        put(w, ",", 1);
        g_autofree char *mark = joined_marks(marks);
        if (mark)
                put_csv_field(w, mark);
        put(w, "\n", 1);
}

static void write_jsonl(jc_record_writer *w, uint64_t time_ns, double t, const double *values, char *const *marks)
{
        puts_w(w, "{\"time_s\":");
        put_number(w, t);
        if (absolute_name(w)) {
                puts_w(w, ",\"");
                puts_w(w, absolute_name(w));
                puts_w(w, "\":");
                put_absolute_time(w, time_ns, true);
        }
        for (size_t i = 0; i < w->n; i++) {
                put(w, ",", 1);
                puts_w(w, w->json_names[i]);
                put(w, ":", 1);
                if (isfinite(values[i]))
                        put_number(w, value_of(w, values, i));
                else
                        puts_w(w, "null");
        }
        g_autofree char *mark = joined_marks(marks);
        if (mark) {
                g_autofree char *quoted = json_string(mark);
                puts_w(w, ",\"mark\":");
                puts_w(w, quoted);
        }
        puts_w(w, "}\n");
}

static void put_event(jc_record_writer *w, JsonNode *event)
{
        g_autofree char *text = jt_to_text(event, FALSE);
        if (w->any_event)
                put(w, ",\n", 2);
        puts_w(w, text);
        w->any_event = true;
        json_node_unref(event);
}

static JsonObject *new_event(const char *name, const char *phase, double ts_us)
{
        JsonObject *o = json_object_new();
        json_object_set_string_member(o, "name", name);
        json_object_set_string_member(o, "ph", phase);
        /* Whole microseconds: finer than any record, and no float noise. */
        json_object_set_int_member(o, "ts", (gint64) llround(ts_us));
        json_object_set_int_member(o, "pid", 1);
        json_object_set_int_member(o, "tid", 1);
        return o;
}

static JsonNode *object_node(JsonObject *o)
{
        JsonNode *node = json_node_new(JSON_NODE_OBJECT);
        json_node_take_object(node, o);
        return node;
}

/* A counter event per group whose values changed since it was last
 * written: a counter track holds its value until the next event, at the
 * time its tier read them (the record's for the fast tier). The tier time
 * columns are no tracks. */
static void write_trace(jc_record_writer *w, double t, const double *values, char *const *marks)
{
        double ts = t * 1e6;
        for (size_t i = 0; marks && marks[i]; i++) {
                JsonObject *o = new_event(marks[i], "i", ts);
                json_object_set_string_member(o, "s", "g");
                put_event(w, object_node(o));
        }
        for (guint g = 0; g < w->groups->len; g++) {
                JsonObject *args = NULL;
                bool changed = false;
                double at = ts;
                for (size_t i = 0; i < w->n; i++) {
                        if (w->group_of[i] != g || !isfinite(values[i]) || w->is_time[i])
                                continue;
                        if (w->time_col[i] >= 0 && isfinite(values[w->time_col[i]]))
                                at = value_of(w, values, (size_t) w->time_col[i]) * 1e6;
                        changed |= values[i] != w->last[i];
                        if (!args)
                                args = json_object_new();
                        /* Counters and frequencies as integers, loads as they are. */
                        if (values[i] == floor(values[i]) && fabs(values[i]) < 9007199254740992.0)
                                json_object_set_int_member(args, w->member[i], (gint64) values[i]);
                        else
                                json_object_set_double_member(args, w->member[i], values[i]);
                }
                if (!args)
                        continue;
                if (!changed) {
                        json_object_unref(args);
                        continue;
                }
                for (size_t i = 0; i < w->n; i++)
                        if (w->group_of[i] == g)
                                w->last[i] = values[i];
                const char *name = g_ptr_array_index(w->groups, g);
                JsonObject *o = new_event(*name ? name : "value", "C", at);
                json_object_set_object_member(o, "args", args);
                put_event(w, object_node(o));
        }
}

void jc_record_writer_record(jc_record_writer *w, uint64_t time_ns, const double *values, char *const *marks)
{
        double t = seconds_since_start(w, time_ns);
        switch (w->format) {
        case JC_RECORD_CSV:
                write_csv(w, time_ns, t, values, marks);
                break;
        case JC_RECORD_JSONL:
                write_jsonl(w, time_ns, t, values, marks);
                break;
        case JC_RECORD_TRACE:
                write_trace(w, t, values, marks);
                break;
        }
}

bool jc_record_writer_finish(jc_record_writer *w)
{
        if (w->format == JC_RECORD_TRACE)
                puts_w(w, "\n]}\n");
        if (!w->error && fflush(w->out) != 0)
                w->error = errno ? errno : EIO;
        errno = w->error;
        return w->error == 0;
}

int jc_record_writer_error(const jc_record_writer *w)
{
        return w->error;
}

void jc_record_writer_free(jc_record_writer *w)
{
        if (!w)
                return;
        g_strfreev(w->json_names);
        g_strfreev(w->member);
        g_free(w->group_of);
        if (w->groups)
                g_ptr_array_unref(w->groups);
        g_free(w->last);
        g_free(w->is_time);
        g_free(w->time_col);
        g_free(w);
}
