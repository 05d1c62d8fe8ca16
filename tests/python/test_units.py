#!/usr/bin/env python3
"""The jetsond package's pure logic, no bus: capture records and trace files,
measure()'s statistics, the views' shapes and units, the error mapping and
the jtop shapes. Runs under pytest and as a plain script (the floor check
runs it on every Python the machine has: python3 test_units.py)."""

import json
import math
import os
import struct
import sys
import tempfile
from typing import Any, Dict, List

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

from jetsond import capture, collector, errors, netif, pidns, proc, select, views  # noqa: E402
from jetsond.measure import Stats  # noqa: E402


def make_header(columns, interval_ns=1000000, offset=123):
    names = b"".join(c.encode() + b"\0" for c in columns)
    size = 40 + len(names)
    size += -size % 8
    head = struct.pack("=8sIIIIQq", b"JDCAPTUR", 1, size, len(columns), 16 + 8 * len(columns), interval_ns, offset)
    return (head + names).ljust(size, b"\0")


def make_records(rows):
    return b"".join(struct.pack("=QQ%dd" % len(v), t, d, *v) for t, d, v in rows)


def test_header():
    h = capture.parse_header(make_header(["cpu.load", "power.total"]))
    assert h.columns == ["cpu.load", "power.total"] and h.record_size == 32 and h.header_size % 8 == 0
    assert h.interval_ns == 1000000 and h.realtime_offset_ns == 123
    for bad in (b"JDCAPTUX" + make_header(["a"])[8:], make_header(["a"])[:30],
                make_header(["a"])[:8] + struct.pack("=I", 2) + make_header(["a"])[12:]):
        try:
            capture.parse_header(bad)
        except ValueError:
            pass
        else:
            raise AssertionError("accepted %r" % bad)


def write_trace(path, rows, syncs=(), trailer=True, cut=0, columns=("cpu.load", "power.total")):
    data = make_header(list(columns)) + make_records(rows)
    if cut:
        data = data[:-cut]
    if trailer:
        labels = json.dumps([s[2] for s in syncs]).encode()
        data += b"".join(struct.pack("=QQ", i, t) for i, t, _ in syncs) + labels
        data += struct.pack("=QQQQQ8s", len(syncs), len(labels), 1000, 9000, sum(r[1] for r in rows), b"JDTRACE1")
    with open(path, "wb") as f:
        f.write(data)


ROWS = [(1000 + 1000 * i, 2 if i == 3 else 0, [float(i), float("nan") if i == 5 else 5000.0]) for i in range(8)]


def test_trace_file():
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.trace")
        write_trace(p, ROWS, syncs=[(1, 3500, "a"), (2, 6000, None)])
        t = capture.load_trace(p)
        recs = list(t.iter_records())
        assert [r.time_ns for r in recs] == [r[0] for r in ROWS]
        assert recs[3].dropped == 2 and t.dropped == 2
        assert math.isnan(recs[5].values[1]) and recs[7].values == (7.0, 5000.0)
        assert t.syncs == [(1, 3500, "a"), (2, 6000, None)] and t.start_ns == 1000 and t.stop_ns == 9000
        assert [t.time_unix_s(r.time_ns) for r in recs] == [(r[0] + 123) / 1e9 for r in ROWS]
        # A recorder killed mid-record: whole records only, no trailer.
        write_trace(p, ROWS, trailer=False, cut=5)
        t = capture.load_trace(p)
        assert len(list(t.iter_records())) == 7 and t.syncs == [] and t.dropped == 2


def import_numpy():
    """numpy, or None after saying the test skips: read_trace needs it,
    the rest of the package does not, so the other tests still run on a
    machine without it."""
    try:
        import numpy
    except ImportError:
        print("skip: no numpy")
        return None
    return numpy


def test_read_trace_numpy():
    np = import_numpy()
    if np is None:
        return
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.trace")
        write_trace(p, ROWS, syncs=[(1, 3500, "a"), (2, 6000, None)])
        data = capture.read_trace(p)
        assert data["columns"] == ["cpu.load", "power.total"]
        assert list(data["sync_id"]) == [0, 0, 0, 1, 1, 2, 2, 2], data["sync_id"]
        assert data["sync_id"].dtype == np.uint64 and data["time_ns"].dtype == np.uint64
        assert np.allclose(data["time"], [(r[0] - 1000) / 1e9 for r in ROWS])
        assert list(data["cpu.load"]) == [float(i) for i in range(8)]
        assert np.isnan(data["power.total"][5]) and data["power.total"][4] == 5000
        assert data["dropped_total"] == 2 and data["syncs"][0] == (1, 2.5e-6, "a")
        # Absolute time: the records' monotonic ns plus the header's offset (123 ns).
        assert list(data["time_unix_s"]) == [(r[0] + 123) / 1e9 for r in ROWS]
        assert data["start_unix_s"] == (1000 + 123) / 1e9
    with tempfile.TemporaryDirectory() as d:
        # A realistic offset: float64 keeps the µs jetsonctl record writes.
        p = os.path.join(d, "t.trace")
        offset = 1796660401123456789 - 5000000000
        with open(p, "wb") as f:
            f.write(make_header(["cpu.load"], offset=offset) + make_records([(5000000000 + i * 10**6, 0, (1.0,))
                                                                             for i in range(3)]))
        data = capture.read_trace(p)
        assert ["%.6f" % t for t in data["time_unix_s"]] == ["1796660401.123457", "1796660401.124457",
                                                            "1796660401.125457"], data["time_unix_s"]


def test_stats_energy():
    """Constant 1000 mW over 1 s is 1 J whatever the spacing; a phase cut
    between records takes its share at the next record's power; the last
    power runs on to the end."""
    cols = ["power.VDD_IN.power", "power.total", "cpu.load", "temp.cpu", "gpu.freq"]
    st = Stats(cols, 0)
    t = 0
    for i in range(1, 101):
        t = i * 10 * 10**6
        st.record(t, [1000.0, 2000.0, float(i % 50), 40.0 + i / 100, 1e6])
        if i == 30:
            st.phase(t + 5 * 10**6, "second")  # between two records
    st.finish(t + 20 * 10**6)  # 1.02 s
    whole = st.window_dict(st.whole)
    assert abs(whole["duration_s"] - 1.02) < 1e-9
    assert abs(whole["power"]["total"]["energy_j"] - 2.04) < 1e-9, whole["power"]
    assert abs(whole["power"]["VDD_IN"]["energy_j"] - 1.02) < 1e-9
    assert whole["power"]["total"]["mean_power_mw"] == 2000 and whole["power"]["total"]["peak_power_mw"] == 2000
    assert whole["temp_max_celsius"] == {"cpu": 41.0} and whole["gpu_freq_max_khz"] == 1e6
    assert whole["cpu_load_percent"]["max"] == 49 and whole["emc_load_percent"] == {"mean": None, "max": None}
    a, b = (st.window_dict(w) for w in st.phases)
    assert abs(a["duration_s"] - 0.305) < 1e-9 and abs(b["duration_s"] - 0.715) < 1e-9
    assert abs(a["power"]["total"]["energy_j"] + b["power"]["total"]["energy_j"] - 2.04) < 1e-9
    assert abs(a["power"]["total"]["energy_j"] - 0.61) < 1e-9
    assert a["records"] == 30 and b["records"] == 70


