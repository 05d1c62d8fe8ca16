#!/usr/bin/python3
"""jetsonctl's GPU and process filters (--only, --only-visible, --owner,
--pid) in status and watch, on the PC fake board (an RTX 4090 at
0000:01:00.0 and a T4 at 0000:02:00.0 through the fake NVML; process 4242
computes on both, 2345 draws on the 4090) and on the AGX Orin (the SoC's
GPU alone), against jetsond on a private bus:

    test-gpu-filters.py JETSOND JETSONCTL FAKE_NVML

Each filter's rows and keys are compared with the unfiltered snapshot's."""

import json
import os
import re
import shutil
import subprocess
import sys

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402  (the bus, board and jetsond stack)

sys.path.insert(0, os.path.join(SOURCE_DIR, "python"))
import jetsond  # noqa: E402  (the Python package's device list, the same rules)

JETSOND, JETSONCTL, FAKE_NVML = (os.path.abspath(a) for a in sys.argv[1:4])
GEFORCE, T4 = "GPU-5c1b7a2e-4d7f-4a3e-9f1b-2a6c0d9e8b71", "GPU-0d3c9a44-8c2e-4a61-b1f0-77e2b5a1c3d9"


def jetsonctl(*args, status=0, env=None):
    e = dict(os.environ, NO_COLOR="1")
    e.pop("CUDA_VISIBLE_DEVICES", None)
    e.update(env or {})
    r = subprocess.run([JETSONCTL, *args], capture_output=True, text=True, env=e, timeout=60)
    assert r.returncode == status, f"jetsonctl {' '.join(args)}: exit {r.returncode}, not {status}: {r.stderr}"
    return r


def shown(*args, env=None):
    """The discrete GPUs (indices) and the GPU process rows ((gpu, pid)) of
    status --json and status under ARGS, checked to agree."""
    doc = json.loads(jetsonctl("status", "--json", *args, env=env).stdout)
    values = doc["values"]
    gpus = sorted(g["index"] for g in doc["dgpus"])
    keyed = sorted({int(k.split(".")[1]) for k in values if re.match(r"dgpu\.\d+\.", k)})
    assert gpus == keyed, (args, gpus, keyed)
    text = jetsonctl("status", *args, env=env).stdout
    rows = sorted((r[0], int(r[1])) for r in re.findall(r"^  (SoC|\d+) +(\d+) ", text, re.M))
    procs = {int(k.split(".")[1]) for k in values if k.startswith("process.")}
    assert {p for _, p in rows} == procs, (args, rows, procs)
    return gpus, rows


def refused(args, want, env=None):
    r = jetsonctl("status", *args, status=2, env=env)
    assert want in r.stderr, (args, r.stderr)
    assert r.stdout == "", r.stdout


def test_pc_only(stack):
    everything = shown()
    assert everything == ([0, 1], [("0", 2345), ("0", 4242), ("1", 4242)]), everything
    # by index, UUID (whole or its start), PCI bus id (NVML's or lspci's form)
    for only in ("1", T4, "GPU-0d3c", "00000000:02:00.0", "02:00.0", "0000:02:00.0"):
        assert shown("--only", only) == ([1], [("1", 4242)]), only
    assert shown("-o", "0") == ([0], [("0", 2345), ("0", 4242)])
    assert shown("-o", "0,1") == everything
    assert shown("-o", "GPU-5c1b, 02:00.0") == everything
    # a process shown keeps its keys on the GPUs shown alone
    values = json.loads(jetsonctl("status", "--json", "-o", "1").stdout)["values"]
    full = json.loads(jetsonctl("status", "--json").stdout)["values"]
    assert values["process.4242.dgpu.1.mem"] == full["process.4242.dgpu.1.mem"], (values, full)
    assert "process.2345.name" not in values and "process.4242.dgpu.0.mem" not in values


