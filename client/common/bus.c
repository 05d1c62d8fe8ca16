#include "bus.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "jetsond-client-bus.h"
#include "jetsond-dbus.h"
#include "polkit_agent.h"

/* Writes can wait for a person typing a password at a polkit prompt, and
 * for tools jetsond runs (swapoff can take long), so they get far more
 * than sd-bus's default 25 s. */
#define WRITE_TIMEOUT_USEC (300ULL * 1000000ULL)

/* --user: how to start jetsond differs (jc_error_text). */
static bool user_bus;

int jc_bus_open(jc_ctx *c)
{
        const char *what = c->address ? c->address : c->session ? "the session bus" : "the system bus";
        int r = jd_client_bus_open(c->address, c->session, &c->bus);
        user_bus = c->session && !c->address;
        if (r < 0) {
                const char *why = user_bus ? jd_session_bus_error(r) : NULL;
                fprintf(stderr, "jetsonctl: cannot connect to %s: %s\n", what, why ? why : strerror(-r));
                c->bus = sd_bus_flush_close_unref(c->bus);
                return JC_EXIT_FAILURE;
        }
        /* As systemctl does: a write may ask for a password, unless told
         * not to (--no-ask-password, or no terminal to ask on). The flag
         * only lets polkit ask; an agent must still be running. */
        sd_bus_set_allow_interactive_authorization(c->bus, c->ask_password);
        return JC_EXIT_OK;
}

bool jc_error_has_either(const sd_bus_error *error, const char *a, const char *b)
{
        return sd_bus_error_has_name(error, a) || sd_bus_error_has_name(error, b);
}

/* ---- sd-bus message -> GVariant ---------------------------------------- */

static GVariant *read_value(sd_bus_message *m);

/* The elements of the container M is in, until its end, into BUILDER. */
static bool read_elements(sd_bus_message *m, GVariantBuilder *builder)
{
        for (;;) {
                int end = sd_bus_message_at_end(m, false);
                if (end < 0)
                        return false;
                if (end)
                        return true;
                GVariant *v = read_value(m);
                if (!v)
                        return false;
                g_variant_builder_add_value(builder, v);
        }
}

static GVariant *read_container(sd_bus_message *m, char type, const char *contents)
{
        if (sd_bus_message_enter_container(m, type, contents) <= 0)
                return NULL;
        GVariant *result = NULL;
        if (type == SD_BUS_TYPE_VARIANT) {
                GVariant *inner = read_value(m);
                result = inner ? g_variant_new_variant(inner) : NULL;
        } else if (type == SD_BUS_TYPE_DICT_ENTRY) {
                GVariant *key = read_value(m);
                GVariant *value = key ? read_value(m) : NULL;
                if (key && value)
                        result = g_variant_new_dict_entry(key, value);
                else if (key)
                        g_variant_unref(g_variant_ref_sink(key));
        } else {
                /* sd-bus names the element type without the enclosing
                 * "(...)" for structs; GVariant wants the full type. */
                g_autofree char *sig = type == SD_BUS_TYPE_ARRAY ? g_strconcat("a", contents, NULL)
                                                                  : g_strconcat("(", contents, ")", NULL);
                if (!g_variant_type_string_is_valid(sig)) {
                        sd_bus_message_exit_container(m);
                        return NULL;
                }
                GVariantBuilder builder;
                g_variant_builder_init(&builder, G_VARIANT_TYPE(sig));
                if (read_elements(m, &builder))
                        result = g_variant_builder_end(&builder);
                else
                        g_variant_builder_clear(&builder);
        }
        if (sd_bus_message_exit_container(m) < 0 && result) {
                g_variant_unref(g_variant_ref_sink(result));
                result = NULL;
        }
        return result;
}