def test_stats_dgpu_counter():
    """A discrete GPU's power key (an average: 200 W) is not what its
    energy counter says (300 W): the counter, read every 100 ms and seen
    7 ms later in records every 10 ms, gives the run's energy within 1 %,
    whole and per phase; a GPU without a counter column keeps its power's."""
    ms = 10**6
    st = Stats(["dgpu.0.power", "dgpu.0.energy", "dgpu.1.power"], 5000 * ms)
    assert st.energy_col == [1, -1]
    start, end, mark = 5000 * ms, 8000 * ms, 6500 * ms
    marked = False
    for t in range(start + 4 * ms, end, 10 * ms):
        if not marked and t >= mark:
            st.phase(mark, "second")
            marked = True
        read = (t - 10 * ms) // (100 * ms) * (100 * ms) + 3 * ms
        st.record(t, [200000.0, 1e9 + 300000.0 * read / 1e9, 50000.0])
    st.finish(end)
    whole = st.window_dict(st.whole)
    assert abs(whole["power"]["dgpu.0"]["energy_j"] - 900) < 9, whole["power"]
    assert abs(whole["power"]["dgpu.1"]["energy_j"] - 150) < 1e-6
    for w in st.phases:
        assert abs(st.window_dict(w)["power"]["dgpu.0"]["energy_j"] - 450) < 4.5


def test_trace_energy():
    """A Recorder's trace: the GPU's energy from its counter (300 W) over
    the trace's start to stop (3 s), not its power key's (200 W)."""
    from jetsond.measure import trace_energy_j
    ms = 10**6
    rows = []
    for t in range(1004 * ms, 4000 * ms, 10 * ms):
        read = (t - 10 * ms) // (100 * ms) * (100 * ms) + 3 * ms
        rows.append((t, 0, [200000.0, 1e9 + 300000.0 * read / 1e9]))
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "t.trace")
        write_trace(p, rows, columns=("dgpu.0.power", "dgpu.0.energy"))
        # write_trace's trailer says start 1000 ns, stop 9000 ns: patch in the run's
        data = bytearray(open(p, "rb").read())
        struct.pack_into("=QQ", data, len(data) - 48 + 16, 1000 * ms, 4000 * ms)  # the footer's start, stop
        open(p, "wb").write(bytes(data))
        e = trace_energy_j(p)
    got = e["dgpu.0"]
    assert got is not None and abs(got - 900) < 9, e


def test_stats_absent_power():
    st = Stats(["power.total", "cpu.load"], 0)
    st.record(10**7, [float("nan"), 5.0])
    st.finish(2 * 10**7)
    w = st.window_dict(st.whole)
    assert w["power"]["total"] == {"energy_j": None, "mean_power_mw": None, "peak_power_mw": None}
    assert w["cpu_load_percent"] == {"mean": 5.0, "max": 5.0}


def test_stats_dgpus():
    """A PC's discrete GPUs, as client/profiling/measure_stats.c keeps them (the C
    unit test's records): GPUs in NVML's order, each field's mean and
    maximum per window, what a GPU lacks null."""
    nan = float("nan")
    cols = ["dgpu.10.load", "dgpu.0.load", "dgpu.0.freq", "dgpu.0.sm_freq", "dgpu.0.mem_freq", "dgpu.0.temp",
            "dgpu.0.mem_used", "dgpu.0.power", "dgpu.0.mem_total", "dgpu.x.load"]
    st = Stats(cols, 0)
    st.record(10 * 10**6, [5, 20, 1000000, 1100000, 5000000, 40, 1000, 70000, 4000, 1])
    st.record(20 * 10**6, [7, 80, 2000000, 2100000, 5000000, 60, 3000, 90000, 4000, 1])
    st.phase(25 * 10**6, "second")
    st.record(30 * 10**6, [nan, 50, 1500000, 1600000, 5001000, 50, 2000, 80000, 4000, 1])
    st.finish(40 * 10**6)
    whole = st.window_dict(st.whole)["dgpus"]
    assert list(whole) == ["dgpu.0", "dgpu.10"]
    assert whole["dgpu.0"] == {"load_percent": {"mean": 50.0, "max": 80}, "freq_max_khz": 2000000,
                               "sm_freq_max_khz": 2100000, "mem_freq_max_khz": 5001000, "temp_max_celsius": 60,
                               "mem_used_max_kib": 3000, "throttle": None}
    assert whole["dgpu.10"] == {"load_percent": {"mean": 6.0, "max": 7}, "freq_max_khz": None,
                                "sm_freq_max_khz": None, "mem_freq_max_khz": None, "temp_max_celsius": None,
                                "mem_used_max_kib": None, "throttle": None}
    second = st.window_dict(st.phases[1])["dgpus"]
    assert second["dgpu.0"]["temp_max_celsius"] == 50 and second["dgpu.0"]["load_percent"] == {"mean": 50, "max": 50}
    assert second["dgpu.10"]["load_percent"] == {"mean": None, "max": None}


def test_stats_oc_step_without_active():
    """The C unit test's test_oc_step_without_active: the reading whose
    over_current.active was 1 never reached a record, the counted events'
    step makes that record's interval over-current time all the same."""
    ms = 10**6
    st = Stats(["throttle.reason.over_current.active", "throttle.oc_events_counted"], 0)
    for t, active, counted in ((100, 0, 4), (110, 0, 4), (130, 0, 6), (140, 0, 6), (150, 1, 7)):
        st.record(t * ms, [active, counted])
    st.finish(150 * ms)
    d = st.window_dict(st.whole)["throttle"]
    assert abs(d["throttled_s"]["over_current"] - 0.03) < 1e-9, d
    assert d["over_current_events"] == 3, d