def test_pc_only_visible(stack):
    def visible(value):
        return shown("--only-visible", env={"CUDA_VISIBLE_DEVICES": value} if value is not None else {})

    assert visible(None) == shown()                                   # unset: every GPU
    assert visible("1") == ([1], [("1", 4242)])                       # ordinals in PCI bus order
    assert visible("GPU-5c1b") == ([0], [("0", 2345), ("0", 4242)])
    assert visible(" 1 , 0 ") == shown()
    assert visible("") == ([], [])                                    # set but empty: none
    # with --only as well: the GPUs both name
    assert shown("--only-visible", "-o", "0,1", env={"CUDA_VISIBLE_DEVICES": "1"}) == ([1], [("1", 4242)])


def test_pc_bad_input(stack):
    refused(["-o", "7"], '--only 7: "7" names no GPU')
    refused(["-o", "GPU-"], '"GPU-" names 2 GPUs')
    refused(["-o", "0,"], "an empty entry names no GPU")
    refused(["-o", "soc"], "this machine has no SoC GPU")
    refused(["-o", "03:00.0"], '"03:00.0" names no GPU')
    refused(["--only-visible"], "CUDA_VISIBLE_DEVICES=0,foo, entry 2", env={"CUDA_VISIBLE_DEVICES": "0,foo"})
    refused(["--only-visible"], "CUDA has no device 2 here (2 devices)", env={"CUDA_VISIBLE_DEVICES": "2"})
    refused(["--pid", "12x"], '"12x" is not a PID')
    refused(["--pid", "0"], '"0" is not a PID')
    r = jetsonctl("watch", "-o", "9", "-n", "1", status=2)
    assert '"9" names no GPU' in r.stderr, r.stderr


def test_pc_processes(stack):
    assert shown("--pid", "2345") == ([0, 1], [("0", 2345)])
    assert shown("--pid", "2345,4242") == shown()
    assert shown("--pid", "99999") == ([0, 1], [])
    values = json.loads(jetsonctl("status", "--json").stdout)["values"]
    owner = values["process.4242.user"]
    assert values["process.2345.user"] == owner, values
    assert shown("--owner", owner) == shown()
    assert shown("--owner=nobody-here," + owner, "-o", "1", "--pid", "4242") == ([1], [("1", 4242)])
    assert shown("--owner", "nobody-here") == ([0, 1], [])
    assert shown("--owner", owner, "--pid", "2345") == ([0, 1], [("0", 2345)])


def test_pc_watch(stack):
    out = jetsonctl("watch", "-n", "2", "-o", "1", "dgpu.*", "process.*").stdout
    keys = set(re.findall(r" ([a-z_.0-9]+)=", out))
    assert keys and all(k.startswith("dgpu.1.") or k.startswith("process.4242.") for k in keys), keys
    assert "dgpu.1.load" in keys and "process.4242.dgpu.1.mem" in keys, keys
    out = jetsonctl("watch", "-n", "1", "--only-visible", "dgpu.*", env={"CUDA_VISIBLE_DEVICES": "GPU-5c1b"}).stdout
    assert "dgpu.0.load=" in out and "dgpu.1." not in out, out


