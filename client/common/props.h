/* Reading jetsond's objects: the properties of one interface as an a{sv}
 * dictionary, and the fan objects. Interfaces a board lacks are not
 * exported (no NVPModel on a PC), which these helpers report as "absent"
 * rather than as an error when the caller says it can do without. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "jetsonctl.h"

/* GetAll(IFACE) on PATH into *PROPS. With OPTIONAL, an interface or
 * object that is not exported gives *PROPS = NULL and success. Otherwise
 * the error is printed ("jetsonctl: DOING: ...", ABSENT for a missing
 * interface) and its exit code returned. */
int jc_props_fetch(jc_ctx *c, const char *path, const char *iface, bool optional, const char *doing,
                   const char *absent, GVariant **props);

/* Typed property lookups; the string one returns "" when absent. */
const char *jc_prop_str(GVariant *props, const char *name);
bool jc_prop_u32(GVariant *props, const char *name, uint32_t *v);
bool jc_prop_u64(GVariant *props, const char *name, uint64_t *v);
bool jc_prop_bool(GVariant *props, const char *name, bool *v);
bool jc_prop_double(GVariant *props, const char *name, double *v);

/* A numbered object of jetsond: a fan (/org/jetsond/Jetson1/fan/N, the N
 * of the fan.N.* keys) or a discrete GPU (.../dgpu/N, dgpu.N.*). */
typedef struct {
        unsigned index;
        char *path;
        GVariant *props; /* the properties of its interface */
} jc_object;

/* Every object with IFACE under PATH_PREFIX (JD_FAN_PATH_PREFIX, ...),
 * by index, from ObjectManager.GetManagedObjects(). */
int jc_objects_fetch(jc_ctx *c, const char *doing, const char *iface, const char *path_prefix, GPtrArray **out);
/* Every fan, by index. */
int jc_fans_fetch(jc_ctx *c, const char *doing, GPtrArray **fans);

/* The nvpmodel mode NAME of ID in the Modes property (a(us)), or NULL. */
const char *jc_mode_name(GVariant *nvp_props, uint32_t id);