def test_stats_dgpu_reasons():
    """Issue 39: a discrete GPU's clock event reasons, the C unit test's
    records (tests/client/test-measure-stats.c test_dgpu_reasons) and its
    numbers: each bit's time as the SoC's reasons count, idle nowhere,
    app_clocks apart from throttling, an unnamed bit under its hex value,
    no bitmask unknown time; a GPU without the column null."""
    nan = float("nan")
    st = Stats(["dgpu.0.throttle", "dgpu.0.load", "dgpu.1.load"], 0)
    ms = 10**6
    for t_ms, mask in ((10, 0x1), (20, 0x4), (30, 0x44), (40, nan), (50, 0x202), (60, 0x6)):
        if t_ms == 40:
            st.phase(35 * ms, "second")
        st.record(t_ms * ms, [mask, 50, 5])
    st.finish(70 * ms)
    named = {"sw_power_cap", "hw_slowdown", "sync_boost", "sw_thermal", "hw_thermal", "hw_power_brake"}
    # sw_power_cap, hw_thermal, app_clocks, 0x200, any reason, unknown (s)
    want = {"whole": (0.030, 0.010, 0.020, 0.010, 0.040, 0.020), "start": (0.020, 0.010, 0, None, 0.020, 0.005),
            "second": (0.010, 0, 0.020, 0.010, 0.020, 0.015)}
    for w in (st.whole, st.phases[0], st.phases[1]):
        d = st.window_dict(w)["dgpus"]
        assert d["dgpu.1"]["throttle"] is None
        t = d["dgpu.0"]["throttle"]
        sw, hw, app, hexbit, any_s, unknown = want[w.name]
        assert set(t["throttled_s"]) == named | ({"0x200"} if hexbit else set()), t  # no idle, held bits only
        assert set(t["clock_settings_s"]) == {"app_clocks", "display_clocks"} and t["clock_settings_s"]["display_clocks"] == 0
        got = (t["throttled_s"]["sw_power_cap"], t["throttled_s"]["hw_thermal"], t["clock_settings_s"]["app_clocks"],
               t["throttled_s"].get("0x200"), t["any_reason_s"], t["unknown_s"])
        for g, e in zip(got, (sw, hw, app, hexbit, any_s, unknown)):
            assert (g is None and e is None) or abs(g - e) < 1e-12, (w.name, got)
        assert abs(t["throttled_percent"] - 100 * any_s / w.seconds) < 1e-9, t
        assert sum(v for k, v in t["throttled_s"].items() if k not in ("sw_power_cap", "hw_thermal", "0x200")) == 0


SNAP = {"cpu.load": 12.5, "cpu.0.online": True, "cpu.0.load": 10.0, "cpu.0.freq": 1200000,
        "cpu.1.online": False, "cpu.10.freq": 800, "gpu.load": 34.6, "gpu.freq": 306000,
        "gpu.gpc0.freq": 305990, "gpu.gpc1.freq": 306010, "gpu.3d_scaling": True,
        "dgpu.0.mem_used": 1024, "dgpu.0.mem_reserved": 512, "dgpu.0.power": 70000, "dgpu.0.temp": 51.0,
        "ram.total": 64302080, "ram.used": 1000, "swap.total": 0, "emc.freq": 2133000,
        "power.VDD_IN.power": 8000, "power.VDD_IN.voltage": 5000, "power.total": 8000,
        "power.total_is_sum": False, "energy.VDD_IN": 12, "energy.total": 12, "temp.cpu": 40.5,
        "fan.0.speed": 40.0, "fan.0.rpm": 2113, "fan.0.profile": "cool", "engine.NVENC.online": False,
        "nvpmodel.mode": 0, "nvpmodel.name": "MAXN", "jetson_clocks.active": False,
        "process.5120.name": "python3", "process.5120.gpu_mem": 262144, "process.5120.dgpu.0.mem": 512,
        "uptime": 12345, "disk.read_bytes": 7, "net.rx_bytes": 9}


def test_views():
    c = views.cpu(SNAP)
    assert c["load_percent"] == 12.5 and [x["index"] for x in c["cores"]] == [0, 1, 10]
    assert c["cores"][0] == {"index": 0, "online": True, "load_percent": 10.0, "freq_khz": 1200000}
    assert c["cores"][1] == {"index": 1, "online": False}  # absent stays absent
    split = views.cpu({"cpu.load": 55.0, "cpu.user": 36.0, "cpu.idle": 45.0, "cpu.0.online": True, "cpu.0.nice": 1.0,
                       "cpu.0.system": 18.0, "process.1.user": "root"})
    assert split == {"load_percent": 55.0, "user_percent": 36.0, "idle_percent": 45.0,
                     "cores": [{"index": 0, "online": True, "nice_percent": 1.0, "system_percent": 18.0}]}
    assert views.processes({"process.7.dgpu.0.mem_util": 12.0, "process.7.user": "root"}) == [
        {"pid": 7, "user": "root", "dgpu": {0: {"mem_util_percent": 12.0}}, "cmdline": None, "command": ""}]
    g = views.gpus(SNAP)
    assert g[0]["integrated"] and g[0]["freq_khz"] == 306000 and g[0]["gpc_freq_khz"] == [305990, 306010]
    assert g[0]["scaling_3d"] is True
    assert g[1] == {"index": 0, "integrated": False, "mem_used_kib": 1024, "mem_reserved_kib": 512, "power_mw": 70000, "temp_celsius": 51.0}
    m = views.memory(SNAP)
    assert m["ram"] == {"total_kib": 64302080, "used_kib": 1000} and m["emc"] == {"freq_khz": 2133000}
    p = views.power(SNAP)
    assert p["total_mw"] == 8000 and p["energy_total_mj"] == 12 and p["total_is_sum"] is False
    assert p["rails"] == {"VDD_IN": {"power_mw": 8000, "voltage_mv": 5000, "energy_mj": 12}}
    assert views.temperatures(SNAP) == {"cpu": 40.5}
    assert views.fans(SNAP) == [{"index": 0, "speed_percent": 40.0, "rpm": 2113, "profile": "cool"}]
    assert views.engines(SNAP) == {"NVENC": {"online": False}}
    assert views.modes(SNAP) == {"nvpmodel_id": 0, "nvpmodel_name": "MAXN", "jetson_clocks": False}
    assert views.processes(SNAP) == [{"pid": 5120, "name": "python3", "gpu_mem_kib": 262144,
                                      "dgpu": {0: {"mem_kib": 512}}, "cmdline": None, "command": "python3"}]
    assert views.system(SNAP) == {"uptime_s": 12345, "disk_read_bytes": 7, "net_rx_bytes": 9}
    assert views.unviewed(SNAP) == set() and views.unviewed({"newkey.x": 1}) == {"newkey.x"}
    # NVLink (issue 42): the sums with units, each link in a list by number.
    nv = views.gpus({"dgpu.1.nvlink_rx": 5, "dgpu.1.nvlink_tx_total": 7, "dgpu.1.nvlink.10.rx": 3,
                     "dgpu.1.nvlink.2.tx": 4, "dgpu.1.nvlink.2.rx": 1})
    assert nv == [{"index": 1, "integrated": False, "nvlink_rx_bytes_per_s": 5, "nvlink_tx_total_bytes": 7,
                   "nvlink_links": [{"link": 2, "rx_bytes_per_s": 1, "tx_bytes_per_s": 4},
                                    {"link": 10, "rx_bytes_per_s": 3}]}]
    # MIG: each MIG device by slot, units in names; a process's GPU instance.
    mig = {"dgpu.0.load": 1.0, "dgpu.0.mig.5.mem_used": 2, "dgpu.0.mig.5.uuid": "MIG-c", "dgpu.0.mig.0.gpu_instance": 1,
           "process.7.dgpu.0.gpu_instance": 1, "process.7.dgpu.0.mem": 3}
    assert views.gpus(mig) == [{"index": 0, "integrated": False, "load_percent": 1.0,
                                "mig": [{"slot": 0, "gpu_instance": 1}, {"slot": 5, "mem_used_kib": 2, "uuid": "MIG-c"}]}]
    assert views.processes(mig) == [{"pid": 7, "dgpu": {0: {"gpu_instance": 1, "mem_kib": 3}}, "cmdline": None,
                                     "command": ""}]


