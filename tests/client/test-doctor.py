#!/usr/bin/python3
"""jetsonctl doctor against jetsond on a private system bus:

    test-doctor.py JETSOND JETSONCTL FAKE_NVML [TEST...]

Every fake board (copies by make-sysroot.sh), the PC with the fake NVML and
with no NVML library, a file refused by the sandbox (root without its DAC
capabilities: EACCES for uid 0) and files a non-root jetsond may not read
(jetsond --user as nobody), an unprivileged caller in a mount namespace
whose /sys is empty, a caller in its own PID namespace, an unknown L4T and
an unknown JetPack, jetsond stopped (with and without D-Bus activation),
no bus socket, and a jetsond of another version or without Diagnose (a
stand-in on the bus). Every --json document is validated against
docs/json/doctor.schema.json, and every family that is not found must name
its cause, say why and what to do."""

import fnmatch
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import jsonschema

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402  (the bus, board and jetsond stack)

JETSOND, JETSONCTL, FAKE_NVML = (os.path.abspath(a) for a in sys.argv[1:4])
SCHEMA_DIR = os.path.join(SOURCE_DIR, "docs", "json")
FIXTURES = os.path.join(SOURCE_DIR, "tests", "fixtures")
BOARDS = sorted(b for b in os.listdir(FIXTURES) if os.path.isfile(os.path.join(FIXTURES, b, "proc", "stat")))
JETSONS = [b for b in BOARDS if b != "x86-pc"]
FAMILIES = ["board", "cpu", "gpu", "emc", "memory", "swap", "engines", "power", "throttle", "thermal", "fans",
            "nvpmodel", "jetson_clocks", "processes", "dgpu", "system"]
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
OWN_AS_NOBODY = '<policy user="nobody"><allow own="org.jetsond.Jetson1"/></policy>'

SCHEMAS = {}
for name in os.listdir(SCHEMA_DIR):
    with open(os.path.join(SCHEMA_DIR, name)) as f:
        schema = json.load(f)
    SCHEMAS[schema["$id"]] = schema
DOCTOR_SCHEMA = SCHEMAS["https://jetsond.org/schemas/doctor.schema.json"]


def validate(doc):
    """Debian 12's jsonschema (4.10) resolves $refs with RefResolver,
    newer ones with the referencing library (as test-json-schemas.py)."""
    try:
        import referencing
        registry = referencing.Registry().with_resources(
            (uri, referencing.Resource.from_contents(s)) for uri, s in SCHEMAS.items())
        v = jsonschema.Draft202012Validator(DOCTOR_SCHEMA, registry=registry)
    except ImportError:
        v = jsonschema.Draft202012Validator(DOCTOR_SCHEMA,
                                            resolver=jsonschema.RefResolver.from_schema(DOCTOR_SCHEMA, store=SCHEMAS))
    v.validate(doc)


