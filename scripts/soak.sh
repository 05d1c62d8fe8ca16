#!/bin/sh
# soak.sh HOURS [BUILD_DIR]: a long run of jetsond under churn (issue 31;
# a script, not CI). HOURS may be a fraction (0.02 is 72 s).
#
# On a private system bus, jetsond serves a simulated AGX Orin (JetPack
# 7.2, with the fake NVML's integrated GPU) at --interval 10, while:
#   - a subscriber connects every second, asks Subscribe(10 ms), stays a
#     few seconds and leaves (several at a time);
#   - a 1 kHz capture stream is opened every 2 s, read for a moment
#     (records and their `dropped` counts) and dropped;
#   - jetsond-exporter is scraped every second;
#   - board files vanish and come back (a thermal zone's temp, an INA3221
#     channel, nvpmodel's status) every 5 s;
#   - the NVML GPU is lost and back every 10 s.
# Every minute a CSV line (soak.csv in the run's directory, path printed):
# time, jetsond's RSS, fds and threads, the exporter's RSS, calls, errors,
# captures, records read, records dropped, scrapes, scrape failures. At
# the end the same figures, first minute against last. SOAK_ROW_S sets
# another row period (seconds) for short trial runs.
set -eu
hours=${1:?usage: soak.sh HOURS [BUILD_DIR]}
here=$(cd "$(dirname "$0")/.." && pwd)
build=${2:-$here/build}
for f in "$build/src/jetsond" "$build/exporter/jetsond-exporter" "$build/tests/fake-nvml/libnvidia-ml.so.1"; do
    [ -e "$f" ] || { echo "soak.sh: $f is missing: build first (meson setup $build && ninja -C $build)" >&2; exit 1; }
done
exec /usr/bin/python3 - "$here" "$build" "$hours" <<'EOF'
import json, os, shutil, struct, sys, threading, time
import dbus, dbus.bus

here, build, hours = sys.argv[1], sys.argv[2], float(sys.argv[3])
sys.path.insert(0, os.path.join(here, "tests", "lib"))
import harness

NAME, PATH = "org.jetsond.Jetson1", "/org/jetsond/Jetson1"
ROW_S = float(os.environ.get("SOAK_ROW_S", "60"))
stats = {"calls": 0, "errors": 0, "captures": 0, "records": 0, "dropped": 0, "scrapes": 0, "scrape_failures": 0}
lock = threading.Lock()
stop = threading.Event()


def count(key, n=1):
    with lock:
        stats[key] += n


def proc_figures(pid):
    status = open(f"/proc/{pid}/status").read()
    field = lambda k: int(next(l.split()[1] for l in status.splitlines() if l.startswith(k)))
    return field("VmRSS:"), len(os.listdir(f"/proc/{pid}/fd")), field("Threads:")


def subscribers(address):
    live = []
    while not stop.is_set():
        try:
            c = dbus.bus.BusConnection(address)
            c.call_blocking(NAME, PATH, NAME + ".Metrics", "Subscribe", "t", [10000], timeout=30)
            live.append((time.monotonic() + 3, c))
            count("calls")
        except dbus.exceptions.DBusException:
            count("errors")
        for t, c in [x for x in live if x[0] < time.monotonic()]:
            c.close()
            live.remove((t, c))
        stop.wait(1)
    for _, c in live:
        c.close()


def captures(address):
    bus = dbus.bus.BusConnection(address)
    while not stop.is_set():
        try:
            fd, _ = bus.call_blocking(NAME, PATH, NAME + ".Metrics", "OpenCapture", "tas", [1000, ["cpu.load", "gpu.load", "power.*"]], timeout=30)
            count("calls")
            count("captures")
            with os.fdopen(fd.take(), "rb", buffering=1 << 16) as s:
                magic, version, header_size, n, record_size, _, _ = struct.unpack("=8sIIIIQq", s.read(40))
                assert magic == b"JDCAPTUR", magic
                s.read(header_size - 40)
                end = time.monotonic() + 0.5
                while time.monotonic() < end:
                    rec = s.read(record_size)
                    if len(rec) < record_size:
                        break
                    count("records")
                    count("dropped", struct.unpack_from("=Q", rec, 8)[0])
        except dbus.exceptions.DBusException:
            count("errors")
        stop.wait(1.5)
    bus.close()