def test_errors():
    for name, cls in (("org.freedesktop.DBus.Error.AccessDenied", errors.AccessDenied),
                      ("org.freedesktop.DBus.Error.InteractiveAuthorizationRequired",
                       errors.InteractiveAuthorizationRequired),
                      ("org.jetsond.Jetson1.Error.RebootRequired", errors.RebootRequired),
                      ("org.jetsond.Jetson1.Error.Busy", errors.Busy),
                      ("org.jetsond.Jetson1.Error.NotSupported", errors.NotSupported),
                      ("org.jetsond.Jetson1.Error.Failed", errors.Failed),
                      ("org.jetsond.Jetson1.Error.Timeout", errors.Timeout),
                      ("org.freedesktop.DBus.Error.InvalidArgs", errors.InvalidArgs),
                      ("org.freedesktop.DBus.Error.UnknownObject", errors.NotFound),
                      ("org.freedesktop.DBus.Error.ServiceUnknown", errors.NotRunning),
                      ("org.example.Other", errors.JetsondError)):
        e = errors.from_dbus(name, "the message")
        assert type(e) is cls and e.dbus_name == name and "the message" in str(e), (name, e)
    assert isinstance(errors.from_dbus("org.freedesktop.DBus.Error.AccessDenied", "x"), PermissionError)
    assert isinstance(errors.from_dbus("org.freedesktop.DBus.Error.InvalidArgs", "x"), ValueError)
    assert "systemctl start jetsond" in str(errors.from_dbus("org.freedesktop.DBus.Error.ServiceUnknown", "x"))


def test_jtop_shapes():
    import datetime
    from jetsond import jtop
    t = datetime.datetime(2026, 1, 1)
    st = jtop.stats_of(SNAP, {0: "pwmfan"}, now=t)
    assert st["time"] == t and st["uptime"] == datetime.timedelta(seconds=12345)
    assert st["CPU1"] == 10.0 and st["CPU2"] == "OFF" and "CPU3" not in st  # cpu.2 absent ends the list
    assert st["RAM"] == 1000 / 64302080 and "SWAP" not in st  # no swap: no ratio, not 0/0
    assert st["GPU"] == 34.6 and st["Fan pwmfan"] == 40.0 and st["Temp cpu"] == 40.5
    assert st["Power VDD_IN"] == 8000 and st["Power TOT"] == 8000 and st["NVENC"] == "OFF"
    assert st["jetson_clocks"] == "OFF" and st["nvpmodel"] == "MAXN"
    cpu = jtop.cpu_of(SNAP)
    assert cpu["total"] == {"idle": 87.5}
    assert cpu["cpu"][0] == {"online": True, "freq": {"cur": 1200000}, "idle": 90.0}
    assert cpu["cpu"][1] == {"online": False}
    split = {"cpu.load": 55.0, "cpu.user": 36.0, "cpu.nice": 1.0, "cpu.system": 18.0, "cpu.idle": 45.0,
             "cpu.0.online": True, "cpu.0.load": 60.0, "cpu.0.user": 50.0, "cpu.0.nice": 0.0, "cpu.0.system": 10.0,
             "cpu.0.idle": 40.0}
    cpu = jtop.cpu_of(split)
    assert cpu["total"] == {"user": 36.0, "nice": 1.0, "system": 18.0, "idle": 45.0}
    assert cpu["cpu"][0] == {"online": True, "freq": {}, "user": 50.0, "nice": 0.0, "system": 10.0, "idle": 40.0}
    gpu = jtop.gpu_of(SNAP)
    assert gpu["gpu"]["freq"] == {"cur": 306000, "GPC": [305990, 306010]}
    assert gpu["gpu"]["status"] == {"3d_scaling": True, "load": 34.6}
    assert gpu["dgpu0"] == {"type": "discrete", "status": {}, "freq": {}}
    mem = jtop.memory_of(SNAP, [("/dev/zram0", "zram", 2048 * 1024, 1024, 5, False)])
    assert mem["RAM"] == {"tot": 64302080, "used": 1000} and mem["EMC"] == {"online": True, "cur": 2133000}
    assert mem["SWAP"]["table"] == {"/dev/zram0": {"type": "zram", "prio": 5, "size": 2048, "used": 1, "boot": False}}
    p = jtop.power_of(SNAP, {"VDD_IN": 7000.0, "total": 7500.0})
    assert p["rail"]["VDD_IN"] == {"online": True, "type": "INA3221", "power": 8000, "volt": 5000, "avg": 7000.0}
    assert p["tot"] == {"power": 8000, "name": "VDD_IN", "avg": 7500.0}
    assert p["oc_events"] == {}  # no counters on this board: {} as jtop's PR #597
    oc = {"throttle.oc1.events": 2, "throttle.oc1.armed": True, "throttle.oc1.events_counted": 2,
          "throttle.oc10.armed": False, "throttle.oc10.events_counted": 7, "throttle.oc2.events": 5,
          "throttle.oc2.events_counted": 0, "throttle.oc_events": 7, "throttle.reason.over_current.active": True}
    assert jtop.power_of(oc)["oc_events"] == {"is_throttling": True, "count": 7, "channels": {
        "oc1": {"count": 2, "throt_en": True}, "oc2": {"count": 5}, "oc10": {"throt_en": False}}}
    assert jtop.oc_events_of(oc, False)["is_throttling"] is False  # jtop's own "rose since my last update"
    del oc["throttle.oc_events"]  # no counter readable: no count, never a made-up 0
    assert "count" not in jtop.oc_events_of(oc)
    assert jtop.temperature_of(SNAP) == {"cpu": {"online": True, "temp": 40.5}}
    trips = {"temp.cpu": 40.5, "temp_trip.cpu.throttle": 99.0, "temp_trip.cpu.critical": 104.5,
             "temp.tj": 41.0, "temp_trip.tj.critical": 104.5, "temp_trip.gone.critical": 1.0}
    assert jtop.temperature_of(trips) == {"cpu": {"online": True, "temp": 40.5, "max": 99.0, "crit": 104.5},
                                          "tj": {"online": True, "temp": 41.0, "crit": 104.5}}
    assert jtop.engine_of({"engine.DLA0.online": True, "engine.DLA0.freq": 5, "engine.DLA1.online": False}) == {
        "DLA": {"DLA0": {"online": True, "cur": 5}, "DLA1": {"online": False}}}
    assert jtop.processes_of(SNAP) == [[5120, None, "d0", "Graphic", None, None, None, None, 262144, "python3"]]
    assert jtop.disk_of({"disk.total_bytes": 10**10, "disk.available_bytes": 4 * 10**9}) == {
        "total": 10.0, "available_no_root": 4.0, "used": 6.0}
    b = jtop.board_of({"soc": "tegra234", "jetpack": "6.2", "libraries": {"cuda": "12.6", "opencv_cuda": "no"}})
    assert b["hardware"] == {"SoC": "tegra234", "Jetpack": "6.2"}
    assert b["libraries"] == {"CUDA": "12.6", "OpenCV-Cuda": False}


