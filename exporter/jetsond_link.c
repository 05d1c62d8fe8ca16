/* The exporter's side of the bus: it follows jetsond's bus name, takes the
 * board properties and a first snapshot when jetsond appears, then every
 * Sample signal, and hands them to the page store. Everything here runs
 * on the sd-event loop of the main thread and never blocks: each call is
 * asynchronous, and what comes back late (a snapshot older than a signal
 * already seen) is dropped. */
#include "jetsond_link.h"

#include <errno.h>
#include <string.h>

#include "jetsond-dbus.h"
#include "gpu_identity.h"
#include "log.h"
#include "sample_reader.h"

/* At most this often is a Sample turned into a page. Sample comes every
 * DefaultInterval whatever other clients subscribed to (their rates come
 * as SampleAt, which the exporter never matches, and it never subscribes
 * itself), but a jetsond configured with a short default period, or the
 * extra Sample after each write, could still come faster than a scraper
 * polling every 15 s has any use for. The newest signal is always the
 * one kept. */
#define PARSE_EVERY_USEC (200 * 1000ULL)
/* A failed GetSnapshot (jetsond starting, or busy) is tried again. */
#define RETRY_USEC (5 * 1000000ULL)

enum { CALL_BOARD, CALL_INTERVAL, CALL_DEFAULT_MODE, CALL_SNAPSHOT, CALL_IGPU, CALL_DGPUS, N_CALLS };

struct jetsond_link {
        sd_bus *bus;
        sd_event *event;
        page_store *store;
        sd_bus_slot *matches[8];
        sd_bus_slot *calls[N_CALLS];
        sd_event_source *retry, *coalesce;
        sd_bus_message *pending; /* newest Sample not yet parsed */
        exp_board board;
        bool present;
        bool warned;             /* one log line per failure, not one per retry */
        uint64_t newest_timestamp;
        uint64_t last_parse_usec;
};

/* A Sample signal or a GetSnapshot reply ("ta{sv}") becomes the page,
 * unless a newer sample was already shown. */
static void take_sample(jetsond_link *l, sd_bus_message *m)
{
        exp_sample *s = sample_reader_read(m);
        if (!s) {
                xlog(SD_WARNING, "ignoring a malformed sample from jetsond");
                return;
        }
        if (s->timestamp_usec < l->newest_timestamp) {
                exp_sample_unref(s);
                return;
        }
        l->newest_timestamp = s->timestamp_usec;
        l->last_parse_usec = page_now_usec();
        page_store_set_sample(l->store, s);
}

static int on_coalesce(sd_event_source *src, uint64_t usec, void *userdata)
{
        (void)src;
        (void)usec;
        jetsond_link *l = userdata;
        l->coalesce = sd_event_source_unref(l->coalesce);
        if (l->pending) {
                take_sample(l, l->pending);
                l->pending = sd_bus_message_unref(l->pending);
        }
        return 0;
}

static int on_sample(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)ret_error;
        jetsond_link *l = userdata;
        if (!l->present)
                return 0;
        uint64_t now = page_now_usec();
        if (now - l->last_parse_usec >= PARSE_EVERY_USEC && !l->coalesce) {
                take_sample(l, m);
                return 0;
        }
        sd_bus_message_unref(l->pending);
        l->pending = sd_bus_message_ref(m);
        if (!l->coalesce &&
            sd_event_add_time(l->event, &l->coalesce, CLOCK_MONOTONIC, l->last_parse_usec + PARSE_EVERY_USEC, 0,
                              on_coalesce, l) < 0)
                l->coalesce = NULL;
        return 0;
}

static void cancel_calls(jetsond_link *l)
{
        for (int i = 0; i < N_CALLS; i++)
                l->calls[i] = sd_bus_slot_unref(l->calls[i]);
        l->retry = sd_event_source_unref(l->retry);
        l->coalesce = sd_event_source_unref(l->coalesce);
        l->pending = sd_bus_message_unref(l->pending);
}

static void call_snapshot(jetsond_link *l);

static int on_retry(sd_event_source *src, uint64_t usec, void *userdata)
{
        (void)src;
        (void)usec;
        jetsond_link *l = userdata;
        l->retry = sd_event_source_unref(l->retry);
        if (l->present)
                call_snapshot(l);
        return 0;
}

