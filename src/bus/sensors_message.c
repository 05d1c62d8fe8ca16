#include "sensors_message.h"

#include <stdio.h>

/* (key, kind, label): the key as the sample spells it (temp.ZONE, or
 * power.RAIL for the power.RAIL.* keys), what the sensor is, and its own
 * name. Readers keep discovery order: thermal zones by number, then hwmon
 * channels; rails by device and channel. */
int jd_append_sensors(sd_bus_message *m, const jd_sample *s)
{
        int r = sd_bus_message_open_container(m, 'a', "(sss)");
        char key[64];
        for (size_t i = 0; r >= 0 && s->thermal && i < s->thermal->n; i++) {
                const jd_thermal_zone *z = &s->thermal->zones[i];
                snprintf(key, sizeof(key), "temp.%s", z->key);
                r = sd_bus_message_append(m, "(sss)", key, z->hwmon ? "hwmon" : "thermal_zone", z->type);
        }
        for (size_t i = 0; r >= 0 && s->power && i < s->power->n; i++) {
                const jd_rail *rail = &s->power->rails[i];
                snprintf(key, sizeof(key), "power.%s", rail->name);
                r = sd_bus_message_append(m, "(sss)", key, "rail", rail->name);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(m);
        return r;
}
