/* jetsonctl: state shared by every command. The client talks to jetsond
 * only over D-Bus; the bus names come from include/jetsond-dbus.h, which
 * is the only thing it shares with the daemon. */
#pragma once

#include <stdbool.h>
#include <glib.h>
#include <systemd/sd-bus.h>

/* Exit codes, documented in man/jetsonctl.1.scd (EXIT STATUS). */
enum {
        JC_EXIT_OK = 0,
        JC_EXIT_FAILURE = 1,
        JC_EXIT_USAGE = 2,      /* also InvalidArgs from jetsond: the arguments must change */
        JC_EXIT_NOT_AUTHORIZED = 4,
};

/* What every command says about a feature the board lacks (the ABSENT
 * text of bus.h), always alone on its line: "jetsonctl: this board has no
 * fan". */
#define JC_NO_FAN "this board has no fan"
#define JC_NO_NVPMODEL "this board has no nvpmodel"
#define JC_NO_JETSON_CLOCKS "this board has no jetson_clocks"
#define JC_NO_GPU "this board has no integrated GPU"

typedef struct {
        sd_bus *bus;
        bool json;
        bool color;
        bool ask_password;      /* set the ALLOW_INTERACTIVE_AUTHORIZATION flag on calls */
        bool session;
        const char *address;
        struct jc_caller_names *caller_names; /* common/caller_pids.h: made on first use */
} jc_ctx;

/* Every command: ARGV[0] is the command's name, the rest its positional
 * arguments (options already parsed). Returns an exit code. */
typedef int (*jc_command_fn)(jc_ctx *c, int argc, char **argv);

int jc_cmd_status(jc_ctx *c, int argc, char **argv);
int jc_cmd_board(jc_ctx *c, int argc, char **argv);
int jc_cmd_watch(jc_ctx *c, int argc, char **argv);
int jc_cmd_get(jc_ctx *c, int argc, char **argv);
int jc_cmd_fan(jc_ctx *c, int argc, char **argv);
int jc_cmd_nvpmodel(jc_ctx *c, int argc, char **argv);
int jc_cmd_clocks(jc_ctx *c, int argc, char **argv);
int jc_cmd_gpu(jc_ctx *c, int argc, char **argv);
int jc_cmd_swap(jc_ctx *c, int argc, char **argv);
int jc_cmd_drop_caches(jc_ctx *c, int argc, char **argv);
int jc_cmd_restore(jc_ctx *c, int argc, char **argv);
int jc_cmd_serial(jc_ctx *c, int argc, char **argv);
int jc_cmd_record(jc_ctx *c, int argc, char **argv);
int jc_cmd_measure(jc_ctx *c, int argc, char **argv);
int jc_cmd_top(jc_ctx *c, int argc, char **argv);
int jc_cmd_select(jc_ctx *c, int argc, char **argv);
int jc_cmd_tegrastats(jc_ctx *c, int argc, char **argv);
int jc_cmd_doctor(jc_ctx *c, int argc, char **argv);
/* jetsonctl started under the name tegrastats (client/tegrastats/). */
int jc_tegrastats_main(int argc, char **argv);
extern const GOptionEntry jc_tegrastats_entries[];

/* Options of individual commands, filled in by main.c's option parser. */
extern int jc_watch_interval_ms;  /* -1 (not given): do not Subscribe(), take the default period */
extern int jc_watch_count;        /* 0: until interrupted */
extern gboolean jc_watch_stats;
extern char *jc_watch_timestamps;
extern gboolean jc_swap_on_boot;
extern int jc_record_interval_ms, jc_record_medium_ms, jc_record_slow_ms;
extern char *jc_record_keys, *jc_record_format_name, *jc_record_output, *jc_record_time_name;
extern double jc_record_duration_s;
extern char *jc_record_pid;
extern int jc_measure_interval_ms;
extern char *jc_measure_pid;
extern int jc_top_interval_ms;
/* top's --compute, --only-compute, --graphics, --only-graphics. */
extern gboolean jc_top_types[4];
extern gboolean jc_get_value_only;
/* jetsonctl select's options (cmd_select.c). */
extern int jc_select_min_count, jc_select_max_count, jc_select_count;
extern char *jc_select_min_free, *jc_select_min_total, *jc_select_max_util, *jc_select_max_mem_util;
extern char *jc_select_format, *jc_select_sep, *jc_select_inherit;
extern double jc_select_tolerance;
extern gboolean jc_select_newline, jc_select_null, jc_select_no_sort;
gboolean jc_select_inherit_arg(const char *name, const char *value, gpointer data, GError **error);
extern GPtrArray *jc_select_free_users;
gboolean jc_select_free_users_arg(const char *name, const char *value, gpointer data, GError **error);

/* "a,b,,c" as a NULL-terminated list without the empty items. */
char **jc_split_keys(const char *list);
/* A command's positional arguments after its name, less a leading "--". */
char **jc_command_args(int argc, char **argv);

/* A usage error: prints "jetsonctl: MESSAGE" and a hint to --help. */
int jc_usage_error(const char *command, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
