#!/bin/sh
# The main job: build jetsond, start a private system bus (with the
# project's bus policy enforced), python-dbusmock's polkitd and systemd
# (with nvfancontrol.service running), bring a copy of the AGX Orin
# (JetPack 6.2) fake board to life with the simulator, run the daemon on
# it, and show what a client sees: the introspection, board properties,
# live samples, a faster subscription, jetsonctl (doctor among its
# commands), jetsond-exporter with a
# Prometheus server scraping it, writes that polkit first denies and then
# allows, the PC board's discrete GPUs through a fake NVML, and the GNOME
# Shell extension in a headless GNOME Shell, and the Cockpit page in Debian's
# Cockpit with a headless Chromium. It leaves the README's three pictures in
# build/main-job/ (JETSOND_UPDATE_PICTURES=1 also copies them to docs/).
# Everything started here is stopped at the end.
set -eu
cd "$(dirname "$0")/.."

sh scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build > /tmp/jetsond-main-job-build.log 2>&1 || { cat /tmp/jetsond-main-job-build.log; exit 1; }

work=$(mktemp -d /tmp/jetsond-demo.XXXXXX)
chmod 755 "$work"
mkdir "$work/services"
sim="" daemon="" bus_pid="" mocks="" exporter="" prom="" user_daemon="" user_bus=""
cleanup() {
        [ -n "$user_daemon" ] && kill "$user_daemon" 2>/dev/null && wait "$user_daemon" 2>/dev/null
        [ -n "$user_bus" ] && kill "$user_bus" 2>/dev/null
        [ -n "$prom" ] && kill "$prom" 2>/dev/null && wait "$prom" 2>/dev/null
        [ -n "$exporter" ] && kill "$exporter" 2>/dev/null && wait "$exporter" 2>/dev/null
        [ -n "$daemon" ] && kill "$daemon" 2>/dev/null && wait "$daemon" 2>/dev/null
        # dbusmock dies of the SIGTERM (status 143): not a failure of the job
        for m in $mocks; do kill "$m" 2>/dev/null && { wait "$m" 2>/dev/null || true; }; done
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
# polkit and systemd as python-dbusmock templates (the private bus lets
# root own their names): polkit denies everything until told otherwise.
wait_name() {
        for _ in $(seq 200); do
                busctl --system status "$1" >/dev/null 2>&1 && return 0
                sleep 0.05
        done
        echo "main-job: $1 did not appear on the bus" >&2; exit 1
}
/usr/bin/python3 -m dbusmock --system --template polkitd > "$work/polkit.log" 2>&1 &
mocks="$mocks $!"
/usr/bin/python3 -m dbusmock --system --template systemd > "$work/systemd.log" 2>&1 &
mocks="$mocks $!"
wait_name org.freedesktop.PolicyKit1
wait_name org.freedesktop.systemd1
polkit_mock() { gdbus call --system --dest org.freedesktop.PolicyKit1 --object-path /org/freedesktop/PolicyKit1/Authority \
        --method "org.freedesktop.DBus.Mock.$1" "$2" >/dev/null; }
systemd_mock() { gdbus call --system --dest org.freedesktop.systemd1 --object-path /org/freedesktop/systemd1 --method "$@" >/dev/null; }
systemd_mock org.freedesktop.DBus.Mock.AddMockUnit nvfancontrol.service
systemd_mock org.freedesktop.DBus.Mock.AddMethod org.freedesktop.systemd1.Manager Subscribe "" "" ""
systemd_mock org.freedesktop.systemd1.Manager.StartUnit nvfancontrol.service replace

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
echo "\$ match SampleAt with arg0='100000', busctl --system call ... Metrics Subscribe t 100000, then count for 1 s"
/usr/bin/python3 - <<'PY'
import time
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SYSTEM)
count = {"SampleAt": 0, "Sample": 0}
def counter(member):
    return lambda *a: count.__setitem__(member, count[member] + 1)
# Its own period's stream (arg0), matched before asking for it; and the
# broadcast Sample, which stays at jetsond's default whoever subscribes.
bus.signal_subscribe("org.jetsond.Jetson1", "org.jetsond.Jetson1.Metrics", "SampleAt",
                     "/org/jetsond/Jetson1", "100000", 0, counter("SampleAt"))
