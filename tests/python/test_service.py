"""The jetsond Python package against jetsond on a private system bus
(tests/lib/harness.py): every view equals GetSnapshot, identity equals the
fake board's facts, writes through polkit (denied ones raise AccessDenied
and change nothing), jetsond leaving and coming back, the Recorder at 1 kHz
and measure() on a static board; the sample streams' rates are
test_streams.py's.
Run by meson as: python3 -m pytest test_service.py (JETSOND in the
environment: the built daemon)."""

import contextlib
import math
import os
import subprocess
import sys
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from harness import Stack, wait_for  # noqa: E402

import boards  # noqa: E402
import jetsond  # noqa: E402
from jetsond import views  # noqa: E402

JETSOND = os.environ["JETSOND"]
JETSONCTL = os.environ.get("JETSONCTL")
ORIN = boards.AGX_ORIN


@pytest.fixture(scope="module")
def static():
    """A still AGX Orin: nothing changes unless written."""
    with Stack(JETSOND, None) as s:
        s.start_mock("polkitd", "org.freedesktop.PolicyKit1")
        s.start_systemd_with_nvfancontrol()
        s.start_daemon()
        yield s


@pytest.fixture
def simulated():
    """A simulated AGX Orin (values move)."""
    with Stack(JETSOND, None, simulate=True) as s:
        s.start_daemon()
        yield s


@contextlib.contextmanager
def pc_with_fake_nvml(lib, config):
    """jetsond on the PC fake board with the fake NVML LIB answering from
    CONFIG; the environment put back after."""
    old = os.environ.get("DBUS_SYSTEM_BUS_ADDRESS")
    os.environ["FAKE_NVML_CONFIG"] = config
    try:
        with Stack(JETSOND, None, board="x86-pc") as s:
            s.start_daemon(["--nvml-library", lib])
            yield s
    finally:
        os.environ.pop("FAKE_NVML_CONFIG", None)
        if old is not None:
            os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = old


def test_identity(static):
    with jetsond.Jetson(static.address) as j:
        ident = j.identity()
        assert ident["soc"] == ORIN["soc"] and ident["l4t"] == ORIN["l4t"] and ident["jetpack"] == ORIN["jetpack"]
        assert ident["model"] == ORIN["dt"]["model"] and ident["cuda_arch"] == ORIN["cuda_arch"]
        assert isinstance(ident["libraries"], dict)


def test_views_equal_snapshot(static):
    """Every view holds the snapshot's values under unit-suffixed names, and
    no key of the snapshot is left out of every view."""
    with jetsond.Jetson(static.address) as j:
        s = j.snapshot()
        assert abs(s.timestamp - time.time()) < 60 and len(s) > 50
        assert views.unviewed(s) == set()
        for core in j.cpu()["cores"]:
            n = core["index"]
            assert core["online"] == s["cpu.%d.online" % n]
            if "freq_khz" in core:
                assert core["freq_khz"] == s["cpu.%d.freq" % n]
        for n, khz in enumerate(ORIN["cpu"]["cur"]):
            assert s["cpu.%d.freq" % n] == khz
        gpu = j.gpus()[0]
        assert gpu["integrated"] and gpu["freq_khz"] == s["gpu.freq"] == ORIN["gpu"]["cur"] // 1000
        assert gpu["load_percent"] == s["gpu.load"]
        p = j.power()
        rails = {c[0]: c for ch in ORIN["power"] for c in ch["ch"] if c[0] != "NC"}
        assert set(p["rails"]) == set(rails)
        for name, mv, ma, warn, crit in rails.values():
            assert p["rails"][name]["voltage_mv"] == mv and p["rails"][name]["current_ma"] == ma
            assert p["rails"][name]["crit_current_ma"] == crit
        assert p["total_mw"] == s["power.total"]
        thermal = dict(ORIN["thermal"])
        assert j.temperatures()["cpu"] == thermal["cpu-thermal"] / 1000
        fan = j.fans()[0]
        assert fan["pwm"] == ORIN["fan"]["pwm"] and fan["rpm"] == ORIN["fan"]["rpm"]
        assert fan["profile"] == ORIN["fan"]["profile"] and fan["profile"] in fan["profiles"]
        assert j.memory()["ram"]["total_kib"] == s["ram.total"] == 64302080
        procs = {p["pid"]: p for p in j.processes()}
        assert procs[5120]["name"] == "python3" and procs[5120]["gpu_mem_kib"] == 262144
        m = j.nvpmodel()
        assert m["id"] == ORIN["nvpmodel"]["current"] and m["default_id"] == ORIN["nvpmodel"]["default"]
        assert m["modes"][m["id"]] == m["name"] == s["nvpmodel.name"]
        assert j.jetson_clocks()["active"] is s["jetson_clocks.active"] is False


