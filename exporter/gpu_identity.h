/* The discrete GPUs' identities from jetsond's objects: the labels
 * (UUID, PCI bus ID, model name, driver version) that /metrics/dcgm puts on
 * each GPU's series, as dcgm-exporter does. */
#pragma once

#include <glib.h>
#include <systemd/sd-bus.h>

/* From a GetManagedObjects reply ("a{oa{sa{sv}}}") on jetsond's root: an
 * exp_gpu_identity for each /org/jetsond/Jetson1/dgpu/N object with the
 * DiscreteGpu interface, by index. NULL if M is malformed. */
GPtrArray *gpu_identity_read_objects(sd_bus_message *m);