/* One complete value; a floating reference, NULL on error. */
static GVariant *read_value(sd_bus_message *m)
{
        char type;
        const char *contents = NULL;
        if (sd_bus_message_peek_type(m, &type, &contents) <= 0)
                return NULL;
        union {
                uint8_t y;
                int b;
                int16_t n;
                uint16_t q;
                int32_t i;
                uint32_t u;
                int64_t x;
                uint64_t t;
                double d;
                const char *s;
        } v;
        switch (type) {
        case SD_BUS_TYPE_ARRAY:
        case SD_BUS_TYPE_STRUCT:
        case SD_BUS_TYPE_DICT_ENTRY:
        case SD_BUS_TYPE_VARIANT:
                return read_container(m, type, contents);
        case SD_BUS_TYPE_UNIX_FD:
                return NULL; /* jetsond never sends file descriptors */
        default:
                break;
        }
        if (sd_bus_message_read_basic(m, type, &v) <= 0)
                return NULL;
        switch (type) {
        case SD_BUS_TYPE_BYTE: return g_variant_new_byte(v.y);
        case SD_BUS_TYPE_BOOLEAN: return g_variant_new_boolean(v.b);
        case SD_BUS_TYPE_INT16: return g_variant_new_int16(v.n);
        case SD_BUS_TYPE_UINT16: return g_variant_new_uint16(v.q);
        case SD_BUS_TYPE_INT32: return g_variant_new_int32(v.i);
        case SD_BUS_TYPE_UINT32: return g_variant_new_uint32(v.u);
        case SD_BUS_TYPE_INT64: return g_variant_new_int64(v.x);
        case SD_BUS_TYPE_UINT64: return g_variant_new_uint64(v.t);
        case SD_BUS_TYPE_DOUBLE: return g_variant_new_double(v.d);
        case SD_BUS_TYPE_STRING: return g_variant_new_string(v.s);
        case SD_BUS_TYPE_OBJECT_PATH: return g_variant_new_object_path(v.s);
        case SD_BUS_TYPE_SIGNATURE: return g_variant_new_signature(v.s);
        default: return NULL;
        }
}

GVariant *jc_message_to_variant(sd_bus_message *m)
{
        GVariantBuilder builder;
        g_variant_builder_init(&builder, G_VARIANT_TYPE_TUPLE);
        if (!read_elements(m, &builder)) {
                g_variant_builder_clear(&builder);
                return NULL;
        }
        GVariant *result = g_variant_ref_sink(g_variant_builder_end(&builder));
        /* Serialize now: then strings borrowed ("&s") from any child stay
         * valid for as long as RESULT lives, even after the child is
         * unreferenced (which GVariant only promises for serialized
         * values). */
        (void) g_variant_get_data(result);
        return result;
}

/* ---- calls ---------------------------------------------------------------- */

GVariant *jc_callv(jc_ctx *c, const char *path, const char *iface, const char *method, bool write,
                   sd_bus_error *error, int *r, const char *types, va_list ap)
{
        sd_bus_message *call = NULL, *reply = NULL;
        GVariant *result = NULL;
        *r = sd_bus_message_new_method_call(c->bus, &call, JD_BUS_NAME, path, iface, method);
        if (*r >= 0 && types && *types)
                *r = sd_bus_message_appendv(call, types, ap);
        if (*r >= 0)
                *r = sd_bus_call(c->bus, call, write ? WRITE_TIMEOUT_USEC : 0, error, &reply);
        if (*r >= 0) {
                result = jc_message_to_variant(reply);
                if (!result) {
                        *r = -EBADMSG;
                        sd_bus_error_set(error, SD_BUS_ERROR_INCONSISTENT_MESSAGE, "jetsond sent a malformed reply");
                }
        }
        sd_bus_message_unref(call);
        sd_bus_message_unref(reply);
        return result;
}

GVariant *jc_call(jc_ctx *c, const char *path, const char *iface, const char *method, bool write,
                  sd_bus_error *error, int *r, const char *types, ...)
{
        va_list ap;
        va_start(ap, types);
        GVariant *result = jc_callv(c, path, iface, method, write, error, r, types, ap);
        va_end(ap);
        return result;
}

GVariant *jc_write_callv(jc_ctx *c, const char *path, const char *iface, const char *method, sd_bus_error *error,
                         int *r, const char *types, va_list ap)
{
        GPid agent = jc_polkit_agent_start(c);
        GVariant *result = jc_callv(c, path, iface, method, true, error, r, types, ap);
        jc_polkit_agent_stop(agent);
        return result;
}

GVariant *jc_write_call(jc_ctx *c, const char *path, const char *iface, const char *method, sd_bus_error *error,
                        int *r, const char *types, ...)
{
        va_list ap;
        va_start(ap, types);
        GVariant *result = jc_write_callv(c, path, iface, method, error, r, types, ap);
        va_end(ap);
        return result;
}

int jc_write(jc_ctx *c, const char *path, const char *iface, const char *method, const char *doing,
             const char *action, const char *absent, GVariant **reply, const char *types, ...)
{
        va_list ap;
        va_start(ap, types);
        int ret = jc_writev(c, path, iface, method, doing, action, absent, reply, types, ap);
        va_end(ap);
        return ret;
}

