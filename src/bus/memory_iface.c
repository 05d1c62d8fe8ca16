/* org.jetsond.Jetson1.Memory: RAM and swap areas, in bytes
 * (introspection/org.jetsond.Jetson1.Memory.xml). */
#include <errno.h>
#include <string.h>

#include "caches_control.h"
#include "jetsond-dbus.h"
#include "service.h"
#include "swap_control.h"
#include "write.h"

typedef struct {
        jd_iface base;
        jd_swap_sample swaps;         /* last published */
        uint64_t swap_total;
} memory_iface;

static uint64_t kib_to_bytes(jd_opt_u64 kib)
{
        return kib.present ? kib.value * 1024u : 0;
}

static int get_swaps(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) property, (void) error;
        const jd_swap_sample *s = ((memory_iface *) userdata)->base.svc->sample->swap;
        int r = sd_bus_message_open_container(reply, 'a', "(ssttib)");
        for (size_t i = 0; r >= 0 && i < s->n; i++) {
                const jd_swap *w = &s->swaps[i];
                r = sd_bus_message_append(reply, "(ssttib)", w->path, w->type, w->size_bytes, w->used_bytes,
                                          w->priority, (int) w->on_boot);
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        return r;
}

static int get_total(sd_bus *bus, const char *path, const char *interface, const char *property,
                     sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        (void) bus, (void) path, (void) interface, (void) error;
        const jd_memory_sample *m = ((memory_iface *) userdata)->base.svc->sample->memory;
        uint64_t v = kib_to_bytes(strcmp(property, "SwapTotal") == 0 ? m->swap_total : m->total);
        return sd_bus_message_append_basic(reply, 't', &v);
}

static const char *const drop_caches[] = { JD_ACTION_DROP_CACHES, NULL };

static void on_dropped(const jd_result *result, void *userdata)
{
        jd_write_finish(userdata, result);
}

static void apply_drop_caches(jd_write *w)
{
        jd_drop_caches(w->svc->sr, on_dropped, w);
}

static int method_drop_caches(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        jd_write *w = jd_write_new(((memory_iface *) userdata)->base.svc, m, JD_DOMAIN_CACHES, "cache drop", error);
        if (!w)
                return -EBUSY;
        return jd_write_authorize(w, drop_caches, apply_drop_caches, error);
}

static const char *const manage_swap[] = { JD_ACTION_MANAGE_SWAP, NULL };

static void on_swap_done(const jd_result *result, void *userdata)
{
        jd_write_finish(userdata, result);
}

static void apply_create_swap(jd_write *w)
{
        jd_swap_create(w->svc->sr, &w->svc->config, w->u, w->b, on_swap_done, w);
}

static bool swap_active(const jd_service *svc)
{
        const jd_swap_sample *s = svc->sample->swap;
        for (size_t i = 0; i < s->n; i++)
                if (strcmp(s->swaps[i].path, svc->config.swap_path) == 0)
                        return true;
        return false;
}

static void apply_remove_swap(jd_write *w)
{
        jd_swap_remove(w->svc->sr, &w->svc->config, swap_active(w->svc), on_swap_done, w);
}

static int method_create_swap(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        jd_service *svc = ((memory_iface *) userdata)->base.svc;
        uint64_t size;
        int on_boot;
        int r = sd_bus_message_read(m, "tb", &size, &on_boot);
        if (r < 0)
                return r;
        char why[256];
        if (jd_swap_size_problem(svc->sr, svc->config.swap_path, size, why, sizeof(why)))
                return sd_bus_error_set(error, SD_BUS_ERROR_INVALID_ARGS, why);
        jd_write *w = jd_write_new(svc, m, JD_DOMAIN_SWAP, "swap change", error);
        if (!w)
                return -EBUSY;
        w->u = size;
        w->b = on_boot;
        return jd_write_authorize(w, manage_swap, apply_create_swap, error);
}

static int method_remove_swap(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        jd_write *w = jd_write_new(((memory_iface *) userdata)->base.svc, m, JD_DOMAIN_SWAP, "swap change", error);
        if (!w)
                return -EBUSY;
        return jd_write_authorize(w, manage_swap, apply_remove_swap, error);
}

static const sd_bus_vtable memory_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Swaps", "a(ssttib)", get_swaps, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("SwapTotal", "t", get_total, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
        SD_BUS_PROPERTY("RamTotal", "t", get_total, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_METHOD_WITH_ARGS("CreateSwap", SD_BUS_ARGS("t", size_bytes, "b", on_boot), SD_BUS_NO_RESULT,
                                method_create_swap, SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("RemoveSwap", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_remove_swap,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_METHOD_WITH_ARGS("DropCaches", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_drop_caches,
                                SD_BUS_VTABLE_UNPRIVILEGED),
        SD_BUS_VTABLE_END,
};

static bool swap_equal(const jd_swap *a, const jd_swap *b)
{
        return strcmp(a->path, b->path) == 0 && strcmp(a->type, b->type) == 0 &&
               a->size_bytes == b->size_bytes && a->used_bytes == b->used_bytes &&
               a->priority == b->priority && a->on_boot == b->on_boot;
}

static bool swaps_equal(const jd_swap_sample *a, const jd_swap_sample *b)
{
        if (a->n != b->n)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (!swap_equal(&a->swaps[i], &b->swaps[i]))
                        return false;
        return true;
}

static void memory_update(jd_iface *base)
{
        memory_iface *self = (memory_iface *) base;
        const jd_sample *sample = base->svc->sample;
        const char *changed[3];
        size_t n = 0;
        /* A copy: the sample's array goes with its reading. Out of
         * memory, the next update tries again. */
        if (!swaps_equal(&self->swaps, sample->swap) && jd_swap_sample_copy(&self->swaps, sample->swap))
                changed[n++] = "Swaps";
        uint64_t total = kib_to_bytes(sample->memory->swap_total);
        if (total != self->swap_total) {
                self->swap_total = total;
                changed[n++] = "SwapTotal";
        }
        changed[n] = NULL;
        jd_emit_changed(base->svc, JD_OBJECT_PATH, JD_IFACE_MEMORY, changed);
}

static void memory_destroy(jd_iface *base)
{
        jd_swap_sample_clear(&((memory_iface *) base)->swaps);
        g_free(base);
}

jd_iface *jd_memory_iface_new(jd_service *svc, GError **error)
{
        memory_iface *self = g_new0(memory_iface, 1);
        self->base.svc = svc;
        self->base.update = memory_update;
        self->base.destroy = memory_destroy;
        jd_swap_sample_copy(&self->swaps, svc->sample->swap);
        self->swap_total = kib_to_bytes(svc->sample->memory->swap_total);
        int r = sd_bus_add_object_vtable(svc->bus, &self->base.slot, JD_OBJECT_PATH, JD_IFACE_MEMORY,
                                         memory_vtable, self);
        if (r < 0) {
                jd_set_bus_error(error, r, "Cannot export " JD_IFACE_MEMORY);
                jd_swap_sample_clear(&self->swaps);
                g_free(self);
                return NULL;
        }
        return &self->base;
}
