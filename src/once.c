#include "once.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "board.h"
#include "json_text.h"
#include "nvml.h"
#include "sampler.h"
#include "values.h"

static void member_str(JsonBuilder *b, const char *name, const char *value)
{
        json_builder_set_member_name(b, name);
        if (value && value[0])
                json_builder_add_string_value(b, value);
        else
                json_builder_add_null_value(b);
}

static void member_opt_u64(JsonBuilder *b, const char *name, jd_opt_u64 v)
{
        json_builder_set_member_name(b, name);
        if (v.present)
                json_builder_add_int_value(b, (gint64) v.value);
        else
                json_builder_add_null_value(b);
}

static void add_board(JsonBuilder *b, const jd_board *board)
{
        json_builder_set_member_name(b, "board");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "is_jetson");
        json_builder_add_boolean_value(b, board->is_jetson);
        member_str(b, "model", board->model);
        member_str(b, "module", board->module);
        member_str(b, "part_number", board->part_number);
        member_str(b, "p_number", board->p_number);
        member_str(b, "board_ids", board->board_ids);
        member_str(b, "soc", board->soc);
        member_str(b, "cuda_arch", board->cuda_arch);
        member_str(b, "codename", board->codename);
        member_str(b, "serial", board->serial);
        member_str(b, "l4t", board->l4t);
        member_str(b, "jetpack", board->jetpack);
        member_str(b, "kernel_release", board->kernel_release);
        member_str(b, "distribution", board->distribution);
        member_str(b, "machine", board->machine);
        member_str(b, "cpu_model", board->cpu_model);
        json_builder_set_member_name(b, "libraries");
        json_builder_begin_object(b);
        /* As jetsonctl board --json prints them (docs/json.md): a version,
         * null when it is unknown, opencv_cuda a boolean. */
        for (size_t i = 0; i < board->n_libraries; i++) {
                if (strcmp(board->libraries[i].name, "opencv_cuda") == 0) {
                        json_builder_set_member_name(b, "opencv_cuda");
                        json_builder_add_boolean_value(b, strcmp(board->libraries[i].version, "yes") == 0);
                } else {
                        member_str(b, board->libraries[i].name, board->libraries[i].version);
                }
        }
        json_builder_end_object(b);
        json_builder_end_object(b);
}

static void add_values(JsonBuilder *b, const jd_values *v)
{
        json_builder_set_member_name(b, "values");
        json_builder_begin_object(b);
        for (size_t i = 0; i < v->n; i++) {
                const jd_value *x = &v->items[i];
                json_builder_set_member_name(b, x->key);
                switch (x->type) {
                case JD_VALUE_BOOL:
                        json_builder_add_boolean_value(b, x->b);
                        break;
                case JD_VALUE_U32:
                        json_builder_add_int_value(b, x->u);
                        break;
                case JD_VALUE_I32:
                        json_builder_add_int_value(b, x->i);
                        break;
                case JD_VALUE_U64:
                        json_builder_add_int_value(b, (gint64) x->t);
                        break;
                case JD_VALUE_DOUBLE:
                        json_builder_add_double_value(b, x->d);
                        break;
                case JD_VALUE_STRING:
                        json_builder_add_string_value(b, x->s);
                        break;
                }
        }
        json_builder_end_object(b);
}

void jd_nvml_reading_read(jd_nvml_reading *out, const char *library)
{
        char why[256];
        out->gpus = NULL;
        out->n = 0;
        out->cuda[0] = '\0';
        jd_nvml *n = library ? jd_nvml_open(library, why, sizeof(why)) : NULL;
        if (!n)
                return;
        unsigned count = jd_nvml_count(n);
        out->gpus = calloc(count ? count : 1, sizeof(*out->gpus));
        for (unsigned i = 0; out->gpus && i < count; i++)
                if (jd_nvml_read_gpu(n, i, &out->gpus[out->n]))
                        out->n++;
        snprintf(out->cuda, sizeof(out->cuda), "%s", jd_nvml_cuda_driver_version(n));
        jd_nvml_close(n);
}

void jd_nvml_reading_pass_users(const jd_nvml_reading *nv, jd_sampler *sampler)
{
        jd_gpu_user *users = NULL;
        size_t n = 0, cap = 0;
        for (unsigned i = 0; i < nv->n; i++)
                n = jd_nvml_add_gpu_users(&users, &cap, n, &nv->gpus[i]);
        jd_sampler_set_gpu_users(sampler, users, n);
        free(users);
}

void jd_nvml_reading_clear(jd_nvml_reading *nv)
{
        for (unsigned i = 0; i < nv->n; i++)
                jd_nvml_gpu_clear(&nv->gpus[i]);
        free(nv->gpus);
        nv->gpus = NULL;
        nv->n = 0;
}