def state(j):
    s = j.snapshot()
    return (s["fan.0.pwm"], s["fan.0.profile"], j.nvpmodel(), j.jetson_clocks(), j.swaps())


def test_denied_writes_change_nothing(static):
    static.polkit_allow([])
    with jetsond.Jetson(static.address, interactive=False) as j:
        before = state(j)
        for write, args in ((j.set_fan_speed, (80,)), (j.set_fan_profile, ("quiet",)), (j.set_nvpmodel, (1,)),
                            (j.set_default_nvpmodel, (1,)), (j.set_jetson_clocks, (True,)),
                            (j.create_swap, (64 << 20,)), (j.drop_caches, ()), (j.restore_defaults, ()),
                            (j.serial_number, ())):
            with pytest.raises(jetsond.AccessDenied) as e:
                write(*args)
            assert "Not authorized" in str(e.value), (write.__name__, e.value)
        time.sleep(0.3)
        assert state(j) == before


def test_bad_arguments(static):
    with jetsond.Jetson(static.address) as j:
        with pytest.raises(jetsond.InvalidArgs):
            j.set_fan_speed(150)
        with pytest.raises(jetsond.InvalidArgs):
            j.set_nvpmodel(99)
        with pytest.raises(jetsond.NotFound):
            j.set_fan_speed(50, fan=3)
        with pytest.raises(jetsond.InvalidArgs):
            next(j.samples(interval=0.001))


def test_allowed_write(static):
    static.polkit_allow(["org.jetsond.Jetson1.set-fan"])
    try:
        with jetsond.Jetson(static.address) as j:
            j.set_fan_speed(80)
            wait_for(lambda: j.snapshot()["fan.0.pwm"] == 204, 5, "fan PWM 204")
            assert j.fans()[0]["speed_percent"] == 80
    finally:
        static.polkit_allow([])


def test_numbers_equal_snapshot(static):
    """numbers() (GetKeys + GetValues) gives the numeric keys of the same
    sample as snapshot(), as floats; the key list is asked for once."""
    with jetsond.Jetson(static.address) as j:
        for _ in range(50):
            snap, nums = j.snapshot(), j.numbers()
            if snap.timestamp == nums.timestamp:
                break
        assert snap.timestamp == nums.timestamp
        numeric = {k: float(v) for k, v in snap.items() if not isinstance(v, str)}
        assert nums == numeric and len(nums) > 100
        assert all(isinstance(v, float) for v in nums.values())
        generation = j._keys[0]
        j.numbers()
        assert j._keys[0] == generation


def test_jetsond_leaving_and_back(static):
    """NotRunning while it is away (one clear exception), and a sample
    iterator that carries on with the new jetsond."""
    got = []
    done = threading.Event()
    it = jetsond.Jetson(static.address).samples(interval=0.05)

    def read():
        for s in it:
            got.append(s)
            if done.is_set():
                break
        it.close()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    wait_for(lambda: len(got) >= 3, 5, "samples")
    static.stop_daemon()
    with pytest.raises(jetsond.NotRunning) as e:
        jetsond.Jetson(static.address)
    assert "jetsond is not running" in str(e.value)
    n = len(got)
    time.sleep(0.3)
    assert len(got) == n
    static.start_daemon()
    wait_for(lambda: len(got) >= n + 5, 5, "samples from the new jetsond")
    with jetsond.Jetson(static.address) as j:
        assert j.interval() == 0.05  # the iterator subscribed again
    done.set()
    reader.join(30)
    assert not reader.is_alive()


