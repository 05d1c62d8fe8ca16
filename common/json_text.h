/* JSON text from a json-glib tree, with numbers written the way people
 * and scripts expect: a double as the shortest decimal that reads back as
 * the same double (34.7, not json-glib 1.4's 34.700000000000003), an
 * integral double still with ".0" so it stays recognisably a double, and
 * NaN or an infinity (which JSON cannot hold) as null.
 *
 * Generic code with no knowledge of jetsond: the daemon's --once --json
 * and the clients use it alike, so their documents agree to the digit. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

/* ROOT as text: on one line, or indented by two spaces with PRETTY. */
char *jt_to_text(JsonNode *root, gboolean pretty);
/* D as the shortest round-trip decimal into BUF (G_ASCII_DTOSTR_BUF_SIZE
 * bytes); "null" for NaN and infinities. */
const char *jt_format_double(char *buf, double d);
