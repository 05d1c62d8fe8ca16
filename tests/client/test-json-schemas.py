#!/usr/bin/python3
"""Every --json document of jetsonctl, and jetsond --once --json, against
the JSON Schema files of docs/json/ (the contract docs/json.md explains),
on fake boards of every kind, with python-dbusmock's polkitd allowing the
writes and systemd running nvfancontrol:

    test-json-schemas.py JETSOND JETSONCTL FAKE_NVML

Beyond the schemas: the same value has the same name and the same value in
every document that carries it (status and its own command, jetsond --once),
and no number carries binary noise (34.700000000000003)."""

import json
import os
import re
import subprocess
import sys

import jsonschema

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402  (the bus, board and jetsond stack)

JETSOND, JETSONCTL, FAKE_NVML = (os.path.abspath(a) for a in sys.argv[1:4])
SCHEMA_DIR = os.path.join(SOURCE_DIR, "docs", "json")
ALL_ACTIONS = ["org.jetsond.Jetson1." + a for a in
               ("set-fan", "set-nvpmodel", "set-jetson-clocks", "set-gpu", "manage-swap", "drop-caches",
                "read-serial")]

SCHEMAS = {}
for name in os.listdir(SCHEMA_DIR):
    with open(os.path.join(SCHEMA_DIR, name)) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    SCHEMAS[schema["$id"]] = schema

# %.17g's tell-tale: a run of zeros or nines before the last digit.
NOISE = re.compile(r"\d\.\d*(?:0{6,}[1-9]|9{6,}\d)\b")


def validator(schema):
    """Debian 12's jsonschema (4.10) resolves the common file's $refs with
    RefResolver; newer ones with the referencing library."""
    try:
        import referencing
        registry = referencing.Registry().with_resources(
            (uri, referencing.Resource.from_contents(s)) for uri, s in SCHEMAS.items())
        return jsonschema.Draft202012Validator(schema, registry=registry)
    except ImportError:
        return jsonschema.Draft202012Validator(schema, resolver=jsonschema.RefResolver.from_schema(schema,
                                                                                                 store=SCHEMAS))


def validate(text, schema_name, what):
    schema = SCHEMAS[f"https://jetsond.org/schemas/{schema_name}.schema.json"]
    noisy = NOISE.search(text)
    assert not noisy, f"{what}: a number with binary noise: {noisy.group(0)}"
    doc = json.loads(text)
    try:
        validator(schema).validate(doc)
    except jsonschema.ValidationError as e:
        raise AssertionError(f"{what} does not match {schema_name}.schema.json: {e.message} at "
                             f"{'/'.join(str(p) for p in e.absolute_path)}\n{text}") from None
    return doc