def test_floor_checker_catches():
    """check_floor.py fails on what a 3.6 interpreter cannot run."""
    import subprocess
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "bad.py"), "w") as f:
            f.write("import dataclasses\nimport time\nx = time.monotonic_ns()\n")
        here = os.path.dirname(os.path.abspath(__file__))
        r = subprocess.run([sys.executable, os.path.join(here, "check_floor.py"), d], stdout=subprocess.PIPE)
        assert r.returncode == 1 and r.stdout.count(b"needs 3.7") == 2, r.stdout


# Four GPUs as Jetson.gpus() gives them (issue 42): NVML's index order is
# not the PCI bus order for 2 and 3; GPU 3 has MIG on with two MIG devices.
GIB = 1024 * 1024  # KiB
SEL_MIGS = [{"slot": 0, "uuid": "MIG-eeee", "mem_used_kib": 1 * GIB, "mem_total_kib": 40 * GIB},
            {"slot": 2, "uuid": "MIG-ffff", "mem_used_kib": 4 * GIB, "mem_total_kib": 20 * GIB}]
SEL_GPUS = [
    {"index": "gpu", "integrated": True, "load_percent": 3.0},
    {"index": 0, "integrated": False, "uuid": "GPU-aaaa0000-1", "pci_bus_id": "00000000:01:00.0",
     "mem_used_kib": 20 * GIB, "mem_total_kib": 80 * GIB, "load_percent": 90.0, "mem_load_percent": 50.0},
    {"index": 1, "integrated": False, "uuid": "GPU-bbbb1111-2", "pci_bus_id": "00000000:02:00.0",
     "mem_used_kib": 1 * GIB, "mem_total_kib": 80 * GIB, "load_percent": 10.0, "mem_load_percent": 5.0},
    {"index": 2, "integrated": False, "uuid": "GPU-cccc2222-3", "pci_bus_id": "00000000:04:00.0",
     "mem_used_kib": 76 * GIB, "mem_total_kib": 80 * GIB, "load_percent": 0.0, "mem_load_percent": 0.0},
    {"index": 3, "integrated": False, "uuid": "GPU-dddd3333-4", "pci_bus_id": "00000000:03:00.0",
     "mem_used_kib": 5 * GIB, "mem_total_kib": 80 * GIB, "mig": SEL_MIGS},
]


def test_parse_size():
    assert select.parse_size("5GiB") == 5 * 1024 ** 3 and select.parse_size("5000M") == 5000 * 1024 ** 2
    assert select.parse_size("512") == 512 and select.parse_size(7) == 7 and select.parse_size("1.5kib") == 1536
    for bad in ("5 parsecs", "", "GiB"):
        try:
            select.parse_size(bad)
        except ValueError:
            continue
        raise AssertionError("parse_size took %r" % bad)


def test_select_from():
    plain = [g for g in SEL_GPUS if g["index"] != 3]
    # Every GPU, least memory in use first; the integrated GPU is never one.
    assert select.select_from(plain) == [1, 0, 2]
    assert select.select_from(plain, sort=False) == [0, 1, 2]
    # Free memory: 2 has 4 GiB free; 10 % of tolerance lets 4 GiB pass for 4.4 GiB.
    assert select.select_from(plain, min_free_memory="5GiB") == [1, 0]
    assert select.select_from(plain, min_free_memory="4.4GiB") == [1, 0]
    assert select.select_from(plain, min_free_memory="4.4GiB", tolerance=10) == [1, 0, 2]
    assert select.select_from(plain, max_gpu_utilization=60) == [1, 2]
    assert select.select_from(plain, max_memory_utilization=4) == [2]
    assert select.select_from(plain, min_total_memory="81GiB") == []
    assert select.select_from(plain, max_count=2, format="uuid") == ["GPU-bbbb1111-2", "GPU-aaaa0000-1"]
    # Too few: nothing (nvisel fails).
    assert select.select_from(plain, min_count=3, max_gpu_utilization=60) == []
    # A MIG device among them: UUIDs, whatever the format; an absent utilization excludes no device.
    # (MIG-eeee and GPU 1 hold 1 GiB each: the lower utilization first, an absent one as 0.)
    assert select.select_from(SEL_GPUS, max_gpu_utilization=50) == ["MIG-eeee", "GPU-bbbb1111-2", "MIG-ffff",
                                                                    "GPU-cccc2222-3"]
    # Account as free: alice's 16 GiB on GPU 2 and 3 GiB in MIG-ffff's instance (GI 4) count as free.
    procs = [{"pid": 5, "user": "alice", "dgpu": {2: {"mem_kib": 16 * GIB}, 3: {"mem_kib": 3 * GIB, "gpu_instance": 4}}},
             {"pid": 6, "user": "bob", "dgpu": {2: {"mem_kib": 8 * GIB}}}]
    mig = [dict(g) for g in SEL_GPUS]  # type: List[Dict[str, Any]]
    mig[4]["mig"] = [dict(SEL_MIGS[0], gpu_instance=3), dict(SEL_MIGS[1], gpu_instance=4)]
    assert select.select_from(plain, min_free_memory="10GiB") == [1, 0]
    assert select.select_from(plain, min_free_memory="10GiB", account_as_free=["alice"], processes=procs) == [1, 0, 2]
    assert select.select_from(plain, account_as_free=["bob"], processes=procs, sort=True) == [1, 0, 2]
    # (MIG-ffff: 1 GiB left in use, as MIG-eeee, whose lower slot goes first; GPU 2: 60 GiB.)
    assert select.select_from(mig, min_free_memory="19GiB", account_as_free=["alice"], processes=procs) == [
        "MIG-eeee", "MIG-ffff", "GPU-bbbb1111-2", "GPU-aaaa0000-1", "GPU-cccc2222-3"]
    assert select.select_from(mig, min_free_memory="19GiB") == ["MIG-eeee", "GPU-bbbb1111-2", "GPU-aaaa0000-1"]
    # Inherit: among CUDA_VISIBLE_DEVICES' devices only.
    assert select.select_from(plain, inherit="GPU-aaaa,2") == [0, 2]
    try:
        select.select_from(plain, format="name")
    except ValueError:
        pass
    else:
        raise AssertionError("format 'name' taken")


