#!/usr/bin/python3
"""jetsonctl tegrastats against jetsond on every fake board, on a private
system bus:

    test-tegrastats.py JETSOND JETSONCTL FAKE_NVML [TEST...]

(TEST: the names of the test functions to run; default all of them)

- each board's line has the fields, order and forms of its generation's
  real lines (real-lines.jsonl, through the project's reference parser),
  and its values are the board's own (the snapshot jetsond gives, read
  back from the line as scripts read it, read_like_scripts.py); the whole
  line is pinned in golden/BOARD.line (timestamps masked);
- --format prints each release's form on one board;
- tegrastats' command line: --interval, --logfile (appends, flushed on
  SIGTERM), --start and --stop (only this program's writers), --readall
  and --verbose accepted, the name tegrastats (a symbolic link), nothing
  on stderr, no trailing blank; bad input exits 2 with one clear line;
- an unprivileged user gets the same line.

JETSONCTL_UPDATE_GOLDEN=1 rewrites the golden lines (review the diff)."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
sys.path.insert(0, HERE)
import harness  # noqa: E402  (the bus, board and jetsond stack)
import tegrastats_ref as ref  # noqa: E402

JETSOND, JETSONCTL, FAKE_NVML = (os.path.abspath(a) for a in sys.argv[1:4])
ONLY = sys.argv[4:]
GOLDEN = os.path.join(HERE, "golden")
UPDATE = os.environ.get("JETSONCTL_UPDATE_GOLDEN") == "1"
STAMP = re.compile(r"^\d\d-\d\d-\d{4} \d\d:\d\d:\d\d ")

# Each board, its generation, and the real line its line must be shaped
# like: the same board family and state where the facts have one.
BOARDS = {
    "nano-jp46": ("jp4-nano-effex-1", False),
    "xavier-nx-jp51": ("jp5-xaviernx8gb-jetsontools-all-1", False),
    "agx-orin-jp62": ("jp6-agxorin64-abdele-1", False),
    "orin-nano-jp62": ("jp6-orinnx16gb-jetsontools-all-1", False),
    "agx-thor-jp71": ("jp7-thor-r384-lesomnus-1", True),
    "agx-orin-jp72": ("jp72-orin-agx64-lesomnus-1", True),
    "x86-pc": (None, True),
}
REAL = {}
with open(os.path.join(HERE, "real-lines.jsonl")) as f:
    for row in f:
        d = json.loads(row)
        REAL[d["id"]] = d


def jetsonctl(*args, status=0, **kw):
    r = subprocess.run([JETSONCTL, *args], capture_output=True, text=True, timeout=60, **kw)
    assert r.returncode == status, f"jetsonctl {' '.join(args)}: exit {r.returncode}\n{r.stdout}{r.stderr}"
    return r


def snapshot():
    return json.loads(jetsonctl("--json", "get", "*").stdout)


class Lines:
    """A running tegrastats: its lines as they come."""

    def __init__(self, argv, preexec_fn=None):
        self.p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  preexec_fn=preexec_fn)
        self.lines = []

    def read(self, n, timeout=30):
        deadline = time.monotonic() + timeout
        while len(self.lines) < n:
            assert time.monotonic() < deadline, f"{len(self.lines)} of {n} lines in {timeout} s"
            line = self.p.stdout.readline()
            assert line, f"tegrastats ended: {self.p.wait()} {self.p.stderr.read()}"
            self.lines.append(line)
        return self.lines

    def end(self, sig=signal.SIGTERM):
        self.p.send_signal(sig)
        rest, err = self.p.communicate(timeout=30)
        assert self.p.returncode == 0, f"exit {self.p.returncode} on signal {sig}: {err}"
        assert err == "", f"stderr: {err!r}"
        self.lines += rest.splitlines(keepends=True)
        return self.lines


def check_line_text(line):
    assert line.endswith("\n") and not line.endswith(" \n") and "  " not in line and not line.startswith(" "), \
        repr(line)
    fields = ref.parse(line.rstrip("\n"))
    assert ref.format(fields) == line.rstrip("\n"), line
    return fields


def with_loads(stack, board):
    """The second /proc/stat of the board: CPU loads known exactly."""
    shutil.copy(os.path.join(SOURCE_DIR, "tests/fixtures/proc-stat", board + "-b"),
                os.path.join(stack.root, "proc", "stat"))
    harness.wait_for(lambda: "cpu.0.load" in snapshot(), 20, "CPU loads")


def golden(name, line):
    text = STAMP.sub("MM-DD-YYYY HH:MM:SS ", line)
    path = os.path.join(GOLDEN, name + ".line")
    if UPDATE:
        os.makedirs(GOLDEN, exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return
    want = open(path).read()
    assert text == want, f"{name}:\n got  {text}\n want {want}"


def same_shape(ours, real, gen):
    """The fields of the real line, in its order and forms. Differences
    the board makes: its own zones and rails (names and count), its own
    engines and their state (an engine that runs prints its clock, 'F':
    jetsond has no engine load), its cores' count."""
    o, r = ref.shape(ours, sensor_names=False), ref.shape(real, sensor_names=False)
    fixed = ("timestamp", "ram", "swap", "iram", "cpu", "emc", "gr3d")

    def kinds(shape):
        out = []
        for kind, _, _ in shape:
            if not out or out[-1] != kind:
                out.append(kind)
        return out
    assert kinds(o) == kinds(r), f"field order {kinds(o)} != {kinds(r)}"
    for kind in fixed:
        of = [(n, f if kind != "cpu" else None) for k, n, f in o if k == kind]
        rf = [(n, f if kind != "cpu" else None) for k, n, f in r if k == kind]
        if kind == "gr3d":  # one clock per GPC: their count is the board's
            of = [(n, re.sub(r"\[F(,F)*\]", "[F..]", f)) for n, f in of]
            rf = [(n, re.sub(r"\[F(,F)*\]", "[F..]", f)) for n, f in rf]
        assert of == rf, f"{kind}: {of} != {rf}"
    core_forms = {c for f in ours if f.kind == "cpu" for c in f.core_forms}
    assert core_forms <= {"L%@F", "off"}, core_forms
    our_engines = [(n, f) for k, n, f in o if k == "engine"]
    real_engines = {n: f for k, n, f in r if k == "engine"}
    order = [n for k, n, f in r if k == "engine"]
    common = [n for n, _ in our_engines if n in real_engines]
    assert common == [n for n in order if n in dict(our_engines)], f"engine order {common} vs {order}"
    for name, form in our_engines:
        if form == "off" or real_engines.get(name) != "off":
            assert name not in real_engines or form in (real_engines[name], "F", "@F"), (name, form)
        else:  # this board runs an engine the real one had off
            assert form in ("F", "@F"), (name, form)
    for kind in ("temp", "rail"):
        assert {f for k, _, f in o if k == kind} == {f for k, _, f in r if k == kind}, kind


