#!/bin/sh
# run-bus-bench.sh [BUILDDIR] [-- BENCH ARGS]
# Runs jetsond-bus-bench against a throw-away setup: a private system bus
# with the project's policy (tests/integration/system-bus.conf.in), a copy
# of the AGX Orin fake board made live by simulate.py (50 ms period), and
# jetsond --system at the default 1000 ms interval; then the engine's
# floor (jetsond-engine-floor: the same threads, deadlines, files and
# hand-over with no parsing and no D-Bus) on the same live board, at the
# 10 ms and 1 ms periods the bench measured jetsond at (jetsond idles at
# its 1 s period meanwhile). Everything is removed
# on exit: processes are killed by their recorded PIDs, the directory with
# rm -rf. ROUNDS=N in the environment: the subscribed periods alone,
# alternated N times with the floor (a ratio and the microseconds above
# the floor per round, each side's CPU thread by thread, and the medians).
# BUILDDIR (default build/) must hold src/jetsond and
# bench/jetsond-bus-bench. Needs root (the policy lets only root own the name).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=build
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    build=$1
    shift
fi
[ $# -eq 0 ] || { [ "$1" = "--" ] && shift; }
build=$(cd "$build" && pwd)
jetsond=$build/src/jetsond
bench=$build/bench/jetsond-bus-bench
floor=$build/bench/jetsond-engine-floor
wake=$build/bench/jetsond-wake-cost
for f in "$jetsond" "$bench" "$floor" "$wake"; do
    [ -x "$f" ] || { echo "$0: $f not built (ninja -C $build)" >&2; exit 2; }
done
[ "$(id -u)" -eq 0 ] || { echo "$0: must run as root (bus policy)" >&2; exit 2; }

dir=""
bus_pid=""
sim_pid=""
daemon_pid=""
cleanup() {
    status=$?
    for pid in $daemon_pid $sim_pid; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    [ -z "$bus_pid" ] || kill "$bus_pid" 2>/dev/null || true
    [ -z "$dir" ] || rm -rf "$dir"
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

dir=$(mktemp -d /tmp/jetsond-bus-bench.XXXXXX)
chmod 755 "$dir"
mkdir "$dir/services"
sed -e "s|@BUSDIR@|$dir|g" -e "s|@SRCDIR@|$src|g" -e "s|@EXTRA@||g" \
    "$src/tests/integration/system-bus.conf.in" >"$dir/bus.conf"
dbus-daemon --config-file="$dir/bus.conf" --fork --print-address=1 --print-pid=1 >"$dir/bus.out"
{ read -r address; read -r bus_pid; } <"$dir/bus.out"
[ -n "$bus_pid" ] || { echo "$0: dbus-daemon did not start" >&2; exit 1; }
DBUS_SYSTEM_BUS_ADDRESS=$address
export DBUS_SYSTEM_BUS_ADDRESS

sh "$src/tests/fixtures/make-sysroot.sh" agx-orin-jp62 "$dir/root" >/dev/null
/usr/bin/python3 "$src/tests/fixtures/simulate.py" "$dir/root" --period-ms 50 &
sim_pid=$!

"$jetsond" --sysroot "$dir/root" --system --interval 1000 >"$dir/jetsond.log" 2>&1 &
daemon_pid=$!
tries=0
until busctl --system status org.jetsond.Jetson1 >/dev/null 2>&1; do
    if ! kill -0 "$daemon_pid" 2>/dev/null || [ $tries -ge 300 ]; then
        echo "$0: jetsond did not own its name:" >&2
        cat "$dir/jetsond.log" >&2
        exit 1
    fi
    tries=$((tries + 1))
    sleep 0.01
done

# The bench's -i and -w, if given, for the floor too.
interval=10000
window=10
calls_only=""
while getopts "qSn:w:s:i:" opt; do
    case $opt in
    q) calls_only=1 ;;
    w) window=$OPTARG ;;
    i) interval=$OPTARG ;;
    *) ;;
    esac
done

echo "jetsond $daemon_pid, dbus-daemon $bus_pid, simulate.py $sim_pid; $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -n "${ROUNDS:-}" ]; then
    # ROUNDS=N: the subscribed periods and the engine's floor alternated N
    # times, one ratio per round and the medians: a neighbour that slows
    # one round slows both sides of it, where one long run of each compares
    # two different moments of a shared machine.
    # What the machine charges a stream before jetsond does anything: a
    # message a tick to a sleeping reader on another CPU, as dbus-daemon is.
    "$wake" "$interval" | sed -n 's/^figure: /figure: this machine: /p'
    : >"$dir/ratios"
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        r=$((r + 1))
        "$bench" -S "$@" "$daemon_pid" "$bus_pid" >"$dir/round"
        "$floor" "$dir/root" "$interval" "$window" >"$dir/floor"
        sample=$(awk '/^subscribed \(/ { f = 1 } f && /^  jetsond / { print $7; exit }' "$dir/round")
        values=$(awk '/^subscribed, compact/ { f = 1 } f && /^  jetsond / { print $7; exit }' "$dir/round")
        base=$(awk '/^  floor / { print $7; exit }' "$dir/floor")
        echo "$sample $values $base" | awk -v r="$r" -v load="$(cut -d' ' -f1 /proc/loadavg)" '{
            printf "round %d (load %s): SampleAt %.1f us, ValuesAt %.1f us a tick; floor %.1f us: %.2fx, %.2fx; %+.1f, %+.1f us\n", r, load, $1, $2, $3, $1 / $3, $2 / $3, $1 - $3, $2 - $3
            print $1 / $3, $2 / $3, $1 - $3, $2 - $3 }' | tee -a "$dir/ratios" | grep '^round'
        # Where each side's time went, thread by thread (us a tick): the
        # SampleAt period's, the ValuesAt period's, the floor's.
        grep -h 'by thread' "$dir/round" "$dir/floor" |
            sed -e 's/^ *by thread, us per [a-z ]*: */  threads: /' -e 's/ [a-z-]* 0\.0//g'
    done
    mid=$(((ROUNDS + 1) / 2))
    # The median of column $1 of the rounds' figures.
    median() { grep -v '^round' "$dir/ratios" | cut -d' ' -f"$1" | sort -g | sed -n "${mid}p"; }
    s_med=$(median 1)
    v_med=$(median 2)
    s_over=$(median 3)
    v_over=$(median 4)
    printf 'figure: subscribers at %s us, median of %s rounds: SampleAt %.2fx, ValuesAt %.2fx the engine floor\n' \
        "$interval" "$ROUNDS" "$s_med" "$v_med"
    # The same in microseconds above the floor a tick: what jetsond adds,
    # which moves less than the ratio when the floor's own cost moves.
    printf 'figure: subscribers at %s us, median of %s rounds: SampleAt %+.1f us, ValuesAt %+.1f us a tick above the engine floor\n' \
        "$interval" "$ROUNDS" "$s_over" "$v_over"
    exit 0
fi
"$bench" "$@" "$daemon_pid" "$bus_pid"
[ -z "$calls_only" ] || exit 0
echo "engine floor at the subscribed period ($interval us), same board, no parsing, no D-Bus:"
"$floor" "$dir/root" "$interval" "$window"
echo "engine floor at the capture's 1000 us:"
"$floor" "$dir/root" 1000 "$window"
