"""Every view of docs/python.md on every fake board (tests/fixtures: the
JetPack 4.6 Nano, Xavier NX, Orin Nano, AGX Orin on JetPack 6.2 and 7.2,
AGX Thor, and the PC with two NVIDIA GPUs from the fake NVML): each view
holds exactly GetSnapshot's values under the documented unit-suffixed names
(folded back, the views give the snapshot again, key for key and value for
value: nothing lost, nothing invented, nothing twice), the readings a board
lacks are absent (and no view raises), and the Jetson methods and
AsyncJetson's give what the pure views give of the same snapshot, with the
D-Bus objects' properties (DiscreteGpu, Fan, NVPModel, JetsonClocks,
Memory) as they are on the bus."""

import asyncio
import json
import os
import random
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "fixtures")
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from harness import Stack, wait_for  # noqa: E402

import jetsond  # noqa: E402
from jetsond import views  # noqa: E402

JETSOND = os.environ["JETSOND"]
BOARDS = sorted(d[:-len(".expected.md")] for d in os.listdir(FIXTURES) if d.endswith(".expected.md"))

# docs/python.md: "the unit in every name". Folding a view back strips the
# unit; the test's own list, written from the docs' table, not the package's.
SUFFIXES = ("_bytes_per_s", "_khz", "_percent", "_celsius", "_mw", "_mv", "_ma", "_mj", "_kib", "_blocks", "_s")


def field(name):
    if name == "scaling_3d":
        return "3d_scaling"
    for suffix in SUFFIXES:
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def put(flat, key, value):
    assert key not in flat, "%s shown twice" % key
    flat[key] = value


def fold(s):
    """The pure views of snapshot S folded back into flat keys."""
    flat = {}
    cpu = views.cpu(s)
    if "load_percent" in cpu:
        put(flat, "cpu.load", cpu["load_percent"])
    for k in ("user", "nice", "system", "idle"):
        if k + "_percent" in cpu:
            put(flat, "cpu." + k, cpu[k + "_percent"])
    for core in cpu["cores"]:
        for k, v in core.items():
            if k != "index":
                put(flat, "cpu.%d.%s" % (core["index"], field(k)), v)
    gpc = sorted((k for k in s if k.startswith("gpu.gpc") and k.endswith(".freq")),
                 key=lambda k: int(k.split(".")[1][3:]))
    for g in views.gpus(s):
        if g["integrated"]:
            assert g["index"] == "gpu"
            assert g["gpc_freq_khz"] == [s[k] for k in gpc]
            for k in gpc:
                put(flat, k, s[k])
            for k, v in g.items():
                if k not in ("index", "integrated", "gpc_freq_khz"):
                    put(flat, "gpu." + field(k), v)
        else:
            for k, v in g.items():
                if k not in ("index", "integrated"):
                    put(flat, "dgpu.%d.%s" % (g["index"], field(k)), v)
    for group, f in views.memory(s).items():
        for k, v in f.items():
            put(flat, "%s.%s" % (group, field(k)), v)
    p = views.power(s)
    for k, key in (("total_mw", "power.total"), ("total_is_sum", "power.total_is_sum"),
                   ("energy_total_mj", "energy.total")):
        if k in p:
            put(flat, key, p[k])
    for rail, f in p["rails"].items():
        for k, v in f.items():
            put(flat, "energy." + rail if k == "energy_mj" else "power.%s.%s" % (rail, field(k)), v)
    for zone, c in views.temperatures(s).items():
        put(flat, "temp." + zone, c)
    for zone, f in views.trip_points(s).items():
        for k, v in f.items():
            put(flat, "temp_trip.%s.%s" % (zone, field(k)), v)
    for fan in views.fans(s):
        for k, v in fan.items():
            if k != "index":
                put(flat, "fan.%d.%s" % (fan["index"], field(k)), v)
    for name, f in views.engines(s).items():
        for k, v in f.items():
            put(flat, "engine.%s.%s" % (name, field(k)), v)
    for k, key in (("nvpmodel_id", "nvpmodel.mode"), ("nvpmodel_name", "nvpmodel.name"),
                   ("jetson_clocks", "jetson_clocks.active")):
        if k in views.modes(s):
            put(flat, key, views.modes(s)[k])
    for proc in views.processes(s):
        for k, v in proc.items():
            if k == "dgpu":
                for n, f in v.items():
                    for kk, vv in f.items():
                        put(flat, "process.%d.dgpu.%d.%s" % (proc["pid"], n, field(kk)), vv)
            elif k not in ("pid", "cmdline", "command"):  # read from /proc, not the sample
                put(flat, "process.%d.%s" % (proc["pid"], field(k)), v)
    system = views.system(s)
    if "uptime" in s:
        put(flat, "uptime", system.pop("uptime_s"))
    for k in s:
        if k.startswith(("disk.", "net.")):
            put(flat, k, system.pop(k.replace(".", "_")))
    assert system == {}, "system() shows what the snapshot lacks: %s" % system
    t = views.throttling(s)
    for k, key in (("active", "throttle.active"), ("oc_events_since_boot", "throttle.oc_events"),
                   ("oc_events_counted", "throttle.oc_events_counted")):
        if k in t:
            put(flat, key, t[k])
    if "reasons" in t:
        put(flat, "throttle.reasons", ",".join(t["reasons"]) or "none")
    for name, v in t.get("reason_active", {}).items():
        put(flat, "throttle.reason.%s.active" % name, v)
    for n, f in t.get("channels", {}).items():
        for k, v in f.items():
            put(flat, "throttle.oc%d.%s" % (n, k), v)
    for typ, f in t.get("caps", {}).items():
        for k, v in f.items():
            put(flat, "throttle.cap.%s.%s" % (typ, k), v)
    return flat


