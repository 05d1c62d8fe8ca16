/* jetsonctl doctor's own checks: the bus socket, jetsond on the bus, the
 * Diagnose call, the versions, the caller's access and PID namespace.
 * Only the bus and the caller's own process are looked at (its groups,
 * /etc/group, /proc/self/ns/pid): nothing of the board. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bus.h"
#include "doctor.h"
#include "jetsond-client-bus.h"
#include "jetsond-dbus.h"
#include "tegrastats/ts_format.h"

#define DEFAULT_SYSTEM_BUS "unix:path=/run/dbus/system_bus_socket"
#define JETSON_GROUP "jetson"
#define POLKIT_NAME "org.freedesktop.PolicyKit1"

void jc_doctor_init(jc_doctor *d)
{
        memset(d, 0, sizeof(*d));
        d->checks = g_ptr_array_new();
}

void jc_doctor_clear(jc_doctor *d)
{
        for (guint i = 0; i < d->checks->len; i++) {
                jc_check *k = g_ptr_array_index(d->checks, i);
                g_free(k->detail);
                g_free(k->advice);
                g_free(k);
        }
        g_ptr_array_unref(d->checks);
        if (d->service)
                g_variant_unref(d->service);
        if (d->families)
                g_variant_unref(d->families);
}

void jc_doctor_add(jc_doctor *d, const char *name, jc_check_state state, const char *advice, const char *fmt, ...)
{
        jc_check *k = g_new0(jc_check, 1);
        k->name = name;
        k->state = state;
        va_list ap;
        va_start(ap, fmt);
        k->detail = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        k->advice = g_strdup(advice);
        g_ptr_array_add(d->checks, k);
}

const char *jc_check_state_name(jc_check_state s)
{
        static const char *const names[] = { "ok", "info", "warning", "error" };
        return names[s];
}

/* ---- the bus ------------------------------------------------------------ */

/* The socket of the first unix:path= entry of a D-Bus ADDRESS (its
 * %-escapes undone); NULL for another transport. */
static char *socket_path(const char *address)
{
        g_auto(GStrv) entries = g_strsplit(address, ";", -1);
        for (char **e = entries; *e; e++) {
                if (!g_str_has_prefix(*e, "unix:"))
                        continue;
                g_auto(GStrv) pairs = g_strsplit(*e + strlen("unix:"), ",", -1);
                for (char **p = pairs; *p; p++)
                        if (g_str_has_prefix(*p, "path="))
                                return g_uri_unescape_string(*p + strlen("path="), NULL);
                return NULL;
        }
        return NULL;
}

/* The address the connection will use, as sd-bus picks it. */
static char *bus_address(const jc_ctx *c)
{
        if (c->address)
                return g_strdup(c->address);
        if (c->session) {
                const char *a = g_getenv("DBUS_SESSION_BUS_ADDRESS");
                const char *run = g_getenv("XDG_RUNTIME_DIR");
                return a && *a ? g_strdup(a) : run && *run ? g_strdup_printf("unix:path=%s/bus", run) : NULL;
        }
        const char *a = g_getenv("DBUS_SYSTEM_BUS_ADDRESS");
        return g_strdup(a && *a ? a : DEFAULT_SYSTEM_BUS);
}

static const char ADVICE_SOCKET[] =
        "jetsonctl needs the system bus socket and nothing else (no /sys, no privileges): in a container, "
        "bind-mount the host's read-only, e.g. podman run -v /run/dbus/system_bus_socket:/run/dbus/"
        "system_bus_socket:ro; on the host itself, start D-Bus (systemctl start dbus)";

