/* sd-bus messages into the exporter's model: a Sample signal or a
 * GetSnapshot reply ("ta{sv}"), or any a{sv} dictionary (properties). */
#pragma once

#include <systemd/sd-bus.h>

#include "exposition.h"

/* From the start of M: "t" then "a{sv}". NULL if M is malformed. */
exp_sample *sample_reader_read(sd_bus_message *m);
/* An "a{sv}" at M's current position; timestamp 0. NULL if malformed.
 * Values of types other than b, y, n, q, i, u, x, t, d and s are left
 * out, as keys a newer jetsond may add. */
exp_sample *sample_reader_read_dict(sd_bus_message *m);
/* The string KEY of S, else FALLBACK. */
const char *sample_reader_string(const exp_sample *s, const char *key, const char *fallback);