def test_pc_python(stack):
    """The Python package: gpus(only=..., only_visible=...), gpu(uuid=...,
    bus_id=...) and take_snapshots(), through the bus, agree with status."""
    import asyncio

    def idx(gpus):
        return [g["index"] for g in gpus]

    with jetsond.Jetson() as j:
        assert idx(j.gpus()) == [0, 1]
        for only in (1, "1", [T4], "GPU-0d3c", "02:00.0", ["00000000:02:00.0"]):
            assert idx(j.gpus(only=only)) == [1], only
        assert idx(j.gpus(only="0, 02:00.0")) == [0, 1]
        os.environ["CUDA_VISIBLE_DEVICES"] = "1"
        try:
            assert idx(j.gpus(only_visible=True)) == [1]
            assert idx(j.gpus(only=0, only_visible=True)) == []
        finally:
            del os.environ["CUDA_VISIBLE_DEVICES"]
        assert j.gpu(uuid="GPU-5c1b")["name"] == "NVIDIA GeForce RTX 4090"
        assert j.gpu(bus_id="02:00.0")["uuid"] == T4
        assert j.gpu(index=1)["pci_bus_id"] == "00000000:02:00.0"
        for bad, want in (({"uuid": "GPU-"}, "names 2 GPUs"), ({"uuid": "GPU-ffff"}, "names no GPU"),
                          ({"bus_id": "2:0"}, "is not a PCI bus id"), ({"index": 5}, "names no GPU"),
                          ({"index": "soc"}, "no SoC GPU")):
            try:
                j.gpu(**bad)
                raise AssertionError("no error for %r" % (bad,))
            except jetsond.NoSuchGpu as e:
                assert want in str(e) and isinstance(e, LookupError), (bad, e)
        for bad in ("7", "0,", "soc"):
            try:
                j.gpus(only=bad)
                raise AssertionError("no error for only=%r" % bad)
            except jetsond.NoSuchGpu:
                pass
        snap = j.take_snapshots(only=1)
        assert idx(snap["gpus"]) == [1] and [p["pid"] for p in snap["processes"]] == [4242], snap
        assert snap["timestamp"] > 0
        whole = j.take_snapshots()
        assert sorted(p["pid"] for p in whole["processes"]) == [2345, 4242], whole["processes"]

    async def aio():
        async with jetsond.AsyncJetson() as a:
            assert idx(await a.gpus(only="GPU-0d3c")) == [1]
            assert (await a.gpu(bus_id="0000:01:00.0"))["uuid"] == GEFORCE
            snap = await a.take_snapshots(only=0)
            assert sorted(p["pid"] for p in snap["processes"]) == [2345, 4242], snap
    asyncio.run(aio())


def test_jetson(stack):
    everything = shown()
    assert everything[0] == [] and everything[1] and all(g == "SoC" for g, _ in everything[1]), everything
    assert shown("-o", "soc") == everything
    assert shown("--only-visible", env={"CUDA_VISIBLE_DEVICES": "0"}) == everything   # CUDA's device 0
    refused(["-o", "0"], "this machine has no discrete GPU (its own GPU is \"soc\")")
    refused(["--only-visible"], "CUDA has no device 1 here (1 device)", env={"CUDA_VISIBLE_DEVICES": "1"})
    # none shown: no GPU row, no process, no gpu.* key
    doc = json.loads(jetsonctl("status", "--json", "--only-visible", env={"CUDA_VISIBLE_DEVICES": ""}).stdout)
    assert not any(k.startswith("gpu.") or k.startswith("process.") for k in doc["values"]), doc["values"]
    assert not re.search(r"^GPU ", jetsonctl("status", "--only-visible", env={"CUDA_VISIBLE_DEVICES": ""}).stdout,
                         re.M)
    assert re.search(r"^GPU ", jetsonctl("status").stdout, re.M)
    with jetsond.Jetson() as j:
        assert [g["index"] for g in j.gpus(only="soc")] == ["gpu"]
        assert j.gpu(index="soc")["integrated"]
        snap = j.take_snapshots(only="soc")
        assert sorted(p["pid"] for p in snap["processes"]) == sorted(p for _, p in everything[1]), snap


def main():
    status = 0
    with harness.Stack(JETSOND, None, board="x86-pc") as stack:
        os.environ["FAKE_NVML_CONFIG"] = os.path.join(stack.dir, "nvml.json")
        shutil.copy(os.path.join(SOURCE_DIR, "tests", "fixtures", "x86-pc.nvml.json"), os.environ["FAKE_NVML_CONFIG"])
        stack.start_daemon(["--nvml-library", FAKE_NVML])
        # the processes' users come with the slow tier's reading of /proc
        harness.wait_for(lambda: all(k in jetsonctl("status", "--json").stdout for k in
                                     ("process.4242.dgpu.1.mem", "process.4242.user", "process.2345.user")), 30,
                         "both GPUs and their processes")
        status |= harness.run_on(stack, (test_pc_only, test_pc_only_visible, test_pc_bad_input, test_pc_processes,
                              test_pc_watch, test_pc_python))
    with harness.Stack(JETSOND, None, board="agx-orin-jp62") as stack:
        stack.start_daemon()
        status |= harness.run_on(stack, (test_jetson,))
    sys.exit(status)


if __name__ == "__main__":
    main()