static int on_snapshot(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)ret_error;
        jetsond_link *l = userdata;
        l->calls[CALL_SNAPSHOT] = sd_bus_slot_unref(l->calls[CALL_SNAPSHOT]);
        const sd_bus_error *e = sd_bus_message_get_error(m);
        if (e) {
                if (!l->warned)
                        xlog(SD_WARNING, "cannot get a sample from jetsond (trying again every %llu s): %s",
                             RETRY_USEC / 1000000ULL, e->message ? e->message : e->name);
                l->warned = true;
                if (!l->retry && sd_event_add_time(l->event, &l->retry, CLOCK_MONOTONIC, page_now_usec() + RETRY_USEC,
                                                   0, on_retry, l) < 0)
                        l->retry = NULL;
                return 0;
        }
        if (l->warned)
                xlog(SD_INFO, "jetsond answers again");
        l->warned = false;
        l->present = true;
        take_sample(l, m);
        return 0;
}

static void call_snapshot(jetsond_link *l)
{
        l->calls[CALL_SNAPSHOT] = sd_bus_slot_unref(l->calls[CALL_SNAPSHOT]);
        int r = sd_bus_call_method_async(l->bus, &l->calls[CALL_SNAPSHOT], JD_BUS_NAME, JD_OBJECT_PATH,
                                         JD_IFACE_METRICS, "GetSnapshot", on_snapshot, l, "");
        if (r < 0)
                xlog(SD_ERR, "cannot call GetSnapshot: %s", strerror(-r));
}

static int on_board(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)ret_error;
        jetsond_link *l = userdata;
        l->calls[CALL_BOARD] = sd_bus_slot_unref(l->calls[CALL_BOARD]);
        if (sd_bus_message_is_method_error(m, NULL))
                return 0; /* no jetson_info; the metrics do not need it */
        exp_sample *props = sample_reader_read_dict(m);
        if (!props)
                return 0;
        g_free(l->board.model);
        g_free(l->board.module);
        g_free(l->board.soc);
        g_free(l->board.l4t);
        g_free(l->board.jetpack);
        g_free(l->board.cuda_arch);
        l->board.model = g_strdup(sample_reader_string(props, "Model", ""));
        l->board.module = g_strdup(sample_reader_string(props, "Module", ""));
        l->board.soc = g_strdup(sample_reader_string(props, "SoC", ""));
        l->board.l4t = g_strdup(sample_reader_string(props, "L4T", ""));
        l->board.jetpack = g_strdup(sample_reader_string(props, "JetPack", ""));
        l->board.cuda_arch = g_strdup(sample_reader_string(props, "CudaArch", ""));
        exp_sample_unref(props);
        page_store_set_board(l->store, &l->board);
        return 0;
}

static void set_default_mode(jetsond_link *l, int64_t mode)
{
        if (l->board.default_mode == mode)
                return;
        l->board.default_mode = mode;
        page_store_set_board(l->store, &l->board);
}

/* Properties.Get: "v" holding a u (DefaultMode) or a t (DefaultInterval). */
static bool read_uint_property(sd_bus_message *m, uint64_t *v)
{
        const char *contents = NULL;
        if (sd_bus_message_is_method_error(m, NULL) || sd_bus_message_peek_type(m, NULL, &contents) <= 0 ||
            sd_bus_message_enter_container(m, 'v', contents) <= 0)
                return false;
        bool ok = false;
        if (strcmp(contents, "u") == 0) {
                uint32_t u;
                ok = sd_bus_message_read_basic(m, 'u', &u) > 0;
                *v = u;
        } else if (strcmp(contents, "t") == 0) {
                ok = sd_bus_message_read_basic(m, 't', v) > 0;
        }
        return ok;
}

static int on_default_mode(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)ret_error;
        jetsond_link *l = userdata;
        l->calls[CALL_DEFAULT_MODE] = sd_bus_slot_unref(l->calls[CALL_DEFAULT_MODE]);
        uint64_t mode;
        /* No nvpmodel on this board (the interface is not exported): the
         * family is left out. */
        set_default_mode(l, read_uint_property(m, &mode) ? (int64_t)mode : -1);
        return 0;
}

static int on_interval(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)ret_error;
        jetsond_link *l = userdata;
        l->calls[CALL_INTERVAL] = sd_bus_slot_unref(l->calls[CALL_INTERVAL]);
        uint64_t interval;
        if (!read_uint_property(m, &interval))
                return 0;
        /* Samples come at least every DefaultInterval; three missed ones
         * (and a second's slack for a loaded board) mean they stopped. */
        page_store_set_stale_after(l->store, 3 * interval + 1000000ULL);
        return 0;
}

/* The SoC GPU's properties: its device (Name), and NVML's UUID and driver
 * version where NVML lists it (Thor), the labels /metrics/dcgm puts on
 * its series. No Gpu interface (a PC): none. */