def doctor(*args, status=0, prefix=(), env=None, text=False):
    """jetsonctl doctor's document (or text), its exit status checked."""
    argv = [*prefix, JETSONCTL, *([] if text else ["--json"]), *args, "doctor"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode == status, f"{' '.join(argv)}: exit {r.returncode}, want {status}\n{r.stdout}\n{r.stderr}"
    if text:
        return r.stdout
    doc = json.loads(r.stdout)
    validate(doc)
    assert doc["reached"] == (status == 0), doc
    return doc


def families(doc):
    got = {f["family"]: f for f in doc["families"]}
    assert list(got) == FAMILIES, list(got)
    for f in doc["families"]:
        if f["state"] != "found":
            # Every family that is not found says why and what to do.
            assert f["cause"] and f["detail"] and f["advice"], f
        else:
            assert f["cause"] is None and f["advice"] is None, f
        assert f["state"] == "found" or f["cause"], f
    return got


def check(doc, name):
    """The check NAME (the last one of that name)."""
    found = [c for c in doc["checks"] if c["check"] == name]
    assert found, f"no check {name}: {doc['checks']}"
    return found[-1]


def want(fams, family, state, cause=None):
    f = fams[family]
    assert f["state"] == state and f["cause"] == cause, \
        f"{family}: {f['state']} ({f['cause']}), want {state} ({cause})\n{json.dumps(f, indent=1)}"
    return f


def metrics_keys():
    """The key templates of Metrics.xml's table."""
    row = re.compile(r"^\s*\|\s*([A-Za-z0-9_.]+)\s*\|\s*([a-z])\s*\|")
    xml = os.path.join(SOURCE_DIR, "introspection", "org.jetsond.Jetson1.Metrics.xml")
    return [m.group(1) for m in map(row.match, open(xml, encoding="utf-8")) if m and m.group(1) != "key"]


def covered(key, fams):
    return [f for f in fams.values() if any(fnmatch.fnmatchcase(key, g) for g in f["keys"])]


def snapshot(stack):
    import dbus
    bus = dbus.bus.BusConnection(stack.address)
    try:
        metrics = dbus.Interface(bus.get_object("org.jetsond.Jetson1", "/org/jetsond/Jetson1"),
                                 "org.jetsond.Jetson1.Metrics")
        return [str(k) for k in metrics.GetSnapshot()[1]]
    finally:
        bus.close()


# ---- every board ---------------------------------------------------------

def check_board(board):
    with harness.Stack(JETSOND, None, board=board) as stack:
        stack.start_daemon()
        doc = doctor()
        fams = families(doc)
        assert doc["service"]["uid"] == 0 and doc["service"]["mode"] == "system", doc["service"]
        assert doc["service"]["sysroot"] == os.path.realpath(stack.root)
        assert check(doc, "version")["state"] == "ok"
        assert check(doc, "pid_namespace")["state"] == "ok"
        # The families' keys cover the contract's table, once each...
        for key in metrics_keys():
            owners = covered(key, fams)
            assert len(owners) == 1, f"{key}: covered by {[f['family'] for f in owners]}"
        # ... and the sample: every key has a family, and a family found
        # with keys has them in the sample.
        keys = snapshot(stack)
        for key in keys:
            assert covered(key, fams), f"{board}: {key} is in no family"
        for f in fams.values():
            if f["present"] and f["family"] != "processes":
                assert any(covered(k, {0: f}) for k in keys), f"{board}: {f['family']} has no key in the sample"
        # Under --sysroot without --nvml-library NVML is not read.
        want(fams, "dgpu", "missing", "nvml-off")
        if board in JETSONS:
            for family in ("cpu", "emc", "memory", "swap", "power", "thermal", "nvpmodel", "jetson_clocks", "system"):
                want(fams, family, "found")
            assert "/etc/nv_tegra_release" in fams["board"]["sources"], fams["board"]
            assert "/proc/stat" in fams["cpu"]["sources"]
            assert fams["nvpmodel"]["sources"][-1] == "tool /usr/sbin/nvpmodel", fams["nvpmodel"]
            want(fams, "board", "found")
            assert re.match(r"L4T \d+\.\d+\.\d+ from /etc/nv_tegra_release, JetPack ", fams["board"]["detail"])
        if board == "agx-thor-jp71":
            # Thor's GPU load and processes are NVML's alone.
            want(fams, "gpu", "partial", "nvml-off")
            want(fams, "processes", "missing", "nvml-off")
        elif board in JETSONS:
            want(fams, "gpu", "found")
            want(fams, "processes", "found")
            assert any("/sys/kernel/debug/nvmap" in s for s in fams["processes"]["sources"])
        if board == "nano-jp46":
            assert fams["memory"]["present"] > 10   # iram.* with ram.*
        if board == "x86-pc":
            for family in ("gpu", "emc", "engines", "nvpmodel", "jetson_clocks"):
                f = want(fams, family, "missing", "not-jetson")
                assert f["sources"] == [], f
            fans = want(fams, "fans", "missing", "no-hardware")
            assert fans["paths"] and fans["advice"].startswith("nothing to do"), fans
            want(fams, "processes", "missing", "nvml-off")
            want(fams, "board", "found")
            assert "is not a Jetson" in fams["board"]["detail"]
        # The same in words.
        text = doctor(text=True)
        assert re.search(r"^  found    cpu +\d+ keys from /proc/stat", text, re.M), text
        assert re.search(r"^  missing  dgpu +why \(nvml-off\): jetsond reads no NVML", text, re.M), text
        assert re.search(r"^\d+ found, \d+ partial, \d+ missing", text, re.M), text


def test_every_board():
    for board in BOARDS:
        start = time.monotonic()
        check_board(board)
        print(f"     {board} ({time.monotonic() - start:.1f} s)", flush=True)


def pc_with(library, config=True):
    stack = harness.Stack(JETSOND, None, board="x86-pc")
    if config:
        os.environ["FAKE_NVML_CONFIG"] = os.path.join(FIXTURES, "x86-pc.nvml.json")
    stack.start_daemon(["--nvml-library", library])
    return stack


def test_pc_with_nvml():
    with pc_with(FAKE_NVML) as stack:
        # The GPUs come with their first readings.
        harness.wait_for(lambda: families(doctor())["dgpu"]["present"] > 0, 10, "the GPUs' keys")
        fams = families(doctor())
        dgpu = want(fams, "dgpu", "partial", "nvml-not-supported")
        assert "NVML GPU 0: NVIDIA GeForce RTX 4090" in dgpu["sources"], dgpu
        assert "NVML GPU 1: Tesla T4" in dgpu["sources"], dgpu
        # The T4 of the fake's file has no fan, encoder, decoder or clock
        # event reasons: NOT_SUPPORTED, named; the 4090 answers everything.
        for key in ("dgpu.1.fan", "dgpu.1.encoder_load", "dgpu.1.decoder_load", "dgpu.1.throttle"):
            assert key in dgpu["paths"], dgpu
        assert not [p for p in dgpu["paths"] if p.startswith("dgpu.0.")], dgpu
        assert "GPU 1 (Tesla T4): fan" in dgpu["detail"], dgpu
        procs = want(fams, "processes", "found")
        assert any(s.startswith("NVML ") for s in procs["sources"]), procs


def test_pc_without_nvml():
    with pc_with("/nonexistent/libnvidia-ml.so.1", config=False) as stack:
        fams = families(doctor())
        dgpu = want(fams, "dgpu", "missing", "nvml-missing")
        assert "no NVIDIA driver library" in dgpu["detail"] and "install the NVIDIA driver" in dgpu["advice"], dgpu
        want(fams, "processes", "missing", "nvml-missing")


# ---- refusals --------------------------------------------------------------

ZONE = "sys/devices/virtual/thermal/thermal_zone1/temp"          # gpu-thermal: temp.gpu
FAN_HWMON = "sys/devices/platform/pwm-fan/hwmon/hwmon3"


def test_sandbox_refusal():
    """Root without CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH (as under a
    CapabilityBoundingSet= without them) meets mode-000 files: EACCES for
    uid 0, which jetsond takes as its sandbox's doing."""
    with harness.Stack(JETSOND, None, board="agx-orin-jp62") as stack:
        os.chmod(os.path.join(stack.root, ZONE), 0)
        os.chmod(os.path.join(stack.root, FAN_HWMON), 0)
        stack.daemon_log = open(os.path.join(stack.dir, "jetsond.log"), "ab")
        stack.daemon = subprocess.Popen(["setpriv", "--bounding-set", "-dac_override,-dac_read_search", JETSOND,
                                         "--sysroot", stack.root, "--system"], stderr=stack.daemon_log)
        harness.wait_for(stack.name_owned, 30, "jetsond on the bus")
        fams = families(doctor())
        thermal = want(fams, "thermal", "partial", "sandbox")
        assert "/sys/class/thermal/thermal_zone1/temp" in thermal["paths"], thermal
        assert "Permission denied" in thermal["detail"] and "although it runs as root" in thermal["detail"], thermal
        assert "systemctl cat jetsond" in thermal["advice"], thermal
        # The PWM fan's hwmon refused; its tachometer, elsewhere, still read.
        fans = want(fams, "fans", "partial", "sandbox")
        assert "/sys/devices/platform/pwm-fan/hwmon/hwmon3/pwm1" in fans["paths"], fans
        want(fams, "cpu", "found")


def start_user_daemon(stack, board_changes=None):
    """jetsond --user as nobody, the private bus standing in for the
    session bus."""
    if board_changes:
        board_changes(stack.root)
    stack.daemon_log = open(os.path.join(stack.dir, "jetsond.log"), "ab")
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=stack.address)
    stack.daemon = subprocess.Popen([*NOBODY, JETSOND, "--sysroot", stack.root, "--user"], stderr=stack.daemon_log,
                                    env=env)
    harness.wait_for(stack.name_owned, 30, "jetsond --user on the bus")
    return env


