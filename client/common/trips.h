/* Thermal trip points as the sample carries them (temp_trip.ZONE.throttle,
 * temp_trip.ZONE.critical next to temp.ZONE): how close each zone is to
 * the point where the kernel throttles or the board shuts down, said the
 * same way by status, top and the throttle summary. */
#pragma once

#include <json-glib/json-glib.h>
#include <stdbool.h>

#include "common/sample.h"

/* ZONE's throttle and critical trip points (°C); false each when absent. */
bool jc_trip_throttle(const jc_sample *s, const char *zone, double *c);
bool jc_trip_critical(const jc_sample *s, const char *zone, double *c);
/* ZONE's trip points: " (trip 99.0, crit 104.5)", " (crit 104.5)" or ""
 * after a temperature (status); SHORT_FORM "trip 99/104.5", "crit 104.5"
 * or "" (top's column). */
char *jc_trip_text(const jc_sample *s, const char *zone, bool short_form);
/* Where ZONE's colour turns warm and hot: 10 °C below its throttle trip
 * (or critical one) and at it; 70 and 85 °C for a zone without trips. */
void jc_trip_bands(const jc_sample *s, const char *zone, double *warm, double *hot);
/* The zone nearest to a trip point (its throttle trip, or its critical
 * one where it has none): "gpu 78.5°C, 6.5°C below its throttle trip
 * 85.0°C" (or "... above ..."); NULL when no zone has a trip point. */
char *jc_trip_nearest(const jc_sample *s);
/* {ZONE: {"temp_c", "throttle_trip_c", "critical_trip_c"}} for every
 * temp.ZONE of the sample, the trips only where the zone has them. */
JsonNode *jc_trip_doc(const jc_sample *s);