def test_cuda_from():
    order = [(d["cuda_index"], d["index"], d["mig"]) for d in select.cuda_from(SEL_GPUS)]
    # PCI bus order (2 is on bus 4, 3 on bus 3); a MIG GPU's MIG devices in its place.
    assert order == [(0, 0, None), (1, 1, None), (2, 3, 0), (3, 3, 2), (4, 2, None)], order
    pick = lambda visible: [(d["cuda_index"], d["index"], d["mig"]) for d in select.cuda_from(SEL_GPUS, visible)]
    assert pick("4,0") == [(0, 2, None), (1, 0, None)]
    assert pick("GPU-bbbb,MIG-ffff") == [(0, 1, None), (1, 3, 2)]
    # CUDA stops at the first entry naming no device, or one named again.
    assert pick("1,9,0") == [(0, 1, None)]
    assert pick("1,GPU-bbbb1111-2,0") == [(0, 1, None)]
    assert pick("GPU-") == [] and pick("") == []


# A known stream (issue 42): three samples of host, one NVIDIA GPU and one
# process on it, fed to a Collector with a clock of its own.
STREAM = [
    {"cpu.load": 10.0, "ram.used": 1048576, "ram.total": 4194304, "power.total": 5000,
     "dgpu.0.load": 20.0, "dgpu.0.mem_used": 1024, "dgpu.0.mem_total": 4096, "dgpu.0.power": 100000,
     "process.42.cpu": 50.0, "process.42.rss": 2048, "process.42.dgpu.0.mem": 512, "process.42.dgpu.0.sm": 30.0},
    {"cpu.load": 30.0, "ram.used": 2097152, "ram.total": 4194304, "power.total": 7000,
     "dgpu.0.load": 60.0, "dgpu.0.mem_used": 2048, "dgpu.0.mem_total": 4096, "dgpu.0.power": 200000,
     "process.42.cpu": 150.0, "process.42.rss": 4096, "process.42.dgpu.0.mem": 1536, "process.42.dgpu.0.sm": 90.0},
    {"cpu.load": 20.0, "ram.used": 1048576, "ram.total": 4194304, "power.total": 6000,
     "dgpu.0.load": 40.0, "dgpu.0.mem_used": 3072, "dgpu.0.mem_total": 4096},  # the process has gone
]


def test_collector():
    now = [100.0]
    c = collector.Collector(start=False, clock=lambda: now[0], loadavg=None)
    c.add_sample(STREAM[0])  # before any tag: counted nowhere
    with c(tag="train"):
        c.add_sample(STREAM[0])
        with c(tag="batch"):
            c.add_sample(STREAM[1])
            now[0] = 102.5
            m = c.collect()
            assert m["train/batch/host/cpu_percent (%)/mean"] == 30.0 and m["train/batch/duration (s)"] == 2.5
            assert m["train/batch/timestamp"] == 102.5
            assert m["train/batch/pid:42/gpu:0/gpu_memory (MiB)/max"] == 1.5
        c.add_sample(STREAM[2])
        now[0] = 110.0
        m = c.collect()
    want = {"host/cpu_percent (%)": (20.0, 10.0, 30.0), "host/memory_used (GiB)": (4 / 3, 1.0, 2.0),
            "host/memory_percent (%)": (100 / 3, 25.0, 50.0), "host/power (W)": (6.0, 5.0, 7.0),
            "gpu:0/gpu_utilization (%)": (40.0, 20.0, 60.0), "gpu:0/memory_used (MiB)": (2.0, 1.0, 3.0),
            "gpu:0/memory_percent (%)": (50.0, 25.0, 75.0), "gpu:0/memory_total (MiB)": (4.0, 4.0, 4.0),
            "gpu:0/power_usage (W)": (150.0, 100.0, 200.0), "pid:42/host/cpu_percent (%)": (100.0, 50.0, 150.0),
            "pid:42/host/host_memory (MiB)": (3.0, 2.0, 4.0), "pid:42/gpu:0/gpu_memory (MiB)": (1.0, 0.5, 1.5),
            "pid:42/gpu:0/gpu_sm_utilization (%)": (60.0, 30.0, 90.0),
            "pid:42/host/host_memory_percent (%)": (300 / 4096, 200 / 4096, 400 / 4096),
            "pid:42/gpu:0/gpu_memory_percent (%)": (25.0, 12.5, 37.5)}
    for name, (mean, lo, hi) in want.items():
        got = (m["train/%s/mean" % name], m["train/%s/min" % name], m["train/%s/max" % name])
        assert all(math.isclose(a, b) for a, b in zip(got, (mean, lo, hi))), (name, got)
    assert m["train/duration (s)"] == 10.0
    assert len(m) == 3 * len(want) + 2, sorted(m)
    # collect() starts the figures anew; outside a tag it is an error.
    with c(tag="eval"):
        now[0] = 111.0
        assert c.collect() == {"eval/duration (s)": 1.0, "eval/timestamp": 111.0}  # no sample: no metric
    try:
        c.collect()
    except RuntimeError:
        pass
    else:
        raise AssertionError("collect() outside a tag")
    # root_pids: a process and its descendants, by the sample's ppid keys.
    tree = {"process.10.cpu": 1.0, "process.11.cpu": 2.0, "process.11.ppid": 10, "process.12.cpu": 3.0,
            "process.12.ppid": 11, "process.13.cpu": 4.0, "process.13.ppid": 1, "process.13.dgpu.0.mem": 1024}
    names = lambda m: sorted(k.split("/")[0] for k in m)
    assert names(collector.sample_metrics(tree, {11})) == ["pid:11", "pid:12"]
    assert names(collector.sample_metrics(tree, {1})) == ["pid:13", "pid:13"]
    assert len(collector.sample_metrics(tree)) == 5