def test_unprivileged_service():
    """jetsond --user as nobody: debugfs (0700), the EEPROM (0600) and a
    zone made 0600 are root's; each family that needs them names them."""
    with harness.Stack(JETSOND, None, board="agx-orin-jp62", extra_policy=OWN_AS_NOBODY) as stack:
        env = start_user_daemon(stack, lambda root: os.chmod(os.path.join(root, ZONE), 0o600))
        doc = doctor("--user", prefix=NOBODY, env=env)
        assert doc["service"]["mode"] == "user" and doc["service"]["uid"] == 65534, doc["service"]
        assert "only reads" in check(doc, "access")["detail"], doc["checks"]
        fams = families(doc)
        engines = want(fams, "engines", "missing", "permission")
        assert "debugfs (/sys/kernel/debug) is readable by root only" in engines["advice"], engines
        assert "jetsond --user runs as uid 65534" in engines["advice"], engines
        assert any(p.startswith("/sys/kernel/debug/clk") for p in engines["paths"]), engines
        thermal = want(fams, "thermal", "partial", "permission")
        assert "/sys/class/thermal/thermal_zone1/temp" in thermal["paths"], thermal
        want(fams, "processes", "missing", "permission")
        board = want(fams, "board", "partial", "permission")
        assert any(p.endswith("/eeprom") for p in board["paths"]), board
        want(fams, "cpu", "found")