def close(a, b, tol):
    return abs(a - b) <= tol


def same_values(line, snap, board):
    """The line read back as scripts read it equals the board's sample."""
    r = subprocess.run([sys.executable, os.path.join(HERE, "read_like_scripts.py")], input=line,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout.splitlines()[-1])
    assert got["ram_used_mb"] == snap["ram.used"] // 1024 and got["ram_total_mb"] == snap["ram.total"] // 1024
    for n, cpu in enumerate(got["cpus"]):
        if cpu is None:
            assert snap[f"cpu.{n}.online"] is False
            continue
        assert close(cpu["load"], snap[f"cpu.{n}.load"], 0.5) and cpu["freq"] == snap[f"cpu.{n}.freq"] // 1000, n
    if "emc.load" in snap:
        assert close(got["emc"]["load"], snap["emc.load"], 0.5) and got["emc"]["freq"] == snap["emc.freq"] // 1000
    for key, value in snap.items():
        m = re.fullmatch(r"power\.(.+)\.power", key)
        if m:
            assert got["rails"][m.group(1)]["cur"] == value, key
    temps = {k: v for k, v in snap.items() if k.startswith("temp.")}
    for name, value in got["temps"].items():
        if name.startswith("dgpu"):
            assert value == snap[f"dgpu.{name[4:]}.temp"]
            continue
        key = "temp." + name.lower()
        assert key in temps and close(value, temps[key], 0.0005), (name, value)
    if board.startswith("agx-orin"):
        assert got["gpu"]["load"] == round(snap["gpu.load"])
        assert got["gpu"]["freqs"] == [snap["gpu.gpc0.freq"] // 1000, snap["gpu.gpc1.freq"] // 1000]


def test_boards():
    for board, (real_id, nvml) in BOARDS.items():
        with harness.Stack(JETSOND, None, board=board) as stack:
            if nvml:
                os.environ["FAKE_NVML_CONFIG"] = os.path.join(SOURCE_DIR, "tests/fixtures", board + ".nvml.json")
            stack.start_daemon(["--nvml-library", FAKE_NVML] if nvml else [])
            with_loads(stack, board)
            run = Lines([JETSONCTL, "tegrastats", "--interval", "200"])
            lines = run.read(3)
            snap = snapshot()
            run.end()
            fields = [check_line_text(line) for line in lines]
            has_stamp = [f[0].kind == "timestamp" for f in fields]
            assert has_stamp == [board != "nano-jp46"] * 3, (board, has_stamp)
            golden(board, lines[-1])
            if real_id:
                same_shape(fields[-1], ref.parse(REAL[real_id]["line"]), REAL[real_id]["gen"])
            same_values(lines[-1], snap, board)
            print(f"   {board}: {lines[-1].rstrip()}")


# Each release's own marks, on one board: JetPack 4 has no timestamp and
# rails without unit, JetPack 5 prints gated zones at -256C, 7.2 adds the
# maximum since the start.
FORMS = {
    "r32": ("jp4-nano-effex-1", lambda l: not STAMP.match(l) and " VDD_GPU_SOC 2392/2392" in l
            and "GR3D_FREQ 35%@306 " in l and "cv0@-256C" in l),
    "r35": ("jp5-agxorin64-gdwr-1", lambda l: "cv0@-256C" in l and "VDD_GPU_SOC 2392mW/2392mW " in l
            and "GR3D_FREQ 35%@[305,306] NVDEC 1075 VIC_FREQ 115 APE 233 " in l),
    "r36": ("jp6-agxorin64-abdele-1", lambda l: "cv0@" not in l and "NVJPG off NVJPG1 off VIC 115" in l),
    "r38": ("jp7-thor-r384-lesomnus-1", lambda l: "NVDEC0_FREQ @1075 " in l and "VIC 115" in l),
    "r39": ("jp72-orin-agx64-lesomnus-1", lambda l: "cpu@46.5C/46.5C " in l and "NVDEC0 1075 " in l
            and " VDDQ_VDD2_1V8AO 300mW/300mW/300mW\n" in l),
}


def test_formats():
    with harness.Stack(JETSOND, None, board="agx-orin-jp62") as stack:
        stack.start_daemon()
        with_loads(stack, "agx-orin-jp62")
        for form, (real_id, marks) in FORMS.items():
            run = Lines([JETSONCTL, "tegrastats", "--interval", "100", "--format", form])
            line = run.read(2)[-1]
            run.end()
            fields = check_line_text(line)
            assert marks(line), f"--format {form}: {line}"
            golden("agx-orin-jp62." + form, line)
            real = ref.parse(REAL[real_id]["line"])
            # The Nano's and the Thor's engines are not the Orin's: the
            # order and forms of the rest.
            o = [k for k, _, _ in ref.shape(fields, False) if k != "engine"]
            r = [k for k, _, _ in ref.shape(real, False) if k != "engine"]
            assert [k for i, k in enumerate(o) if i == 0 or o[i - 1] != k] == \
                [k for i, k in enumerate(r) if i == 0 or r[i - 1] != k] or form == "r32", form
            for kind in ("temp", "rail"):
                assert {f for k, _, f in ref.shape(fields) if k == kind} == \
                    {f for k, _, f in ref.shape(real) if k == kind}, (form, kind)


def usage_error(args, words):
    r = jetsonctl("tegrastats", *args, status=2)
    assert r.stdout == "" and words in r.stderr, (args, r.stderr)


def wait_lines(path, n, timeout=30):
    harness.wait_for(lambda: os.path.exists(path) and open(path).read().count("\n") >= n, timeout,
                     f"{n} lines in {path}")


def writers(exe):
    """PIDs of processes named tegrastats running EXE."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if open(f"/proc/{pid}/comm").read().strip() == "tegrastats" and \
                    os.path.realpath(f"/proc/{pid}/exe") == os.path.realpath(exe):
                out.append(int(pid))
        except OSError:
            pass
    return out


def test_command_line():
    tmp = tempfile.mkdtemp(prefix="tegrastats-test.")
    try:
        with harness.Stack(JETSOND, None, board="xavier-nx-jp51") as stack:
            stack.start_daemon()
            with_loads(stack, "xavier-nx-jp51")
            # Bad input: exit 2, one clear line, nothing on stdout.
            usage_error(["--format", "r99"], "--format must be r32, r35, r36, r38 or r39")
            usage_error(["--interval", "0"], "--interval 0 is out of range")
            usage_error(["--interval", "soon"], "interval")
            usage_error(["--bogus"], "bogus")
            usage_error(["--start"], "--logfile")
            usage_error(["--logfile", os.path.join(tmp, "no", "such", "dir")], "cannot open the log file")
            usage_error(["--logfile", tmp], "cannot open the log file")

            # --interval asks jetsond for samples that fast, while it runs.
            run = Lines([JETSONCTL, "tegrastats", "--interval", "100", "--readall", "--verbose"])
            run.read(2)
            assert jetsonctl("get", "--value", "cpu.0.online").stdout  # jetsond answers meanwhile
            interval = subprocess.run(["busctl", "--system", "get-property", "org.jetsond.Jetson1",
                                       "/org/jetsond/Jetson1", "org.jetsond.Jetson1.Metrics", "Interval"],
                                      capture_output=True, text=True).stdout.split()
            assert interval == ["t", "100000"], interval
            run.end(signal.SIGINT)

            # Slower than jetsond samples: one line every 2 s of the samples' time.
            run = Lines([JETSONCTL, "tegrastats", "--interval", "2000"])
            stamps = [time.mktime(time.strptime(line[:19], "%m-%d-%Y %H:%M:%S")) for line in run.read(3)]
            run.end()
            assert all(1 <= b - a <= 3 for a, b in zip(stamps, stamps[1:])), stamps

            # --logfile appends and every line is whole after SIGTERM.
            log = os.path.join(tmp, "tegrastats.log")
            with open(log, "w") as f:
                f.write("Mon Dec  7 00:00:00 UTC 2026\n")
            p = subprocess.Popen([JETSONCTL, "tegrastats", "--interval", "100", "--logfile", log],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            wait_lines(log, 4)
            p.send_signal(signal.SIGTERM)
            out, err = p.communicate(timeout=30)
            assert (p.returncode, out, err) == (0, "", ""), (p.returncode, out, err)
            text = open(log).read()
            assert text.startswith("Mon Dec  7 00:00:00 UTC 2026\n") and text.endswith("\n"), text
            for line in text.splitlines(keepends=True)[1:]:
                check_line_text(line)

            # The name tegrastats, as scripts call it. A copy of jetsonctl
            # of its own: --stop below ends every tegrastats of the
            # program, and other tests may run jetsonctl's at the time.
            own = os.path.join(tmp, "jetsonctl")
            shutil.copy(JETSONCTL, own)
            link = os.path.join(tmp, "tegrastats")
            os.symlink(own, link)
            run = Lines([link, "--interval", "100"])
            check_line_text(run.read(1)[0])
            run.end()
            r = subprocess.run([link, "--format", "r1"], capture_output=True, text=True)
            assert r.returncode == 2 and r.stdout == "" and "--format must be" in r.stderr, r

            # --start: in the background, the command returns at once;
            # --stop ends it, and never a process of another program
            # called tegrastats.
            decoy = os.path.join(tmp, "decoy")
            os.mkdir(decoy)
            shutil.copy("/bin/sleep", os.path.join(decoy, "tegrastats"))
            other = subprocess.Popen([os.path.join(decoy, "tegrastats"), "60"])
            bg_log = os.path.join(tmp, "background.log")
            r = subprocess.run([link, "--interval", "100", "--logfile", bg_log, "--start"],
                               capture_output=True, text=True, timeout=10)
            assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), r
            wait_lines(bg_log, 3)
            assert len(writers(own)) == 1, writers(own)
            r = subprocess.run([own, "tegrastats", "--stop"], capture_output=True, text=True, timeout=60)
            assert (r.returncode, r.stdout, r.stderr) == (0, "", ""), r
            harness.wait_for(lambda: not writers(own), 10, "the background tegrastats to end")
            assert other.poll() is None, "--stop ended another program's tegrastats"
            other.kill()
            other.wait()
            size = os.path.getsize(bg_log)
            time.sleep(0.5)
            assert os.path.getsize(bg_log) == size and open(bg_log).read().endswith("\n")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_unprivileged():
    """Any user: the same line as root's (nobody reads no debugfs here)."""
    with harness.Stack(JETSOND, None, board="agx-orin-jp62") as stack:
        stack.start_daemon()
        with_loads(stack, "agx-orin-jp62")

        def nobody():
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
        run = Lines([JETSONCTL, "tegrastats", "--interval", "200"], preexec_fn=nobody)
        line = run.read(2)[-1]
        run.end()
        golden("agx-orin-jp62", line)


if __name__ == "__main__":
    tests = [test_boards, test_formats, test_command_line, test_unprivileged]
    sys.exit(harness.run_tests([t for t in tests if not ONLY or t.__name__ in ONLY]))
