/* The size a message has on the wire (header fields and body, with the
 * D-Bus alignment), computed from its contents: sd-bus does not say how
 * many bytes the bus read for a reply. */
#pragma once

#include <stddef.h>
#include <systemd/sd-bus.h>

/* The bytes of M as a message bus would send it (rewinds M); 0 if its
 * contents cannot be walked. */
size_t wire_size(sd_bus_message *m);
/* OFF rounded up to A; the alignment D-Bus gives a value of type T. */
size_t align_to(size_t off, size_t a);
size_t type_alignment(char t);