def test_unprivileged_caller():
    """An unprivileged caller with nothing of the board visible (an empty
    /sys, as a container with only the bus socket): the same answer."""
    with harness.Stack(JETSOND, None, board="agx-orin-jp62") as stack:
        stack.start_daemon()
        script = 'mount -t tmpfs none /sys && exec "$@"'
        doc = doctor(prefix=["unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", *NOBODY])
        fams = families(doc)
        want(fams, "cpu", "found")
        access = check(doc, "access")
        assert access["state"] == "info" and "nobody (uid 65534)" in access["detail"], access
        assert "changes" in access["detail"] and "administrator's password" in access["detail"], access
        assert access["advice"], access
        # The polkit check: none on this bus.
        assert check(doc, "polkit")["state"] == "warning"
        stack.start_mock("polkitd", "org.freedesktop.PolicyKit1")
        assert not [c for c in doctor(prefix=NOBODY)["checks"] if c["check"] == "polkit"]


def test_pid_namespace():
    with harness.Stack(JETSOND, None, board="x86-pc") as stack:
        stack.start_daemon()
        doc = doctor(prefix=["unshare", "--pid", "--fork", "--mount-proc"])
        ns = check(doc, "pid_namespace")
        assert ns["state"] == "info" and "another PID namespace" in ns["detail"], ns
        assert doc["service"]["pid_namespace"] == os.stat("/proc/self/ns/pid").st_ino


