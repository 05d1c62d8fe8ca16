/* The JSON documents of jetsonctl's --json, one builder per object so
 * every command names a value the same way (docs/json.md, the schemas in
 * docs/json/). Absent is null, never "" or 4294967295; sizes say their
 * unit in the name; booleans are booleans. */
#pragma once

#include <json-glib/json-glib.h>

#include "props.h"

/* The Board interface's properties (board, status.board). */
JsonNode *jc_doc_board(GVariant *props);
/* NVPModel (nvpmodel, status.nvpmodel); NULL PROPS gives null. */
JsonNode *jc_doc_nvpmodel(GVariant *props);
/* JetsonClocks (clocks, status.jetson_clocks); NULL PROPS gives null. */
JsonNode *jc_doc_clocks(GVariant *props);
/* The integrated GPU's controls (gpu); NULL PROPS gives null. */
JsonNode *jc_doc_gpu(GVariant *props);
/* One fan (fan list, status.fans). */
JsonNode *jc_doc_fan(const jc_object *fan);
/* One discrete GPU's object (status.dgpus). */
JsonNode *jc_doc_dgpu(const jc_object *gpu);
/* Memory: swap areas and totals (swap). */
JsonNode *jc_doc_swap(GVariant *props);

/* Member NAME of OBJECT, or NULL when OBJECT is not an object or lacks it. */
JsonNode *jc_doc_member(JsonNode *object, const char *name);

/* A write command's result: every member of AFTER whose value differs
 * from BEFORE's (both objects built by the functions above; NULL for an
 * object that is not there), as {"what": PREFIX.member, "from", "to"}
 * appended to CHANGES, skipping the members named in IGNORE (measured
 * values such as rpm, which move on their own). */
void jc_doc_add_changes(JsonArray *changes, const char *prefix, JsonNode *before, JsonNode *after,
                        const char *const *ignore);
/* A write command's --json result: {"changes": [...]} from one object's
 * BEFORE and AFTER documents as jc_doc_add_changes() compares them. */
void jc_doc_print_result(const char *prefix, JsonNode *before, JsonNode *after, const char *const *ignore);
