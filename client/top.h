/* jetsonctl top: the state the live screen is drawn from (top_view.c) and
 * that its loop and keys change (cmd_top.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "jetsonctl.h"
#include "sample.h"
#include "gpu_procs.h"
#include "top_data.h"

typedef enum { JC_TOP_SCREEN, JC_TOP_CHOOSE_MODE, JC_TOP_CHOOSE_FAN } jc_top_mode;

/* One choice of a chooser: a power mode, or a fan's profile. */
typedef struct {
        uint32_t mode_id;
        unsigned fan;
        char label[64];
        bool current;
} jc_top_choice;

typedef struct {
        jc_ctx *c;
        jc_sample sample;
        bool have_sample;
        char board[128];              /* "NVIDIA Jetson AGX Orin Developer Kit · JetPack 6.2" */
        jc_top_energy *energy;
        jc_top_sort sort;
        jc_top_mode mode;
        GArray *choices;              /* jc_top_choice, for the chooser on screen */
        char message[256];            /* the status line: a write's outcome */
        bool message_is_error;
        bool color;
} jc_top;

/* Draws the whole screen (ncurses) for the terminal's current size. */
void jc_top_draw(const jc_top *t);
/* Starts and ends curses (colours only when T->color and the terminal
 * has them). */
void jc_top_view_start(jc_top *t);
void jc_top_view_end(void);
