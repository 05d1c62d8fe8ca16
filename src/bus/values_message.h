/* The sample as D-Bus data: jd_values appended as a{sv}. */
#pragma once

#include <systemd/sd-bus.h>

#include "values.h"

int jd_append_values(sd_bus_message *m, const jd_values *values);