def test_recorder_1khz(simulated, tmp_path):
    import tracemalloc
    path = str(tmp_path / "run.trace")
    tracemalloc.start()
    with jetsond.Recorder(path, rate_hz=1000, keys=["cpu.load", "gpu.load", "power.total"],
                          address=simulated.address) as r:
        assert r.sample_count >= 10  # warmed up
        ids, rss = [], []
        for _ in range(4):
            time.sleep(2.5)
            ids.append(r.sync("phase"))
            # The package's own allocations (other tests' threads may run).
            snap = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, "*/jetsond/*")])
            rss.append(sum(st.size for st in snap.statistics("filename")))
        assert ids == [1, 2, 3, 4]
    tracemalloc.stop()
    # Records go to the file as they come: Python's memory does not grow with
    # them (7.5 s of these records are ~300 KB).
    print("figure: Recorder's Python heap %+.1f KiB from 2.5 s to 10 s" % ((rss[-1] - rss[0]) / 1024))
    assert rss[-1] - rss[0] < 64 << 10, rss
    data = jetsond.read_trace(path)
    t = data["time_ns"]
    span = (int(t[-1]) - int(t[0])) / 1e9
    n = len(t)
    # Ticks the engine itself misses on a busy machine leave gaps in time_ns
    # (printed); the Recorder must keep up: nothing dropped for it.
    gaps = [(int(b) - int(a)) / 1e6 for a, b in zip(t[:-1], t[1:])]
    missed = sum(max(0, int(g + 0.05) - 1) for g in gaps)
    ticks = int(round(span * 1000)) + 1
    print("figure: %d records over %.3f s of the stream's clock (%.1f per s), %d dropped, %d ticks missed by the"
          " engine" % (n, span, n / span, data["dropped_total"], missed))
    assert span >= 9.9, span
    assert data["dropped_total"] == 0
    assert n >= 0.5 * ticks, (n, ticks)  # a stalled engine fails, a busy one does not
    assert all(int(b) > int(a) for a, b in zip(t[:-1], t[1:]))
    assert int(data["dropped"].sum()) == data["dropped_total"] == r.dropped
    sid = list(data["sync_id"])
    assert sid == sorted(sid) and sid[0] == 0 and sid[-1] == 4
    for k in ("cpu.load", "gpu.load", "power.total"):
        assert not math.isnan(data[k][-1])
    assert data["columns"] == ["cpu.load", "gpu.load", "power.total"]


def test_read_trace_equals_jetsonctl_record(simulated, tmp_path):
    """jetsonctl record and the Recorder at 1 kHz over the same second of a
    moving board: both read the one engine, so every CSV row is a record of
    the trace (same tick, found by its time) with the same values."""
    if not JETSONCTL:
        pytest.skip("no jetsonctl")
    import bisect
    import csv
    path, csv_path = str(tmp_path / "run.trace"), str(tmp_path / "run.csv")
    keys = "cpu.0.freq,gpu.load,power.*.power,power.total,temp.*"
    with jetsond.Recorder(path, rate_hz=1000, keys=keys.split(","), address=simulated.address):
        subprocess.run([JETSONCTL, "record", "-i", "1", "-k", keys, "-o", csv_path, "-d", "1"], check=True,
                       env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=simulated.address))
    rows = list(csv.DictReader(open(csv_path)))
    data = jetsond.read_trace(path)
    # How many of the second's 1000 ticks a busy machine made is its
    # figure; enough of them to compare is the test's.
    assert len(rows) >= 50 and list(rows[0])[:2] == ["time_s", "time_unix_s"], list(rows[0])
    # The keys, then the tiers' time columns (read_trace's tier_time_s).
    csv_keys = [k for k in list(rows[0])[2:-1] if not k.endswith("_time_s")]
    assert csv_keys == data["columns"], (len(rows), list(rows[0]), data["columns"])
    assert list(rows[0])[2 + len(csv_keys):-1] == [t + "_time_s" for t in data["tier_time_s"]], list(rows[0])
    t = [int(x) for x in data["time_ns"]]
    csv_ns = [int(round(float(r["time_s"]) * 1e9)) for r in rows]

    def matches(offset, n):
        hits = 0
        for c in csv_ns[:n]:
            i = bisect.bisect_left(t, c + offset - 2000)
            hits += i < len(t) and abs(t[i] - c - offset) <= 2000
        return hits

    # The CSV counts from its own start: find the trace record of its first row.
    offset = max((t[k] - csv_ns[0] for k in range(len(t))), key=lambda o: matches(o, 30))
    changed, worst = 0, 0.0
    for row, c in zip(rows, csv_ns):
        i = bisect.bisect_left(t, c + offset - 2000)
        assert i < len(t) and abs(t[i] - c - offset) <= 2000, ("no trace record for", row)
        for k in data["columns"]:
            v = data[k][i]
            assert (row[k] == "" and v != v) or float(row[k]) == v, (k, row[k], v)
        # Each stream maps its monotonic times with the pair jetsond read
        # when it opened; the two opened within a second, so the realtime
        # clock's NTP slewing (500 ppm at most) parts them by under 1 ms.
        assert abs(float(row["time_unix_s"]) - data["time_unix_s"][i]) < 1e-3, (row, data["time_unix_s"][i])
        worst = max(worst, abs(float(row["time_unix_s"]) - data["time_unix_s"][i]))
        changed += i > 0 and data["gpu.load"][i] != data["gpu.load"][i - 1]
    print("figure: %d CSV rows, each a trace record with equal values (%d with a new gpu.load); absolute times"
          " %.1f us apart at most" % (len(rows), changed, worst * 1e6))
    assert changed >= 3  # the board moved: equal values are not all one constant