# ---- the board's release ---------------------------------------------------

def drop_packages(root, names):
    path = os.path.join(root, "var/lib/dpkg/status")
    stanzas = open(path).read().split("\n\n")
    keep = [s for s in stanzas if not any(s.startswith(f"Package: {n}\n") for n in names)]
    assert len(keep) == len(stanzas) - len(names), names
    open(path, "w").write("\n\n".join(keep))


def test_l4t_unknown():
    with harness.Stack(JETSOND, None, board="agx-orin-jp62") as stack:
        os.unlink(os.path.join(stack.root, "etc/nv_tegra_release"))
        drop_packages(stack.root, ["nvidia-l4t-core"])
        stack.start_daemon()
        doc = doctor()
        board = want(families(doc), "board", "partial", "l4t-unknown")
        assert "no /etc/nv_tegra_release and no nvidia-l4t-core" in board["detail"], board
        ts = check(doc, "tegrastats")
        assert "r36" in ts["detail"] and "--format" in ts["advice"], ts


def test_jetpack_unknown():
    with harness.Stack(JETSOND, None, board="agx-orin-jp62") as stack:
        with open(os.path.join(stack.root, "etc/nv_tegra_release"), "w") as f:
            f.write("# R99 (release), REVISION: 1.0, GCID: 1, BOARD: generic, EABI: aarch64, DATE: now\n")
        drop_packages(stack.root, ["nvidia-jetpack"])
        stack.start_daemon()
        doc = doctor()
        board = want(families(doc), "board", "partial", "jetpack-unknown")
        assert "L4T 99.1.0 (from /etc/nv_tegra_release)" in board["detail"], board
        assert not [c for c in doc["checks"] if c["check"] == "tegrastats"]


# ---- jetsond not there --------------------------------------------------------

def test_not_running():
    with harness.Stack(JETSOND, None, board="x86-pc") as stack:
        doc = doctor(status=1)
        assert doc["families"] == [] and doc["service"] is None
        j = check(doc, "jetsond")
        assert j["state"] == "error" and "jetsond is not running" in j["detail"], j
        assert "systemctl start jetsond" in j["advice"], j
        text = doctor(text=True, status=1)
        assert "error    jetsond" in text and "What jetsond found" not in text, text


def test_activation():
    """Not running, but the bus can start it: doctor's call does."""
    with harness.Stack(JETSOND, None, board="x86-pc") as stack:
        services = os.path.join(stack.dir, "services")
        os.makedirs(services, exist_ok=True)
        with open(os.path.join(services, "org.jetsond.Jetson1.service"), "w") as f:
            f.write(f"[D-BUS Service]\nName=org.jetsond.Jetson1\nExec={JETSOND} --sysroot {stack.root} --system\n")
        subprocess.run(["busctl", "--system", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                        "org.freedesktop.DBus", "ReloadConfig"], check=True, stdout=subprocess.DEVNULL)
        doc = doctor()
        assert [c for c in doc["checks"] if c["check"] == "jetsond" and "D-Bus starts it" in c["detail"]], \
            doc["checks"]
        want(families(doc), "cpu", "found")
        # The bus started it: it is ours to stop, by the PID the bus says.
        out = subprocess.run(["busctl", "--system", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                              "org.freedesktop.DBus", "GetConnectionUnixProcessID", "s", "org.jetsond.Jetson1"],
                             capture_output=True, text=True, check=True).stdout.split()
        pid = int(out[1])
        harness.end_processes(lambda: [pid] if os.path.exists(f"/proc/{pid}") and
                              "Z" not in open(f"/proc/{pid}/stat").read().split(")")[1][:3] else [])