def test_local_interfaces():
    """jtop's local_interfaces: the same IPv4 addresses as iproute2 sees
    (where it is installed), IPv6 from the kernel's table."""
    import shutil
    import socket
    import subprocess
    d = netif.local_interfaces()
    assert d["hostname"] == socket.gethostname()
    for name, addr in d["interfaces"].items():
        assert addr == d["addresses"][name][0] and socket.inet_aton(addr)
    if shutil.which("ip"):
        out = json.loads(subprocess.run(["ip", "-j", "addr"], stdout=subprocess.PIPE, check=True).stdout.decode())
        want = {(i["ifname"], a["local"]) for i in out for a in i.get("addr_info", []) if a["family"] == "inet"}
        got = {(n, a) for n, addrs in d["addresses"].items() for a in addrs if ":" not in a}
        # iproute2 names an alias by its interface, the ioctl by its label ("eth0:1").
        assert {(n.split(":")[0], a) for n, a in got} == want, (got, want)
    with tempfile.NamedTemporaryFile("w", suffix="if_inet6") as f:
        f.write("00000000000000000000000000000001 01 80 10 80       lo\n"
                "fe800000000000000000000000000001 02 40 20 80     eth0\n"
                "garbage line\n"
                "zz800000000000000000000000000001 02 40 20 80     eth1\n")
        f.flush()
        assert netif._ipv6(f.name) == [("lo", "::1"), ("eth0", "fe80::1")]
    assert netif._ipv6("/nonexistent/if_inet6") == []


def test_collector_nvitop():
    """nvitop's metrics beyond the basic ones: load average, a process's
    running_time (latest, not averaged), host and GPU memory percent, GPU
    memory bandwidth; a Jetson's zones, rails and EMC; command lines."""
    now = [1000.0]
    c = collector.Collector(start=False, clock=lambda: now[0], loadavg=lambda: (0.5, 1.5, 2.5))
    jetson = {"ram.total": 8388608, "emc.load": 20.0, "emc.freq": 2133000, "gpu.freq": 306000,
              "temp.cpu": 46.5, "temp.gpu": 44.0, "power.VDD_GPU_SOC.power": 2392, "power.VDD_GPU_SOC.voltage": 5016,
              "power.total": 7113, "process.5120.name": "python3", "process.5120.rss": 838860.8,
              "process.5120.gpu_mem": 262144, "process.5120.start_time": 940.0,
              "process.4242.name": "train", "process.4242.dgpu.0.mem": 2048, "process.4242.dgpu.0.mem_util": 12.0,
              "process.4242.gpu_mem": 2048, "dgpu.0.mem_total": 8192}
    with c(tag="t"):
        c.add_sample(jetson)
        now[0] = 1030.0
        c.add_sample(dict(jetson, **{"temp.gpu": 50.0}))
        m = c.collect()
    assert m["t/host/load_average (%) (1 min)/mean"] == 0.5 and m["t/host/load_average (%) (15 min)/max"] == 2.5
    assert m["t/host/temperature (C) (gpu)/mean"] == 47.0 and m["t/host/temperature (C) (gpu)/max"] == 50.0
    assert m["t/host/power (W) (VDD_GPU_SOC)/mean"] == 2.392 and "t/host/power (W) (total)/mean" not in m
    assert m["t/host/emc_utilization (%)/mean"] == 20.0 and m["t/host/emc_clock (MHz)/mean"] == 2133.0
    assert m["t/gpu/sm_clock (MHz)/mean"] == 306.0
    # running_time: from start_time to the second sample (the clock: a dict has no timestamp).
    assert m["t/pid:5120/host/running_time (min)"] == 1.5 and "t/pid:5120/host/running_time (min)/mean" not in m
    assert math.isclose(m["t/pid:5120/host/host_memory_percent (%)/mean"], 10.0)
    assert m["t/pid:5120/gpu/gpu_memory (MiB)/mean"] == 256.0  # the integrated GPU's: RAM
    assert math.isclose(m["t/pid:5120/gpu/gpu_memory_percent (%)/mean"], 100 * 262144 / 8388608)
    assert m["t/pid:4242/gpu:0/gpu_memory_percent (%)/mean"] == 25.0
    assert m["t/pid:4242/gpu:0/gpu_memory_utilization (%)/mean"] == 12.0
    assert "t/pid:4242/gpu/gpu_memory (MiB)/mean" not in m  # a dGPU process: counted there, not twice
    # Command lines: this process's own from /proc; a PID that is not
    # there, or not the process jetsond named, by jetsond's name.
    me = os.getpid()
    with open("/proc/self/comm") as f:
        comm = f.read().strip()
    c2 = collector.Collector(start=False, loadavg=None)
    with c2(tag="x"):
        c2.add_sample({"process.%d.name" % me: comm, "process.%d.cpu" % me: 1.0,
                       "process.999999999.name": "gone", "process.999999999.cpu": 1.0,
                       "process.1.name": "not-init-here", "process.1.cpu": 1.0})
    with open("/proc/self/cmdline", "rb") as f:
        own = " ".join(a.decode() for a in f.read().split(b"\0") if a)
    assert c2.commands() == {1: "not-init-here", me: own, 999999999: "gone"}
    assert collector.load_average() == os.getloadavg()


def test_collect_in_background():
    """nvitop's daemon: on_start once, on_collect at once and every
    interval until it returns False, on_stop once; its tag apart from the
    caller's (per-thread tags), every tag seeing every sample."""
    import threading
    c = collector.Collector(start=False, loadavg=None)
    seen = []  # type: List[Dict[str, float]]
    events = []  # type: List[str]

    def on_collect(m):
        seen.append(m)
        c.add_sample({"cpu.load": 10.0 * len(seen)})
        return len(seen) < 3

    with c(tag="main"):
        t = c.daemonize(on_collect, interval=0.05, on_start=lambda x: events.append("start"),
                        on_stop=lambda x: events.append("stop"), tag="bg")
        assert isinstance(t, threading.Thread) and t.daemon and t.name == "bg" and getattr(t, "collector") is c
        t.join(10)
        assert not t.is_alive() and events == ["start", "stop"] and len(seen) == 3
        assert set(seen[0]) == {"bg/duration (s)", "bg/timestamp"}  # collected at once: nothing yet
        assert seen[1]["bg/host/cpu_percent (%)/mean"] == 10.0 and seen[2]["bg/host/cpu_percent (%)/mean"] == 20.0
        m = c.collect()  # the caller's tag saw the same samples
        assert m["main/host/cpu_percent (%)/mean"] == 20.0 and m["main/host/cpu_percent (%)/max"] == 30.0
    # collect_in_background: unstarted on request; on_stop runs after an error too.
    stops = []  # type: List[Any]

    def boom(m):
        raise KeyError("x")
    t = collector.collect_in_background(boom, c, 0.01, on_stop=stops.append, start=False)
    assert not t.is_alive() and stops == []
    try:
        t.run()  # in this thread, to see the error come out
        raise AssertionError("on_collect's error was swallowed")
    except KeyError:
        pass
    assert stops == [c]
    try:
        collector.collect_in_background(lambda m: False, c, 0)
        raise AssertionError("interval 0 accepted")
    except ValueError:
        pass


