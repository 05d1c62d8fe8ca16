/* The sample as D-Bus data: value lists appended as one a{sv}. */
#pragma once

#include <systemd/sd-bus.h>

#include "values.h"

int jd_append_values(sd_bus_message *m, const jd_values *const *lists, size_t n_lists);
