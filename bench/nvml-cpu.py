#!/usr/bin/python3
"""nvml-cpu.py JETSOND FAKE_NVML [SECONDS]: what NVIDIA GPUs cost jetsond
(issue 35), with the fake NVML (tests/fake-nvml) spending what each call
cost on an H200 (tests/fake-nvml/h200-costs.json: CPU spun, PCIe's wait
slept). jetsond on the PC fake board, on a private system bus (as root,
as the tests), with one and with eight such GPUs and with NVML off, at
1 s (no subscriber), 100 ms and 10 ms (one subscriber): its CPU per second
of wall time over SECONDS (default 20) from /proc/PID/stat. Then, at
10 ms, how long a change of dgpu.0.power in the fake takes to reach the
subscriber's SampleAt signal. Prints "figure:" lines; not a timed test: the figures are the
machine's (on a busy one, the machine's load's)."""

import copy
import json
import os
import statistics
import sys
import time

import dbus
import dbus.bus
import dbus.mainloop.glib
from gi.repository import GLib

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402

JETSOND, FAKE_NVML = (os.path.abspath(a) for a in sys.argv[1:3])
SECONDS = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
PROFILE = os.path.join(SOURCE_DIR, "tests", "fake-nvml", "h200-costs.json")

H200 = {"name": "NVIDIA H200", "uuid": "GPU-h200-0", "pci_bus_id": "00000000:01:00.0",
        "utilization": {"gpu": 37, "memory": 12},
        "memory": {"total": 150754820096, "used": 644874240, "free": 150109945856},
        "temperature": 41, "power_mw": 231000, "energy_mj": 123456789, "power_limit_mw": 700000,
        "clocks_mhz": {"graphics": 1980, "sm": 1980, "mem": 3201},
        "max_clocks_mhz": {"graphics": 1980, "sm": 1980, "mem": 3201},
        "encoder": 0, "decoder": 0, "pstate": 0, "throttle": 0,
        "pcie_kbps": {"tx": 100, "rx": 2000},
        # A busy GPU: one process with an SM sample (its call costs 2 ms).
        "processes": [{"pid": 4242, "type": "compute", "used_memory": 1073741824, "sm": 35}]}


def gpus(n, power_mw=231000):
    out = []
    for i in range(n):
        g = copy.deepcopy(H200)
        g["uuid"] = "GPU-h200-%d" % i
        g["pci_bus_id"] = "00000000:%02x:00.0" % (i + 1)
        g["power_mw"] = power_mw
        out.append(g)
    return out


def write(path, devices):
    with open(path + ".new", "w") as f:
        json.dump({"devices": devices, "costs_profile": PROFILE}, f)
    os.rename(path + ".new", path)


def cpu_ticks(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime, stime


class Run:
    def __init__(self, n_gpus, interval_ms, nvml):
        self.stack = harness.Stack(JETSOND, None, board="x86-pc", interval_ms=1000)
        self.nvml_file = os.path.join(self.stack.dir, "nvml.json")
        os.environ["FAKE_NVML_CONFIG"] = self.nvml_file
        write(self.nvml_file, gpus(n_gpus))
        self.stack.start_daemon(["--nvml-library", FAKE_NVML if nvml else "/nonexistent/libnvidia-ml.so.1"])
        self.bus = dbus.bus.BusConnection(self.stack.address)
        self.metrics = dbus.Interface(self.bus.get_object("org.jetsond.Jetson1", "/org/jetsond/Jetson1"),
                                      "org.jetsond.Jetson1.Metrics")
        if interval_ms < 1000:
            self.metrics.Subscribe(dbus.UInt64(interval_ms * 1000))

    def cpu_percent(self, seconds):
        pid = self.stack.daemon.pid
        time.sleep(3)  # the first readings, the GPU threads started
        t0, c0 = time.monotonic(), cpu_ticks(pid)
        time.sleep(seconds)
        t1, c1 = time.monotonic(), cpu_ticks(pid)
        return 100.0 * (c1 - c0) / os.sysconf("SC_CLK_TCK") / (t1 - t0)

    def close(self):
        self.bus.close()
        self.stack.close()


def latency(changes=20):
    """At 10 ms: from a change of dgpu.0.power in the fake's file to the
    first SampleAt of the 10 ms period that has it, in ms."""
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    run = Run(1, 10, True)
    try:
        loop = GLib.MainLoop()
        state = {"power": 231000, "changed": None, "lat": []}

        def on_sample(period, ts, values):
            p = values.get("dgpu.0.power")
            if state["changed"] is not None and p is not None and int(p) == state["power"]:
                state["lat"].append((time.monotonic() - state["changed"]) * 1000)
                state["changed"] = None

        def change():
            if state["changed"] is not None:
                return True  # the last one not seen yet
            if len(state["lat"]) >= changes:
                loop.quit()
                return False
            state["power"] = 231000 if state["power"] != 231000 else 400000
            write(run.nvml_file, gpus(1, state["power"]))
            state["changed"] = time.monotonic()
            return True

        bus = dbus.bus.BusConnection(run.stack.address)
        # The 10 ms period's own signal (Sample stays at the default 1 s),
        # matched before the Subscribe that starts it.
        bus.add_signal_receiver(on_sample, "SampleAt", "org.jetsond.Jetson1.Metrics", arg0="10000")
        metrics = dbus.Interface(bus.get_object("org.jetsond.Jetson1", "/org/jetsond/Jetson1"),
                                 "org.jetsond.Jetson1.Metrics")
        metrics.Subscribe(dbus.UInt64(10000))
        GLib.timeout_add(200, change)
        GLib.timeout_add_seconds(60, loop.quit)
        loop.run()
        bus.close()
        return state["lat"]
    finally:
        run.close()


def main():
    print("load average before: %s on %d CPUs" % (" ".join(open("/proc/loadavg").read().split()[:3]),
                                                 os.cpu_count()))
    for n in (1, 8):
        for interval in (1000, 100, 10):
            for nvml in (True, False):
                run = Run(n, interval, nvml)
                try:
                    pct = run.cpu_percent(SECONDS)
                finally:
                    run.close()
                print("figure: jetsond CPU, %d H200 GPU%s (fake, H200 costs), %s, %s: %.2f %% of a core"
                      % (n, "" if n == 1 else "s", "1 s sampling" if interval == 1000
                         else "one subscriber at %d ms" % interval,
                         "NVML on" if nvml else "NVML off", pct), flush=True)
    lat = latency()
    if lat:
        print("figure: 10 ms subscriber, dgpu.0.power change to Sample: median %.1f ms, max %.1f ms over %d changes"
              % (statistics.median(lat), max(lat), len(lat)))
    print("load average after: %s" % " ".join(open("/proc/loadavg").read().split()[:3]))


main()