bool jc_doctor_check_bus(jc_ctx *c, jc_doctor *d)
{
        const char *what = c->address ? "the bus" : c->session ? "the session bus" : "the system bus";
        g_autofree char *address = bus_address(c);
        g_autofree char *path = address ? socket_path(address) : NULL;
        const char *advice = c->address ? NULL
                             : c->session ? "log in to a session that has a D-Bus session bus (or set "
                                            "DBUS_SESSION_BUS_ADDRESS), or use the system service: jetsonctl without --user"
                                          : ADVICE_SOCKET;
        struct stat st;
        if (path && stat(path, &st) < 0) {
                int err = errno;
                if (err == ENOENT)
                        jc_doctor_add(d, "bus", JC_CHECK_ERROR, advice, "no socket for %s at %s", what, path);
                else
                        jc_doctor_add(d, "bus", JC_CHECK_ERROR,
                                      err == EACCES ? "the socket or a directory above it is not open to this user: "
                                                      "ask the administrator (a bind mount keeps the host's modes)"
                                                    : advice,
                                      "cannot reach %s's socket %s as uid %u: %s", what, path, (unsigned) geteuid(),
                                      g_strerror(err));
                return false;
        }
        if (path && !S_ISSOCK(st.st_mode)) {
                jc_doctor_add(d, "bus", JC_CHECK_ERROR, advice, "%s is not a socket (%s's address is %s)", path, what,
                              address);
                return false;
        }
        int r = jd_client_bus_open(c->address, c->session, &c->bus);
        if (r < 0) {
                const char *why = c->session && !c->address ? jd_session_bus_error(r) : NULL;
                if (!why && r == -ECONNREFUSED)
                        why = "nothing listens on it (is dbus-daemon running?)";
                jc_doctor_add(d, "bus", JC_CHECK_ERROR, advice, "cannot connect to %s (%s): %s", what,
                              address ? address : "no address", why ? why : g_strerror(-r));
                c->bus = sd_bus_flush_close_unref(c->bus);
                return false;
        }
        if (path)
                jc_doctor_add(d, "bus", JC_CHECK_OK, NULL, "connected to %s at %s", what, path);
        else
                jc_doctor_add(d, "bus", JC_CHECK_OK, NULL, "connected to %s (%s)", what, address ? address : "default");
        return true;
}

/* ---- jetsond on the bus ----------------------------------------------- */

static int bus_call(sd_bus *bus, const char *method, sd_bus_message **reply, const char *types, const char *arg)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = arg ? sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                         method, &e, reply, types, arg)
                    : sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                         method, &e, reply, NULL);
        sd_bus_error_free(&e);
        return r;
}

/* Whether NAME has an owner (1), has none (0), or the bus would not say. */
static int name_has_owner(sd_bus *bus, const char *name)
{
        sd_bus_message *reply = NULL;
        int owned = 0;
        int r = bus_call(bus, "NameHasOwner", &reply, "s", name);
        if (r >= 0)
                r = sd_bus_message_read(reply, "b", &owned);
        sd_bus_message_unref(reply);
        return r < 0 ? r : owned != 0;
}

static int activatable(sd_bus *bus, const char *name)
{
        sd_bus_message *reply = NULL;
        char **names = NULL;
        int r = bus_call(bus, "ListActivatableNames", &reply, NULL, NULL);
        if (r >= 0)
                r = sd_bus_message_read_strv(reply, &names);
        sd_bus_message_unref(reply);
        if (r < 0)
                return r;
        bool found = names && g_strv_contains((const char *const *) names, name);
        g_strfreev(names);
        return found;
}

static const char *start_advice(const jc_ctx *c)
{
        return c->session && !c->address ? "start it: systemctl --user start jetsond (or run jetsond --user)"
                                         : "start it: sudo systemctl start jetsond (and enable it: sudo systemctl "
                                           "enable jetsond)";
}

bool jc_doctor_check_service(jc_ctx *c, jc_doctor *d)
{
        int owned = name_has_owner(c->bus, JD_BUS_NAME);
        if (owned > 0)
                return true;    /* said with Diagnose's answer */
        int can_start = activatable(c->bus, JD_BUS_NAME);
        if (can_start > 0) {
                jc_doctor_add(d, "jetsond", JC_CHECK_INFO, NULL,
                              "not running; D-Bus starts it on the first call (activation), as now");
                return true;
        }
        jc_doctor_add(d, "jetsond", JC_CHECK_ERROR, start_advice(c),
                      "jetsond is not running (no owner of %s on this bus) and D-Bus cannot start it (no "
                      "activation file for it)", JD_BUS_NAME);
        return false;
}

/* Manager.Version of a jetsond without Diagnose, NULL when it has none. */
static char *old_version(sd_bus *bus)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        char *v = NULL;
        if (sd_bus_get_property_string(bus, JD_BUS_NAME, JD_OBJECT_PATH, JD_IFACE_MANAGER, "Version", &e, &v) < 0)
                v = NULL;
        sd_bus_error_free(&e);
        char *out = g_strdup(v);
        free(v);
        return out;
}

