/* jetsonctl status's GPU processes: the text rows (nvitop's list) and the
 * --json "commands" member, the whole command lines jetsonctl read with
 * the caller's rights (common/proc_strings.h). */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <stdbool.h>

#include "common/sample.h"

/* A row per process and GPU, largest GPU memory first. */
void jc_status_process_rows(GString *out, const jc_sample *s, bool color);
/* {"PID": "command line", ...} by PID, for the processes whose command
 * line was read: a new node. */
JsonNode *jc_status_commands_doc(const jc_sample *s);
