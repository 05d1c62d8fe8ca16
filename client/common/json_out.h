/* JSON output through json-glib: every --json document is built as a
 * JsonNode and printed by common/json_text.c (shortest numbers), never by
 * concatenating text. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

/* A D-Bus value as JSON: numbers, booleans and strings as such, arrays as
 * arrays, dictionaries with string keys as objects, structs as arrays.
 * uint64 values above INT64_MAX do not occur in jetsond's data. */
JsonNode *jc_json_from_variant(GVariant *value);
/* Adds member NAME = VALUE (a variant, possibly NULL: then null). */
void jc_json_add_variant(JsonBuilder *b, const char *name, GVariant *value);
/* A property of the a{sv} dictionary PROPS as member NAME (null if absent). */
void jc_json_add_property(JsonBuilder *b, const char *name, GVariant *props, const char *property);
/* --json=pretty: every document indented. */
extern gboolean jc_json_pretty;
/* Prints ROOT on one line to stdout followed by a newline (JSON lines);
 * with PRETTY (or jc_json_pretty) indented. Frees nothing. */
void jc_json_print(JsonNode *root, gboolean pretty);
/* jc_json_print of the builder's root, then unrefs the builder. */
void jc_json_print_builder(JsonBuilder *b);
