/* The D-Bus side of jetsonctl: connecting, calling jetsond, reading
 * replies into GVariants, and turning D-Bus errors into one line and an
 * exit code. */
#pragma once

#include <glib.h>
#include <stdarg.h>
#include <systemd/sd-bus.h>

#include "jetsonctl.h"

/* Connects as the global options say (--address, --session, else the
 * system bus). Prints the error and returns an exit code on failure, 0 on
 * success. */
int jc_bus_open(jc_ctx *c);

/* Reads every remaining argument of M into a tuple GVariant (floating
 * reference sunk: the caller owns it). NULL on a malformed message. */
GVariant *jc_message_to_variant(sd_bus_message *m);

/* Calls METHOD on jetsond. With WRITE the call may ask polkit for a
 * password (if c->ask_password) and gets a long timeout. Returns the
 * reply's arguments as a tuple, or NULL with *ERROR set (free with
 * sd_bus_error_free) and *R the negative errno. */
GVariant *jc_call(jc_ctx *c, const char *path, const char *iface, const char *method, bool write,
                  sd_bus_error *error, int *r, const char *types, ...);

GVariant *jc_callv(jc_ctx *c, const char *path, const char *iface, const char *method, bool write,
                   sd_bus_error *error, int *r, const char *types, va_list ap);

/* A call that changes something, with a text polkit agent while it runs
 * (polkit_agent.h): the reply's arguments, or NULL with *ERROR and *R set
 * as jc_call() does. */
GVariant *jc_write_call(jc_ctx *c, const char *path, const char *iface, const char *method, sd_bus_error *error,
                        int *r, const char *types, ...);
GVariant *jc_write_callv(jc_ctx *c, const char *path, const char *iface, const char *method, sd_bus_error *error,
                         int *r, const char *types, va_list ap);

/* A call that changes something (polkit ACTION): on failure prints the
 * error as jc_report_error() does and returns the exit code; on success
 * stores the reply in *REPLY if REPLY is not NULL, and returns 0. */
int jc_write(jc_ctx *c, const char *path, const char *iface, const char *method, const char *doing,
             const char *action, const char *absent, GVariant **reply, const char *types, ...);
int jc_writev(jc_ctx *c, const char *path, const char *iface, const char *method, const char *doing,
              const char *action, const char *absent, GVariant **reply, const char *types, va_list ap);

/* Properties.GetAll(IFACE) on PATH as an a{sv} dictionary, or NULL. */
GVariant *jc_get_all(jc_ctx *c, const char *path, const char *iface, sd_bus_error *error, int *r);

/* Prints "jetsonctl: DOING: <what went wrong>" for a failed call and
 * returns the exit code (see JC_EXIT_*). ACTION is the polkit action the
 * call needs (NULL for reads); ABSENT, if not NULL, is what to say when
 * the interface or object is not exported (e.g. "this board has no fan"),
 * printed alone: "jetsonctl: this board has no fan". */
int jc_report_error(const char *doing, const sd_bus_error *error, int r, const char *action, const char *absent);
/* The same line without "jetsonctl: " (for jetsonctl top's status line),
 * with the exit code in *EXIT_CODE; free with g_free. */
char *jc_error_text(const char *doing, const sd_bus_error *error, int r, const char *action, const char *absent,
                    int *exit_code);

/* True if ERROR is named A or B (sd_bus_error_has_names() is libsystemd
 * 247; the floor is 237). */
bool jc_error_has_either(const sd_bus_error *error, const char *a, const char *b);

/* True if the error means jetsond is not on the bus. */
bool jc_error_is_not_running(const sd_bus_error *error);
