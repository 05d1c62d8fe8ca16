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
# alternated N times with the floor and with jetsond-wake-cost (what one
# message a tick costs this machine by itself): per round the ratio to the
# engine floor plus that message, each side's CPU thread by thread; then
# the medians and the means' 95 % intervals.
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
    # ROUNDS=N: the subscribed periods, the engine's floor and what the
    # machine charges one message a tick, alternated N times: one ratio per
    # round, their median and the mean's 95 % confidence interval. A
    # neighbour that slows one round slows every side of it, where one long
    # run of each compares different moments of a shared machine.
    # The true floor of a stream is the engine's plus one message a tick
    # to a sleeping reader on another CPU, as dbus-daemon is: the
    # wake-cost bench's "adds" figure (8 KiB a message, about a sample of
    # this board).
    : >"$dir/ratios"
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        r=$((r + 1))
        "$bench" -S "$@" "$daemon_pid" "$bus_pid" >"$dir/round"
        "$floor" "$dir/root" "$interval" "$window" >"$dir/floor"
        "$wake" "$interval" "${WAKE_TICKS:-50}" >"$dir/wake"
        sample=$(awk '/^subscribed \(/ { f = 1 } f && /^  jetsond / { print $7; exit }' "$dir/round")
        values=$(awk '/^subscribed, compact/ { f = 1 } f && /^  jetsond / { print $7; exit }' "$dir/round")
        base=$(awk '/^  floor / { print $7; exit }' "$dir/floor")
        msg=$(sed -n 's/^figure: one message a tick to a sleeping reader adds +*\([-0-9.]*\) us.*/\1/p' "$dir/wake")
        echo "$sample $values $base $msg" | awk -v r="$r" -v load="$(cut -d' ' -f1 /proc/loadavg)" '{
            t = $3 + $4
            printf "round %d (load %s): SampleAt %.1f us, ValuesAt %.1f us a tick; engine floor %.1f + a message %.1f = %.1f us: %.2fx, %.2fx (%.2fx, %.2fx the engine floor alone)\n", r, load, $1, $2, $3, $4, t, $1 / t, $2 / t, $1 / $3, $2 / $3
            print $1 / t, $2 / t, $1 / $3, $2 / $3 }' | tee -a "$dir/ratios" | grep '^round'
        # Where each side's time went, thread by thread (us a tick): the
        # SampleAt period's, the ValuesAt period's, the floor's.
        grep -h 'by thread' "$dir/round" "$dir/floor" |
            sed -e 's/^ *by thread, us per [a-z ]*: */  threads: /' -e 's/ [a-z-]* 0\.0//g'
    done
    # Column $1 of the rounds' ratios: median, mean and the mean's 95 %
    # interval (Student's t for N - 1 degrees of freedom, N up to 30;
    # 2.0 beyond).
    summary() {
        grep -v '^round' "$dir/ratios" | cut -d' ' -f"$1" | sort -g | awk '
            { x[NR] = $1; sum += $1 }
            END {
                split("12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26 2.23 2.20 2.18 2.16 2.14 2.13 2.12 2.11 2.10 2.09 2.09 2.08 2.07 2.07 2.06 2.06 2.06 2.05 2.05 2.05", t, " ")
                n = NR; mean = sum / n
                for (i = 1; i <= n; i++) ss += (x[i] - mean) ^ 2
                half = n > 1 ? (n - 1 <= 29 ? t[n - 1] : 2.0) * sqrt(ss / (n - 1) / n) : 0
                printf "%.2fx (mean %.2fx, 95 %% interval %.2f-%.2fx)", x[int((n + 1) / 2)], mean, mean - half, mean + half
            }'
    }
    printf 'figure: subscribers at %s us, %s rounds: SampleAt %s, ValuesAt %s the engine floor plus one message a tick\n' \
        "$interval" "$ROUNDS" "$(summary 1)" "$(summary 2)"
    printf 'figure: subscribers at %s us, %s rounds: SampleAt %s, ValuesAt %s the engine floor alone\n' \
        "$interval" "$ROUNDS" "$(summary 3)" "$(summary 4)"
    exit 0
fi
"$bench" "$@" "$daemon_pid" "$bus_pid"
[ -z "$calls_only" ] || exit 0
echo "engine floor at the subscribed period ($interval us), same board, no parsing, no D-Bus:"
"$floor" "$dir/root" "$interval" "$window"
echo "engine floor at the capture's 1000 us:"
"$floor" "$dir/root" 1000 "$window"