def scrapes(stack):
    while not stop.is_set():
        r = stack.try_get("/metrics")
        count("scrapes")
        if r is None or r.status != 200:
            count("scrape_failures")
        stop.wait(1)


def churn_files(root):
    files = ["sys/devices/virtual/thermal/thermal_zone1/temp", "var/lib/nvpmodel/status"]
    files += [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(os.path.join(root, "sys/bus/i2c/devices"))
              for f in fs if f == "curr1_input"][:1]
    k = 0
    while not stop.wait(2.5):
        rel = os.path.join(root, files[k % len(files)])
        if os.path.exists(rel):
            os.rename(rel, rel + ".away")
        elif os.path.exists(rel + ".away"):
            os.rename(rel + ".away", rel)
        k += 1
    for f in files:
        p = os.path.join(root, f)
        if os.path.exists(p + ".away"):
            os.rename(p + ".away", p)


def churn_gpus(nvml_file, devices):
    lost = False
    while not stop.wait(5):
        lost = not lost
        devs = [dict(d, lost=lost) for d in devices]
        with open(nvml_file + ".new", "w") as f:
            json.dump({"devices": devs}, f)
        os.rename(nvml_file + ".new", nvml_file)


with harness.Stack(os.path.join(build, "src/jetsond"), os.path.join(build, "exporter/jetsond-exporter"),
                   board="agx-orin-jp72", simulate=True, interval_ms=10) as stack:
    nvml_file = os.path.join(stack.dir, "nvml.json")
    devices = json.load(open(os.path.join(here, "tests/fixtures/agx-orin-jp72.nvml.json")))["devices"]
    shutil.copy(os.path.join(here, "tests/fixtures/agx-orin-jp72.nvml.json"), nvml_file)
    os.environ["FAKE_NVML_CONFIG"] = nvml_file
    stack.start_daemon(["--nvml-library", os.path.join(build, "tests/fake-nvml/libnvidia-ml.so.1")])
    stack.start_exporter()
    pid, epid = stack.daemon.pid, stack.exporter.pid
    csv_path = os.path.join(os.path.dirname(stack.dir), "soak-%d.csv" % os.getpid())
    print("soak: %.3f h, figures every %g s in %s" % (hours, ROW_S, csv_path), flush=True)
    threads = [threading.Thread(target=f, args=a) for f, a in (
        (subscribers, (stack.address,)), (captures, (stack.address,)), (scrapes, (stack,)),
        (churn_files, (stack.root,)), (churn_gpus, (nvml_file, devices)))]
    for t in threads:
        t.start()
    start = time.monotonic()
    rows = []
    with open(csv_path, "w") as csv:
        cols = ["minute", "rss_kib", "fds", "threads", "exporter_rss_kib", *stats]
        csv.write(",".join(cols) + "\n")
        end = start + hours * 3600
        try:
            while time.monotonic() < end:
                time.sleep(max(0.0, min(ROW_S, end - time.monotonic())))
                assert stack.daemon.poll() is None, "jetsond exited"
                rss, fds, nthreads = proc_figures(pid)
                with lock:
                    row = [round((time.monotonic() - start) / 60, 2), rss, fds, nthreads, proc_figures(epid)[0],
                           *stats.values()]
                rows.append(row)
                csv.write(",".join(map(str, row)) + "\n")
                csv.flush()
                print("soak:", dict(zip(cols, row)), flush=True)
        finally:
            stop.set()
            for t in threads:
                t.join()
    first, last = rows[0], rows[-1]
    print("soak: jetsond RSS %d -> %d KiB, fds %d -> %d, threads %d -> %d; exporter RSS %d -> %d KiB"
          % (first[1], last[1], first[2], last[2], first[3], last[3], first[4], last[4]))
    print("soak: totals", dict(zip(cols[5:], last[5:])))
    print("soak: jetsond exited with", stack.stop_daemon())
EOF