int jc_writev(jc_ctx *c, const char *path, const char *iface, const char *method, const char *doing,
              const char *action, const char *absent, GVariant **reply, const char *types, va_list ap)
{
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = 0;
        GVariant *result = jc_write_callv(c, path, iface, method, &error, &r, types, ap);
        if (!result) {
                int ret = jc_report_error(doing, &error, r, action, absent);
                sd_bus_error_free(&error);
                return ret;
        }
        if (reply)
                *reply = result;
        else
                g_variant_unref(result);
        return JC_EXIT_OK;
}

GVariant *jc_get_all(jc_ctx *c, const char *path, const char *iface, sd_bus_error *error, int *r)
{
        g_autoptr(GVariant) reply = jc_call(c, path, "org.freedesktop.DBus.Properties", "GetAll", false, error, r,
                                            "s", iface);
        if (!reply)
                return NULL;
        if (!g_variant_is_of_type(reply, G_VARIANT_TYPE("(a{sv})"))) {
                *r = -EBADMSG;
                sd_bus_error_set(error, SD_BUS_ERROR_INCONSISTENT_MESSAGE, "unexpected GetAll() reply");
                return NULL;
        }
        return g_variant_get_child_value(reply, 0);
}

/* ---- errors ------------------------------------------------------------- */

bool jc_error_is_not_running(const sd_bus_error *error)
{
        return jc_error_has_either(error, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER);
}

/* D-Bus messages may span lines (RestoreDefaults' Failed holds one per
 * step); jetsonctl reports every error on one line. */
static char *one_line(const char *message)
{
        g_auto(GStrv) lines = g_strsplit(message, "\n", -1);
        g_autoptr(GString) out = g_string_new(NULL);
        for (char **l = lines; *l; l++) {
                g_strstrip(*l);
                if (!**l)
                        continue;
                if (out->len)
                        g_string_append(out, "; ");
                g_string_append(out, *l);
        }
        return g_string_free(g_steal_pointer(&out), FALSE);
}

char *jc_error_text(const char *doing, const sd_bus_error *error, int r, const char *action, const char *absent,
                    int *exit_code)
{
        const char *raw = error && error->message && *error->message ? error->message : strerror(r < 0 ? -r : EIO);
        g_autofree char *message = one_line(raw);

        *exit_code = JC_EXIT_FAILURE;
        if (jc_error_is_not_running(error))
                return g_strdup(user_bus ? "your jetsond is not running on the session bus (start it with: "
                                           "systemctl --user start jetsond)"
                                         : "jetsond is not running (start it with: systemctl start jetsond)");
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_ACCESS_DENIED)) {
                *exit_code = JC_EXIT_NOT_AUTHORIZED;
                if (action)
                        return g_strdup_printf("%s: not authorized (%s)", doing, action);
                return g_strdup_printf("%s: not authorized: %s", doing, message);
        }
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED)) {
                *exit_code = JC_EXIT_NOT_AUTHORIZED;
                return g_strdup_printf("%s: authentication required (%s); run jetsonctl on a terminal without "
                                       "--no-ask-password, or allow it with a polkit rule",
                                       doing, action ? action : message);
        }
        /* The interface or object the board lacks (a method call on a
         * missing interface is UnknownMethod): the same line from every
         * command, without what it was doing. */
        if (absent && (jc_error_has_either(error, SD_BUS_ERROR_UNKNOWN_INTERFACE, SD_BUS_ERROR_UNKNOWN_OBJECT) ||
                       sd_bus_error_has_name(error, SD_BUS_ERROR_UNKNOWN_METHOD)))
                return g_strdup(absent);
        if (sd_bus_error_has_name(error, SD_BUS_ERROR_INVALID_ARGS)) {
                /* jetsond refused an argument jetsonctl could not check
                 * (e.g. a swap size above the free disk space): the
                 * command line has to change, as for a usage error. */
                *exit_code = JC_EXIT_USAGE;
                return g_strdup_printf("%s: %s", doing, message);
        }
        if (jc_error_has_either(error, SD_BUS_ERROR_NO_REPLY, SD_BUS_ERROR_TIMEOUT) || r == -ETIMEDOUT)
                return g_strdup_printf("%s: jetsond did not answer in time", doing);
        return g_strdup_printf("%s: %s", doing, message);
}

int jc_report_error(const char *doing, const sd_bus_error *error, int r, const char *action, const char *absent)
{
        int exit_code;
        g_autofree char *text = jc_error_text(doing, error, r, action, absent, &exit_code);
        fprintf(stderr, "jetsonctl: %s\n", text);
        return exit_code;
}
