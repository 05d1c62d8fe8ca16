/* jetsonctl: the command-line client of jetsond, in the spirit of
 * hostnamectl and powerprofilesctl. Options are parsed with GOption in
 * two steps: the global options before the command (strict POSIX, so
 * parsing stops at the command), then the command's own options together
 * with the global ones again, so "jetsonctl status --json" works as well
 * as "jetsonctl --json status". */
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/bus.h"
#include "jetsonctl.h"
#include "common/caller_pids.h"
#include "common/gpu_filter.h"
#include "common/json_out.h"
#include "common/parse.h"
#include "common/output.h"

#define BUSCTL "busctl --system"
#define DEST "org.jetsond.Jetson1 /org/jetsond/Jetson1"

int jc_watch_interval_ms = -1; /* -1: not given */
int jc_watch_count;
gboolean jc_watch_stats;
gboolean jc_swap_on_boot;

static gboolean opt_json;
static bool opt_json_off;   /* --json=off: later than any --json, wins */
static gboolean opt_no_color, opt_session, opt_no_ask_password, opt_help, opt_version;
static char *opt_address, *opt_color;

static const GOptionEntry global_entries[] = {
        { "json", 'j', 0, G_OPTION_ARG_NONE, &opt_json,
          "Print JSON; --json=pretty indented, --json=short on one line (the default), --json=off not "
          "(watch: one document per sample)", NULL },
        { "no-color", 0, 0, G_OPTION_ARG_NONE, &opt_no_color, "Plain output without colours (also NO_COLOR=1)", NULL },
        { "color", 0, 0, G_OPTION_ARG_STRING, &opt_color, "Colours: auto (on a terminal), always, never", "WHEN" },
        { "address", 0, 0, G_OPTION_ARG_STRING, &opt_address, "Connect to the bus at ADDRESS", "ADDRESS" },
        { "user", 0, 0, G_OPTION_ARG_NONE, &opt_session,
          "Connect to your own jetsond on the session bus (jetsond --user: reads only)", NULL },
        { "session", 0, 0, G_OPTION_ARG_NONE, &opt_session, "The same as --user", NULL },
        { "no-ask-password", 0, 0, G_OPTION_ARG_NONE, &opt_no_ask_password,
          "Never let polkit ask for a password", NULL },
        { "help", 'h', 0, G_OPTION_ARG_NONE, &opt_help, "Show help", NULL },
        { "version", 0, 0, G_OPTION_ARG_NONE, &opt_version, "Show the version", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
};

/* nvitop's -o/--only and --only-visible, and its process filters (--user
 * is --owner here: jetsonctl's --user chooses the session bus). */
#define GPU_FILTER_ENTRIES \
        { "only", 'o', 0, G_OPTION_ARG_STRING, &jc_filter_only, \
          "Only these GPUs: NVML indices, UUIDs (or their start), PCI bus ids, soc (comma-separated)", "ID,..." }, \
        { "only-visible", 0, 0, G_OPTION_ARG_NONE, &jc_filter_only_visible, \
          "Only the GPUs CUDA_VISIBLE_DEVICES shows CUDA (in PCI bus order)", NULL }
#define PROCESS_FILTER_ENTRIES \
        { "owner", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, (gpointer) jc_filter_owner_arg, \
          "Only these users' processes (comma-separated; no value: yours)", "USER,..." }, \
        { "pid", 0, 0, G_OPTION_ARG_STRING, &jc_filter_pids, "Only these processes (comma-separated)", "PID,..." }

static const GOptionEntry watch_entries[] = {
        { "interval", 'i', 0, G_OPTION_ARG_INT, &jc_watch_interval_ms,
          "Ask jetsond for a sample every MS milliseconds (10 to 3600000) while watching", "MS" },
        { "count", 'n', 0, G_OPTION_ARG_INT, &jc_watch_count, "Stop after N samples (0, the default: never)", "N" },
        { "timestamps", 0, 0, G_OPTION_ARG_STRING, &jc_watch_timestamps,
          "time (HH:MM:SS.mmm, the default) or iso (date, time and UTC offset, ISO 8601)", "time|iso" },
        { "stats", 's', 0, G_OPTION_ARG_NONE, &jc_watch_stats,
          "When watch ends, print each key's mean, minimum and maximum over the samples seen", NULL },
        GPU_FILTER_ENTRIES,
        { NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const GOptionEntry status_entries[] = {
        GPU_FILTER_ENTRIES,
        PROCESS_FILTER_ENTRIES,
        { NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const GOptionEntry swap_entries[] = {
        { "on-boot", 0, 0, G_OPTION_ARG_NONE, &jc_swap_on_boot, "swap create: also enable it at boot (/etc/fstab)",
          NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const GOptionEntry record_entries[] = {
        { "interval", 'i', 0, G_OPTION_ARG_INT, &jc_record_interval_ms,
          "A record every MS milliseconds (1 to 3600000, default 10)", "MS" },
        { "keys", 'k', 0, G_OPTION_ARG_STRING, &jc_record_keys,
          "Record the keys matching these globs (default: every numeric key)", "GLOB,..." },
        { "format", 'f', 0, G_OPTION_ARG_STRING, &jc_record_format_name, "csv (default), jsonl or trace", "FORMAT" },
        { "time", 't', 0, G_OPTION_ARG_STRING, &jc_record_time_name,
          "Absolute time after time_s in csv and jsonl: unix (default: time_unix_s), iso (time_utc) or relative "
          "(none)",
          "unix|iso|relative" },
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &jc_record_output, "Write to FILE (default: standard output)",
          "FILE" },
        { "duration", 'd', 0, G_OPTION_ARG_DOUBLE, &jc_record_duration_s, "Stop after SECONDS", "SECONDS" },
        { "pid", 'p', 0, G_OPTION_ARG_STRING, &jc_record_pid,
          "Follow the running process PID and its descendants until it exits (tree.* columns)", "PID" },
        { "medium", 0, 0, G_OPTION_ARG_INT, &jc_record_medium_ms,
          "A new reading of the medium tier (power, energy, engines) every MS milliseconds (10 to 3600000; "
          "default: each, every 10 ms at most)",
          "MS" },
        { "slow", 0, 0, G_OPTION_ARG_INT, &jc_record_slow_ms,
          "A new reading of the slow tier (temperatures, fans, processes) every MS milliseconds (100 to 3600000; "
          "default: each, every 100 ms at most)",
          "MS" },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const GOptionEntry get_entries[] = {
        { "value", 0, 0, G_OPTION_ARG_NONE, &jc_get_value_only, "Print the values alone, one per line", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const GOptionEntry top_entries[] = {
        { "interval", 'i', 0, G_OPTION_ARG_INT, &jc_top_interval_ms,
          "Refresh every MS milliseconds (10 to 3600000, default 1000)", "MS" },
        /* nvitop's options and letters. */
        { "compute", 'c', 0, G_OPTION_ARG_NONE, &jc_top_types[0],
          "Only GPU processes with a compute context (C or C+G)", NULL },
        { "only-compute", 'C', 0, G_OPTION_ARG_NONE, &jc_top_types[1],
          "Only GPU processes with a compute context alone (C)", NULL },
        { "graphics", 'g', 0, G_OPTION_ARG_NONE, &jc_top_types[2],
          "Only GPU processes with a graphics context (G or C+G)", NULL },
        { "only-graphics", 'G', 0, G_OPTION_ARG_NONE, &jc_top_types[3],
          "Only GPU processes with a graphics context alone (G)", NULL },
        GPU_FILTER_ENTRIES,
        PROCESS_FILTER_ENTRIES,
        { NULL, 0, 0, 0, NULL, NULL, NULL }
};

/* nvisel's options and letters. */
static const GOptionEntry select_entries[] = {
        { "min-count", 'c', 0, G_OPTION_ARG_INT, &jc_select_min_count,
          "Fail (exit 1) unless at least N GPUs qualify (default 0)", "N" },
        { "max-count", 'C', 0, G_OPTION_ARG_INT, &jc_select_max_count, "At most N GPUs (default all)", "N" },
        { "count", 'n', 0, G_OPTION_ARG_INT, &jc_select_count, "Exactly N: both --min-count and --max-count", "N" },
        { "min-free-memory", 'f', 0, G_OPTION_ARG_STRING, &jc_select_min_free,
          "GPUs with at least SIZE free (8G, 5000MiB; powers of 1024)", "SIZE" },
        { "min-total-memory", 't', 0, G_OPTION_ARG_STRING, &jc_select_min_total, "GPUs with at least SIZE in all",
          "SIZE" },
        { "max-gpu-utilization", 'G', 0, G_OPTION_ARG_STRING, &jc_select_max_util, "GPUs loaded at most PCT %",
          "PCT" },
        { "max-memory-utilization", 'M', 0, G_OPTION_ARG_STRING, &jc_select_max_mem_util,
          "GPUs whose memory controller is loaded at most PCT %", "PCT" },
        { "tolerance", 0, 0, G_OPTION_ARG_DOUBLE, &jc_select_tolerance,
          "Loosen each limit by PCT % (default 0: strict)", "PCT" },
        { "inherit", 'i', G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, (gpointer) jc_select_inherit_arg,
          "Choose among these CUDA_VISIBLE_DEVICES only (no value: the environment's)", "LIST" },
        { "account-as-free", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK,
          (gpointer) jc_select_free_users_arg,
          "Count these users' GPU memory as free (comma-separated; no value: yours)", "USERS" },
        { "format", 'O', 0, G_OPTION_ARG_STRING, &jc_select_format,
          "index (default) or uuid (UUIDs anyway when a MIG device is chosen)", "FORMAT" },
        { "sep", 's', 0, G_OPTION_ARG_STRING, &jc_select_sep, "Between the GPUs (default ',')", "SEP" },
        { "newline", 0, 0, G_OPTION_ARG_NONE, &jc_select_newline, "One GPU a line", NULL },
        { "null", '0', 0, G_OPTION_ARG_NONE, &jc_select_null, "NUL between the GPUs, for xargs -0", NULL },
        { "no-sort", 'S', 0, G_OPTION_ARG_NONE, &jc_select_no_sort,
          "In NVML's order, not by memory in use and utilization", NULL },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
};

static const GOptionEntry measure_entries[] = {
        { "interval", 'i', 0, G_OPTION_ARG_INT, &jc_measure_interval_ms,
          "Integrate from a record every MS milliseconds (1 to 3600000, default 10)", "MS" },
        { "pid", 'p', 0, G_OPTION_ARG_STRING, &jc_measure_pid,
          "Follow the running process PID and its descendants until it exits or Ctrl-C, instead of a command",
          "PID" },
        { NULL, 0, 0, 0, NULL, NULL, NULL }
};

typedef struct {
        const char *name;
        const char *args;       /* usage after the command name */
        const char *summary;
        const char *details;    /* what it does and the busctl equivalent */
        const GOptionEntry *entries;
        jc_command_fn run;
        bool own_bus;           /* the command connects when it needs to (tegrastats --start forks first) */
} command;

static const command commands[] = {
        { "status", "[--only ID,...] [--only-visible] [--owner[=USER,...]] [--pid PID,...]",
          "Board, power mode, clocks, fan and the latest sample on one screen",
          "Shows the board, the power mode, jetson_clocks, the fans, then CPU (per core), GPU, EMC, RAM, swap,\n"
          "power rails, temperatures and the engines that are on, from the latest sample. --only and\n"
          "--only-visible show only some GPUs and their processes; --owner and --pid only some processes.\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Metrics GetSnapshot\n"
          "  " BUSCTL " introspect " DEST " org.jetsond.Jetson1.Board",
          status_entries, jc_cmd_status },
        { "board", "", "Board identity and library versions (like jetson_release)",
          "busctl equivalent:\n"
          "  " BUSCTL " introspect " DEST " org.jetsond.Jetson1.Board",
          NULL, jc_cmd_board },
        { "watch", "[--interval MS] [--count N] [--stats] [--timestamps=iso] [--only ID,...] [--only-visible] [KEY-GLOB...]", "Stream samples, one line per sample",
          "Prints one compact line per Sample signal (tegrastats-like), or with KEY-GLOBs (e.g. 'power.*')\n"
          "the matching keys as key=value; with --json one JSON document per line. Without --interval, or\n"
          "with jetsond's DefaultInterval, it takes the Sample signals jetsond sends anyway; with another\n"
          "--interval, it asks jetsond for samples at that period (Metrics.Subscribe, SampleAt signals)\n"
          "until jetsonctl ends. Ctrl-C ends cleanly.\n\n"
          "busctl equivalent, at the default rate (another needs Subscribe from a connection that stays\n"
          "open, which busctl's calls do not: see docs/service.md for gjs):\n"
          "  " BUSCTL " monitor --match \"type='signal',interface='org.jetsond.Jetson1.Metrics',member='Sample'\"",
          watch_entries, jc_cmd_watch },
        { "top", "[--interval MS] [--compute|--only-compute|--graphics|--only-graphics] [--only ID,...] [--only-visible]\n"
          "    [--owner[=USER,...]] [--pid PID,...]",
          "Live full-screen view of the board, like jtop",
          "Header (board, JetPack, uptime, power mode, jetson_clocks, fans), CPU cores, GPU, EMC, memory,\n"
          "each power rail now and on average since top started (from the energy counters), temperatures,\n"
          "the engines that are on and the GPU processes as nvitop lists them. Keys: h the help screen,\n"
          "q quit, s sort the processes, x their GPU contexts (as --compute ...), m choose the power mode,\n"
          "f choose a fan profile (polkit asks as for the commands). Takes a sample every --interval:\n"
          "jetsond's Sample signals at its DefaultInterval, else it asks for that period while it runs.\n\n"
          "busctl equivalent (a Subscribe lasts as long as the connection that made it, so busctl alone\n"
          "cannot keep one: see docs/service.md for gdbus and gjs):\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Metrics GetSnapshot",
          top_entries, jc_cmd_top },
        { "get", "[--value] KEY|GLOB...", "Print sample keys as key=value, one per line",
          "Keys are listed in org.jetsond.Jetson1.Metrics.xml (e.g. gpu.load, temp.cpu, power.total); a\n"
          "GLOB ('temp.*') stands for every key it matches, in the sample's order. Values with blanks or\n"
          "quotes are quoted as systemctl show does; --value prints the values alone. A key the sample does\n"
          "not have, or a glob that matches none, is an error (exit status 1) and nothing is printed.\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Metrics GetSnapshot",
          get_entries, jc_cmd_get },
        { "fan", "[list] | speed [FAN] PCT | profile [FAN] NAME", "Show fans, set a fan's speed or profile",
          "FAN is the fan's index (0, 1, ...) or name; it may be left out on a board with one fan.\n"
          "Setting a speed switches the fan to the \"manual\" profile; \"fan profile FAN cool\" hands it back.\n"
          "polkit action: org.jetsond.Jetson1.set-fan.\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " call " DEST " org.freedesktop.DBus.ObjectManager GetManagedObjects\n"
          "  " BUSCTL " call org.jetsond.Jetson1 /org/jetsond/Jetson1/fan/0 org.jetsond.Jetson1.Fan SetSpeed d 50\n"
          "  " BUSCTL " call org.jetsond.Jetson1 /org/jetsond/Jetson1/fan/0 org.jetsond.Jetson1.Fan SetProfile s quiet",
          NULL, jc_cmd_fan },
        { "nvpmodel", "[list] | set ID|NAME | default ID|NAME", "Show or change the nvpmodel power mode",
          "\"set\" switches now (a mode that needs a reboot is refused: use \"default\" and reboot);\n"
          "\"default\" chooses the mode applied at boot. polkit action: org.jetsond.Jetson1.set-nvpmodel.\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " get-property " DEST " org.jetsond.Jetson1.NVPModel Modes Mode ModeName DefaultMode\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.NVPModel SetMode u 1\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.NVPModel SetDefaultMode u 2",
          NULL, jc_cmd_nvpmodel },
        { "clocks", "[show] | on | off | boot on|off", "Show or switch jetson_clocks, now or at boot",
          "polkit action: org.jetsond.Jetson1.set-jetson-clocks.\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " get-property " DEST " org.jetsond.Jetson1.JetsonClocks Active OnBoot\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.JetsonClocks SetActive b true\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.JetsonClocks SetOnBoot b true",
          NULL, jc_cmd_clocks },
        { "gpu", "[show] | scaling on|off | railgate on|off", "Show or switch the GPU's 3D scaling and rail gating",
          "scaling: the GPU's frequency follows its load (off: kept at its maximum). railgate: the GPU may be\n"
          "powered off when idle (off: kept powered). Both are on at boot. polkit action:\n"
          "org.jetsond.Jetson1.set-gpu.\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " get-property " DEST " org.jetsond.Jetson1.Gpu Name Scaling3D Railgate\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Gpu SetScaling3D b false\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Gpu SetRailgate b false",
          NULL, jc_cmd_gpu },
        { "swap", "[show] | create SIZE [--on-boot] | remove", "Show swap; create or remove jetsond's swap file",
          "SIZE is bytes or a number with K, M, G or T (powers of 1024), at least 64M and a multiple of the\n"
          "page size; jetsond also refuses sizes above the free disk space minus 1G.\n"
          "polkit action: org.jetsond.Jetson1.manage-swap.\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " get-property " DEST " org.jetsond.Jetson1.Memory Swaps SwapTotal RamTotal\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Memory CreateSwap tb 8589934592 true\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Memory RemoveSwap",
          swap_entries, jc_cmd_swap },
        { "drop-caches", "", "Write dirty data and drop the page cache",
          "polkit action: org.jetsond.Jetson1.drop-caches.\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Memory DropCaches",
          NULL, jc_cmd_drop_caches },
        { "restore", "", "Put jetson_clocks, fans, the power mode and the GPU back to their defaults",
          "Prints one line per step. polkit actions: org.jetsond.Jetson1.set-jetson-clocks, set-fan,\n"
          "set-nvpmodel and set-gpu, all four.\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Manager RestoreDefaults",
          NULL, jc_cmd_restore },
        { "serial", "", "Print the board's serial number",
          "polkit action: org.jetsond.Jetson1.read-serial.\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Board GetSerialNumber",
          NULL, jc_cmd_serial },
        { "record", "[--interval MS] [--medium MS] [--slow MS] [--keys GLOB,...] [--format csv|jsonl|trace] "
                    "[--time unix|iso|relative] [-o FILE] [--duration SECONDS] [--pid PID | -- COMMAND [ARG...]]",
          "Record samples at up to 1 kHz to a file, for a time or while a command runs",
          "Opens a capture stream (Metrics.OpenCapture) and writes every record: csv (time_s, one column\n"
          "per key, mark), jsonl (one object per record) or trace (Chrome Trace Event JSON, for Perfetto\n"
          "UI or chrome://tracing). time_s counts from the start; csv and jsonl add the absolute time after\n"
          "it (--time: time_unix_s, seconds since the epoch, or time_utc, RFC 3339), the trace its origin\n"
          "in otherData. With -- COMMAND, runs it (no shell),\n"
          "records until it exits and exits with its status; every line the command writes to the fd\n"
          "in $JETSONCTL_MARK_FD is a sync point (the mark column, instant events in trace). Without a\n"
          "command or --duration, records until Ctrl-C. With --pid PID, follows that running process\n"
          "until it exits (or Ctrl-C). With a command or --pid, tree.* columns sum the process tree from\n"
          "/proc and jetsond: CPU time, RSS, PSS, bytes read and written, GPU memory, SM use, GPUs busy.\n"
          "Records jetsond had to drop are counted on stderr.\n"
          "Medium and slow keys repeat between their tier's readings: columns medium_time_s and slow_time_s\n"
          "(dgpu.N_time_s for a GPU's) say when the values in the row were read, a new reading where they\n"
          "change; --medium and --slow set those tiers' rates for this recording (OpenCaptureWithOptions).\n\n"
          "busctl equivalent (busctl shows the columns; read the stream as introspection/capture.md says):\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Metrics OpenCapture tas 10000 1 'power.*'",
          record_entries, jc_cmd_record },
        { "measure", "[--interval MS] [--json] {--pid PID | -- COMMAND [ARG...]}",
          "Run a command and report its energy, power, loads, temperatures and processes",
          "Runs COMMAND (no shell) under a capture stream (Metrics.OpenCapture) and prints, when it ends,\n"
          "in the spirit of perf stat and /usr/bin/time -v: wall time; energy per rail and in all (J,\n"
          "integrated from the records; the total is the board's input rail where there is one), mean and\n"
          "peak power; mean and max CPU, GPU and EMC load; max GPU and EMC frequency; max temperature per\n"
          "zone; the command's process tree (followed through /proc): CPU user and system time, peak RSS\n"
          "and PSS, bytes read and written, peak GPU memory. Each line the command writes to the fd in\n"
          "$JETSONCTL_MARK_FD starts a phase, reported the same way. Exits with the command's status.\n"
          "With --pid PID, follows that running process and its descendants instead, until it exits or\n"
          "Ctrl-C, and reports the same for that time (exit status 0).\n\n"
          "busctl equivalent (busctl shows the columns; read the stream as introspection/capture.md says):\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Metrics OpenCapture tas 10000 0",
          measure_entries, jc_cmd_measure },
        { "select", "[--min-count N] [--max-count N] [--min-free-memory SIZE] [--max-gpu-utilization PCT] "
                    "[--format index|uuid] [--newline|--null] ...",
          "Choose NVIDIA GPUs for CUDA_VISIBLE_DEVICES, like nvitop's nvisel",
          "Prints the GPUs (NVML index, or UUID with --format uuid) that meet every constraint, least memory\n"
          "in use first, comma-separated: export CUDA_VISIBLE_DEVICES=\"$(jetsonctl select -n 2 -f 8G)\".\n"
          "A GPU with MIG on is offered as its MIG devices (then UUIDs). From the latest sample; any user.\n"
          "Exit status 1 when fewer than --min-count qualify.\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Metrics GetSnapshot",
          select_entries, jc_cmd_select },
        { "tegrastats", "[--interval MS] [--logfile FILE [--start]] [--stop] [--format r32|r35|r36|r38|r39]",
          "Print NVIDIA's tegrastats lines, exactly as the board's JetPack prints them, as any user",
          "One line every --interval milliseconds in the form tegrastats prints on the board's L4T release\n"
          "(--format: another release's), from jetsond's samples: no root, no tegrastats, nothing read\n"
          "from the hardware but what jetsond reads anyway. tegrastats' own options: --logfile appends to\n"
          "FILE, --start runs in the background, --stop ends every such run; --readall and --verbose are\n"
          "accepted. Under the name tegrastats (the link /usr/libexec/jetsonctl/tegrastats) jetsonctl runs\n"
          "this command. docs/tegrastats.md has every field per release.\n\n"
          "busctl equivalent (the compact stream the lines come from; any rate but jetsond's DefaultInterval\n"
          "needs SubscribeValues from a connection that stays open):\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Metrics GetValues\n"
          "  " BUSCTL " get-property " DEST " org.jetsond.Jetson1.Metrics Sensors",
          jc_tegrastats_entries, jc_cmd_tegrastats, true },
        { "doctor", "", "Say why a value is missing: what jetsond found, where, and what to do",
          "For each family of keys (cpu, gpu, emc, power, thermal, fans, nvpmodel, dgpu, ...) what jetsond\n"
          "found and from where, and for what is missing why (the service's sandbox, a permission, NVML,\n"
          "an unknown L4T release, a part the board does not have) and what to do; before that, jetsonctl's\n"
          "own checks: the bus socket, jetsond running (or started by D-Bus), the same version, your groups\n"
          "and polkit, your PID namespace. Needs only the bus. Exit status 0 when jetsond answered, 1 when\n"
          "it could not be asked (no bus, jetsond not running, a jetsond without Diagnose).\n\n"
          "busctl equivalent:\n"
          "  " BUSCTL " call " DEST " org.jetsond.Jetson1.Manager Diagnose",
          NULL, jc_cmd_doctor, true },
};

static const command *find_command(const char *name)
{
        for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
                if (strcmp(commands[i].name, name) == 0)
                        return &commands[i];
        return NULL;
}

int jc_usage_error(const char *cmd, const char *fmt, ...)
{
        va_list ap;
        va_start(ap, fmt);
        g_autofree char *msg = g_strdup_vprintf(fmt, ap);
        va_end(ap);
        fprintf(stderr, "jetsonctl: %s\n", msg);
        fprintf(stderr, "Try 'jetsonctl %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
        return JC_EXIT_USAGE;
}

static void print_main_help(GOptionContext *ctx)
{
        g_autofree char *help = g_option_context_get_help(ctx, TRUE, NULL);
        fputs(help, stdout);
}

static char *commands_description(void)
{
        GString *s = g_string_new("Commands (default: status):\n");
        for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
                g_string_append_printf(s, "  %-12s %s\n", commands[i].name, commands[i].summary);
        g_string_append(s,
                        "\nExit status: 0 success, 1 failure (also: jetsond not running), 2 usage error or an\n"
                        "argument jetsond refused, 4 not authorized.\n"
                        "Every command has a busctl equivalent: see 'jetsonctl COMMAND --help' and jetsonctl(1).\n");
        return g_string_free(s, FALSE);
}

/* Parses the options of CMD in ARGV (ARGV[0] is the command name) and
 * leaves its positional arguments there. */
static int parse_command(const command *cmd, int *argc, char ***argv, bool *help)
{
        g_autofree char *param = g_strdup_printf("%s%s%s", cmd->name, *cmd->args ? " " : "", cmd->args);
        g_autoptr(GOptionContext) ctx = g_option_context_new(param);
        g_option_context_set_help_enabled(ctx, FALSE);
        g_option_context_set_summary(ctx, cmd->summary);
        g_autofree char *details = g_strconcat(cmd->details, "\n", NULL);
        g_option_context_set_description(ctx, details);
        /* The command's own options first, the global ones in a group of
         * their own so --help shows them apart. */
        if (cmd->entries) {
                g_autofree char *title = g_strdup_printf("Options of %s:", cmd->name);
                GOptionGroup *own = g_option_group_new(cmd->name, title, "Show the command's options", NULL, NULL);
                g_option_group_add_entries(own, cmd->entries);
                g_option_context_set_main_group(ctx, own);
        }
        GOptionGroup *global = g_option_group_new("global", "Global options:", "Show the global options", NULL, NULL);
        g_option_group_add_entries(global, global_entries);
        g_option_context_add_group(ctx, global);
        g_autoptr(GError) error = NULL;
        if (!g_option_context_parse(ctx, argc, argv, &error)) {
                g_autofree char *text = jc_option_error_text(error);
                return jc_usage_error(cmd->name, "%s", text);
        }
        if (opt_help) {
                /* GOption's prog name is ours, not the command's. */
                g_autofree char *text = g_option_context_get_help(ctx, FALSE, NULL);
                fputs(text, stdout);
                *help = true;
        }
        return JC_EXIT_OK;
}

/* --json=short|pretty|off, as hostnamectl takes it, before GOption sees
 * the arguments (its optional values would also take "--json status"'s
 * command): each becomes --json or goes. False for another mode. */
static bool take_json_modes(int *argc, char **argv)
{
        int out = 1;
        bool ok = true, options = true;
        for (int i = 1; i < *argc; i++) {
                const char *a = argv[i];
                if (strcmp(a, "--") == 0)
                        options = false;
                if (!options || !g_str_has_prefix(a, "--json=")) {
                        argv[out++] = argv[i];
                        continue;
                }
                const char *mode = a + strlen("--json=");
                if (strcmp(mode, "pretty") == 0 || strcmp(mode, "short") == 0) {
                        jc_json_pretty = strcmp(mode, "pretty") == 0;
                        argv[out++] = (char *) "--json";
                } else if (strcmp(mode, "off") == 0) {
                        opt_json_off = true;
                } else if (ok) {
                        jc_usage_error(NULL, "--json must be short, pretty or off, not \"%s\"", mode);
                        ok = false;
                }
        }
        argv[out] = NULL;
        *argc = out;
        return ok;
}

int main(int argc, char **argv)
{
        /* Only LC_CTYPE: numbers are always printed with a '.', as scripts
         * and the golden tests expect. */
        setlocale(LC_CTYPE, "");
        /* The link named tegrastats: tegrastats' command line alone. */
        g_autofree char *invoked = g_path_get_basename(argv[0]);
        if (strcmp(invoked, "tegrastats") == 0) {
                g_set_prgname("tegrastats");
                return jc_tegrastats_main(argc, argv);
        }
        g_set_prgname("jetsonctl");
        if (!take_json_modes(&argc, argv))
                return JC_EXIT_USAGE;

        g_autoptr(GOptionContext) ctx = g_option_context_new("[COMMAND [ARGS...]]");
        g_option_context_set_help_enabled(ctx, FALSE);
        g_option_context_set_strict_posix(ctx, TRUE);
        g_option_context_set_summary(ctx, "Show and control an NVIDIA Jetson board through jetsond (org.jetsond.Jetson1).");
        g_autofree char *description = commands_description();
        g_option_context_set_description(ctx, description);
        g_option_context_add_main_entries(ctx, global_entries, NULL);
        g_autoptr(GError) error = NULL;
        if (!g_option_context_parse(ctx, &argc, &argv, &error)) {
                g_autofree char *text = jc_option_error_text(error);
                return jc_usage_error(NULL, "%s", text);
        }
        if (opt_version) {
                printf("jetsonctl %s\n", JETSONCTL_VERSION);
                return JC_EXIT_OK;
        }
        if (opt_help && argc < 2) {
                print_main_help(ctx);
                return JC_EXIT_OK;
        }

        /* argv[0] is the program; the command, if any, follows. */
        char *default_argv[] = { (char *) "status", NULL };
        int cmd_argc = argc > 1 ? argc - 1 : 1;
        char **cmd_argv = argc > 1 ? argv + 1 : default_argv;
        const command *cmd = find_command(cmd_argv[0]);
        if (!cmd)
                return jc_usage_error(NULL, "unknown command \"%s\"", cmd_argv[0]);

        /* GOption rearranges the array it is given; work on a copy. */
        char **args = g_new0(char *, (gsize) cmd_argc + 1);
        memcpy(args, cmd_argv, sizeof(char *) * (size_t) cmd_argc);
        char **args_owner = args;
        bool help = false;
        int ret = parse_command(cmd, &cmd_argc, &args, &help);
        if (ret != JC_EXIT_OK || help) {
                g_free(args_owner);
                return ret;
        }
        if (opt_color && strcmp(opt_color, "auto") && strcmp(opt_color, "always") && strcmp(opt_color, "never")) {
                g_free(args_owner);
                return jc_usage_error(cmd->name, "--color must be auto, always or never, not \"%s\"", opt_color);
        }

        jc_ctx c = {
                .json = opt_json && !opt_json_off,
                .color = !(opt_json && !opt_json_off) && jc_want_color(opt_no_color ? "never" : opt_color ? opt_color : "auto", STDOUT_FILENO),
                /* As systemctl: polkit may ask for a password only if
                 * there is a terminal to ask on. */
                .ask_password = !opt_no_ask_password && isatty(STDIN_FILENO),
                .session = opt_session,
                .address = opt_address,
        };
        ret = cmd->own_bus ? JC_EXIT_OK : jc_bus_open(&c);
        if (ret == JC_EXIT_OK)
                ret = cmd->run(&c, cmd_argc, args);
        c.bus = sd_bus_flush_close_unref(c.bus);
        jc_caller_names_free(c.caller_names);
        g_free(args_owner);
        g_free(opt_address);
        g_free(opt_color);
        g_free(jc_watch_timestamps);
        return ret;
}