static int on_igpu(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)ret_error;
        jetsond_link *l = userdata;
        l->calls[CALL_IGPU] = sd_bus_slot_unref(l->calls[CALL_IGPU]);
        if (sd_bus_message_is_method_error(m, NULL))
                return 0;
        exp_sample *props = sample_reader_read_dict(m);
        if (!props)
                return 0;
        g_free(l->board.igpu_name);
        g_free(l->board.igpu_uuid);
        g_free(l->board.igpu_driver);
        l->board.igpu_name = g_strdup(sample_reader_string(props, "Name", NULL));
        l->board.igpu_uuid = g_strdup(sample_reader_string(props, "UUID", NULL));
        l->board.igpu_driver = g_strdup(sample_reader_string(props, "DriverVersion", NULL));
        exp_sample_unref(props);
        page_store_set_board(l->store, &l->board);
        return 0;
}

static void call_igpu(jetsond_link *l)
{
        l->calls[CALL_IGPU] = sd_bus_slot_unref(l->calls[CALL_IGPU]);
        int r = sd_bus_call_method_async(l->bus, &l->calls[CALL_IGPU], JD_BUS_NAME, JD_OBJECT_PATH,
                                         "org.freedesktop.DBus.Properties", "GetAll", on_igpu, l, "s", JD_IFACE_GPU);
        if (r < 0)
                xlog(SD_ERR, "cannot ask jetsond for its GPU: %s", strerror(-r));
}

/* NVML's first reading of the SoC's GPU brings its UUID. */
static int on_igpu_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)m;
        (void)ret_error;
        call_igpu(userdata);
        return 0;
}

/* The discrete GPUs' identities; a new array each time, as pages share
 * the one they were made with. */
static int on_dgpu_objects(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)ret_error;
        jetsond_link *l = userdata;
        l->calls[CALL_DGPUS] = sd_bus_slot_unref(l->calls[CALL_DGPUS]);
        GPtrArray *dgpus = gpu_identity_read_objects(m);
        if (!dgpus)
                return 0; /* the series keep their gpu label, without the identity */
        if (l->board.dgpus)
                g_ptr_array_unref(l->board.dgpus);
        l->board.dgpus = dgpus;
        page_store_set_board(l->store, &l->board);
        return 0;
}

static void call_dgpu_objects(jetsond_link *l)
{
        l->calls[CALL_DGPUS] = sd_bus_slot_unref(l->calls[CALL_DGPUS]);
        int r = sd_bus_call_method_async(l->bus, &l->calls[CALL_DGPUS], JD_BUS_NAME, JD_OBJECT_PATH,
                                         "org.freedesktop.DBus.ObjectManager", "GetManagedObjects",
                                         on_dgpu_objects, l, "");
        if (r < 0)
                xlog(SD_ERR, "cannot ask jetsond for its GPUs: %s", strerror(-r));
}

/* A GPU found or lost while jetsond runs. */
static int on_objects_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)m;
        (void)ret_error;
        call_dgpu_objects(userdata);
        return 0;
}

static void call_get(jetsond_link *l, int slot, const char *iface, const char *prop, sd_bus_message_handler_t cb)
{
        int r = sd_bus_call_method_async(l->bus, &l->calls[slot], JD_BUS_NAME, JD_OBJECT_PATH,
                                         "org.freedesktop.DBus.Properties", "Get", cb, l, "ss", iface, prop);
        if (r < 0)
                xlog(SD_ERR, "cannot ask jetsond for %s: %s", prop, strerror(-r));
}

static void appeared(jetsond_link *l)
{
        cancel_calls(l);
        l->newest_timestamp = 0;
        l->last_parse_usec = 0;
        int r = sd_bus_call_method_async(l->bus, &l->calls[CALL_BOARD], JD_BUS_NAME, JD_OBJECT_PATH,
                                         "org.freedesktop.DBus.Properties", "GetAll", on_board, l, "s",
                                         JD_IFACE_BOARD);
        if (r < 0)
                xlog(SD_ERR, "cannot ask jetsond for the board: %s", strerror(-r));
        call_get(l, CALL_INTERVAL, JD_IFACE_METRICS, "DefaultInterval", on_interval);
        call_get(l, CALL_DEFAULT_MODE, JD_IFACE_NVPMODEL, "DefaultMode", on_default_mode);
        call_igpu(l);
        call_dgpu_objects(l);
        call_snapshot(l);
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)ret_error;
        jetsond_link *l = userdata;
        const char *name, *old_owner, *new_owner;
        if (sd_bus_message_read(m, "sss", &name, &old_owner, &new_owner) < 0 || strcmp(name, JD_BUS_NAME) != 0)
                return 0;
        if (new_owner[0]) {
                xlog(SD_INFO, "jetsond is on the bus (%s)", new_owner);
                l->present = true;
                l->warned = false;
                appeared(l);
        } else if (l->present) {
                xlog(SD_INFO, "jetsond left the bus; /metrics says jetson_up 0 until it is back");
                l->present = false;
                cancel_calls(l);
                page_store_set_down(l->store);
        }
        return 0;
}

