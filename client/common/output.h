/* Text output for people: colours, bars, units. Colours are used only
 * when jc_ctx.color says so (a terminal, no NO_COLOR, no --no-color); the
 * plain output is what tests compare with golden files. */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum { JC_COLOR_NONE, JC_COLOR_BOLD, JC_COLOR_GREEN, JC_COLOR_YELLOW, JC_COLOR_RED, JC_COLOR_GREY } jc_color;

/* Decides whether to colour: WHEN is "auto", "always" or "never". */
bool jc_want_color(const char *when, int fd);

/* Appends TEXT in COLOR (if colour is on) to OUT. */
void jc_append_colored(GString *out, bool color, jc_color which, const char *text);
/* A bar of WIDTH cells for PERCENT (0 to 100): "[#####.....]", the filled
 * part green, yellow from 50 % and red from 80 % when coloured. */
void jc_append_bar(GString *out, bool color, double percent, int width);

/* kHz -> "729 MHz" (whole MHz, truncated as tegrastats does). */
char *jc_format_khz(uint64_t khz);
/* Memory, always in MiB: KiB -> "3577 MiB", "512 MiB", "3.8 MiB". */
char *jc_format_kib(uint64_t kib);
/* bytes -> "2616 MiB", ... */
char *jc_format_bytes(uint64_t bytes);
/* A double as the shortest text that reads back the same ("34.7"). */
char *jc_format_double(double v);