bool jc_doctor_diagnose(jc_ctx *c, jc_doctor *d)
{
        sd_bus_error e = SD_BUS_ERROR_NULL;
        int r = 0;
        g_autoptr(GVariant) reply = jc_call(c, JD_OBJECT_PATH, JD_IFACE_MANAGER, "Diagnose", false, &e, &r, NULL);
        if (reply && g_variant_is_of_type(reply, G_VARIANT_TYPE("(a{sv}aa{sv})"))) {
                g_variant_get(reply, "(@a{sv}@aa{sv})", &d->service, &d->families);
                d->reached = true;
                unsigned uid = 0;
                const char *mode = "system", *sysroot = "/";
                g_variant_lookup(d->service, "uid", "u", &uid);
                g_variant_lookup(d->service, "mode", "&s", &mode);
                g_variant_lookup(d->service, "sysroot", "&s", &sysroot);
                g_autofree char *where = strcmp(sysroot, "/") ? g_strdup_printf(", reading the board under %s", sysroot)
                                                              : g_strdup("");
                g_autofree char *who = uid ? g_strdup_printf("uid %u", uid) : g_strdup("root");
                jc_doctor_add(d, "jetsond", JC_CHECK_OK, NULL, "running as %s (%s service)%s", who, mode, where);
                return true;
        }
        if (reply) {
                jc_doctor_add(d, "jetsond", JC_CHECK_ERROR, NULL, "jetsond answered Diagnose with %s, not (a{sv}aa{sv})",
                              g_variant_get_type_string(reply));
        } else if (jc_error_has_either(&e, SD_BUS_ERROR_UNKNOWN_METHOD, SD_BUS_ERROR_UNKNOWN_INTERFACE)) {
                g_autofree char *version = old_version(c->bus);
                g_autofree char *which = version ? g_strdup_printf("jetsond %s", version) : g_strdup("this jetsond");
                jc_doctor_add(d, "version", JC_CHECK_WARNING,
                              "install the same version of jetsond and jetsonctl (a newer jetsond answers for "
                              "every family)",
                              "%s is older than jetsonctl %s and cannot say what it found (it has no "
                              "Manager.Diagnose): only jetsonctl's own checks follow", which, JETSONCTL_VERSION);
        } else if (jc_error_is_not_running(&e)) {
                jc_doctor_add(d, "jetsond", JC_CHECK_ERROR, start_advice(c), "jetsond is not running: %s", e.message);
        } else if (sd_bus_error_has_name(&e, SD_BUS_ERROR_ACCESS_DENIED)) {
                jc_doctor_add(d, "jetsond", JC_CHECK_ERROR,
                              "install jetsond's bus policy (/usr/share/dbus-1/system.d/org.jetsond.Jetson1.conf) "
                              "and reload D-Bus (systemctl reload dbus)",
                              "the bus refuses calls to jetsond: %s", e.message);
        } else {
                jc_doctor_add(d, "jetsond", JC_CHECK_ERROR, NULL, "Diagnose failed: %s",
                              e.message ? e.message : g_strerror(-r));
        }
        sd_bus_error_free(&e);
        return false;
}

/* ---- the caller -------------------------------------------------------- */

static const char *service_str(const jc_doctor *d, const char *key)
{
        const char *v = NULL;
        return d->service && g_variant_lookup(d->service, key, "&s", &v) ? v : NULL;
}

static void check_version(jc_doctor *d)
{
        const char *v = service_str(d, "version");
        if (!v)
                jc_doctor_add(d, "version", JC_CHECK_WARNING, NULL, "jetsond did not say its version");
        else if (strcmp(v, JETSONCTL_VERSION) == 0)
                jc_doctor_add(d, "version", JC_CHECK_OK, NULL, "jetsond %s, jetsonctl %s", v, JETSONCTL_VERSION);
        else
                jc_doctor_add(d, "version", JC_CHECK_WARNING,
                              "install the same version of jetsond and jetsonctl (a jetsonctl newer than jetsond "
                              "may ask for what it lacks; an older one leaves out what it does not know)",
                              "jetsond %s, jetsonctl %s: not the same version", v, JETSONCTL_VERSION);
}

static bool in_group(gid_t gid)
{
        if (getegid() == gid)
                return true;
        int n = getgroups(0, NULL);
        if (n <= 0)
                return false;
        gid_t *groups = g_new(gid_t, n);
        n = getgroups(n, groups);
        bool found = false;
        for (int i = 0; i < n; i++)
                found = found || groups[i] == gid;
        g_free(groups);
        return found;
}