/* SetDefaultMode changes DefaultMode while jetsond runs. */
static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)ret_error;
        jetsond_link *l = userdata;
        const char *iface;
        if (sd_bus_message_read(m, "s", &iface) < 0 || strcmp(iface, JD_IFACE_NVPMODEL) != 0)
                return 0;
        exp_sample *changed = sample_reader_read_dict(m);
        if (!changed)
                return 0;
        for (guint i = 0; i < changed->values->len; i++) {
                const exp_value *v = &g_array_index(changed->values, exp_value, i);
                if (strcmp(v->key, "DefaultMode") == 0 && v->type == EXP_UINT)
                        set_default_mode(l, (int64_t)v->v.u);
        }
        exp_sample_unref(changed);
        return 0;
}

static int on_disconnected(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
        (void)m;
        (void)ret_error;
        jetsond_link *l = userdata;
        xlog(SD_ERR, "lost the connection to the bus; exiting");
        sd_event_exit(l->event, 1);
        return 0;
}

jetsond_link *jetsond_link_new(sd_bus *bus, sd_event *event, page_store *store)
{
        jetsond_link *l = g_new0(jetsond_link, 1);
        l->bus = sd_bus_ref(bus);
        l->event = sd_event_ref(event);
        l->store = store;
        l->board.default_mode = -1;
        l->board.hostname = g_strdup(g_get_host_name());
        static const struct {
                const char *rule;
                sd_bus_message_handler_t handler;
        } matches[] = {
                { "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                  "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='" JD_BUS_NAME "'",
                  on_owner_changed },
                { "type='signal',sender='" JD_BUS_NAME "',path='" JD_OBJECT_PATH "',interface='" JD_IFACE_METRICS
                  "',member='Sample'",
                  on_sample },
                { "type='signal',sender='" JD_BUS_NAME "',path='" JD_OBJECT_PATH
                  "',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='" JD_IFACE_NVPMODEL
                  "'",
                  on_properties_changed },
                { "type='signal',sender='" JD_BUS_NAME "',path='" JD_OBJECT_PATH
                  "',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='" JD_IFACE_GPU
                  "'",
                  on_igpu_changed },
                { "type='signal',sender='" JD_BUS_NAME "',path='" JD_OBJECT_PATH
                  "',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesAdded'",
                  on_objects_changed },
                /* A GPU's modes changed (nvidia-smi -pm, -c, -e): its properties again. */
                { "type='signal',sender='" JD_BUS_NAME "',path_namespace='/org/jetsond/Jetson1/dgpu'"
                  ",interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',arg0='"
                  JD_IFACE_DISCRETE_GPU "'",
                  on_objects_changed },
                { "type='signal',sender='" JD_BUS_NAME "',path='" JD_OBJECT_PATH
                  "',interface='org.freedesktop.DBus.ObjectManager',member='InterfacesRemoved'",
                  on_objects_changed },
                /* sd-bus's own signal when the connection drops. */
                { "type='signal',sender='org.freedesktop.DBus.Local',path='/org/freedesktop/DBus/Local',"
                  "interface='org.freedesktop.DBus.Local',member='Disconnected'",
                  on_disconnected },
        };
        for (size_t i = 0; i < G_N_ELEMENTS(matches); i++) {
                int r = sd_bus_add_match(bus, &l->matches[i], matches[i].rule, matches[i].handler, l);
                if (r < 0) {
                        xlog(SD_ERR, "cannot watch the bus: %s", strerror(-r));
                        jetsond_link_free(l);
                        return NULL;
                }
        }
        /* The first snapshot also starts jetsond if D-Bus activation is
         * how it runs; if it is not there, NameOwnerChanged brings it. */
        l->present = true;
        appeared(l);
        return l;
}

void jetsond_link_free(jetsond_link *l)
{
        if (!l)
                return;
        cancel_calls(l);
        for (size_t i = 0; i < G_N_ELEMENTS(l->matches); i++)
                sd_bus_slot_unref(l->matches[i]);
        exp_board_clear(&l->board);
        sd_event_unref(l->event);
        sd_bus_unref(l->bus);
        g_free(l);
}