def test_caller_pids():
    """A container's view of a sample: its processes by its own PIDs, the
    parent named too, the host's left out; asked once per process."""
    asked = []  # type: List[List[int]]
    # jetsond's PID -> the container's: 100 is its 1, 101 its 7; 50 the host's.
    names = {100: 1, 101: 7}

    def call(method, pids):
        assert method == "PidsToCaller"
        asked.append(list(pids))
        return [names.get(p, 0) for p in pids]
    c = pidns.CallerPids(call)
    s = {"cpu.load": 3.0, "process.100.name": "a", "process.100.ppid": 50, "process.100.start_time": 1.0,
         "process.101.gpu_mem": 5, "process.101.ppid": 100, "process.101.start_time": 2.0,
         "process.50.name": "host", "process.50.gpu_mem": 9}
    want = {"cpu.load": 3.0, "process.1.name": "a", "process.1.start_time": 1.0,
            "process.7.gpu_mem": 5, "process.7.ppid": 1, "process.7.start_time": 2.0}
    assert c.view(dict(s)) == want
    assert c.view(dict(s)) == want and asked == [[50, 100, 101]]
    # PID 101 reused by a new process: asked again, and it is not the caller's.
    s["process.101.start_time"] = 3.0
    names.pop(101)
    assert "process.7.gpu_mem" not in c.view(dict(s)) and asked[-1] == [101]
    # The compact form's floats keep their type.
    assert c.view({"process.100.ppid": 101.0, "process.101.start_time": 3.0}) == {}
    # A caller in jetsond's own namespace: the sample unchanged.
    same = pidns.CallerPids(lambda m, p: list(p))
    assert same.view(dict(s)) == s


def test_caller_pids_unknown():
    """jetsond cannot see the caller (a --sysroot tree) or is older: the
    sample as it came, asked again only after RETRY_S; other errors raise."""
    calls = []  # type: List[str]

    def unknown(method, pids):
        calls.append(method)
        raise errors.from_dbus("org.jetsond.Jetson1.Error.UnknownProcess", "cannot see the calling process")
    c = pidns.CallerPids(unknown)
    s = {"process.5.name": "x"}
    assert c.view(dict(s)) == s and c.view(dict(s)) == s and len(calls) == 1
    assert isinstance(c.error, errors.UnknownProcess) and isinstance(c.error, ProcessLookupError)
    assert c.from_caller([1]) is None and c.from_caller([]) == []

    def old(method, pids):
        raise errors.from_dbus("org.freedesktop.DBus.Error.UnknownMethod", "no such method")
    assert pidns.CallerPids(old).view(dict(s)) == s

    def denied(method, pids):
        raise errors.from_dbus("org.freedesktop.DBus.Error.AccessDenied", "no")
    try:
        pidns.CallerPids(denied).view(dict(s))
        raise AssertionError("AccessDenied was swallowed")
    except errors.AccessDenied:
        pass


def _fake_process(root: str, pid: int, comm: str, cmdline: bytes, start_ticks: int = 0) -> None:
    d = os.path.join(root, str(pid))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "comm"), "w") as f:
        f.write(comm + "\n")
    with open(os.path.join(d, "cmdline"), "wb") as f:
        f.write(cmdline)
    with open(os.path.join(d, "stat"), "w") as f:
        f.write("%d (%s) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %d 1000 10\n" % (pid, comm, start_ticks))


def test_command_lines():
    """proc.command_line(): the arguments where this process may read them,
    checked against jetsond's name and start time; views.processes() adds
    them only where the sample names this namespace's PIDs."""
    hz = os.sysconf("SC_CLK_TCK")
    with tempfile.TemporaryDirectory() as root:
        with open(os.path.join(root, "stat"), "w") as f:
            f.write("cpu  1 2 3 4\nbtime 1700000000\n")
        _fake_process(root, 10, "python3", b"/usr/bin/python3\0train.py\0--lr\0" b"0.1\0", 250 * hz)
        _fake_process(root, 11, "kworker/0:1", b"")
        assert proc.command_line(10, proc=root) == ["/usr/bin/python3", "train.py", "--lr", "0.1"]
        assert proc.command_line(10, "python3", 1700000250.0, proc=root) == ["/usr/bin/python3", "train.py", "--lr",
                                                                             "0.1"]
        assert proc.command_line(10, "bash", proc=root) is None            # the PID is another process now
        assert proc.command_line(10, "python3", 1700000260.0, proc=root) is None   # started later: another
        assert proc.command_line(11, "kworker/0:1", proc=root) is None     # a kernel thread: no line
        assert proc.command_line(12, proc=root) is None                    # gone, or hidden by hidepid
        assert proc.command(None, "kworker/0:1") == "kworker/0:1"
        assert proc.command(["a", "b c"], "x") == "a b c"
    # this very process, through the real /proc, as jetsond would name it
    me = os.getpid()
    with open("/proc/self/comm") as f:
        comm = f.read().strip()
    started = proc._start_time(me, "/proc")
    assert started is not None
    assert proc.command_line(me, comm, started) == [a.decode() for a in open("/proc/self/cmdline", "rb").read()
                                                   .split(b"\0") if a]
    values = {"process.%d.name" % me: comm, "process.%d.start_time" % me: started,
              "process.%d.gpu_mem" % me: 1024, "process.4.name": "kthreadd", "process.4.start_time": 1.0}
    from jetsond.client import Sample
    rows = {p["pid"]: p for p in views.processes(Sample(0, values, caller_pids=True))}
    assert rows[me]["cmdline"][0].endswith("python3") or "python" in rows[me]["cmdline"][0], rows[me]
    assert rows[me]["command"] == " ".join(rows[me]["cmdline"])
    assert rows[4]["cmdline"] is None and rows[4]["command"] == "kthreadd"
    # jetsond's own PIDs (not translated): never this machine's /proc
    rows = {p["pid"]: p for p in views.processes(Sample(0, values, caller_pids=False))}
    assert rows[me]["cmdline"] is None and rows[me]["command"] == comm


def run_tests(namespace):
    """Runs each test_* function of a module's NAMESPACE (its globals()),
    printing ok or FAIL for each; 1 if any failed. Shared with
    test_tiers_units.py, which runs the same way without pytest."""
    failed = 0
    for name, fn in sorted(namespace.items()):
        if name.startswith("test_") and callable(fn):
            try:
                fn()
                print("ok   " + name)
            except Exception:
                import traceback
                traceback.print_exc()
                print("FAIL " + name)
                failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(run_tests(globals()))
