/* jetsonctl top: the state the live screen is drawn from (top_view.c) and
 * that its loop and keys change (cmd_top.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/gpu_filter.h"
#include "jetsonctl.h"
#include "common/sample.h"
#include "commands/gpu_procs.h"
#include "top_data.h"
#include "top_graph.h"
#include "top_history.h"
#include "top_procs.h"

/* What the keys go to: the screen, a chooser, the help screen, the
 * filter being typed, or a signal waiting for its confirmation. */
typedef enum {
        JC_TOP_SCREEN, JC_TOP_CHOOSE_MODE, JC_TOP_CHOOSE_FAN, JC_TOP_HELP, JC_TOP_FILTER, JC_TOP_CONFIRM
} jc_top_mode;

/* Where the last frame put things, for the mouse and the selection:
 * written while drawing (hence a pointer in the otherwise const state). */
typedef struct {
        int proc_header_y;            /* the process list's title row, -1 if none */
        int proc_rows;                /* process rows shown */
} jc_top_layout;

/* One choice of a chooser: a power mode, or a fan's profile. */
typedef struct {
        uint32_t mode_id;
        unsigned fan;
        char label[64];
        bool current;
} jc_top_choice;

/* The pages, by number key (1 to 8) and Tab, as jtop's. */
typedef enum {
        JC_PAGE_OVERVIEW, JC_PAGE_CPU, JC_PAGE_GPU, JC_PAGE_MEMORY, JC_PAGE_POWER, JC_PAGE_ENGINES, JC_PAGE_CONTROL,
        JC_PAGE_INFO, JC_PAGE_N
} jc_top_page;

/* Graph windows: 1, 2, 4, 8 samples a column ('w'). */
#define JC_TOP_ZOOM_N 4

typedef struct {
        jc_ctx *c;
        int interval_ms;              /* the subscription's interval */
        jc_gpu_filter shown;          /* --only, --only-visible, --owner, --pid: applied to every sample */
        jc_top_history *history;      /* every sample's numbers, for the graphs */
        jc_top_page page;
        unsigned zoom;                /* index of the graph window */
        jc_graph_style graph_style;
        GPtrArray *dgpu_names;        /* DiscreteGpu.Name by NVML index ("" unknown) */
        GPtrArray *dgpu_props;        /* DiscreteGpu's properties (a{sv}) by NVML index, NULL none */
        bool dgpu_stale;              /* a GPU announced a change: read them again */
        jc_sample sample;
        bool have_sample;
        char board[128];              /* "NVIDIA Jetson AGX Orin Developer Kit · JetPack 6.2" */
        jc_top_energy *energy;
        jc_top_col sort_col;
        bool sort_reverse;
        bool tree;                    /* the process list as a tree ('t') */
        char filter[64];              /* the process list's filter, "" none */
        jc_top_type_filter type_filter; /* compute/graphics ('x', --compute ...) */
        char filter_edit[64];         /* the filter being typed */
        uint32_t selected_pid;        /* the selected process (0 none) and its GPU row */
        int selected_gpu;
        int pending_signal;           /* the signal JC_TOP_CONFIRM asks about */
        char pending_name[64];        /* and the command it goes to */
        jc_top_layout *layout;
        bool process_screen;          /* the selected process's metrics instead of the page */
        bool env_screen;              /* the selected process's environment ('e') instead */
        int env_scroll;               /* its first line shown */
        GVariant *board_props;        /* Board's properties (a{sv}) for the info page, or NULL */
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
/* The page's name on the tab line. */
const char *jc_top_page_name(jc_top_page page);
/* The pages other than the overview (top_pages.c, top_page_power.c):
 * each draws rows Y to LAST. */
void jc_top_draw_cpu_page(const jc_top *t, int y, int last);
void jc_top_draw_gpu_page(const jc_top *t, int y, int last);
void jc_top_draw_memory_page(const jc_top *t, int y, int last);
void jc_top_draw_power_page(const jc_top *t, int y, int last);
void jc_top_draw_engines_page(const jc_top *t, int y, int last);
void jc_top_draw_control_page(const jc_top *t, int y, int last);
void jc_top_draw_info_page(const jc_top *t, int y, int last);
void jc_top_draw_process_screen(const jc_top *t, int y, int last);
/* The selected process's environment, read from /proc (top_page_env.c). */
void jc_top_draw_env_screen(const jc_top *t, int y, int last);
/* Switches jetson_clocks ('c'), the GPU's 3D scaling ('S') or rail
 * gating ('G') over, through polkit (cmd_top.c). */
void jc_top_toggle(jc_top *t, int what);
/* Changes from the screen (cmd_top.c): the choosers, a choice, the
 * footer's message. */
void jc_top_open_mode_chooser(jc_top *t);
void jc_top_open_fan_chooser(jc_top *t);
void jc_top_choose(jc_top *t, guint i);
void jc_top_message(jc_top *t, bool error, const char *text);
/* One key (or KEY_MOUSE) for T (top_keys.c); false to quit. */
bool jc_top_key(jc_top *t, int key);
/* The process list's column at screen column X. */
int jc_top_col_at(int x);
/* The process list from row Y to LAST (top_proc_view.c), with the
 * selection; returns the row after it. */
int jc_top_draw_processes(const jc_top *t, GArray *procs, int y, int last);
/* The process list's rows for T's sort and filter (jc_top_proc). */
GArray *jc_top_procs(const jc_top *t);
/* The help screen, and the filter and confirmation prompts (footer). */
void jc_top_draw_help(const jc_top *t);
bool jc_top_draw_prompt(const jc_top *t);
/* Every key top binds with what it does, for the help screen (and the
 * test that checks the help against the code). */
typedef struct {
        const char *keys, *what;
} jc_top_key_help;
extern const jc_top_key_help jc_top_keys[];
/* The temperatures, wrapped at whole items over at most ROWS rows from
 * Y; returns the row after them. */
int jc_top_draw_temperatures(const jc_top *t, int y, int rows);

/* The discrete GPUs top shows (NVML indexes 0 to 15). */
#define JC_TOP_MAX_DGPUS 16
/* Reads every DiscreteGpu object's properties into T (top_dgpu.c). */
/* dgpu_props' free function: a GPU without an object is NULL. */
void jc_top_props_free(gpointer props);
void jc_top_read_dgpus(jc_top *t);
/* GPU N's facts and modes in a row at Y, if any; returns the next row. */
int jc_top_draw_dgpu_facts(const jc_top *t, unsigned n, int y);
