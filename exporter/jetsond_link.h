/* Following jetsond on the bus (see jetsond_link.c). */
#pragma once

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "page.h"

typedef struct jetsond_link jetsond_link;

/* Watches jetsond's name, samples and NVPModel properties on BUS (attached
 * to EVENT) and keeps STORE current. Exits EVENT with 1 if the bus
 * connection is lost. NULL if the matches cannot be installed. */
jetsond_link *jetsond_link_new(sd_bus *bus, sd_event *event, page_store *store);
void jetsond_link_free(jetsond_link *l);