bus.signal_subscribe("org.jetsond.Jetson1", "org.jetsond.Jetson1.Metrics", "Sample",
                     "/org/jetsond/Jetson1", None, 0, counter("Sample"))
bus.call_sync("org.jetsond.Jetson1", "/org/jetsond/Jetson1", "org.jetsond.Jetson1.Metrics", "Subscribe",
              GLib.Variant("(t)", (100000,)), None, 0, -1, None)
ctx = GLib.MainContext.default()
end = time.monotonic() + 1.0
while time.monotonic() < end:
    ctx.iteration(False)
    time.sleep(0.005)
props = bus.call_sync("org.jetsond.Jetson1", "/org/jetsond/Jetson1", "org.freedesktop.DBus.Properties", "Get",
                      GLib.Variant("(ss)", ("org.jetsond.Jetson1.Metrics", "Interval")), None, 0, -1, None)
print("Interval while subscribed: %d us; in 1 s: %d SampleAt of 100 ms, %d Sample (jetsond's default)"
      % (props.unpack()[0], count["SampleAt"], count["Sample"]))
PY
run busctl --system get-property org.jetsond.Jetson1 /org/jetsond/Jetson1 org.jetsond.Jetson1.Metrics Interval

echo
echo "== a profiler opens a 1 kHz capture stream (Metrics.OpenCapture, introspection/capture.md)"
echo "\$ OpenCapture t 1000 as cpu.load gpu.load emc.load power.total temp.*, then read the pipe for 1 s"
/usr/bin/python3 - <<'PY'
import math, os, struct, time
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SYSTEM)
reply, fds = bus.call_with_unix_fd_list_sync(
    "org.jetsond.Jetson1", "/org/jetsond/Jetson1", "org.jetsond.Jetson1.Metrics", "OpenCapture",
    GLib.Variant("(tas)", (1000, ["cpu.load", "gpu.load", "emc.load", "power.total", "temp.*"])),
    GLib.VariantType("(has)"), 0, -1, None, None)
