"""Issue 39: a discrete GPU's clock event reasons in jetsonctl measure and
jetsond.measure(), on the PC fake board with the fake NVML (FAKE_NVML)
changing them while both measure. Run by meson as python-measure-dgpus
(JETSOND, JETSONCTL, FAKE_NVML in the environment)."""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
from harness import wait_for  # noqa: E402

import jetsond  # noqa: E402
from test_service import JETSONCTL, pc_with_fake_nvml  # noqa: E402


DGPU_THROTTLE_CHILD = r"""
import json, os, sys, time, jetsond
config, out = sys.argv[1], sys.argv[2]
to_jetsonctl = os.fdopen(int(os.environ["JETSONCTL_MARK_FD"]), "w", buffering=1)
board = jetsond.Jetson()

def throttle(mask):
    # GPU 0's clock event reasons, once jetsond has read them.
    d = json.load(open(config))
    d["devices"][0]["throttle"] = mask
    with open(config + ".new", "w") as f:
        json.dump(d, f)
    os.rename(config + ".new", config)
    deadline = time.monotonic() + 30
    while board.snapshot().get("dgpu.0.throttle") != mask:
        assert time.monotonic() < deadline, "jetsond never read %#x" % mask
        time.sleep(0.01)

def phase(label):
    m.mark(label)
    print(label, file=to_jetsonctl)
    time.sleep(0.1)  # jetsonctl stamps the mark when it reads it

with jetsond.measure() as m:
    time.sleep(0.3)
    throttle(0x4)
    phase("cap")
    time.sleep(0.6)
    phase("rise")
    throttle(0x44)
    phase("hot")
    time.sleep(0.6)
    phase("fall")
    throttle(0)
json.dump(m.result.to_dict(), open(out, "w"))
"""


def test_measure_dgpu_throttled(tmp_path):
    """Issue 39: a child measures itself with jetsond.measure() under
    jetsonctl measure --json, both cut into the same phases, while GPU 0
    of the fake NVML reports sw_power_cap (0x4), then sw_power_cap and
    hw_thermal (0x44), then nothing; the T4 reports idle, its application
    clocks and a bit NVML has not named (0x203) all along. Judged by
    jetsond's own timestamps, in both outputs: in a phase with one state
    every record counts, so each reason held is the time any reason held
    and that plus the time without a record is the phase, to the
    nanosecond; the whole run is its phases and the seams between them."""
    lib = os.environ.get("FAKE_NVML")
    if not lib or not JETSONCTL:
        pytest.skip("FAKE_NVML (the fake libnvidia-ml.so.1) or jetsonctl not given")
    devices = json.load(open(os.path.join(HERE, "..", "fixtures", "x86-pc.nvml.json")))["devices"]
    devices[0]["throttle"] = 0
    devices[1]["throttle"] = 0x203
    config = str(tmp_path / "nvml.json")
    with open(config, "w") as f:
        json.dump({"devices": devices}, f)
    out = str(tmp_path / "py.json")
    with pc_with_fake_nvml(lib, config) as s:
        with jetsond.Jetson(s.address) as j:
            wait_for(lambda: j.snapshot().get("dgpu.1.throttle") == 0x203, 10, "the T4's reasons")
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=s.address,
                   PYTHONPATH=os.path.join(HERE, "..", "..", "python"))
        r = subprocess.run([JETSONCTL, "measure", "--json", "--", "/usr/bin/python3", "-c", DGPU_THROTTLE_CHILD,
                            config, out], env=env, stdout=subprocess.PIPE, universal_newlines=True, timeout=120)
    assert r.returncode == 0, r.stdout
    held = {"cap": ("sw_power_cap",), "hot": ("sw_power_cap", "hw_thermal")}  # the phases of one state
    for who, doc in (("jetsonctl", json.loads(r.stdout)), ("measure()", json.load(open(out)))):
        assert [p["name"] for p in doc["phases"]] == ["start", "cap", "rise", "hot", "fall"], (who, doc["phases"])
        for w in [doc] + doc["phases"]:
            name, seconds = w.get("name", "whole"), w["duration_s"]
            t0, t1 = w["dgpus"]["dgpu.0"]["throttle"], w["dgpus"]["dgpu.1"]["throttle"]
            # The T4: idle nowhere; its application clocks timed apart from
            # throttling; 0x200 throttling, under its hex value.
            assert "idle" not in t1["throttled_s"] and t1["clock_settings_s"]["display_clocks"] == 0, (who, name, t1)
            assert t1["throttled_s"]["0x200"] == t1["any_reason_s"] == t1["clock_settings_s"]["app_clocks"] > 0
            assert abs(t1["any_reason_s"] + t1["unknown_s"] - seconds) < 1e-8, (who, name, t1, seconds)
            assert abs(t1["throttled_percent"] - 100 * t1["any_reason_s"] / seconds) < 0.01, (who, name, t1)
            if name in held:  # one state all through the phase
                for reason, s_ in t0["throttled_s"].items():
                    want = t0["any_reason_s"] if reason in held[name] else 0
                    assert s_ == want, (who, name, reason, t0)
                assert abs(t0["any_reason_s"] + t0["unknown_s"] - seconds) < 1e-8, (who, name, t0, seconds)
                # Only a stall leaves more than half a phase without a record.
                assert t0["unknown_s"] < seconds / 2, (who, name, t0, seconds)
            if name == "start":  # 0, then 0x4 from jetsond's reading on
                assert t0["throttled_s"]["hw_thermal"] == 0, (who, name, t0)
            if name == "fall":  # 0x44 to 0: both held together
                assert t0["throttled_s"]["sw_power_cap"] == t0["throttled_s"]["hw_thermal"], (who, t0)
        # The whole run: each phase's time, and at most the seams between
        # them (a phase's tail after its last record, counted in the whole).
        whole = doc["dgpus"]["dgpu.0"]["throttle"]
        for reason in ("sw_power_cap", "hw_thermal"):
            parts = sum(p["dgpus"]["dgpu.0"]["throttle"]["throttled_s"][reason] for p in doc["phases"])
            seams = sum(p["dgpus"]["dgpu.0"]["throttle"]["unknown_s"] for p in doc["phases"])
            assert parts - 1e-8 <= whole["throttled_s"][reason] <= parts + seams + 1e-8, (who, reason, whole, parts)
        cap = doc["phases"][1]["dgpus"]["dgpu.0"]["throttle"]
        print("figure: %s dgpu.0 throttled %.1f %% of the run (sw_power_cap %.3f s, hw_thermal %.3f s); "
              "%.3f s of the %.3f s cap phase, %.4f s without a record"
              % (who, whole["throttled_percent"], whole["throttled_s"]["sw_power_cap"],
                 whole["throttled_s"]["hw_thermal"], cap["any_reason_s"], doc["phases"][1]["duration_s"],
                 cap["unknown_s"]))