def test_no_socket():
    env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS="unix:path=/nonexistent/jetsond-test/system_bus_socket")
    doc = doctor(status=1, env=env)
    bus = check(doc, "bus")
    assert bus["state"] == "error" and "/nonexistent/jetsond-test/system_bus_socket" in bus["detail"], bus
    assert "bind-mount" in bus["advice"] and ":ro" in bus["advice"] and "nothing else" in bus["advice"], bus
    assert len(doc["checks"]) == 1 and doc["service"] is None
    # --user without any session bus (su, a cron job): said in words.
    bare = {k: v for k, v in os.environ.items() if k not in ("DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")}
    bus = check(doctor("--user", status=1, env=bare), "bus")
    assert bus["state"] == "error" and "neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR" in bus["detail"], bus
    assert "jetsonctl without --user" in bus["advice"], bus
    # Usage: no arguments (exit 2); the help says the busctl call.
    r = subprocess.run([JETSONCTL, "doctor", "extra"], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "doctor takes no arguments" in r.stderr, r
    r = subprocess.run([JETSONCTL, "doctor", "--help"], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "org.jetsond.Jetson1.Manager Diagnose" in r.stdout, r


# ---- another jetsond -----------------------------------------------------------

STAND_IN = textwrap.dedent("""
    import sys
    import dbus, dbus.service, dbus.mainloop.glib
    from gi.repository import GLib
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    version, with_diagnose = sys.argv[1], sys.argv[2] == "yes"
    bus = dbus.SystemBus()
    IFACE = "org.jetsond.Jetson1.Manager"

    class Manager(dbus.service.Object):
        @dbus.service.method("org.freedesktop.DBus.Properties", in_signature="ss", out_signature="v")
        def Get(self, iface, prop):
            return dbus.String(version)
        if with_diagnose:
            @dbus.service.method(IFACE, out_signature="a{sv}aa{sv}")
            def Diagnose(self):
                return ({"version": dbus.String(version), "uid": dbus.UInt32(0), "mode": "system",
                         "sysroot": "/"}, dbus.Array([], signature="a{sv}"))

    name = dbus.service.BusName("org.jetsond.Jetson1", bus)
    Manager(bus, "/org/jetsond/Jetson1")
    GLib.MainLoop().run()
""")


def stand_in(stack, version, diagnose):
    p = subprocess.Popen(["/usr/bin/python3", "-c", STAND_IN, version, "yes" if diagnose else "no"])
    stack.procs.append(p)
    harness.wait_for(stack.name_owned, 10, "the stand-in on the bus")
    return p


def test_other_version():
    with harness.Stack(JETSOND, None, board="x86-pc") as stack:
        stand_in(stack, "0.0.9", diagnose=True)
        doc = doctor()
        v = check(doc, "version")
        assert v["state"] == "warning" and "jetsond 0.0.9, jetsonctl" in v["detail"], v
        assert "same version" in v["advice"], v


def test_without_diagnose():
    with harness.Stack(JETSOND, None, board="x86-pc") as stack:
        stand_in(stack, "0.0.8", diagnose=False)
        doc = doctor(status=1)
        v = check(doc, "version")
        assert v["state"] == "warning" and "jetsond 0.0.8 is older than jetsonctl" in v["detail"], v
        assert doc["families"] == []


TESTS = [test_every_board, test_pc_with_nvml, test_pc_without_nvml, test_sandbox_refusal,
         test_unprivileged_service, test_unprivileged_caller, test_pid_namespace, test_l4t_unknown,
         test_jetpack_unknown, test_not_running, test_activation, test_no_socket, test_other_version,
         test_without_diagnose]

if __name__ == "__main__":
    if os.geteuid() != 0:
        print("needs root (setpriv, unshare, mount namespaces)")
        sys.exit(77)
    chosen = sys.argv[4:]
    tests = [t for t in TESTS if not chosen or t.__name__ in chosen]
    assert tests, f"no test named {chosen}"
    sys.exit(harness.run_tests(tests))