stream = os.fdopen(fds.get(reply.unpack()[0]), "rb", buffering=0)
def read_exactly(n):
    data = b""
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data
magic, version, header_size, n, record_size, interval_ns, offset_ns = struct.unpack("=8sIIIIQq", read_exactly(40))
names = [x.decode() for x in read_exactly(header_size - 40).split(b"\0")[:n]]
record = struct.Struct("=QQ%dd" % n)
print("%s v%d: %d columns %s, %d-byte records every %d us" % (magic.decode(), version, n, names, record_size, interval_ns // 1000))
rows, dropped, end = [], 0, time.monotonic() + 1.0
while time.monotonic() < end:
    time_ns, lost, *values = record.unpack(read_exactly(record_size))
    rows.append((time_ns, values))
    dropped += lost
steps = [b[0] - a[0] for a, b in zip(rows, rows[1:])]
print("%d records in 1 s, %d dropped, spacing %.3f-%.3f ms" % (len(rows), dropped, min(steps) / 1e6, max(steps) / 1e6))
for t, values in (rows[0], rows[-1]):
    print("  %.3f" % ((t + offset_ns) / 1e9), ", ".join("%s=%g" % (k, v) for k, v in zip(names, values) if not math.isnan(v)))
PY

# ---- jetsonctl (client/) ----------------------------------------------
echo
echo "== jetsonctl, the command-line client, against the same daemon"
run build/client/jetsonctl status
run build/client/jetsonctl board
run build/client/jetsonctl watch --count 3 --interval 100 --stats power.total temp.gpu
echo
echo "== jetsonctl tegrastats: NVIDIA's tegrastats line for this board's JetPack, as any user, then JetPack 7.2's form"
run timeout --preserve-status -s INT 1.3 build/client/jetsonctl tegrastats --interval 500
run setpriv --reuid=65534 --regid=65534 --clear-groups timeout --preserve-status -s INT 0.8 \
        build/client/jetsonctl tegrastats --interval 500 --format r39
echo
echo "== jetsonctl doctor: each family of readings, where jetsond found it, and why the rest is missing"
run build/client/jetsonctl doctor
echo
echo "== jetsond --user: a per-user jetsond on a session bus of nobody's, reading what nobody may (docs/user-mode.md)"
mkdir "$work/user-bus"
chown 65534:65534 "$work/user-bus"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/ "$@"; }
as_nobody dbus-daemon --session --fork --address="unix:path=$work/user-bus/socket" \
        --print-address=1 --print-pid=1 > "$work/user-bus.out"
user_bus=$(sed -n 2p "$work/user-bus.out")
user_address=$(sed -n 1p "$work/user-bus.out")
echo "\$ jetsond --user --sysroot ...   (as nobody, DBUS_SESSION_BUS_ADDRESS=$user_address)"
# setpriv and env exec: $! is jetsond's own PID (a function run with &
# would be a subshell of this script, with its traps).
setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/ DBUS_SESSION_BUS_ADDRESS="$user_address" \
        build/src/jetsond --user --sysroot "$work/root" 2> "$work/user-jetsond.log" &
user_daemon=$!
for _ in $(seq 200); do
        as_nobody env DBUS_SESSION_BUS_ADDRESS="$user_address" busctl --user status org.jetsond.Jetson1 \
                >/dev/null 2>&1 && break
        sleep 0.05
done
echo
echo "\$ jetsonctl --user status | head -12   (as nobody)"
as_nobody env DBUS_SESSION_BUS_ADDRESS="$user_address" build/client/jetsonctl --user status | head -12
echo
echo "\$ jetsonctl --user fan speed 50   (every write is the system service's)"
as_nobody env DBUS_SESSION_BUS_ADDRESS="$user_address" build/client/jetsonctl --user fan speed 50 ||
        echo "(exit status $?)"
echo
echo "== jetsonctl record and measure: a workload with two sync points (JETSONCTL_MARK_FD)"
workload='echo "load model" >&$JETSONCTL_MARK_FD; sleep 0.3; echo inference >&$JETSONCTL_MARK_FD; sleep 0.4'
run build/client/jetsonctl record --interval 1 --keys cpu.load,gpu.load,power.total -o "$work/run.csv" -- sh -c "$workload"
echo "$(($(wc -l <"$work/run.csv") - 1)) records at 1 ms; the header, the first row and the marks:"
head -2 "$work/run.csv"
grep -e ',load model$' -e ',inference$' "$work/run.csv"
run build/client/jetsonctl measure -- sh -c "$workload"
echo
echo "== jetsonctl top, rendered to a picture (the README's; docs/pictures.md)"
echo "\$ scripts/render-top.sh build/client/jetsonctl build/main-job/top.png 120 40 8   (tmux, aha, headless Chromium)"
sh scripts/render-top.sh build/client/jetsonctl build/main-job/top.png 120 40 8
# ---- end of jetsonctl ---------------------------------------------------

# ---- jetsond-exporter (exporter/) ------------------------------------------
echo
echo "== jetsond-exporter serves the board to Prometheus (127.0.0.1:9837)"
build/exporter/jetsond-exporter --listen 127.0.0.1:9837 2> "$work/exporter.log" &
exporter=$!
for _ in $(seq 100); do curl -s -o /dev/null 127.0.0.1:9837/ && break; sleep 0.05; done
echo "\$ curl -s 127.0.0.1:9837/metrics | grep -E '^jetson_(up|info|board|temperature|fan_rpm|nvpmodel_mode)'"
curl -s 127.0.0.1:9837/metrics | grep -E '^jetson_(up|info|board|temperature|fan_rpm|nvpmodel_mode)'
echo "\$ curl -s -H 'Accept: application/openmetrics-text' 127.0.0.1:9837/metrics | grep -A3 '^# TYPE jetson_board_energy'"
curl -s -H 'Accept: application/openmetrics-text' 127.0.0.1:9837/metrics | grep -A3 '^# TYPE jetson_board_energy'
echo "\$ curl -s 127.0.0.1:9837/metrics/dcgm | grep -E '^DCGM_FI_DEV_(GPU_TEMP|POWER_USAGE|GPU_UTIL)'   # NVIDIA's dcgm-exporter names"
curl -s 127.0.0.1:9837/metrics/dcgm | grep -E '^DCGM_FI_DEV_(GPU_TEMP|POWER_USAGE|GPU_UTIL)'
mkdir "$work/prometheus"
cat > "$work/prometheus/prometheus.yml" <<'YML'
global: { scrape_interval: 1s, scrape_timeout: 1s }
scrape_configs:
  - { job_name: jetsond, static_configs: [ { targets: ['127.0.0.1:9837'] } ] }
  - { job_name: jetsond-dcgm, metrics_path: /metrics/dcgm, static_configs: [ { targets: ['127.0.0.1:9837'] } ] }
YML
prometheus --config.file="$work/prometheus/prometheus.yml" --storage.tsdb.path="$work/prometheus/tsdb" \
        --web.listen-address=127.0.0.1:19090 --log.level=warn > "$work/prometheus/log" 2>&1 &
prom=$!
promql() {
        echo "\$ PromQL: $1"
        curl -s --get --data-urlencode "query=$1" http://127.0.0.1:19090/api/v1/query | /usr/bin/python3 -c '
import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
    labels = ",".join("%s=\"%s\"" % kv for kv in sorted(r["metric"].items()) if kv[0] not in ("instance", "job"))
    print("  {%s} %s" % (labels, r["value"][1]))'
}
for _ in $(seq 300); do
        curl -s --get --data-urlencode 'query=jetson_up' http://127.0.0.1:19090/api/v1/query 2>/dev/null |
                grep -q '"value":\[[0-9.]*,"1"\]' && break
        sleep 0.1
done
echo "(a Prometheus server scrapes it every second; 6 s after its first scrape:)"
sleep 6
promql 'rate(jetson_board_energy_joules_total[5s])'
promql 'jetson_board_power_watts'
promql 'topk(3, jetson_temperature_celsius)'
promql 'avg(DCGM_FI_DEV_GPU_TEMP)'   # a panel of NVIDIA's DCGM dashboard
kill "$prom"; wait "$prom" 2>/dev/null || true; prom=""
# ---- end of jetsond-exporter ----------------------------------------------

echo
echo "== writes go through polkit: denied first, then allowed (gdbus shows the D-Bus error names)"
fan=/org/jetsond/Jetson1/fan/0
run gdbus call --system --dest org.jetsond.Jetson1 --object-path $fan --method org.jetsond.Jetson1.Fan.SetSpeed 80 || true
echo "(the polkit mock now allows org.jetsond.Jetson1.set-fan and .set-nvpmodel)"
polkit_mock SetAllowed "['org.jetsond.Jetson1.set-fan', 'org.jetsond.Jetson1.set-nvpmodel']"
run busctl --system call org.jetsond.Jetson1 $fan org.jetsond.Jetson1.Fan SetSpeed d 80
run busctl --system get-property org.jetsond.Jetson1 $fan org.jetsond.Jetson1.Fan Speed Profile
echo "(jetsond stopped nvfancontrol.service through systemd first, so the speed sticks; the PWM file now holds $(cat "$work/root/sys/devices/platform/pwm-fan/hwmon/hwmon3/pwm1"))"
run busctl --system call org.jetsond.Jetson1 $fan org.jetsond.Jetson1.Fan SetProfile s quiet
run busctl --system get-property org.jetsond.Jetson1 $fan org.jetsond.Jetson1.Fan Profile
run gdbus call --system --dest org.jetsond.Jetson1 --object-path /org/jetsond/Jetson1 --method org.jetsond.Jetson1.NVPModel.SetMode 2 || true
run busctl --system call org.jetsond.Jetson1 /org/jetsond/Jetson1 org.jetsond.Jetson1.NVPModel SetMode u 3
run busctl --system get-property org.jetsond.Jetson1 /org/jetsond/Jetson1 org.jetsond.Jetson1.NVPModel Mode ModeName
run gdbus call --system --dest org.jetsond.Jetson1 --object-path $fan --method org.jetsond.Jetson1.Fan.SetSpeed 101 || true

echo
echo "== NVIDIA GPUs through NVML: the PC fake board with two discrete GPUs from the fake NVML (tests/fake-nvml)"
echo "\$ FAKE_NVML_CONFIG=tests/fixtures/x86-pc.nvml.json jetsond --sysroot tests/fixtures/x86-pc --once --json \\"
echo "      --nvml-library build/tests/fake-nvml/libnvidia-ml.so.1 | grep -E '\"(dgpu|process\\.4242)\\.'"
FAKE_NVML_CONFIG=tests/fixtures/x86-pc.nvml.json build/src/jetsond --sysroot tests/fixtures/x86-pc --once --json \
        --nvml-library build/tests/fake-nvml/libnvidia-ml.so.1 > "$work/pc-gpus.json"
grep -E '"(dgpu|process\.4242)\.' "$work/pc-gpus.json"

echo
echo "== Jetson AGX Thor (JetPack 7.1) and AGX Orin on JetPack 7.2: the fake boards with their fake NVML files"
echo "   Thor's GPU is gpu.* (clocks from devfreq gpu-gpc-0/gpu-nvd-0, load and temperature from the integrated"
echo "   NVML device, rail gating from its PCI runtime PM, 3D scaling from the governor); the INA238 VIN is the total"
for board in agx-thor-jp71 agx-orin-jp72; do
        echo "\$ FAKE_NVML_CONFIG=tests/fixtures/$board.nvml.json jetsond --sysroot tests/fixtures/$board --once --json \\"
        echo "      --nvml-library build/tests/fake-nvml/libnvidia-ml.so.1 | grep -E '\"(model|jetpack|gpu\.|power\.(VIN\.|total))'"
        FAKE_NVML_CONFIG=tests/fixtures/$board.nvml.json build/src/jetsond --sysroot tests/fixtures/$board --once \
                --json --nvml-library build/tests/fake-nvml/libnvidia-ml.so.1 > "$work/$board.json"
        grep -E '"(model|jetpack|gpu\.|power\.(VIN\.|total))' "$work/$board.json"
done

echo
echo "== Python: the jetsond package (python/, docs/python.md) against the same jetsond, unprivileged calls only"
echo "\$ PYTHONPATH=python python3 tests/python/examples/quickstart.py   # Jetson(), samples, a 1 kHz Recorder, measure()"
PYTHONPATH=python /usr/bin/python3 tests/python/examples/quickstart.py
echo "\$ PYTHONPATH=python python3 tests/python/examples/jtop_loop.py    # jtop's reading loop, the import changed"
PYTHONPATH=python /usr/bin/python3 tests/python/examples/jtop_loop.py

echo
echo "== the GNOME Shell extension in a real, headless GNOME Shell 43 (its own bus, jetsond and board)"
echo "\$ tests/extension/test-shell.py   (the steps it checks; screenshots in build/tests/extension/artefacts)"
/usr/bin/python3 tests/extension/test-shell.py build/src/jetsond build/gnome-shell-extension/legacy/jetsond@jetsond.org \
        build/tests/extension/artefacts 2> "$work/shell-test.log" ||
        { cat "$work/shell-test.log"; exit 1; }
ls build/tests/extension/artefacts
mkdir -p build/main-job
cp build/tests/extension/artefacts/indicator-menu.png build/main-job/extension-menu.png

echo
echo "== the Cockpit page (cockpit/) in Debian's cockpit-ws on this bus and this jetsond, seen by a headless Chromium"
# cockpit_session.py stops what it starts (cockpit-ws, the bridge, Chromium)
# before it returns; the screenshot stays. The page alone, its whole height:
# in Cockpit's shell, Cockpit's own preloaded Overview fails on this bus's
# mock systemd (no LoadUnit) and the shell shows "Ooops!" beside the page.
shot=build/main-job/cockpit.png
echo "\$ tests/cockpit/cockpit_session.py --full-page --screenshot $shot   (1280 px wide)"
t0=$(date +%s)
/usr/bin/python3 tests/cockpit/cockpit_session.py --full-page --screenshot "$shot" 2> "$work/cockpit.log" ||
        { cat "$work/cockpit.log"; exit 1; }
echo "figure: Cockpit started, page ready with 5 samples and shot in $(( $(date +%s) - t0 )) s"
ls -l "$shot"

echo
echo "== the README's pictures, made above from the running programs (docs/pictures.md)"
ls -l build/main-job/top.png build/main-job/cockpit.png build/main-job/extension-menu.png
if [ "${JETSOND_UPDATE_PICTURES:-0}" = 1 ]; then
        cp build/main-job/top.png build/main-job/cockpit.png build/main-job/extension-menu.png docs/
        echo "(JETSOND_UPDATE_PICTURES=1: copied to docs/; review with git diff --stat docs/)"
fi

echo
echo "== the daemon's log"
cat "$work/jetsond.log"
echo "== the exporter's log"
cat "$work/exporter.log"
