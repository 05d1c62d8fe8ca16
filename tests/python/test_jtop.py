"""jetsond.jtop against jetsond on a private bus: jtop's shapes hold the
snapshot's values in jtop's units and names, and jtop's documented usage
(tests/python/examples/jtop_*.py: only the import changed) runs, its
writes landing on the fake board through polkit."""

import datetime
import json
import os
import subprocess
import sys
from typing import Any, Dict, List

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from harness import Stack, wait_for  # noqa: E402

import boards  # noqa: E402
import jetsond  # noqa: E402
from jetsond.jtop import JtopException, jtop  # noqa: E402

JETSOND = os.environ["JETSOND"]
ORIN = boards.AGX_ORIN
ALL = ["org.jetsond.Jetson1." + a for a in ("set-fan", "set-nvpmodel", "set-jetson-clocks", "set-gpu",
                                             "manage-swap", "drop-caches")]


@pytest.fixture(scope="module")
def stack():
    with Stack(JETSOND, None) as s:
        s.start_mock("polkitd", "org.freedesktop.PolicyKit1")
        s.start_systemd_with_nvfancontrol()
        s.start_daemon()
        yield s


def test_shapes(stack):
    with jtop(address=stack.address) as jetson, jetsond.Jetson(stack.address) as j:
        assert jetson.ok()
        s = j.snapshot()
        st = jetson.stats
        assert isinstance(st["time"], datetime.datetime) and st["uptime"] == datetime.timedelta(seconds=12345)
        n_cpu = len([k for k in s if k.endswith(".online") and k.startswith("cpu.")])
        assert [k for k in st if k.startswith("CPU")] == ["CPU%d" % (i + 1) for i in range(n_cpu)]
        assert st["RAM"] == s["ram.used"] / s["ram.total"] and st["GPU"] == s["gpu.load"]
        assert st["Power TOT"] == s["power.total"] and st["nvpmodel"] == "MAXN" and st["jetson_clocks"] == "OFF"
        assert st["Temp cpu"] == dict(ORIN["thermal"])["cpu-thermal"] / 1000
        assert st["Fan pwmfan"] == s["fan.0.speed"]
        cpu = jetson.cpu
        assert cpu["cpu"][0]["freq"]["cur"] == ORIN["cpu"]["cur"][0] and cpu["cpu"][0]["online"]
        if "cpu.load" in s:
            assert abs(cpu["total"]["idle"] - (100 - s["cpu.load"])) < 1e-9
        else:  # a still board's /proc/stat never moves: no load, and no made-up idle
            assert "idle" not in cpu["total"] and "idle" not in cpu["cpu"][0]
        gpu = jetson.gpu["gpu"]
        assert gpu["type"] == "integrated" and gpu["freq"]["cur"] == s["gpu.freq"]
        assert gpu["freq"]["GPC"] == [s["gpu.gpc0.freq"], s["gpu.gpc1.freq"]]
        assert gpu["status"]["load"] == s["gpu.load"] and jetson.gpu.set_scaling_3D is s["gpu.3d_scaling"]
        mem = jetson.memory
        assert mem["RAM"]["tot"] == 64302080 and mem["RAM"]["shared"] == s["ram.shared"]
        assert mem["EMC"]["cur"] == s["emc.freq"] and mem["SWAP"]["tot"] == s["swap.total"]
        rails = {c[0]: c for ch in ORIN["power"] for c in ch["ch"] if c[0] != "NC"}
        power = jetson.power
        for name, mv, ma, warn, crit in rails.values():
            r = power["rail"][name]
            assert (r["volt"], r["curr"], r["crit"], r["online"]) == (mv, ma, crit, True)
            assert r["avg"] == r["power"]  # a still board
        assert power["tot"]["power"] == s["power.total"]
        # jtop's max and crit: the zone's trip points (the fixture's from the
        # Tegra234 device tree: passive 99 °C, critical 104.5 °C; tj none passive).
        assert jetson.temperature["cpu"] == {"online": True, "temp": st["Temp cpu"], "max": 99.0, "crit": 104.5}
        assert jetson.temperature["tj"] == {"online": True, "temp": st["Temp tj"], "crit": 104.5}
        fan = jetson.fan
        assert fan.speed == s["fan.0.speed"] and fan.profile == ORIN["fan"]["profile"]
        assert fan["pwmfan"]["rpm"] == [ORIN["fan"]["rpm"]] and "quiet" in fan.all_profiles()
        assert str(jetson.nvpmodel) == "MAXN" and jetson.nvpmodel.id == 0 and jetson.nvpmodel == "MAXN"
        assert not jetson.jetson_clocks and jetson.jetson_clocks.status == "inactive"
        procs = {p[0]: p for p in jetson.processes}
        assert procs[5120][9] == "python3" and procs[5120][8] == 262144 and procs[5120][1] == "nvidia"
        assert jetson.uptime == datetime.timedelta(seconds=12345)
        hw = jetson.board["hardware"]
        assert hw["SoC"] == ORIN["soc"] and hw["L4T"] == ORIN["l4t"] and hw["Jetpack"] == ORIN["jetpack"]
        assert "Serial Number" not in hw and jetson.board["platform"]["Python"]
        assert json.loads(jetson.json(stats=True))["nvpmodel"] == "MAXN"
        assert json.loads(jetson.json())["board"]["hardware"]["SoC"] == ORIN["soc"]