def test_measure_static(static):
    """On a still board power x time = energy within 2 %, per rail and in
    total; two marks make three phases that add up; this process's
    memory shows."""
    with jetsond.Jetson(static.address) as j:
        s = j.snapshot()
    wall0 = time.time()
    with jetsond.measure(address=static.address) as m:
        time.sleep(0.4)
        m.mark("alloc")
        block = bytearray(64 << 20)
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(0.4)
        m.mark("idle")
        time.sleep(0.3)
    wall1 = time.time()
    del block
    r = m.result
    d = r.to_dict()
    # Absolute times: inside the wall-clock window, the phases end to end
    # from the whole's start to its end, each as long as its duration_s.
    assert wall0 - 1e-3 <= r.start_unix_s < r.end_unix_s <= wall1 + 1e-3, (wall0, d["start_unix_s"], wall1)
    assert abs(r.end_unix_s - r.start_unix_s - r.duration_s) < 2e-6
    assert r.phases[0]["start_unix_s"] == r.start_unix_s and r.phases[-1]["end_unix_s"] == r.end_unix_s
    for a, b in zip(r.phases, r.phases[1:]):
        assert a["end_unix_s"] == b["start_unix_s"]
    for p in r.phases:
        assert abs(p["end_unix_s"] - p["start_unix_s"] - p["duration_s"]) < 2e-6, p
    # The block slept 1.1 s; how much longer it took depends on the machine's load.
    assert r.duration_s >= 1.0
    assert abs(r.energy_j - s["power.total"] / 1000 * r.duration_s) <= 0.02 * r.energy_j, (r.energy_j, d)
    for rail, v in d["power"].items():
        mw = s["power.total"] if rail == "total" else s["power.%s.power" % rail]
        assert abs(v["energy_j"] - mw / 1000 * r.duration_s) <= 0.02 * v["energy_j"], rail
        assert v["peak_power_mw"] == mw
    assert [p["name"] for p in r.phases] == ["start", "alloc", "idle"]
    assert abs(sum(p["duration_s"] for p in r.phases) - r.duration_s) < 1e-6
    assert abs(sum(p["power"]["total"]["energy_j"] for p in r.phases) - r.energy_j) < 1e-6
    assert d["processes"]["peak_rss_bytes"] >= 64 << 20
    assert r.phases[1]["processes"]["peak_rss_bytes"] >= 64 << 20
    assert d["temp_max_celsius"]["cpu"] == dict(ORIN["thermal"])["cpu-thermal"] / 1000
    print("figure: measure %.3f s, %d records, %.3f J" % (r.duration_s, r.records, r.energy_j))