static void check_access(jc_ctx *c, jc_doctor *d)
{
        if (g_strcmp0(service_str(d, "mode"), "user") == 0) {
                jc_doctor_add(d, "access", JC_CHECK_INFO, "use the system service for changes: jetsonctl without --user",
                              "jetsond --user only reads: every change (power mode, fans, clocks, swap) answers "
                              "ReadOnly");
                return;
        }
        uid_t uid = geteuid();
        if (uid == 0) {
                jc_doctor_add(d, "access", JC_CHECK_OK, NULL, "root: polkit allows every change");
        } else {
                struct passwd *pw = getpwuid(uid);
                g_autofree char *who = pw ? g_strdup_printf("%s (uid %u)", pw->pw_name, (unsigned) uid)
                                          : g_strdup_printf("uid %u", (unsigned) uid);
                struct group *gr = getgrnam(JETSON_GROUP);
                if (gr && in_group(gr->gr_gid))
                        jc_doctor_add(d, "access", JC_CHECK_OK, NULL,
                                      "%s, in group " JETSON_GROUP ": changes need no password where the group's "
                                      "polkit rule is installed (docs/install.md)", who);
                else if (gr)
                        jc_doctor_add(d, "access", JC_CHECK_INFO,
                                      "sudo usermod -aG " JETSON_GROUP " USER, log in again, and install the group's "
                                      "polkit rule (docs/install.md)",
                                      "%s, not in group " JETSON_GROUP ": changes (power mode, fans, clocks, swap) ask "
                                      "for an administrator's password; reads need nothing", who);
                else
                        jc_doctor_add(d, "access", JC_CHECK_INFO,
                                      "on the board: sudo groupadd " JETSON_GROUP " && sudo usermod -aG " JETSON_GROUP
                                      " USER, and the group's polkit rule (docs/install.md)",
                                      "%s; there is no group " JETSON_GROUP " here (polkit asks the board's groups, "
                                      "not a container's): changes ask for an administrator's password unless a rule "
                                      "allows this user; reads need nothing", who);
        }
        int polkit = name_has_owner(c->bus, POLKIT_NAME);
        if (polkit == 0)
                polkit = activatable(c->bus, POLKIT_NAME);
        if (polkit == 0)
                jc_doctor_add(d, "polkit", JC_CHECK_WARNING, "install polkit (polkitd) on the board",
                              "no polkit on this bus: jetsond refuses every change (AccessDenied); reads work");
}

static void check_pid_namespace(jc_doctor *d)
{
        guint64 theirs = 0;
        struct stat st;
        bool have_theirs = d->service && g_variant_lookup(d->service, "pid_namespace", "t", &theirs);
        if (!have_theirs || stat("/proc/self/ns/pid", &st) < 0) {
                jc_doctor_add(d, "pid_namespace", JC_CHECK_INFO, NULL,
                              "cannot tell whether jetsonctl and jetsond share a PID namespace");
                return;
        }
        if ((guint64) st.st_ino == theirs)
                jc_doctor_add(d, "pid_namespace", JC_CHECK_OK, NULL, "the same PID namespace as jetsond");
        else
                jc_doctor_add(d, "pid_namespace", JC_CHECK_INFO, NULL,
                              "jetsonctl runs in another PID namespace than jetsond (a container): jetsond names "
                              "processes by its own PIDs; those of this namespace are translated where jetsond can "
                              "see them (Metrics.PidsToCaller), and a process this namespace cannot see has no PID "
                              "here. Nothing to do");
}

/* What a family's record says, NULL when absent. */
static const char *family_str(const jc_doctor *d, const char *family, const char *key)
{
        GVariantIter it;
        GVariant *rec;
        const char *out = NULL;
        g_variant_iter_init(&it, d->families);
        while (!out && (rec = g_variant_iter_next_value(&it))) {
                const char *name = NULL, *v = NULL;
                if (g_variant_lookup(rec, "family", "&s", &name) && strcmp(name, family) == 0 &&
                    g_variant_lookup(rec, key, "&s", &v))
                        out = v;   /* points into d->families, which outlives rec */
                g_variant_unref(rec);
        }
        return out;
}

void jc_doctor_check_client(jc_ctx *c, jc_doctor *d)
{
        check_version(d);
        check_access(c, d);
        check_pid_namespace(d);
        /* An unknown L4T: jetsonctl tegrastats still prints a line, of
         * the release it falls back to. */
        if (g_strcmp0(family_str(d, "board", "cause"), "l4t-unknown") == 0)
                jc_doctor_add(d, "tegrastats", JC_CHECK_INFO,
                              "choose the board's form: jetsonctl tegrastats --format r32|r35|r36|r38|r39",
                              "with the L4T release unknown, jetsonctl tegrastats prints the %s form of the line",
                              ts_gen_name(ts_gen_for_l4t("")));
}