def jetsonctl(*args, status=0):
    r = subprocess.run([JETSONCTL, "--no-ask-password", *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == status, f"jetsonctl {' '.join(args)}: exit {r.returncode}: {r.stderr}"
    return r.stdout


def doc(schema_name, *args):
    """The one document ARGS print with --json, validated."""
    return validate(jetsonctl("--json", *args), schema_name, "jetsonctl " + " ".join(args))


def check_reads(board, jetson):
    status = doc("status", "status")
    assert doc("board", "board") == status["board"], "board and status.board differ"
    swap = doc("swap", "swap")
    assert swap["ram_total_bytes"] > 0
    got = doc("get", "get", "cpu.*")
    assert got and all(k.startswith("cpu.") for k in got)
    lines = jetsonctl("--json", "watch", "--count", "2", "--stats", "cpu.*").splitlines()
    assert len(lines) == 3, lines
    for line in lines[:2]:
        validate(line, "watch", "watch line")
    validate(lines[2], "watch-stats", "watch --stats summary")
    doctor = doc("doctor", "doctor")
    assert doctor["reached"] and len(doctor["families"]) == 16, doctor
    measure = doc("measure", "measure", "--interval", "20", "--", "sleep", "0.2")
    assert measure["exit_status"] == 0
    # A running process followed: its PID, no exit status of its own.
    sleeper = subprocess.Popen(["sleep", "0.5"])
    followed = doc("measure", "measure", "--interval", "20", "--pid", str(sleeper.pid))
    sleeper.wait()
    assert followed["pid"] == sleeper.pid and followed["exit_status"] is None, followed
    assert followed["followed_until"] == "exit" and followed["command"] == ["sleep", "0.5"], followed
    if jetson:
        nvpmodel = doc("nvpmodel", "nvpmodel")
        assert nvpmodel == status["nvpmodel"], "nvpmodel and status.nvpmodel differ"
        assert doc("clocks", "clocks") == status["jetson_clocks"]
        gpu = doc("gpu", "gpu")
        assert gpu["name"] and gpu["scaling_3d"] is True and gpu["railgate"] is True, gpu
        fans = doc("fan", "fan")["fans"]
        for listed, shown in zip(fans, status["fans"]):
            for k in listed:
                if k not in ("speed_percent", "rpm"):  # measured: they move
                    assert listed[k] == shown[k], f"fan {k}: {listed[k]!r} vs {shown[k]!r}"
    else:
        assert status["nvpmodel"] is None and status["jetson_clocks"] is None and status["fans"] == []
        jetsonctl("--json", "gpu", status=1)  # no integrated GPU: nothing on stdout
    for gpu in status["dgpus"]:
        # GetSnapshot's keys and the object's properties name one GPU.
        assert f"dgpu.{gpu['index']}.load" in status["values"] and gpu["name"], gpu
        for absent in ("board_ids", "jetpack", "l4t", "soc"):
            assert status["board"][absent] is None, f"board.{absent} is {status['board'][absent]!r}, not null"
    assert doc("serial", "serial")["serial"] if board != "x86-pc" else True
    return status


def check_once(board, status):
    out = subprocess.run([JETSOND, "--sysroot", os.path.join(SOURCE_DIR, "tests", "fixtures", board), "--once",
                          "--json"], capture_output=True, text=True, check=True).stdout
    once = validate(out, "jetsond-once", f"jetsond --once --json on {board}")
    # The daemon's own document names things as jetsonctl does.
    for k, v in status["board"].items():
        assert once["board"][k] == v, f"{board}: board.{k}: jetsond --once {once['board'][k]!r}, jetsonctl {v!r}"
    if status["nvpmodel"]:
        for k in ("default_mode", "default_mode_name", "modes"):
            assert once["nvpmodel"][k] == status["nvpmodel"][k], f"{board}: nvpmodel.{k} differs"
    for fan, shown in zip(once["fans"], status["fans"]):
        for k in ("index", "name", "profiles", "default_profile", "governor", "control"):
            assert fan[k] == shown[k], f"{board}: fan {k} differs"


def check_writes():
    """AGX Orin, JetPack 6: every write's result document."""
    results = {}
    for args in (("nvpmodel", "default", "3"), ("nvpmodel", "set", "3"), ("clocks", "on"), ("clocks", "boot", "on"),
                 ("clocks", "boot", "off"),
                 ("fan", "speed", "50"), ("fan", "profile", "quiet"), ("swap", "create", "64M", "--on-boot"),
                 ("swap", "remove"), ("drop-caches",), ("gpu", "scaling", "off"), ("gpu", "railgate", "off")):
        results[args] = doc("changes", *args)["changes"]
    what = {args: [c["what"] for c in changes] for args, changes in results.items()}
    assert what[("nvpmodel", "default", "3")] == ["nvpmodel.default_mode", "nvpmodel.default_mode_name"]
    assert results[("nvpmodel", "default", "3")][0]["from"] == 2 and results[("nvpmodel", "default", "3")][0]["to"] == 3
    assert what[("nvpmodel", "set", "3")] == ["nvpmodel.mode", "nvpmodel.mode_name"]
    assert results[("nvpmodel", "set", "3")][1]["to"] == "MODE_50W"
    assert what[("clocks", "on")] == ["jetson_clocks.active"]
    assert "fan.0.profile" in what[("fan", "speed", "50")]
    assert "fan.0.speed_percent" in what[("fan", "speed", "50")]
    created = {c["what"]: c for c in results[("swap", "create", "64M", "--on-boot")]}
    assert [s["path"] for s in created["swap.swaps"]["to"]][-1] == "/var/lib/jetsond/swap/swapfile", created
    assert created["swap.swaps"]["to"][-1]["on_boot"] is True
    assert results[("drop-caches",)] == []
    assert results[("gpu", "scaling", "off")] == [{"what": "gpu.scaling_3d", "from": True, "to": False}]
    assert results[("gpu", "railgate", "off")] == []  # off already: jetson_clocks (on above) switched it off
    restore = doc("restore", "restore")["steps"]
    steps = {s["step"]: s for s in restore}
    assert [s["step"] for s in restore] == ["jetson_clocks.active", "jetson_clocks.on_boot", "fan.0.profile",
                                            "nvpmodel.mode", "gpu.scaling_3d", "gpu.railgate"]
    assert steps["gpu.scaling_3d"]["status"] == "changed" and steps["gpu.scaling_3d"]["to"] is True
    assert steps["gpu.railgate"]["status"] == "changed" and steps["gpu.railgate"]["to"] is True
    assert steps["jetson_clocks.active"]["from"] is True and steps["jetson_clocks.active"]["to"] is False
    assert steps["jetson_clocks.active"]["status"] == "changed"


def check_gpu_text():
    """jetsonctl status as nvitop shows the GPUs: a row per GPU and a row per
    process and GPU, within 80 columns."""
    text = harness.wait_for(lambda: (lambda t: t if "python3" in t else None)(jetsonctl("status")), 10,
                            "the GPU processes in jetsonctl status")
    for pattern in (r"^dGPU 0 +37\.0% \[#+\.+\]  2520 MHz \(max 3105 MHz\)$",
                    r"^  NVIDIA GeForce RTX 4090  1280 MiB of 24564 MiB  61°C  231/450 W  fan 40%$",
                    r"^dGPU 1 +5\.0% \[#\.+\]  585 MHz \(max 1590 MHz\)$",
                    r"^  Tesla T4  300 MiB of 15360 MiB  40°C  27/70 W$",
                    r"^  GPU +PID USER +GPU MEM +SM% +CPU%  COMMAND$",
                    r"^  0 +4242 alice +1024 MiB +35 +\S+  python3$",
                    r"^  0 +2345 alice +256 MiB +- +\S+  firefox-esr$",
                    r"^  1 +4242 alice +100 MiB +2 +\S+  python3$",
                    # a PC: named by DMI; Power with its RAPL zones and GPUs, no total
                    r"^LENOVO 20L7S0ET00$",
                    r"^Power +no board total \(no input rail\); its parts:$",
                    r"^  RAPL_PACKAGE_0 +\d+ mW$",
                    r"^  dGPU 0 +231000 mW of 450000 mW$",
                    r"^  dGPU 1 +27000 mW of 70000 mW$"):
        assert re.search(pattern, text, re.M), f"no line matching {pattern!r} in:\n{text}"
    assert all(len(line) <= 80 for line in text.splitlines()), text
    # measure integrates each GPU's power from the capture stream, like a rail.
    m = doc("measure", "measure", "--interval", "20", "--", "sleep", "0.5")
    for gpu, mw in (("dgpu.0", 231000.0), ("dgpu.1", 27000.0)):
        p = m["power"][gpu]
        assert p["mean_power_mw"] == mw and p["peak_power_mw"] == mw, (gpu, p)
        assert abs(p["energy_j"] - mw / 1000 * m["duration_s"]) < mw / 1000 * 0.05, (gpu, p, m["duration_s"])
    # ... and keeps each GPU's load, maximum clocks and temperature, peak memory,
    # and its clock event reasons: none held on GPU 0, no bitmask on the T4.
    reasons = m["dgpus"]["dgpu.0"].pop("throttle")
    assert reasons["throttled_percent"] == 0 and reasons["any_reason_s"] == 0, reasons
    assert set(reasons["throttled_s"].values()) == {0} and set(reasons["clock_settings_s"].values()) == {0}, reasons
    assert 0 <= reasons["unknown_s"] < m["duration_s"], reasons
    assert m["dgpus"]["dgpu.1"].pop("throttle") is None, m["dgpus"]
    assert m["dgpus"]["dgpu.0"] == {"load_percent": {"mean": 37.0, "max": 37.0}, "freq_max_khz": 2520000,
                                    "sm_freq_max_khz": 2520000, "mem_freq_max_khz": 10501000,
                                    "temp_max_celsius": 61.0, "mem_used_max_kib": 1342177280 // 1024}, m["dgpus"]
    assert m["dgpus"]["dgpu.1"]["load_percent"] == {"mean": 5.0, "max": 5.0} and \
        m["dgpus"]["dgpu.1"]["mem_used_max_kib"] == 314572800 // 1024, m["dgpus"]


def run_board(board, jetson, writes=False, nvml=False):
    with harness.Stack(JETSOND, None, board=board) as stack:
        stack.start_mock("polkitd", "org.freedesktop.PolicyKit1")
        stack.polkit_allow(ALL_ACTIONS)
        if jetson and board != "nano-jp46":
            stack.start_systemd_with_nvfancontrol()
        if nvml:
            os.environ["FAKE_NVML_CONFIG"] = os.path.join(SOURCE_DIR, "tests", "fixtures", board + ".nvml.json")
        stack.start_daemon(["--nvml-library", FAKE_NVML] if nvml else [])
        if nvml:  # the GPUs' objects come with their first readings
            harness.wait_for(lambda: len(doc("status", "status")["dgpus"]) == 2, 10, "two discrete GPUs")
        status = check_reads(board, jetson)
        check_once(board, status)
        if writes:
            check_writes()
        if nvml:
            check_gpu_text()


def test_agx_orin_jp62():
    run_board("agx-orin-jp62", True, writes=True)


def test_nano_jp46():
    run_board("nano-jp46", True)


def test_xavier_nx_jp51():
    run_board("xavier-nx-jp51", True)


def test_x86_pc():
    run_board("x86-pc", False)


def test_x86_pc_with_gpus():
    run_board("x86-pc", False, nvml=True)


def test_noise_detector():
    """The noise check itself: json-glib 1.4's way of printing 34.7 fails."""
    try:
        validate('{"values": {"gpu.load": 34.700000000000003}, "timestamp_usec": 1}', "watch", "noisy")
    except AssertionError:
        return
    raise AssertionError("34.700000000000003 passed the noise check")


if __name__ == "__main__":
    sys.exit(harness.run_tests([test_noise_detector, test_agx_orin_jp62, test_nano_jp46, test_xavier_nx_jp51,
                                test_x86_pc, test_x86_pc_with_gpus]))
