/* jetsonctl doctor's report: jetsonctl's checks, then jetsond's answer
 * per family, as text for people (wrapped at a fixed width, so it reads
 * the same in a log) or as docs/json/doctor.schema.json's document. */
#include <stdio.h>
#include <string.h>

#include "common/json_out.h"
#include "common/output.h"
#include "doctor.h"

#define WIDTH 100
#define NAME_WIDTH 15
#define INDENT (2 + 8 + 1 + NAME_WIDTH)  /* where a line's text starts */
#define SHOWN_SOURCES 3

/* TEXT from column INDENT, wrapped at WIDTH; FIRST_USED columns of the
 * first line are taken already. */
static void wrap(GString *out, const char *text, int first_used)
{
        int col = first_used;
        if (col < INDENT) {
                g_string_append_printf(out, "%*s", INDENT - col, "");
                col = INDENT;
        }
        bool line_start = true;
        g_auto(GStrv) words = g_strsplit(text, " ", -1);
        for (char **w = words; *w; w++) {
                int len = (int) g_utf8_strlen(*w, -1);
                if (!line_start && col + 1 + len > WIDTH) {
                        g_string_append_printf(out, "\n%*s", INDENT, "");
                        col = INDENT;
                        line_start = true;
                }
                if (!line_start) {
                        g_string_append_c(out, ' ');
                        col++;
                }
                g_string_append(out, *w);
                col += len;
                line_start = false;
        }
        g_string_append_c(out, '\n');
}

static void labelled(GString *out, bool color, const char *state, jc_color which, const char *name,
                     const char *text)
{
        g_autofree char *padded = g_strdup_printf("%-8s", state);
        g_string_append(out, "  ");
        jc_append_colored(out, color, which, padded);
        g_string_append_printf(out, " %-*s", NAME_WIDTH, name);
        wrap(out, text, 2 + 8 + 1 + (int) MAX(strlen(name), (size_t) NAME_WIDTH));
}

static jc_color check_color(jc_check_state s)
{
        return s == JC_CHECK_OK ? JC_COLOR_GREEN : s == JC_CHECK_WARNING ? JC_COLOR_YELLOW
               : s == JC_CHECK_ERROR ? JC_COLOR_RED : JC_COLOR_NONE;
}

/* What the board simply does not have is no fault. */
static bool expected_absence(const char *cause)
{
        return g_strcmp0(cause, "no-hardware") == 0 || g_strcmp0(cause, "not-jetson") == 0;
}

static char *sources_text(GVariant *rec, guint32 present)
{
        g_autofree const char **sources = NULL;
        g_autoptr(GVariant) v = g_variant_lookup_value(rec, "sources", G_VARIANT_TYPE_STRING_ARRAY);
        gsize n = 0;
        if (v)
                sources = g_variant_get_strv(v, &n);
        GString *s = g_string_new(NULL);
        const char *family = NULL;
        g_variant_lookup(rec, "family", "&s", &family);
        if (g_strcmp0(family, "board") != 0)
                g_string_append_printf(s, "%u key%s", present, present == 1 ? "" : "s");
        for (gsize i = 0; i < n && i < SHOWN_SOURCES; i++)
                g_string_append_printf(s, "%s%s", i ? ", " : s->len ? " from " : "from ", sources[i]);
        if (n > SHOWN_SOURCES)
                g_string_append_printf(s, " and %zu more", (size_t) (n - SHOWN_SOURCES));
        return g_string_free(s, FALSE);
}

void jc_doctor_print_text(const jc_doctor *d, bool color)
{
        g_autoptr(GString) out = g_string_new(NULL);
        g_string_append(out, "jetsonctl's checks:\n");
        for (guint i = 0; i < d->checks->len; i++) {
                const jc_check *k = g_ptr_array_index(d->checks, i);
                labelled(out, color, jc_check_state_name(k->state), check_color(k->state), k->name, k->detail);
                if (k->advice) {
                        g_autofree char *line = g_strdup_printf("what to do: %s", k->advice);
                        wrap(out, line, 0);
                }
        }
        if (!d->families) {
                fputs(out->str, stdout);
                return;
        }
        g_string_append(out, "\nWhat jetsond found, per family of keys:\n");
        unsigned counts[3] = { 0 }, expected = 0;
        GVariantIter it;
        GVariant *rec;
        g_variant_iter_init(&it, d->families);
        while ((rec = g_variant_iter_next_value(&it))) {
                const char *family = "?", *state = "?", *cause = NULL, *detail = NULL, *advice = NULL;
                guint32 present = 0;
                g_variant_lookup(rec, "family", "&s", &family);
                g_variant_lookup(rec, "state", "&s", &state);
                g_variant_lookup(rec, "present", "u", &present);
                g_variant_lookup(rec, "cause", "&s", &cause);
                g_variant_lookup(rec, "detail", "&s", &detail);
                g_variant_lookup(rec, "advice", "&s", &advice);
                bool found = strcmp(state, "found") == 0, partial = strcmp(state, "partial") == 0;
                counts[found ? 0 : partial ? 1 : 2]++;
                expected += !found && !partial && expected_absence(cause);
                jc_color which = found ? JC_COLOR_GREEN : partial ? JC_COLOR_YELLOW
                                 : expected_absence(cause) ? JC_COLOR_GREY : JC_COLOR_RED;
                g_autofree char *first = found || partial ? sources_text(rec, present) : NULL;
                g_autofree char *why = cause ? g_strdup_printf("why (%s): %s", cause, detail ? detail : "")
                                             : detail ? g_strdup(detail) : NULL;
                /* The first line: where it was found, else the reason. */
                labelled(out, color, state, which, family, first && *first ? first : why ? why : "");
                if (why && first && *first)
                        wrap(out, why, 0);
                if (advice) {
                        g_autofree char *line = g_strdup_printf("what to do: %s", advice);
                        wrap(out, line, 0);
                }
                g_variant_unref(rec);
        }
        g_string_append_printf(out, "\n%u found, %u partial, %u missing", counts[0], counts[1], counts[2]);
        if (expected)
                g_string_append_printf(out, " (%u of them parts this machine does not have)", expected);
        g_string_append(out, "\n");
        fputs(out->str, stdout);
}