@pytest.fixture(scope="module", params=BOARDS)
def board(request):
    name = request.param
    old = os.environ.get("DBUS_SYSTEM_BUS_ADDRESS")
    nvml = os.path.join(FIXTURES, name + ".nvml.json")
    extra = []
    if os.path.exists(nvml):
        lib = os.environ.get("FAKE_NVML")
        if not lib:
            pytest.skip("FAKE_NVML (the fake libnvidia-ml.so.1) not given")
        os.environ["FAKE_NVML_CONFIG"] = nvml
        extra = ["--nvml-library", lib]
    try:
        with Stack(JETSOND, None, board=name) as s:
            s.start_daemon(extra)
            s.board_name = name
            s.nvml = json.load(open(nvml)) if extra else None
            yield s
    finally:
        os.environ.pop("FAKE_NVML_CONFIG", None)
        if old is not None:
            os.environ["DBUS_SYSTEM_BUS_ADDRESS"] = old


def settled(j):
    """A snapshot once the board has been read whole: readings that come
    from slower tiers (NVML, rails) join in the first ticks, so the same
    set of keys in three samples in a row."""
    seen = []

    def steady():
        s = j.snapshot()
        if not seen or s.timestamp != seen[-1].timestamp:
            seen.append(s)
        return s if len(seen) >= 3 and set(seen[-1]) == set(seen[-2]) == set(seen[-3]) else None
    return wait_for(steady, 60, "three samples with the same keys")


def same_snapshot(j, method):
    """METHOD() and the snapshot it was taken from: the static boards do not
    move, but a tick may land between two calls (uptime, process times), so
    a result counts only when the snapshots before and after it agree."""
    for _ in range(20):
        before = dict(j.snapshot())
        out = method()
        after = dict(j.snapshot())
        if before == after:
            return out, after
    raise AssertionError("the snapshot never held still for one call of %s" % method.__name__)


def props(bus, path, iface):
    return bus.get_all(iface.rsplit(".", 1)[1], path=path)


