/* jetsonctl doctor: why a value is missing (docs/doctor.md).
 *
 * jetsond answers for what it looked for (Manager.Diagnose: per family of
 * sample keys, what it found and where, and why the rest is missing);
 * jetsonctl adds what only a client can tell: whether there is a bus
 * socket, whether jetsond runs or D-Bus can start it, whether it is the
 * same version, the caller's groups and polkit, and the caller's PID
 * namespace. It reads nothing of the board itself, so it works in a
 * container that has only the bus socket. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <systemd/sd-bus.h>

#include "jetsonctl.h"

typedef enum { JC_CHECK_OK, JC_CHECK_INFO, JC_CHECK_WARNING, JC_CHECK_ERROR } jc_check_state;

/* One of jetsonctl's own checks. */
typedef struct {
        const char *name;             /* "bus", "jetsond", "version", "access", "polkit", "pid_namespace", "tegrastats" */
        jc_check_state state;
        char *detail;
        char *advice;                 /* NULL: nothing to do */
} jc_check;

typedef struct {
        GPtrArray *checks;            /* jc_check * */
        GVariant *service;            /* Diagnose's a{sv}, NULL when not asked */
        GVariant *families;           /* Diagnose's aa{sv}, NULL when not asked */
        bool reached;                 /* jetsond answered Diagnose */
} jc_doctor;

void jc_doctor_init(jc_doctor *d);
void jc_doctor_clear(jc_doctor *d);
void jc_doctor_add(jc_doctor *d, const char *name, jc_check_state state, const char *advice, const char *fmt, ...)
        G_GNUC_PRINTF(5, 6);
const char *jc_check_state_name(jc_check_state s);

/* doctor_checks.c. Each adds its check(s) to D; false when the next step
 * cannot follow (no bus, no jetsond). */
/* Connects as C says (--address, --user, else the system bus), first
 * looking whether the bus's socket is there; C->bus on success. */
bool jc_doctor_check_bus(jc_ctx *c, jc_doctor *d);
/* Whether jetsond owns its name, or D-Bus can start it. */
bool jc_doctor_check_service(jc_ctx *c, jc_doctor *d);
/* Calls Manager.Diagnose (an older jetsond lacks it: said, false). */
bool jc_doctor_diagnose(jc_ctx *c, jc_doctor *d);
/* After Diagnose: the versions, the caller's access (groups, polkit), its
 * PID namespace, and how tegrastats takes an unknown L4T. */
void jc_doctor_check_client(jc_ctx *c, jc_doctor *d);

/* doctor_report.c: the report as text or as the JSON document of
 * docs/json/doctor.schema.json. */
void jc_doctor_print_text(const jc_doctor *d, bool color);
void jc_doctor_print_json(const jc_doctor *d);