def test_oc_events(stack):
    """Issue 39: power["oc_events"] in the shape of jtop's PR #597 from
    jetsond's throttle.oc* keys: the fake Orin's three armed channels; 3
    events raised on channel 2 (simulate.py) make count 3 more, that
    channel's count 3 more, and is_throttling true at the first update
    that saw them, false at the next."""
    seen = []  # type: List[Dict[str, Any]]
    with jtop(interval=0.1, address=stack.address) as jetson:
        first = jetson.power["oc_events"]
        assert first["is_throttling"] is False
        assert set(first["channels"]) == {"oc1", "oc2", "oc3"}
        assert all(c["throt_en"] is True for c in first["channels"].values()), first
        assert first["count"] == sum(c["count"] for c in first["channels"].values())
        jetson.attach(lambda j: seen.append(j.power["oc_events"]))
        subprocess.run(["/usr/bin/python3", os.path.join(HERE, "..", "fixtures", "simulate.py"), stack.root,
                        "--duration-s", "0", "--oc-events", "2=3"], check=True)
        wait_for(lambda: len([o for o in seen if o.get("count") == first["count"] + 3]) >= 2, 10,
                 "two updates with the 3 events")
    after = [o for o in seen if o.get("count") == first["count"] + 3]
    before = [o for o in seen if o.get("count") == first["count"]]
    assert all(not o["is_throttling"] for o in before), before
    assert after[0]["is_throttling"] is True and after[1]["is_throttling"] is False, after[:2]
    assert after[0]["channels"]["oc2"]["count"] == first["channels"]["oc2"]["count"] + 3, after[0]
    assert after[0]["channels"]["oc1"] == first["channels"]["oc1"], after[0]
    assert len(before) + len(after) == len(seen), seen  # the count never took another value


def test_denied_is_jtop_exception(stack):
    stack.polkit_allow([])
    with jtop(address=stack.address) as jetson:
        with pytest.raises(JtopException) as e:
            jetson.fan.speed = 90
        assert isinstance(e.value.__cause__, jetsond.AccessDenied)
        assert jetson.fan.speed == ORIN["fan"]["pwm"] * 100 / 255 or jetson.fan.speed > 0


def run_example(stack, name):
    return run_example_args(stack, name)


def run_example_args(stack, name, *args):
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=stack.address,
               PYTHONPATH=os.path.join(HERE, "..", "..", "python"))
    r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "examples", name), *args], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_documented_reading(stack):
    out = run_example(stack, "jtop_loop.py").splitlines()
    assert len(out) == 3 and all(line.endswith("MAXN OFF") for line in out), out
    out = run_example(stack, "jtop_callback.py")
    assert out.count("callback") >= 3


def test_documented_controls(stack):
    stack.polkit_allow(ALL)
    try:
        out = run_example(stack, "jtop_control.py")
        lines = out.splitlines()
        assert lines[0] == "cool" and "requires a reboot" in lines[2], lines
        assert lines[3] == "MAXN" and lines[4] == "running", lines
        with jetsond.Jetson(stack.address) as j:
            # restore() put back what the example changed.
            assert j.jetson_clocks()["active"] is False and j.nvpmodel()["id"] == 0
            assert j.fans()[0]["profile"] == j.fans()[0]["default_profile"]
    finally:
        stack.polkit_allow([])


def test_quickstart(stack):
    out = run_example(stack, "quickstart.py")
    assert "JetPack " + ORIN["jetpack"] in out and "phase 1:" in out and "energy" in out, out


def test_collector_example(stack, tmp_path):
    """Issue 42: the Collector on jetsond's samples (examples/collector_log.py
    writes CSV where TensorBoard is not installed): each epoch's host
    figures, mean within min and max."""
    csv_path = str(tmp_path / "resources.csv")
    out = run_example_args(stack, "collector_log.py", csv_path, "2")
    if "TensorBoard" in out:
        return
    import csv
    rows = list(csv.DictReader(open(csv_path)))
    assert len(rows) == 2, rows
    for r in rows:
        lo, mean, hi = (float(r["train/host/power (W)/" + k]) for k in ("min", "mean", "max"))
        assert lo <= mean <= hi, r
        assert 0.4 <= float(r["train/duration (s)"]) < 30, r
        assert float(r["train/host/memory_used (GiB)/mean"]) > 0, r


def mean_is(v: float) -> Any:
    """V as the mean of values all equal to it (a still board's) compares:
    the sum of six or more may differ in the last bit (a 0.5 s period holds
    five 0.1 s samples, six when one comes a tick early)."""
    return pytest.approx(v, rel=1e-12)


def test_collector_daemon_example(stack, tmp_path):
    """nvitop's daemonize() on jetsond's samples (examples/collector_daemon.py,
    CSV where TensorBoard is not installed): the periods on_collect asked
    for, the board's zones, rails and EMC, the processes' nvitop metrics."""
    csv_path = str(tmp_path / "daemon.csv")
    out = run_example_args(stack, "collector_daemon.py", csv_path, "3")
    if "TensorBoard" in out:
        return
    import csv
    rows = list(csv.DictReader(open(csv_path)))
    assert len(rows) == 3, rows
    with jetsond.Jetson(stack.address) as j:
        s = j.snapshot()
    last = rows[-1]
    assert float(last["resources/host/temperature (C) (cpu)/mean"]) == mean_is(s["temp.cpu"]), last
    assert float(last["resources/host/emc_clock (MHz)/mean"]) == mean_is(s["emc.freq"] / 1000), last
    assert float(last["resources/host/power (W) (VDD_GPU_SOC)/mean"]) == mean_is(s["power.VDD_GPU_SOC.power"] / 1000)
    assert float(last["resources/host/load_average (%) (1 min)/mean"]) >= 0, last
    assert float(last["resources/pid:5120/gpu/gpu_memory (MiB)/mean"]) == mean_is(s["process.5120.gpu_mem"] / 1024)
    assert float(last["resources/pid:5120/host/running_time (min)"]) > 0, last
    assert 0 < float(last["resources/pid:5120/host/host_memory_percent (%)/mean"]) < 100, last
    assert "pid 5120: " in out, out
