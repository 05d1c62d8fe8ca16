/* jetsonctl top's memory page, as jtop's: RAM, swap, EMC and GPU-shared
 * graphs, then every /proc/meminfo number the samples carry. */
#include <string.h>

#include "common/output.h"
#include "top.h"
#include "top_draw.h"

/* ITEM at (*Y, *X), or at the start of the next row if it does not fit:
 * never cut in the middle. */
static void flow(int *y, int *x, int last, const char *item)
{
        if (*x > 0 && *x + (int) g_utf8_strlen(item, -1) > COLS) {
                *x = 0;
                (*y)++;
        }
        if (*y <= last)
                *x = jc_top_put(*y, *x, A_NORMAL, item);
}

void jc_top_draw_memory_page(const jc_top *t, int y, int last)
{
        const jc_sample *s = &t->sample;
        uint64_t ram_total = 0, swap_total = 0, v;
        jc_sample_uint(s, "ram.total", &ram_total);
        jc_sample_uint(s, "swap.total", &swap_total);
        double rt = (double) ram_total, st = (double) swap_total;
        int details = 3, h = MAX(2, MIN(12, (last + 1 - y - details) / 2)), w = COLS / 2, top = y;
        jc_top_graph(t, top, 0, w - 1, h, "RAM used", "ram.used", rt, 0.6 * rt, 0.9 * rt, " MiB", 1.0 / 1024);
        if (swap_total > 0)
                jc_top_graph(t, top, w, COLS - w, h, "swap used", "swap.used", st, 0.3 * st, 0.8 * st, " MiB",
                             1.0 / 1024);
        y = top + h;
        if (y + h - 1 <= last - details) {
                jc_top_graph(t, y, 0, w - 1, h, "EMC load", "emc.load", 100, 60, 90, "%", 1);
                jc_top_graph(t, y, w, COLS - w, h, "GPU shared", "ram.shared", rt, 0.6 * rt, 0.9 * rt, " MiB",
                             1.0 / 1024);
                y += h;
        }
        static const char *const keys[][2] = {
                { "ram.total", "total" }, { "ram.used", "used" }, { "ram.free", "free" },
                { "ram.available", "available" }, { "ram.buffers", "buffers" }, { "ram.cached", "cached" },
                { "ram.shared", "shared" }, { "swap.total", "swap total" }, { "swap.used", "swap used" },
                { "swap.cached", "swap cached" }, { "iram.total", "IRAM total" }, { "iram.used", "IRAM used" },
        };
        int x = 0;
        for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
                if (jc_sample_uint(s, keys[i][0], &v)) {
                        g_autofree char *text = jc_format_kib(v);
                        g_autofree char *item = g_strdup_printf("%s %s  ", keys[i][1], text);
                        flow(&y, &x, last, item);
                }
        if (jc_sample_uint(s, "ram.lfb", &v)) {
                g_autofree char *item = g_strdup_printf("largest free block %" G_GUINT64_FORMAT " x 4 MiB", v);
                flow(&y, &x, last, item);
        }
}
