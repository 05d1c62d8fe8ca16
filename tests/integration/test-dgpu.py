#!/usr/bin/python3
"""Discrete GPUs through NVML: jetsond on the PC fake board with the fake
NVML (tests/fake-nvml) answering from tests/fixtures/x86-pc.nvml.json,
changed while jetsond runs:

    test-dgpu.py JETSOND FAKE_NVML

The values of the file in GetSnapshot and --once --json, in the contract's
units; NOT_SUPPORTED fields absent; a lost GPU's keys gone while the other
GPU keeps its own, and back when it answers; a hung GPU (every call 4 s)
holding up neither GetSnapshot nor the other GPU, its stall and recovery
logged; no library: the sample without dgpu keys; a driver library that
appears after start found by the re-probe; a GPU's facts and modes on its
object, a mode changed at run time announced with PropertiesChanged."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import dbus
import dbus.bus

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402  (the bus, board and jetsond stack)

JETSOND, FAKE_NVML, JETSONCTL = (os.path.abspath(a) for a in sys.argv[1:4])
FIXTURE = os.path.join(SOURCE_DIR, "tests", "fixtures", "x86-pc.nvml.json")


class GpuStack(harness.Stack):
    """The PC board with the fake NVML's file in the stack's directory."""

    def __init__(self, library=FAKE_NVML, first_devices=None, interval_ms=200):
        super().__init__(JETSOND, None, board="x86-pc", interval_ms=interval_ms)
        self.bus = None
        try:
            self.nvml_file = os.path.join(self.dir, "nvml.json")
            os.environ["FAKE_NVML_CONFIG"] = self.nvml_file
            self.set_devices(first_devices or json.load(open(FIXTURE))["devices"])
            self.start_daemon(["--nvml-library", library])
            # A connection of its own (dbus.SystemBus() is one per
            # process, and each test has a bus of its own).
            self.bus = dbus.bus.BusConnection(self.address)
            self.metrics = dbus.Interface(self.bus.get_object("org.jetsond.Jetson1", "/org/jetsond/Jetson1"),
                                          "org.jetsond.Jetson1.Metrics")
        except BaseException:
            self.close()  # no "with" body yet: nothing else stops what started
            raise

    def set_devices(self, devices, **top):
        # A new inode: the fake sees the change on its next call. The
        # fixture's top-level fields (the CUDA version) unless TOP says.
        fixture = {k: v for k, v in json.load(open(FIXTURE)).items() if k != "devices"}
        with open(self.nvml_file + ".new", "w") as f:
            json.dump({**fixture, "devices": devices, **top}, f)
        os.rename(self.nvml_file + ".new", self.nvml_file)

    def snapshot(self):
        _, values = self.metrics.GetSnapshot()
        return values

    def wait_snapshot(self, predicate, what, timeout=20):
        return harness.wait_for(lambda: (lambda v: v if predicate(v) else None)(self.snapshot()), timeout, what)

    def close(self):
        if self.bus:
            self.bus.close()
        return super().close()

    def log(self):
        return open(os.path.join(self.dir, "jetsond.log"), errors="replace").read()


def devices():
    return json.load(open(FIXTURE))["devices"]


def check_fixture_values(v, source):
    def want(key, value, kind):
        assert key in v, f"{source}: {key} missing"
        assert v[key] == value, f"{source}: {key} = {v[key]!r}, expected {value!r}"
        if kind:
            assert isinstance(v[key], kind), f"{source}: {key} is {type(v[key]).__name__}"

    num = (int, float)
    want("dgpu.0.load", 37.0, float)
    want("dgpu.0.mem_load", 12.0, float)
    want("dgpu.0.mem_total", 25757220864 // 1024, None)       # KiB
    want("dgpu.0.mem_used", 1342177280 // 1024, None)         # NVML v2: nvidia-smi's used
    want("dgpu.0.mem_reserved", 644874240 // 1024, None)      # the driver's, not in mem_used
    want("dgpu.0.freq", 2520000, None)                         # kHz
    want("dgpu.0.mem_freq", 10501000, None)
    want("dgpu.0.temp", 61.0, num)
    want("dgpu.0.power", 231000, None)                         # mW
    want("dgpu.0.power_limit", 450000, None)
    want("dgpu.0.energy", 123456789, None)                     # mJ
    want("dgpu.0.fan", 40.0, num)
    want("dgpu.0.encoder_load", 0.0, num)                      # a real 0
    want("dgpu.0.pstate", 2, None)
    want("dgpu.0.throttle", 0, None)
    want("dgpu.0.throttle_reasons", "none", str)
    want("dgpu.0.pcie_rx", 48000 * 1024, None)                 # bytes/s
    want("dgpu.0.pcie_replay", 3, int)                         # since the driver loaded
    want("dgpu.0.xid", 0, int)                                 # registered, none yet: DCGM's 0
    want("dgpu.0.xid_count", 0, int)
    want("process.4242.dgpu.0.mem", 1048576, None)
    want("process.4242.dgpu.0.sm", 35.0, num)
    want("process.4242.dgpu.0.mem_util", 12.0, num)            # nvitop's gpu_memory_utilization
    want("process.4242.dgpu.0.enc", 4.0, float)                # the same sample's encUtil
    want("process.4242.dgpu.0.dec", 9.0, float)
    want("dgpu.0.video_freq", 1965000, int)                    # kHz
    want("dgpu.0.bar1_used", 3145728 // 1024, int)             # KiB
    want("dgpu.1.bar1_used", 2097152 // 1024, int)
    # The T4 has ECC on: its counts; the GeForce none (no ECC).
    want("dgpu.1.ecc_volatile_corrected", 2, int)
    want("dgpu.1.ecc_volatile_uncorrected", 0, int)
    want("dgpu.1.ecc_aggregate_corrected", 17, int)
    want("dgpu.1.ecc_aggregate_uncorrected", 1, int)
    want("process.2345.dgpu.0.mem", 262144, None)
    want("dgpu.1.load", 5.0, float)
    want("dgpu.1.power", 27000, None)
    want("process.4242.dgpu.1.mem", 102400, None)
    want("process.4242.dgpu.1.sm", 2.0, num)
    # What the T4 does not support is absent, never 0.
    for absent in ("dgpu.1.fan", "dgpu.1.encoder_load", "dgpu.1.decoder_load", "dgpu.1.throttle",
                   "dgpu.1.throttle_reasons",
                   "dgpu.1.pcie_rx", "process.2345.dgpu.0.sm", "process.2345.dgpu.0.mem_util", "dgpu.2.load",
                   # GDDR boards before Hopper: no memory temperature, no GPM;
                   # the T4 here answers no replay counter and no XID events.
                   "dgpu.0.mem_temp", "dgpu.0.tensor_active", "dgpu.0.gr_active", "dgpu.0.dram_active",
                   "dgpu.1.mem_temp", "dgpu.1.pcie_replay", "dgpu.1.xid", "dgpu.1.xid_count",
                   "dgpu.1.tensor_active", "dgpu.1.video_freq",
                   "dgpu.0.ecc_volatile_corrected", "dgpu.0.ecc_volatile_uncorrected",
                   "dgpu.0.ecc_aggregate_corrected", "dgpu.0.ecc_aggregate_uncorrected"):
        assert absent not in v, f"{source}: {absent} = {v[absent]!r}, should be absent"


def gpu_objects(s):
    manager = dbus.Interface(s.bus.get_object("org.jetsond.Jetson1", "/org/jetsond/Jetson1"),
                             "org.freedesktop.DBus.ObjectManager")
    return {str(path): ifaces["org.jetsond.Jetson1.DiscreteGpu"]
            for path, ifaces in manager.GetManagedObjects().items() if "org.jetsond.Jetson1.DiscreteGpu" in ifaces}


def check_processes(v, source):
    """NVML's processes join the process list: name, user and RSS from
    /proc, process.PID.gpu_mem their memory over every GPU."""
    for key, value in (("process.4242.name", "python3"), ("process.4242.user", "alice"),
                       ("process.4242.gpu_mem", 1048576 + 102400), ("process.4242.rss", 1048576),
                       ("process.2345.name", "firefox-esr"), ("process.2345.gpu_mem", 262144)):
        assert v.get(key) == value, f"{source}: {key} = {v.get(key)!r}, expected {value!r}"
    # The parent and the start from the board's /proc: stat's ppid, and
    # /proc/stat's btime plus stat's starttime (clock ticks, 100 a second).
    proc = os.path.join(SOURCE_DIR, "tests", "fixtures", "x86-pc", "proc")
    btime = int(next(line.split()[1] for line in open(os.path.join(proc, "stat")) if line.startswith("btime ")))
    for pid in (4242, 2345):
        fields = open(os.path.join(proc, str(pid), "stat")).read().rsplit(")", 1)[1].split()
        assert v.get(f"process.{pid}.ppid") == int(fields[1]), f"{source}: {pid}'s ppid {v.get(f'process.{pid}.ppid')}"
        start = btime + int(fields[19]) / 100
        assert abs(v.get(f"process.{pid}.start_time", 0) - start) < 1e-6, \
            f"{source}: {pid} started {v.get(f'process.{pid}.start_time')!r}, expected {start}"
    assert v["process.4242.start_time"] < time.time()
    # nvitop's C and G: which of NVML's lists each is in, per GPU
    for key, value in (("process.4242.dgpu.0.type", "compute"), ("process.4242.dgpu.1.type", "compute"),
                       ("process.2345.dgpu.0.type", "graphics")):
        assert v.get(key) == value, f"{source}: {key} = {v.get(key)!r}, expected {value!r}"


def test_values():
    with GpuStack() as s:
        v = s.wait_snapshot(lambda v: "dgpu.1.load" in v and "process.4242.name" in v, "the GPUs in the sample")
        check_fixture_values(dict(v), "GetSnapshot")
        check_processes(dict(v), "GetSnapshot")
        # In both of NVML's lists: C+G
        d = devices()
        d[0]["processes"][1]["type"] = "both"
        s.set_devices(d)
        s.wait_snapshot(lambda v: v.get("process.2345.dgpu.0.type") == "compute+graphics", "2345 as compute+graphics")
        # ... with the later (graphics) list's memory, as nvitop keeps it
        d[0]["processes"][1]["graphics_used_memory"] = 300 * 1048576
        s.set_devices(d)
        s.wait_snapshot(lambda v: v.get("process.2345.dgpu.0.mem") == 300 * 1024, "2345 with the graphics list's memory")
        # A driver before R510 (no nvmlDeviceGetMemoryInfo_v2): v1's used,
        # the reservation counted in it, and no mem_reserved.
        s.set_devices(devices(), memory_v2=False)
        v = s.wait_snapshot(lambda v: v.get("dgpu.0.mem_used") == (1342177280 + 644874240) // 1024, "v1's used")
        assert "dgpu.0.mem_reserved" not in v and v["dgpu.0.mem_total"] == 25757220864 // 1024
        s.set_devices(devices())
        harness.wait_for(lambda: "NVML: driver 595.78 (fake), 2 GPUs" in s.log(), 5, "NVML in the log")
        # One object per GPU, listed by the ObjectManager like the fans.
        gpus = harness.wait_for(lambda: (lambda g: g if len(g) == 2 else None)(gpu_objects(s)), 10, "two GPU objects")
        g0, g1 = gpus["/org/jetsond/Jetson1/dgpu/0"], gpus["/org/jetsond/Jetson1/dgpu/1"]
        assert g0["Name"] == "NVIDIA GeForce RTX 4090" and g0["UUID"] == "GPU-5c1b7a2e-4d7f-4a3e-9f1b-2a6c0d9e8b71"
        assert g0["PciBusId"] == "00000000:01:00.0" and g0["MemoryTotal"] == 25757220864
        assert g0["PowerLimit"] == 450000
        assert dict(g0["MaxClocks"]) == {"graphics": 3105000, "sm": 3105000, "mem": 10501000}
        assert g1["Name"] == "Tesla T4" and g1["PciBusId"] == "00000000:02:00.0" and g1["PowerLimit"] == 70000
        # One driver: the same version on each object.
        assert g0["DriverVersion"] == "595.78 (fake)" and g1["DriverVersion"] == "595.78 (fake)", \
            (g0["DriverVersion"], g1["DriverVersion"])
        assert dict(g1["MaxClocks"])["mem"] == 5001000
        # /dev/nvidia0 for the GeForce; the T4's fake does not say (-1).
        assert g0["MinorNumber"] == 0 and g1["MinorNumber"] == -1, (g0["MinorNumber"], g1["MinorNumber"])
        check_facts(g0, g1)
        check_status()


def check_status():
    """jetsonctl status shows the facts under each GPU, and --json has
    them by nvitop's names (null where NVML does not say)."""
    out = subprocess.run([JETSONCTL, "status"], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    for want in ("  CUDA 12.8  cc 8.9  Persistence-M Off  Disp.A On  Compute-M default",
                 "  BAR1 3.0 MiB of 256 MiB  video 1965 MHz",
                 "  CUDA 12.8  cc 7.5  Persistence-M On  Disp.A Off  Compute-M exclusive_process",
                 "  ECC On, uncorrected 0 volatile 1 aggregate  BAR1 2.0 MiB of 256 MiB"):
        assert want in lines, f"{want!r} not in:\n{out}"
    doc = json.loads(subprocess.run([JETSONCTL, "--json", "status"], capture_output=True, text=True,
                                    check=True).stdout)
    d0, d1 = doc["dgpus"]
    for key, v0, v1 in (("driver_version", "595.78 (fake)", "595.78 (fake)"),
                        ("cuda_driver_version", "12.8", "12.8"),
                        ("cuda_compute_capability", "8.9", "7.5"),
                        ("bar1_memory_total_bytes", 268435456, 268435456),
                        ("minor_number", 0, None),
                        ("ecc_mode", None, "enabled"), ("ecc_mode_pending", None, "enabled"),
                        ("persistence_mode", "disabled", "enabled"),
                        ("compute_mode", "default", "exclusive_process"),
                        ("display_mode", "enabled", "disabled"), ("display_active", "enabled", "disabled")):
        assert (d0[key], d1[key]) == (v0, v1), f"status --json {key}: {d0[key]!r}, {d1[key]!r}"


def check_facts(g0, g1):
    """The fixture's facts and modes on the two objects: the GeForce
    without ECC (its modes unknown: ""), the T4 with it."""
    want = {
        "CudaDriverVersion": ("12.8", "12.8"),
        "ComputeCapability": ("8.9", "7.5"),
        "Bar1Total": (268435456, 268435456),
        "EccMode": ("", "enabled"),
        "EccModePending": ("", "enabled"),
        "PersistenceMode": ("disabled", "enabled"),
        "ComputeMode": ("default", "exclusive_process"),
        "DisplayMode": ("enabled", "disabled"),
        "DisplayActive": ("enabled", "disabled"),
    }
    for name, (v0, v1) in want.items():
        assert (g0[name], g1[name]) == (v0, v1), f"{name}: {g0[name]!r}, {g1[name]!r}; expected {v0!r}, {v1!r}"


def test_facts_unknown():
    """A driver that says none of the facts: "" (and 0 for BAR1's size),
    never a guess, and no key of theirs in the sample."""
    bare = [{k: v for k, v in d.items() if k not in ("compute_capability", "bar1", "ecc_mode", "persistence_mode",
                                                      "compute_mode", "display_mode", "display_active", "ecc_errors")}
            for d in devices()]
    with GpuStack(first_devices=bare) as s:
        s.set_devices(bare, cuda_driver_version=None)
        v = s.wait_snapshot(lambda v: "dgpu.1.load" in v, "the GPUs in the sample")
        assert not [k for k in v if ".bar1" in k or ".ecc_" in k], sorted(v)
        gpus = harness.wait_for(lambda: (lambda g: g if len(g) == 2 else None)(gpu_objects(s)), 10, "two GPU objects")
        for g in gpus.values():
            for name in ("ComputeCapability", "EccMode", "EccModePending", "PersistenceMode", "ComputeMode",
                         "DisplayMode", "DisplayActive"):
                assert g[name] == "", (name, g[name])
            assert g["Bar1Total"] == 0, g["Bar1Total"]


def test_mode_changes():
    """nvidia-smi -pm 1, -c 2 and -e 0 while jetsond runs: the new modes
    on the object within a read of the costly values (10 s), each
    announced with PropertiesChanged; the ECC counts leave the sample."""
    import dbus.mainloop.glib
    from gi.repository import GLib
    with GpuStack() as s:
        s.wait_snapshot(lambda v: "dgpu.1.ecc_volatile_corrected" in v, "the T4's ECC counts")
        loop = dbus.mainloop.glib.DBusGMainLoop()
        listener = dbus.bus.BusConnection(s.address, mainloop=loop)
        seen = {}

        def changed(iface, props, invalidated, path=None):
            if iface == "org.jetsond.Jetson1.DiscreteGpu":
                seen.setdefault(str(path), {}).update({str(k): v for k, v in props.items()})
        listener.add_signal_receiver(changed, "PropertiesChanged", "org.freedesktop.DBus.Properties",
                                     path_keyword="path")
        try:
            d = devices()
            d[0] = dict(d[0], persistence_mode=1)
            d[1] = dict(d[1], compute_mode=2, ecc_mode={"current": 0, "pending": 0})
            s.set_devices(d)
            ctx = GLib.MainContext.default()
            end = time.monotonic() + 25
            want0 = {"PersistenceMode": "enabled"}
            want1 = {"ComputeMode": "prohibited", "EccMode": "disabled", "EccModePending": "disabled"}
            while time.monotonic() < end:
                got0, got1 = seen.get("/org/jetsond/Jetson1/dgpu/0", {}), seen.get("/org/jetsond/Jetson1/dgpu/1", {})
                if all(got0.get(k) == v for k, v in want0.items()) and all(got1.get(k) == v for k, v in want1.items()):
                    break
                ctx.iteration(False) or time.sleep(0.05)
            else:
                raise AssertionError(f"PropertiesChanged: {seen}")
            # Only what changed was announced.
            assert "ComputeMode" not in seen.get("/org/jetsond/Jetson1/dgpu/0", {}), seen
            assert "PersistenceMode" not in seen.get("/org/jetsond/Jetson1/dgpu/1", {}), seen
        finally:
            listener.close()
        g = gpu_objects(s)
        assert g["/org/jetsond/Jetson1/dgpu/0"]["PersistenceMode"] == "enabled"
        assert g["/org/jetsond/Jetson1/dgpu/1"]["ComputeMode"] == "prohibited"
        v = s.wait_snapshot(lambda v: "dgpu.1.ecc_volatile_corrected" not in v, "no ECC counts with ECC off")
        assert "dgpu.1.bar1_used" in v


def test_clock_event_reasons():
    """Issue 39: a GPU held down by its software power cap and by hardware
    thermal slowdown (NVML's 0x4 | 0x40) shows both names beside the
    bitmask, in the sample and in jetsonctl status's throttle line, which
    on a PC (no SoC reasons) holds just the GPU's."""
    d = devices()
    d[0]["throttle"] = 0x4 | 0x40
    with GpuStack() as s:
        s.set_devices(d)
        v = s.wait_snapshot(lambda v: v.get("dgpu.0.throttle") == 0x44, "the GPU held down")
        assert v["dgpu.0.throttle_reasons"] == "sw_power_cap,hw_thermal", v["dgpu.0.throttle_reasons"]
        assert "throttle.reasons" not in v  # the PC has no SoC throttle reason to report
        out = subprocess.run([JETSONCTL, "status"], capture_output=True, text=True, check=True).stdout
        # The summary's first line; the zone nearest to a trip point follows.
        line = [x for x in out.splitlines() if x.startswith("Throttle")]
        assert line == ["Throttle dGPU 0: sw_power_cap, hw_thermal;"], line


def test_measure_energy():
    """jetsonctl measure gives a GPU's energy over the run as NVML's
    counter counts it (issue 35): the fake's counter runs at 300 W while
    its power key says 231 W, so power x time would be 23 % short. The
    counter runs on CLOCK_MONOTONIC, so its difference over the run is
    300 W x the run's duration."""
    d = devices()
    d[0]["energy_rate_mw"] = 300000
    with GpuStack() as s:
        s.set_devices(d)
        s.wait_snapshot(lambda v: "dgpu.0.energy" in v, "the energy counter")
        r = subprocess.run([JETSONCTL, "--json", "measure", "--", "sleep", "3"], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        m = json.loads(r.stdout)
        expected = 300 * m["duration_s"]
        got = m["power"]["dgpu.0"]["energy_j"]
        print(f"figure: jetsonctl measure dgpu.0 energy {got:.3f} J, counter {expected:.3f} J over "
              f"{m['duration_s']:.3f} s")
        assert abs(got - expected) <= 0.01 * expected, (got, expected)
        # The other GPU has a still counter: the power key's energy
        assert abs(m["power"]["dgpu.1"]["energy_j"] - 27 * m["duration_s"]) <= 0.01 * 27 * m["duration_s"]


def test_measure_throttle_text():
    """Issue 39: jetsonctl measure's text names what held a GPU down, as
    "dgpu.0 throttled: 98.7 % of the time by sw_power_cap": GPU 0 at its
    software power cap all along; the T4 idle (not throttling: no word of
    it) at its application clocks (a setting, shown apart)."""
    d = devices()
    d[0]["throttle"] = 0x4
    d[1]["throttle"] = 0x1 | 0x2
    # From the start: jetsond does not ask again what a GPU once answered NOT_SUPPORTED.
    with GpuStack(first_devices=d) as s:
        s.wait_snapshot(lambda v: v.get("dgpu.0.throttle") == 0x4 and v.get("dgpu.1.throttle") == 0x3,
                        "both GPUs' reasons")
        r = subprocess.run([JETSONCTL, "measure", "--", "sleep", "1"], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
    no_reading = r"(; no reading \d+\.\d %)?"
    cap = re.search(r"^dgpu\.0 throttled: (\d+\.\d) % of the time by sw_power_cap" + no_reading + "$", r.stdout, re.M)
    # A record every 10 ms: only a stall leaves half the second without one.
    assert cap and 50 <= float(cap.group(1)) <= 100, r.stdout
    app = re.search(r"^dgpu\.1 throttled: not throttled; app_clocks (\d+\.\d) % \(a clock setting\)" + no_reading
                    + "$", r.stdout, re.M)
    assert app and float(app.group(1)) == float(cap.group(1)), r.stdout  # the same records
    assert "idle" not in r.stdout, r.stdout
    print("figure: " + cap.group(0))


def test_once():
    os.environ["FAKE_NVML_CONFIG"] = FIXTURE
    root = os.path.join(SOURCE_DIR, "tests", "fixtures", "x86-pc")
    out = subprocess.run([JETSOND, "--sysroot", root, "--once", "--json", "--nvml-library", FAKE_NVML],
                         capture_output=True, text=True, check=True).stdout
    check_fixture_values(json.loads(out)["values"], "--once --json")
    check_processes(json.loads(out)["values"], "--once --json")
    # On a fake board, no NVML unless asked: never the host's GPUs.
    out = subprocess.run([JETSOND, "--sysroot", root, "--once", "--json"], capture_output=True, text=True,
                         check=True).stdout
    assert not [k for k in json.loads(out)["values"] if "dgpu" in k]


def test_lost_and_back():
    with GpuStack() as s:
        s.wait_snapshot(lambda v: "dgpu.0.load" in v and "dgpu.1.load" in v, "both GPUs")
        d = devices()
        d[0]["lost"] = True
        s.set_devices(d)
        v = s.wait_snapshot(lambda v: not [k for k in v if ".dgpu.0." in k or k.startswith("dgpu.0.")],
                            "GPU 0's keys to leave")
        assert v["dgpu.1.load"] == 5.0 and "process.4242.dgpu.1.mem" in v
        harness.wait_for(lambda: "GPU 0 fell off the bus" in s.log(), 5, "the lost GPU in the log")
        # Its object stays, with what NVML last said.
        assert gpu_objects(s)["/org/jetsond/Jetson1/dgpu/0"]["Name"] == "NVIDIA GeForce RTX 4090"
        s.set_devices(devices())
        s.wait_snapshot(lambda v: v.get("dgpu.0.load") == 37.0, "GPU 0 back")
        harness.wait_for(lambda: "GPU 0 answers again" in s.log(), 5, "GPU 0 back in the log")
        assert s.log().count("fell off the bus") == 1, s.log()


def test_hung_gpu():
    with GpuStack() as s:
        s.wait_snapshot(lambda v: "dgpu.1.load" in v, "both GPUs")
        d = devices()
        d[1]["delay_ms"] = 4000
        s.set_devices(d)
        v = s.wait_snapshot(lambda v: "dgpu.1.load" not in v, "the hung GPU's keys to leave")
        assert v["dgpu.0.load"] == 37.0, "the other GPU lost its keys"
        # Why its values are missing is in the log, once.
        harness.wait_for(lambda: "GPU 1 (NVML) has not finished a reading for" in s.log(), 30, "the stall logged")
        # While it hangs, GetSnapshot answers at once.
        times = []
        for _ in range(200):
            start = time.monotonic()
            values = s.snapshot()
            times.append(time.monotonic() - start)
            assert "dgpu.0.load" in values
        times.sort()
        p99 = times[int(len(times) * 0.99) - 1]
        print(f"figure: GetSnapshot with a hung GPU: p50 {times[len(times) // 2] * 1e3:.2f} ms, "
              f"p99 {p99 * 1e3:.2f} ms, max {times[-1] * 1e3:.2f} ms")
        # A snapshot that waited for the hung GPU would take up to its 4 s;
        # the p99 of an idle machine is a benchmark figure, not asserted.
        assert times[-1] < 2.0, f"GetSnapshot took {times[-1] * 1e3:.1f} ms while a GPU hangs"
        s.set_devices(devices())
        s.wait_snapshot(lambda v: v.get("dgpu.1.load") == 5.0, "the GPU back once it answers", timeout=30)
        harness.wait_for(lambda: "GPU 1 (NVML) readings are on time again" in s.log(), 30, "the recovery logged")


def test_nvlink():
    """Issue 42: GPU 0 with two NVLink links whose counters run at known
    rates, the T4 without NVLink. The counters are in the first sample; the
    rates, the means between two reads of the costly thread (every 10 s),
    after the second; the T4 has no NVLink key."""
    d = devices()
    d[0]["nvlink"] = [{"rx_kib": 0, "tx_kib": 0, "rx_kibps": 300000, "tx_kibps": 100000},
                      {"rx_kib": 0, "tx_kib": 0, "rx_kibps": 200000, "tx_kibps": 0}]
    with GpuStack(first_devices=d) as s:
        v = s.wait_snapshot(lambda v: "dgpu.0.nvlink_rx_total" in v, "NVLink's counters")
        assert not [k for k in v if k.startswith("dgpu.1.nvlink")], sorted(v)
        v = s.wait_snapshot(lambda v: "dgpu.0.nvlink.1.rx" in v, "NVLink's rates", timeout=25)
        for key, kibps in (("dgpu.0.nvlink_rx", 500000), ("dgpu.0.nvlink_tx", 100000),
                           ("dgpu.0.nvlink.0.rx", 300000), ("dgpu.0.nvlink.1.rx", 200000),
                           ("dgpu.0.nvlink.1.tx", 0)):
            assert abs(v[key] - kibps * 1024) <= 1024, f"{key} = {v[key]}, expected {kibps * 1024} bytes/s"
        assert not [k for k in v if k.startswith("dgpu.1.nvlink")], sorted(v)


H100_PCIE = {"name": "NVIDIA H100 PCIe", "uuid": "GPU-h100-pcie", "pci_bus_id": "00000000:41:00.0",
             "temperature": 44, "utilization": {"gpu": 90, "memory": 40},
             "memory_temperature": 58, "pcie_replays": 12, "xids": [],
             "gpm": {"tensor": 42.5, "graphics": 91, "dram": 37.25}}


def test_health_and_gpm():
    """What dcgm-exporter serves beside the basics: an H100 (HBM, Hopper)
    as GPU 2 beside the fixture's two. Its memory temperature, replay
    counter and XID registration in the first sample; an XID written into
    the file shows as xid and xid_count within a read of the costly thread
    (every 10 s); GPM's activities after its second read; none of the
    H100's extras on the GDDR boards."""
    d = devices() + [H100_PCIE]
    with GpuStack(first_devices=d) as s:
        v = s.wait_snapshot(lambda v: "dgpu.2.mem_temp" in v, "the H100's memory temperature")
        assert v["dgpu.2.mem_temp"] == 58.0 and v["dgpu.2.pcie_replay"] == 12, v
        assert v["dgpu.2.xid"] == 0 and v["dgpu.2.xid_count"] == 0, v
        for gpu in (0, 1):
            for k in ("mem_temp", "tensor_active", "gr_active", "dram_active"):
                assert f"dgpu.{gpu}.{k}" not in v, f"dgpu.{gpu}.{k} = {v[f'dgpu.{gpu}.{k}']!r}, should be absent"
        d[2] = dict(H100_PCIE, xids=[79])
        d[0] = dict(d[0], xids=[13, 48])
        s.set_devices(d)
        v = s.wait_snapshot(lambda v: v.get("dgpu.2.xid") == 79 and v.get("dgpu.0.xid_count") == 2,
                            "the XIDs", timeout=25)
        assert v["dgpu.2.xid_count"] == 1 and v["dgpu.0.xid"] == 48, v
        assert "dgpu.1.xid" not in v, v
        v = s.wait_snapshot(lambda v: "dgpu.2.tensor_active" in v, "GPM's activities", timeout=25)
        assert (v["dgpu.2.tensor_active"], v["dgpu.2.gr_active"], v["dgpu.2.dram_active"]) == (42.5, 91.0, 37.25), v
        assert not [k for k in v if k.startswith(("dgpu.0.", "dgpu.1.")) and k.endswith("_active")], sorted(v)
        # An XID is counted once, however many reads follow.
        time.sleep(11)
        v = s.snapshot()
        assert v["dgpu.2.xid_count"] == 1 and v["dgpu.0.xid_count"] == 2, (v["dgpu.2.xid_count"], v["dgpu.0.xid_count"])


H100_MIG = {"name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-h100", "pci_bus_id": "00000000:19:00.0",
            "memory": {"total": 85899345920, "used": 32212254720, "free": 53687091200},
            "temperature": 45, "power_mw": 300000, "utilization": {"gpu": 0, "memory": 0},
            "processes": [{"pid": 4242, "used_memory": 10737418240, "gpu_instance": 9, "compute_instance": 0}],
            "mig": {"mode": 1, "max_devices": 7, "devices": [
                {"slot": 1, "uuid": "MIG-1111", "gpu_instance": 2, "compute_instance": 0, "utilization": {"gpu": 80, "memory": 1},
                 "memory": {"total": 21474836480, "used": 1073741824, "free": 20401094656}},
                {"slot": 5, "uuid": "MIG-5555", "gpu_instance": 9, "compute_instance": 0,
                 "memory": {"total": 10737418240, "used": 10737418240, "free": 0}}]}}


def test_mig():
    """Issue 42: an H100 with MIG on, two MIG devices (slots 1 and 5) and a
    process in GPU instance 9: dgpu.0.mig.M.* and the process's instance in
    GetSnapshot, a line per MIG device in jetsonctl status; MIG switched
    off: the MIG keys leave."""
    with GpuStack(first_devices=[H100_MIG]) as s:
        v = s.wait_snapshot(lambda v: "dgpu.0.mig.5.mem_used" in v, "the MIG devices")
        assert v["dgpu.0.mig.5.mem_total"] == 10737418240 // 1024 and v["dgpu.0.mig.1.load"] == 80.0, v
        assert v["dgpu.0.mig.1.uuid"] == "MIG-1111" and v["dgpu.0.mig.5.gpu_instance"] == 9, v
        assert v["process.4242.dgpu.0.gpu_instance"] == 9, v
        assert "dgpu.0.mig.0.mem_used" not in v and "dgpu.0.mig.5.load" not in v, sorted(v)
        r = subprocess.run([JETSONCTL, "status"], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        lines = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("MIG ")]
        assert len(lines) == 2 and lines[0].startswith("MIG 1  GI 2 CI 0") and lines[0].endswith("80%"), r.stdout
        assert lines[1].startswith("MIG 5  GI 9 CI 0"), r.stdout
        # top's process list names the MIG device (GPU 0, slot 5) as nvitop does: 0:5.
        sock = "jetsond-test-mig-%d" % os.getpid()
        subprocess.run(["tmux", "-L", sock, "new-session", "-d", "-x", "100", "-y", "40", JETSONCTL + " top"],
                       check=True, env=dict(os.environ, TERM="xterm-256color"))
        try:
            harness.wait_for(lambda: re.search(r"^0:5 +4242 ", subprocess.run(
                ["tmux", "-L", sock, "capture-pane", "-p"], capture_output=True, text=True).stdout, re.M),
                30, "the MIG device 0:5 in top's process list")
        finally:
            subprocess.run(["tmux", "-L", sock, "kill-server"])
        off = dict(H100_MIG, mig={"mode": 0, "max_devices": 7})
        s.set_devices([off])
        # MIG mode is asked again every 10 s (JD_NVML_RECHECK_US: it
        # changes only with a GPU reset).
        v = s.wait_snapshot(lambda v: "dgpu.0.load" in v and not [k for k in v if ".mig." in k or "gpu_instance" in k],
                            "MIG off: no MIG key", timeout=40)


def select(*args):
    r = subprocess.run([JETSONCTL, "select", *args], capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout


def test_select():
    """Issue 42: jetsonctl select and jetsond.select_devices() on the two
    fixture GPUs (the RTX 4090, index 0: 1.25 GiB used of 24 GiB, 37 %;
    the T4, index 1: 300 MiB of 15 GiB, 5 %), then on an H100 with MIG."""
    sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))
    import jetsond
    four, t4 = (d["uuid"] for d in devices())
    # At 1 s, a GPU's keys leave the sample only after 3 s without a read
    # (a stall jetsond logs): the many jetsonctl runs of a loaded machine
    # (ASan) read both GPUs every time.
    with GpuStack(interval_ms=1000) as s:
        s.wait_snapshot(lambda v: "dgpu.1.mem_used" in v and "dgpu.0.mem_used" in v and "process.4242.user" in v,
                        "both GPUs and alice's process")
        assert select() == (0, "1,0\n")                              # least memory in use first
        assert select("-S", "--newline") == (0, "0\n1\n")
        assert select("-f", "16G") == (0, "0\n")                     # the T4 has 14.7 GiB free
        assert select("-f", "16G", "--tolerance", "10") == (0, "1,0\n")
        assert select("-G", "10", "-O", "uuid") == (0, t4 + "\n")
        assert select("-M", "10", "-0") == (0, "1")                    # mem load: 12 % and 1 %
        assert select("-n", "1", "-s", ";") == (0, "1\n")
        assert select("-c", "3")[0] == 1 and select("-t", "20G", "-c", "1") == (0, "0\n")
        # Inherit: CUDA's ordinals in PCI bus order, or UUID prefixes.
        # (-S keeps the list's order.)
        assert select("-i", "1,0", "-S") == (0, "1,0\n") and select("-i", t4[:12]) == (0, "1\n")
        assert select("--inherit=0,1", "-S") == (0, "0,1\n") and select("-i", "1,7,0") == (0, "1\n")
        assert select("-f", "lots")[0] == 2
        # Alice's process 4242 holds 1 GiB on the 4090: counted as free, 23.75 GiB of it are.
        assert select("-f", "23G") == (0, "") and select("-f", "23G", "--account-as-free=bob,alice") == (0, "0\n")
        with jetsond.Jetson(address=s.address) as j:
            assert jetsond.select_devices(j, min_free_memory="16G") == [0]
            assert jetsond.select_devices(j, format="uuid") == [t4, four]
            assert jetsond.select_devices(j, min_free_memory="23G", account_as_free=["alice"]) == [0]
            cuda = jetsond.cuda_devices(j, visible="1")
            assert [(d["cuda_index"], d["index"]) for d in cuda] == [(0, 1)], cuda
    with GpuStack(first_devices=[H100_MIG], interval_ms=1000) as s:
        s.wait_snapshot(lambda v: "dgpu.0.mig.5.mem_used" in v and "process.4242.user" in v, "the MIG devices")
        # MIG devices, UUIDs whatever the format: slot 1 (1 GiB used) before slot 5 (full, so not with -f).
        assert select() == (0, "MIG-1111,MIG-5555\n") and select("-f", "1G") == (0, "MIG-1111\n")
        # Alice's 10 GiB in GPU instance 9 (slot 5) as free: slot 5 empty, first.
        assert select("-f", "10G", "--account-as-free=alice") == (0, "MIG-5555,MIG-1111\n")


def test_no_library():
    with GpuStack(library="/nonexistent/libnvidia-ml.so.1") as s:
        v = s.snapshot()
        assert "cpu.0.freq" in v and not [k for k in v if "dgpu" in k], sorted(v)
        harness.wait_for(lambda: "NVML: no NVIDIA driver library" in s.log(), 5, "the missing library in the log")


def test_driver_appears_later():
    late = tempfile.mkdtemp(prefix="jetsond-test-late-nvml.")
    try:
        with GpuStack(library=os.path.join(late, "libnvidia-ml.so.1")) as s:
            time.sleep(1)
            assert not [k for k in s.snapshot() if "dgpu" in k]
            shutil.copy(FAKE_NVML, os.path.join(late, "libnvidia-ml.so.1"))
            # The re-probe (every 10 s) finds it.
            s.wait_snapshot(lambda v: "dgpu.1.load" in v, "the late driver's GPUs", timeout=25)
    finally:
        shutil.rmtree(late, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(harness.run_tests([test_once, test_values, test_clock_event_reasons, test_measure_energy,
                                test_measure_throttle_text, test_lost_and_back, test_hung_gpu, test_nvlink,
                                test_health_and_gpm, test_facts_unknown, test_mode_changes, test_mig, test_select, test_no_library, test_driver_appears_later]))