/* State that is not a sample value: lists of modes, profiles, swaps. */
static void add_state(JsonBuilder *b, const jd_sample *s)
{
        json_builder_set_member_name(b, "swaps");
        json_builder_begin_array(b);
        for (size_t i = 0; i < s->swap->n; i++) {
                const jd_swap *w = &s->swap->swaps[i];
                json_builder_begin_object(b);
                member_str(b, "path", w->path);
                member_str(b, "type", w->type);
                json_builder_set_member_name(b, "size_bytes");
                json_builder_add_int_value(b, (gint64) w->size_bytes);
                json_builder_set_member_name(b, "used_bytes");
                json_builder_add_int_value(b, (gint64) w->used_bytes);
                json_builder_set_member_name(b, "priority");
                json_builder_add_int_value(b, w->priority);
                json_builder_set_member_name(b, "on_boot");
                json_builder_add_boolean_value(b, w->on_boot);
                json_builder_end_object(b);
        }
        json_builder_end_array(b);

        json_builder_set_member_name(b, "fans");
        json_builder_begin_array(b);
        for (size_t i = 0; i < s->fans->n; i++) {
                const jd_fan *f = &s->fans->fans[i];
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "index");
                json_builder_add_int_value(b, (gint64) i);
                member_str(b, "name", f->name);
                member_str(b, "profile", f->profile);
                member_str(b, "default_profile", f->default_profile);
                member_str(b, "governor", f->governor);
                member_str(b, "control", f->control);
                json_builder_set_member_name(b, "profiles");
                json_builder_begin_array(b);
                for (size_t k = 0; k < f->n_profiles; k++)
                        json_builder_add_string_value(b, f->profiles[k]);
                json_builder_end_array(b);
                json_builder_end_object(b);
        }
        json_builder_end_array(b);

        json_builder_set_member_name(b, "nvpmodel");
        if (!s->nvpmodel->present) {
                json_builder_add_null_value(b);
                return;
        }
        const jd_nvpmodel_sample *n = s->nvpmodel;
        json_builder_begin_object(b);
        member_opt_u64(b, "mode", n->current_id);
        member_str(b, "mode_name", n->current_name);
        member_opt_u64(b, "default_mode", n->default_id);
        member_str(b, "default_mode_name", n->default_id.present ? jd_nvpmodel_mode_name(n, (unsigned) n->default_id.value) : NULL);
        json_builder_set_member_name(b, "modes");
        json_builder_begin_array(b);
        for (size_t i = 0; i < s->nvpmodel->n_modes; i++) {
                json_builder_begin_object(b);
                json_builder_set_member_name(b, "id");
                json_builder_add_int_value(b, s->nvpmodel->modes[i].id);
                member_str(b, "name", s->nvpmodel->modes[i].name);
                json_builder_end_object(b);
        }
        json_builder_end_array(b);
        json_builder_end_object(b);
}

static void print_text(const jd_board *board, const jd_values *v)
{
        printf("Model: %s\nModule: %s\nSoC: %s\nL4T: %s\nJetPack: %s\n", board->model[0] ? board->model : "-",
               board->module[0] ? board->module : "-", board->soc[0] ? board->soc : "-",
               board->l4t[0] ? board->l4t : "-", board->jetpack[0] ? board->jetpack : "-");
        for (size_t i = 0; i < v->n; i++) {
                const jd_value *x = &v->items[i];
                switch (x->type) {
                case JD_VALUE_BOOL: printf("%s=%s\n", x->key, x->b ? "true" : "false"); break;
                case JD_VALUE_U32: printf("%s=%u\n", x->key, x->u); break;
                case JD_VALUE_I32: printf("%s=%d\n", x->key, x->i); break;
                case JD_VALUE_U64: printf("%s=%llu\n", x->key, (unsigned long long) x->t); break;
                case JD_VALUE_DOUBLE: printf("%s=%.1f\n", x->key, x->d); break;
                case JD_VALUE_STRING: printf("%s=%s\n", x->key, x->s); break;
                }
        }
}

int jd_run_once(const jd_sysroot *sr, unsigned interval_ms, bool json, const char *nvml_library)
{
        jd_board board;
        jd_board_read(&board, sr);
        jd_sampler *sampler = jd_sampler_new(sr);
        if (!sampler) {
                fprintf(stderr, "jetsond: out of memory\n");
                return 1;
        }
        jd_nvml_reading nv;
        jd_nvml_reading_read(&nv, nvml_library);
        jd_nvml_reading_pass_users(&nv, sampler);
        struct timespec wait = { .tv_sec = interval_ms / 1000, .tv_nsec = (long) (interval_ms % 1000) * 1000000L };
        while (clock_nanosleep(CLOCK_MONOTONIC, 0, &wait, &wait) != 0)
                ;
        const jd_sample *s = jd_sampler_sample(sampler, JD_TIER_ALL);
        jd_values values;
        jd_values_init(&values);
        jd_values_begin(&values);
        jd_values_add_sample(&values, s);
        jd_values_add_derived(&values, s);
        for (unsigned i = 0; i < nv.n; i++)
                jd_values_add_nvml_gpu(&values, &nv.gpus[i], s->gpu->has_load);
        jd_values_end(&values);

        if (json) {
                g_autoptr(JsonBuilder) b = json_builder_new();
                json_builder_begin_object(b);
                add_board(b, &board);
                json_builder_set_member_name(b, "timestamp_usec");
                json_builder_add_int_value(b, (gint64) s->timestamp_us);
                add_values(b, &values);
                add_state(b, s);
                json_builder_end_object(b);
                g_autoptr(JsonNode) root = json_builder_get_root(b);
                g_autofree char *text = jt_to_text(root, TRUE);
                puts(text);
        } else {
                print_text(&board, &values);
        }
        jd_values_clear(&values);
        jd_nvml_reading_clear(&nv);
        jd_sampler_free(sampler);
        return 0;
}