/* ---- JSON --------------------------------------------------------------- */

static void add_member(JsonBuilder *b, GVariant *dict, const char *key, const GVariantType *type)
{
        g_autoptr(GVariant) v = dict ? g_variant_lookup_value(dict, key, type) : NULL;
        jc_json_add_variant(b, key, v);
}

static void add_strings(JsonBuilder *b, GVariant *dict, const char *key)
{
        g_autoptr(GVariant) v = g_variant_lookup_value(dict, key, G_VARIANT_TYPE_STRING_ARRAY);
        json_builder_set_member_name(b, key);
        json_builder_begin_array(b);
        gsize n = 0;
        g_autofree const char **items = v ? g_variant_get_strv(v, &n) : NULL;
        for (gsize i = 0; i < n; i++)
                json_builder_add_string_value(b, items[i]);
        json_builder_end_array(b);
}

void jc_doctor_print_json(const jc_doctor *d)
{
        JsonBuilder *b = json_builder_new();
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "jetsonctl_version");
        json_builder_add_string_value(b, JETSONCTL_VERSION);
        json_builder_set_member_name(b, "reached");
        json_builder_add_boolean_value(b, d->reached);
        json_builder_set_member_name(b, "checks");
        json_builder_begin_array(b);
        for (guint i = 0; i < d->checks->len; i++) {
                const jc_check *k = g_ptr_array_index(d->checks, i);
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "check");
                json_builder_add_string_value(b, k->name);
                json_builder_set_member_name(b, "state");
                json_builder_add_string_value(b, jc_check_state_name(k->state));
                json_builder_set_member_name(b, "detail");
                json_builder_add_string_value(b, k->detail);
                json_builder_set_member_name(b, "advice");
                if (k->advice)
                        json_builder_add_string_value(b, k->advice);
                else
                        json_builder_add_null_value(b);
                json_builder_end_object(b);
        }
        json_builder_end_array(b);
        json_builder_set_member_name(b, "service");
        if (d->service) {
                json_builder_begin_object(b);
                add_member(b, d->service, "version", G_VARIANT_TYPE_STRING);
                add_member(b, d->service, "uid", G_VARIANT_TYPE_UINT32);
                add_member(b, d->service, "mode", G_VARIANT_TYPE_STRING);
                add_member(b, d->service, "sysroot", G_VARIANT_TYPE_STRING);
                add_member(b, d->service, "pid_namespace", G_VARIANT_TYPE_UINT64);
                json_builder_end_object(b);
        } else {
                json_builder_add_null_value(b);
        }
        json_builder_set_member_name(b, "families");
        json_builder_begin_array(b);
        GVariantIter it;
        GVariant *rec;
        if (d->families)
                g_variant_iter_init(&it, d->families);
        while (d->families && (rec = g_variant_iter_next_value(&it))) {
                json_builder_begin_object(b);
                add_member(b, rec, "family", G_VARIANT_TYPE_STRING);
                add_member(b, rec, "state", G_VARIANT_TYPE_STRING);
                add_strings(b, rec, "keys");
                add_member(b, rec, "present", G_VARIANT_TYPE_UINT32);
                add_strings(b, rec, "sources");
                add_member(b, rec, "cause", G_VARIANT_TYPE_STRING);
                add_member(b, rec, "detail", G_VARIANT_TYPE_STRING);
                add_member(b, rec, "advice", G_VARIANT_TYPE_STRING);
                add_strings(b, rec, "paths");
                json_builder_end_object(b);
                g_variant_unref(rec);
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
        jc_json_print_builder(b);
}