def test_container_with_only_the_bus_socket(static):
    """What `docker run -v /run/dbus/system_bus_socket:/run/dbus/system_bus_socket`
    gives: the quickstart example (Jetson, samples, a Recorder whose
    descriptor crosses the socket, measure) in a bubblewrap sandbox with
    its own mount, PID, network and user namespaces, as uid 65534, with
    /usr read-only, the package and nothing of the host but the bus socket."""
    import shutil
    if not shutil.which("bwrap") or not shutil.which("setpriv"):
        pytest.skip("bubblewrap or setpriv is not installed")
    drop = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"]
    base = ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
            # The image's own /etc would have these: numpy's BLAS is found through them.
            "--ro-bind", "/etc/alternatives", "/etc/alternatives", "--ro-bind", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    probe = subprocess.run(drop + base + ["/usr/bin/true"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if probe.returncode != 0:
        pytest.skip("unprivileged user namespaces are off: %s" % probe.stdout.decode(errors="replace"))
    sock = static.address.split("path=", 1)[1].split(",")[0]
    os.chmod(static.dir, 0o755)
    cmd = drop + base + ["--ro-bind", os.path.join(HERE, "..", "..", "python"), "/opt/python",
                  "--ro-bind", os.path.join(HERE, "examples"), "/opt/examples",
                  "--bind", sock, "/run/dbus/system_bus_socket",
                  "--setenv", "PYTHONPATH", "/opt/python", "--unsetenv", "DBUS_SYSTEM_BUS_ADDRESS",
                  "/usr/bin/python3", "/opt/examples/quickstart.py"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "JetPack " + ORIN["jetpack"] in r.stdout and "phase 1:" in r.stdout and "energy" in r.stdout, r.stdout


def test_asyncio(static):
    """AsyncJetson: the same identity and snapshot keys as Jetson, samples
    at the interval asked as an async iterator, a denied write raising
    AccessDenied."""
    import asyncio

    async def main():
        async with jetsond.AsyncJetson(static.address, interactive=False) as board:
            ident = await board.identity()
            snap = await board.snapshot()
            nums = await board.numbers()
            stamps = []
            async for s in board.samples(interval=0.05):
                stamps.append(s.timestamp)
                if len(stamps) == 6:
                    break
            compact = []
            async for s in board.samples(interval=0.05, compact=True):
                assert "ram.total" in s and "cpu.0.governor" not in s  # a still board has no rates
                compact.append(s.timestamp)
                if len(compact) == 6:
                    break
            assert compact == sorted(compact) and compact[0] >= stamps[-1]
            static.polkit_allow([])
            with pytest.raises(jetsond.AccessDenied):
                await board.set_fan_speed(70)
            return ident, snap, nums, stamps

    ident, snap, nums, stamps = asyncio.run(main())
    with jetsond.Jetson(static.address) as j:
        assert ident == j.identity()
        assert set(snap) == set(j.snapshot())
        assert set(nums) == set(j.numbers()) and set(nums) == {k for k, v in snap.items() if not isinstance(v, str)}
    gaps = sorted(b - a for a, b in zip(stamps, stamps[1:]))
    assert 0.04 <= gaps[len(gaps) // 2] <= 0.06, gaps


def test_measure_matches_jetsonctl_measure(static, tmp_path):
    """On a still board, jetsonctl measure --json around a Python child that
    measures itself with jetsond.measure(): the same rails and zones, the
    same mean and peak powers, temperatures and maxima, member for member."""
    if not JETSONCTL:
        pytest.skip("no jetsonctl")
    compare_measures(static.address, tmp_path)


def test_measure_dgpus_match_jetsonctl_measure(tmp_path):
    """The same on the PC fake board with two NVIDIA GPUs (fake NVML): each
    GPU's load, maximum clocks and temperature and peak memory, equal in
    both and equal to the fixture's readings."""
    import json
    lib = os.environ.get("FAKE_NVML")
    if not lib or not JETSONCTL:
        pytest.skip("FAKE_NVML (the fake libnvidia-ml.so.1) or jetsonctl not given")
    path = os.path.join(HERE, "..", "fixtures", "x86-pc.nvml.json")
    fixture = json.load(open(path))["devices"]
    with pc_with_fake_nvml(lib, path) as s:
        with jetsond.Jetson(s.address) as j:
            wait_for(lambda: len([g for g in j.gpus() if "load_percent" in g]) == 2, 10, "both GPUs' readings")
        ctl = compare_measures(s.address, tmp_path)
    # GPU 0's bitmask is 0 all along: no reason held; the T4 has none.
    reasons = ctl["dgpus"]["dgpu.0"]["throttle"]
    assert reasons["any_reason_s"] == 0 and set(reasons["throttled_s"].values()) == {0}, reasons
    assert ctl["dgpus"]["dgpu.1"]["throttle"] is None
    for n, f in enumerate(fixture):
        load = float(f["utilization"]["gpu"])
        assert {k: v for k, v in ctl["dgpus"]["dgpu.%d" % n].items() if k != "throttle"} == {
            "load_percent": {"mean": load, "max": load}, "freq_max_khz": f["clocks_mhz"]["graphics"] * 1000,
            "sm_freq_max_khz": f["clocks_mhz"]["sm"] * 1000, "mem_freq_max_khz": f["clocks_mhz"]["mem"] * 1000,
            "temp_max_celsius": f["temperature"], "mem_used_max_kib": f["memory"]["used"] // 1024}, ctl["dgpus"]


def compare_measures(address, tmp_path):
    """jetsonctl measure --json and jetsond.measure() around the same
    child on the board at ADDRESS, compared; returns jetsonctl's."""
    import json
    out = str(tmp_path / "py.json")
    child = ("import json, sys, time, jetsond\n"
             "with jetsond.measure() as m:\n"
             "    time.sleep(0.5)\n"
             "json.dump(m.result.to_dict(), open(sys.argv[1], 'w'))\n")
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address,
               PYTHONPATH=os.path.join(HERE, "..", "..", "python"))
    r = subprocess.run([JETSONCTL, "measure", "--json", "--", "/usr/bin/python3", "-c", child, out], env=env,
                       stdout=subprocess.PIPE, universal_newlines=True, timeout=120)
    assert r.returncode == 0, r.stdout
    ctl = json.loads(r.stdout)
    py = json.load(open(out))
    assert set(py["power"]) == set(ctl["power"]) and set(py["temp_max_celsius"]) == set(ctl["temp_max_celsius"])
    for rail in ctl["power"]:
        for k in ("mean_power_mw", "peak_power_mw"):
            assert abs(py["power"][rail][k] - ctl["power"][rail][k]) <= 1e-6 * ctl["power"][rail][k], (rail, k)
    assert py["temp_max_celsius"] == ctl["temp_max_celsius"]
    for k in ("gpu_freq_max_khz", "emc_freq_max_khz"):
        assert py[k] == ctl[k], (k, py[k], ctl[k])
    for k in ("cpu_load_percent", "gpu_load_percent", "emc_load_percent"):  # jetsonctl rounds to 0.01 %
        for stat in ("mean", "max"):
            a, b = py[k][stat], ctl[k][stat]
            assert (a is None and b is None) or abs(a - b) <= 0.005 + 1e-9, (k, stat, a, b)
    assert set(py) <= set(ctl) | {"phases"} and set(py["processes"]) == set(ctl["processes"])
    # Each discrete GPU: the same members; loads to jetsonctl's 0.01 %.
    assert set(py["dgpus"]) == set(ctl["dgpus"])
    for gpu, c in ctl["dgpus"].items():
        p = dict(py["dgpus"][gpu])
        for stat in ("mean", "max"):
            a, b = p["load_percent"][stat], c["load_percent"][stat]
            assert (a is None and b is None) or abs(a - b) <= 0.005 + 1e-9, (gpu, stat, a, b)
        p["load_percent"] = c["load_percent"]
        # Clock event reasons: the same members; seconds from two streams
        # (jetsonctl's window holds the child's) are compared by the tests
        # that change them (test_measure_dgpus.py).
        pt, ct = p.pop("throttle"), c["throttle"]
        assert (pt is None) == (ct is None), (gpu, pt, ct)
        if ct is not None:
            assert {k: set(v) if isinstance(v, dict) else None for k, v in pt.items()} == \
                {k: set(v) if isinstance(v, dict) else None for k, v in ct.items()}, (gpu, pt, ct)
        assert p == {k: v for k, v in c.items() if k != "throttle"}, (gpu, p, c)
    return ctl


def oc_hwmon(root):
    """The class link and device directory of ROOT's soctherm_oc hwmon."""
    base = os.path.join(root, "sys", "class", "hwmon")
    for n in os.listdir(base):
        link = os.path.join(base, n)
        with open(os.path.join(link, "name")) as f:
            if f.read().strip() == "soctherm_oc":
                return link, os.path.realpath(link)
    raise AssertionError("no soctherm_oc under " + base)


@pytest.mark.parametrize("board", ["agx-orin-jp62", "agx-thor-jp71"])
def test_oc_hwmon_renumbered(board):
    """Issue 39: the over-current driver reloaded comes back as another
    hwmonN with its counters at 0. The running jetsond reports the channels
    vanished meanwhile, finds the device again by name, counts the restart
    as a reset and the events after it on top: 3 before + 2 after = 5."""
    old = os.environ.get("DBUS_SYSTEM_BUS_ADDRESS")
    sim = [sys.executable, os.path.join(HERE, "..", "fixtures", "simulate.py")]
    try:
        with Stack(JETSOND, None, board=board) as s:
            s.start_daemon()
            j = jetsond.Jetson(s.address)
            subprocess.run(sim + [s.root, "--duration-s", "0", "--oc-events", "2=3"], check=True)
            wait_for(lambda: j.snapshot().get("throttle.oc_events_counted") == 3, 10, "3 events counted")
            link, device = oc_hwmon(s.root)
            for n in os.listdir(device):
                os.unlink(os.path.join(device, n))
            os.rmdir(device)
            os.unlink(link)
            wait_for(lambda: j.snapshot().get("throttle.oc2.counter") == "vanished", 10, "oc2 vanished")
            new = os.path.join(os.path.dirname(device), "hwmon21")
            os.mkdir(new)
            with open(os.path.join(new, "name"), "w") as f:
                f.write("soctherm_oc\n")
            for ch in (1, 2, 3):
                for name, text in (("oc%d_event_cnt" % ch, "0\n"), ("oc%d_throt_en" % ch, "1\n")):
                    with open(os.path.join(new, name), "w") as f:
                        f.write(text)
            os.symlink(os.path.relpath(new, os.path.dirname(link)), os.path.join(os.path.dirname(link), "hwmon21"))
            subprocess.run(sim + [s.root, "--duration-s", "0", "--oc-events", "2=2"], check=True)
            snap = wait_for(lambda: (lambda x: x if x.get("throttle.oc_events_counted") == 5 else None)(j.snapshot()),
                            10, "the device found again and 5 events counted")
            assert snap["throttle.oc2.resets"] == 1 and snap["throttle.oc1.resets"] == 0, snap
            assert snap["throttle.oc2.events"] == 2 and snap["throttle.oc2.events_counted"] == 5, snap
            assert snap["throttle.oc2.counter"] in ("went_back", "ok") and snap["throttle.oc2.armed"] is True, snap
            subprocess.run(sim + [s.root, "--duration-s", "0", "--oc-events", "2=1"], check=True)
            wait_for(lambda: j.snapshot().get("throttle.oc_events_counted") == 6, 10, "one more event")
            j.close()
    finally:
        if old is not None:
            os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = old


@pytest.mark.parametrize("board", ["agx-orin-jp62", "agx-thor-jp71"])
def test_measure_throttled(board, tmp_path):
    """Issue 39: a child measures itself with jetsond.measure(), marks a phase,
    and the simulator raises 3 over-current events and a GPU thermal cap;
    jetsonctl measure --json around it and the child's own measure() both
    count exactly 3 events (the child's in its second phase, none in the
    first) and time throttled by the GPU cap in the second phase only."""
    import json
    if not JETSONCTL:
        pytest.skip("no jetsonctl")
    with Stack(JETSOND, None, board=board) as s:
        s.start_daemon()
        out = str(tmp_path / "py.json")
        sim = [sys.executable, os.path.join(HERE, "..", "fixtures", "simulate.py"), s.root, "--duration-s", "0",
               "--oc-events", "2=3", "--cap", "gpu-throttle-alert=1"]
        child = ("import json, subprocess, sys, time, jetsond\n"
                 "with jetsond.measure() as m:\n"
                 "    time.sleep(0.5)\n"
                 "    m.mark('hot')\n"
                 "    subprocess.run(json.loads(sys.argv[2]), check=True)\n"
                 "    time.sleep(1.5)\n"
                 "json.dump(m.result.to_dict(), open(sys.argv[1], 'w'))\n")
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=s.address,
                   PYTHONPATH=os.path.join(HERE, "..", "..", "python"))
        r = subprocess.run([JETSONCTL, "measure", "--json", "--", "/usr/bin/python3", "-c", child, out,
                            json.dumps(sim)], env=env, stdout=subprocess.PIPE, universal_newlines=True,
                           timeout=120)
        assert r.returncode == 0, r.stdout
        ctl, py = json.loads(r.stdout), json.load(open(out))
    assert ctl["throttle"]["over_current_events"] == 3, ctl["throttle"]
    assert py["throttle"]["over_current_events"] == 3, py["throttle"]
    assert [p["throttle"]["over_current_events"] for p in py["phases"]] == [0, 3], py["phases"]
    reasons = {"over_current", "thermal_cpu", "thermal_gpu", "thermal_soc"}
    assert set(ctl["throttle"]["throttled_s"]) == reasons == set(py["throttle"]["throttled_s"])
    assert py["phases"][0]["throttle"]["throttled_s"]["thermal_gpu"] == 0
    hot = py["phases"][1]["throttle"]["throttled_s"]["thermal_gpu"]
    # The cap holds from the first reading after the simulator's step to the
    # end: most of the 1.5 s; jetsonctl's window holds the child's.
    assert 0.5 < hot <= py["phases"][1]["duration_s"], py["phases"][1]
    assert hot <= ctl["throttle"]["throttled_s"]["thermal_gpu"] + 0.2, (hot, ctl["throttle"])
    assert 0 < py["throttle"]["throttled_s"]["over_current"] < 1.0, py["throttle"]
    assert py["throttle"]["throttled_s"]["thermal_cpu"] == 0 == ctl["throttle"]["throttled_s"]["thermal_cpu"]
    print("figure: %s throttled by the GPU cap %.3f s of the child's %.3f s, by over-current %.3f s"
          % (board, hot, py["duration_s"], py["throttle"]["throttled_s"]["over_current"]))


def test_discrete_gpus():
    """The PC fake board with two NVIDIA GPUs from the fake NVML: gpus()
    lists both with nvitop's Device readings in units and their
    DiscreteGpu properties, and no integrated GPU."""
    import json
    lib = os.environ.get("FAKE_NVML")
    if not lib:
        pytest.skip("FAKE_NVML (the fake libnvidia-ml.so.1) not given")
    fixture = json.load(open(os.path.join(HERE, "..", "fixtures", "x86-pc.nvml.json")))["devices"]
    with pc_with_fake_nvml(lib, os.path.join(HERE, "..", "fixtures", "x86-pc.nvml.json")) as s:
        with jetsond.Jetson(s.address) as j:
            gpus = wait_for(lambda: [g for g in j.gpus() if "load_percent" in g], 10, "both GPUs' readings")
            snap = j.snapshot()
            assert [g["index"] for g in j.gpus()] == list(range(len(fixture)))
            for g, f in zip(j.gpus(), fixture):
                n = g["index"]
                assert not g["integrated"] and g["name"] == f["name"] and g["uuid"] == f["uuid"]
                assert g["pci_bus_id"] == f["pci_bus_id"] and g["memory_total_bytes"] == f["memory"]["total"]
                if "load_percent" in g:
                    assert g["load_percent"] == snap["dgpu.%d.load" % n] == f["utilization"]["gpu"]
                    assert g["temp_celsius"] == f["temperature"] and g["power_mw"] == f["power_mw"]
                    assert g["mem_used_kib"] == f["memory"]["used"] // 1024
                    assert g["freq_khz"] == f["clocks_mhz"]["graphics"] * 1000
            check_gpu_facts(j.gpus(), fixture)
            # Each process's encoder and decoder use, from the sample of its SM use.
            p = [p for p in j.processes() if p["pid"] == 4242][0]
            assert (p["dgpu"][0]["enc_percent"], p["dgpu"][0]["dec_percent"]) == (4.0, 9.0), p
            assert gpus

            async def main():
                async with jetsond.AsyncJetson(s.address, interactive=False) as board:
                    return await board.gpus()
            import asyncio
            check_gpu_facts(asyncio.run(main()), fixture)


def check_gpu_facts(gpus, fixture):
    """The DiscreteGpu facts by nvitop's names, as the fake NVML's file has
    them: the GeForce without ECC (None, nvitop's NA), the T4 with it."""
    want = [
        {"driver_version": "595.78 (fake)", "minor_number": 0, "cuda_driver_version": "12.8",
         "cuda_compute_capability": "8.9", "bar1_memory_total_bytes": fixture[0]["bar1"]["total"],
         "ecc_mode": None, "ecc_mode_pending": None, "persistence_mode": "disabled", "compute_mode": "default",
         "display_mode": "enabled", "display_active": "enabled",
         "bar1_used_kib": fixture[0]["bar1"]["used"] // 1024, "video_freq_khz": 1965000},
        {"driver_version": "595.78 (fake)", "minor_number": None, "cuda_driver_version": "12.8",
         "cuda_compute_capability": "7.5", "bar1_memory_total_bytes": fixture[1]["bar1"]["total"],
         "ecc_mode": "enabled", "ecc_mode_pending": "enabled", "persistence_mode": "enabled",
         "compute_mode": "exclusive_process", "display_mode": "disabled", "display_active": "disabled",
         "bar1_used_kib": fixture[1]["bar1"]["used"] // 1024, "ecc_volatile_corrected": 2,
         "ecc_aggregate_uncorrected": 1},
    ]
    assert len(gpus) == 2, gpus
    for g, w in zip(gpus, want):
        got = {k: g.get(k) for k in w}
        assert got == w, (g["index"], got, w)
    assert "ecc_volatile_corrected" not in gpus[0] and "video_freq_khz" not in gpus[1], gpus


def test_gpu_energy_from_counter(tmp_path):
    """measure() and a Recorder's trace (trace_energy_j) give an NVIDIA
    GPU's energy within 1 % of what NVML's counter counted over the run
    (issue 35): the fake's counter runs at 300 W on CLOCK_MONOTONIC while
    its power key says 231 W, so power x time would be 23 % short."""
    import json
    lib = os.environ.get("FAKE_NVML")
    if not lib:
        pytest.skip("FAKE_NVML (the fake libnvidia-ml.so.1) not given")
    devices = json.load(open(os.path.join(HERE, "..", "fixtures", "x86-pc.nvml.json")))["devices"]
    devices[0]["energy_rate_mw"] = 300000
    config = str(tmp_path / "nvml.json")
    with open(config, "w") as f:
        json.dump({"devices": devices}, f)
    with pc_with_fake_nvml(lib, config) as s:
        with jetsond.Jetson(s.address) as j:
            wait_for(lambda: "dgpu.0.energy" in j.snapshot(), 10, "the energy counter")
        with jetsond.measure(address=s.address) as m:
            time.sleep(2)
        got, duration = m.result.power["dgpu.0"]["energy_j"], m.result.duration_s
        print("figure: measure() dgpu.0 energy %.3f J, counter %.3f J" % (got, 300 * duration))
        assert abs(got - 300 * duration) <= 0.01 * 300 * duration, (got, duration)
        path = str(tmp_path / "run.trace")
        with jetsond.Recorder(path, rate_hz=100, address=s.address):
            time.sleep(2)
        t = jetsond.load_trace(path)
        e = jetsond.trace_energy_j(path)["dgpu.0"]
        expected = 300 * (t.stop_ns - t.start_ns) / 1e9
        print("figure: Recorder trace dgpu.0 energy %.3f J, counter %.3f J" % (e, expected))
        assert e is not None and abs(e - expected) <= 0.01 * expected, (e, expected)
