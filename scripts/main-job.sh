#!/bin/sh
# The main job: build jetsond, start a private system bus (with the
# project's bus policy enforced) and a mock polkit, bring a copy of the
# AGX Orin (JetPack 6.2) fake board to life with the simulator, run the
# daemon on it, and show what a client sees: the introspection, board
# properties, live samples, a faster subscription. Everything started
# here is stopped at the end.
set -eu
cd "$(dirname "$0")/.."

sh scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build > /tmp/jetsond-main-job-build.log 2>&1 || { cat /tmp/jetsond-main-job-build.log; exit 1; }

work=$(mktemp -d /tmp/jetsond-demo.XXXXXX)
chmod 755 "$work"
mkdir "$work/services"
sim="" daemon="" bus_pid=""
cleanup() {
        [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
        [ -n "$sim" ] && kill "$sim" 2>/dev/null && wait "$sim" 2>/dev/null
        [ -n "$bus_pid" ] && kill "$bus_pid" 2>/dev/null
        rm -rf "$work"
}
trap cleanup EXIT INT TERM

sed -e "s|@BUSDIR@|$work|g" -e "s|@SRCDIR@|$PWD|g" -e "s|@EXTRA@||" \
        tests/integration/system-bus.conf.in > "$work/bus.conf"
dbus-daemon --config-file="$work/bus.conf" --fork --print-address=1 --print-pid=1 > "$work/bus.out"
DBUS_SYSTEM_BUS_ADDRESS=$(sed -n 1p "$work/bus.out")
bus_pid=$(sed -n 2p "$work/bus.out")
export DBUS_SYSTEM_BUS_ADDRESS

sh tests/fixtures/make-sysroot.sh agx-orin-jp62 "$work/root" >/dev/null
/usr/bin/python3 tests/fixtures/simulate.py "$work/root" --period-ms 100 &
sim=$!
build/src/jetsond --sysroot "$work/root" --system 2> "$work/jetsond.log" &
daemon=$!
for _ in $(seq 100); do
        busctl --system status org.jetsond.Jetson1 >/dev/null 2>&1 && break
        sleep 0.05
done

run() { echo; echo "\$ $*"; "$@"; }

echo "== jetsond on a private system bus, serving a simulated AGX Orin"
run busctl --system tree org.jetsond.Jetson1
run busctl --system introspect org.jetsond.Jetson1 /org/jetsond/Jetson1 org.jetsond.Jetson1.Board
run busctl --system introspect org.jetsond.Jetson1 /org/jetsond/Jetson1 org.jetsond.Jetson1.NVPModel
run busctl --system get-property org.jetsond.Jetson1 /org/jetsond/Jetson1/fan/0 org.jetsond.Jetson1.Fan Profile Rpm

echo
echo "== live samples (Sample signals, 1 s default interval), shown compactly"
summarize='
import re, sys
def val(line, key):
    m = re.search(r"\x27" + re.escape(key) + r"\x27: <(?:uint32 |uint64 |double )?([^>]*)>", line)
    return m.group(1) if m else "-"
for line in sys.stdin:
    if ".Sample (" not in line:
        continue
    print("CPU {:>5}%  GPU {:>5}% @{} kHz  EMC {:>5}%  RAM {} KiB  power {} mW  cpu {} C  fan {} rpm".format(
        val(line, "cpu.load")[:5], val(line, "gpu.load")[:5], val(line, "gpu.freq"), val(line, "emc.load")[:5],
        val(line, "ram.used"), val(line, "power.total"), val(line, "temp.cpu")[:5], val(line, "fan.0.rpm")))
    sys.stdout.flush()
'
echo "\$ gdbus monitor --system --dest org.jetsond.Jetson1   (3.5 s)"
timeout 3.5 gdbus monitor --system --dest org.jetsond.Jetson1 | /usr/bin/python3 -c "$summarize" || true

echo
echo "== a client asks for 100 ms samples for as long as it is connected"
echo "\$ busctl --system call ... Metrics Subscribe t 100000, then count Sample signals for 1 s"
/usr/bin/python3 - <<'PY'
import time
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SYSTEM)
count = [0]
bus.signal_subscribe("org.jetsond.Jetson1", "org.jetsond.Jetson1.Metrics", "Sample",
                     "/org/jetsond/Jetson1", None, 0, lambda *a: count.__setitem__(0, count[0] + 1))
bus.call_sync("org.jetsond.Jetson1", "/org/jetsond/Jetson1", "org.jetsond.Jetson1.Metrics", "Subscribe",
              GLib.Variant("(t)", (100000,)), None, 0, -1, None)
ctx = GLib.MainContext.default()
end = time.monotonic() + 1.0
while time.monotonic() < end:
    ctx.iteration(False)
    time.sleep(0.005)
props = bus.call_sync("org.jetsond.Jetson1", "/org/jetsond/Jetson1", "org.freedesktop.DBus.Properties", "Get",
                      GLib.Variant("(ss)", ("org.jetsond.Jetson1.Metrics", "Interval")), None, 0, -1, None)
print("Interval while subscribed: %d us, samples in 1 s: %d" % (props.unpack()[0], count[0]))
PY
run busctl --system get-property org.jetsond.Jetson1 /org/jetsond/Jetson1 org.jetsond.Jetson1.Metrics Interval

# ---- jetsonctl (client/, issue 5) -------------------------------------
echo
echo "== jetsonctl, the command-line client, against the same daemon"
run build/client/jetsonctl status
run build/client/jetsonctl board
run build/client/jetsonctl watch --count 3 --interval 100
# ---- end of jetsonctl ---------------------------------------------------

echo
echo "== the daemon's log"
cat "$work/jetsond.log"