def test_views_fold_back_to_the_snapshot(board):
    with jetsond.Jetson(board.address) as j:
        s = settled(j)
        assert views.unviewed(s) == set(), "keys no view shows"
        assert fold(s) == dict(s)
        # The counters every board has; the ones some lack are absent, never 0 or None.
        assert "uptime" in s and "ram.total" in s and s["ram.total"] > 0
        assert all(v is not None for v in fold(s).values())
        # A reading gone for a tick: any part of the snapshot gives views
        # that hold exactly that part, and none raises.
        rng = random.Random(27)
        keys = sorted(s)
        for n in (0, 1, len(keys) // 10, len(keys) // 2, len(keys) - 1):
            for _ in range(5):
                part = {k: s[k] for k in rng.sample(keys, n)}
                assert fold(part) == part
        print("figure: %s: %d keys in %d views" % (board.board_name, len(s), len(views.VIEWS)))


def test_methods_equal_the_views(board):
    """Jetson's methods: the pure views of the same snapshot, plus the
    properties of the board's D-Bus objects; none raises on any board
    (nvpmodel() and jetson_clocks() are None where the board has neither)."""
    with jetsond.Jetson(board.address) as j:
        settled(j)
        bus = j._bus
        objects = bus.managed_objects()
        for name in ("cpu", "memory", "power", "temperatures", "trip_points", "processes"):
            out, s = same_snapshot(j, getattr(j, name))
            assert out == getattr(views, name)(s), name
        out, s = same_snapshot(j, j.gpus)
        plain = views.gpus(s)
        assert [g["index"] for g in out] == [g["index"] for g in plain]
        for g, p in zip(out, plain):
            extra = {k: v for k, v in g.items() if k not in p}
            assert {k: g[k] for k in p} == p
            if g["integrated"]:
                assert extra == {}
            else:
                d = objects["/org/jetsond/Jetson1/dgpu/%d" % g["index"]]["org.jetsond.Jetson1.DiscreteGpu"]
                assert extra["name"] == d["Name"] and extra["uuid"] == d["UUID"]
                assert extra["pci_bus_id"] == d["PciBusId"] and extra["memory_total_bytes"] == d["MemoryTotal"]
                nvml = board.nvml["devices"][g["index"]]
                assert extra["name"] == nvml["name"] and extra["uuid"] == nvml["uuid"]
        if board.nvml and any(not dev["name"].endswith("(nvgpu)") and dev["name"] != "NVIDIA Thor"
                              for dev in board.nvml["devices"]):
            assert any(not g["integrated"] for g in out), "the NVML board's discrete GPUs"
        out, s = same_snapshot(j, j.fans)
        assert len(out) == len(views.fans(s))
        for f, p in zip(out, views.fans(s)):
            assert {k: f[k] for k in p} == p
            obj = objects["/org/jetsond/Jetson1/fan/%d" % f["index"]]["org.jetsond.Jetson1.Fan"]
            for k, prop in (("name", "Name"), ("profiles", "Profiles"), ("default_profile", "DefaultProfile"),
                            ("governor", "Governor"), ("control", "Control")):
                if prop in obj:
                    assert f[k] == obj[prop], k
        s = j.snapshot()
        nv = j.nvpmodel()
        if "nvpmodel.mode" in s:
            assert nv is not None and nv["id"] == s["nvpmodel.mode"] and nv["name"] == s["nvpmodel.name"]
            assert nv["modes"][nv["id"]] == nv["name"]
        else:
            assert nv is None
        jc = j.jetson_clocks()
        if "jetson_clocks.active" in s:
            assert jc is not None and jc["active"] is s["jetson_clocks.active"]
        else:
            assert jc is None
        swaps = j.swaps()
        assert swaps == [dict(zip(("path", "type", "size_bytes", "used_bytes", "priority", "on_boot"), t))
                         for t in props(bus, "/org/jetsond/Jetson1", "org.jetsond.Jetson1.Memory")["Swaps"]]
        assert 0.01 <= j.interval() <= 3600
        ident = j.identity()
        assert isinstance(ident, dict) and ident


def test_async_views_equal_the_sync_ones(board):
    async def run():
        async with jetsond.AsyncJetson(board.address) as a:
            return {name: await getattr(a, name)() for name in ("identity", "cpu", "gpus", "power", "temperatures")}

    with jetsond.Jetson(board.address) as j:
        settled(j)
        for _ in range(20):
            before = dict(j.snapshot())
            got = asyncio.run(run())
            if dict(j.snapshot()) == before:
                break
        else:
            raise AssertionError("the snapshot never held still")
        assert got["identity"] == j.identity()
        for name in ("cpu", "power", "temperatures"):
            assert got[name] == getattr(views, name)(before), name
        # each discrete GPU with its DiscreteGpu object's facts, as Jetson.gpus()
        info = j.discrete_gpus()
        assert got["gpus"] == [dict(g, **(info.get(g["index"], {}) if not g["integrated"] else {}))
                               for g in views.gpus(before)], got["gpus"]


