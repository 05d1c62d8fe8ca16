#!/usr/bin/python3
"""jetsond --user, as an unprivileged user: a private session bus and
D-Bus activation from a copy of the session activation file, on a copy of
a fake board with files the user may not read:

    test-user-mode.py JETSOND FAKE_NVML JETSONCTL EXPORTER SESSION_ACTIVATION_FILE

Run as root, everything (bus, jetsond, clients) runs as nobody and the
hidden files are root's, mode 0400 or 0700; run as another user, as that
user with the files at mode 0. On the PC board (fake NVML, a RAPL
package's energy counter hidden) and on the AGX Orin (debugfs hidden):
jetsonctl --user, jetsond-exporter --user and Python's
Jetson(bus="session") read it; what the user may not read is absent where
jetsond --once as the test's own user had it, never 0, and said once in the
log; every write method of the contract (read from the introspection XML)
is refused at once with Error.ReadOnly and its message, whatever its
arguments and whether the board has the hardware, polkit never asked (the
test has none: asking would answer AccessDenied); no state directory made.
No session bus at all: jetsonctl --user, jetsond --user, the exporter and
Python say so in words."""

import glob
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
import harness  # noqa: E402  (wait_for, run_tests, the exposition parser)

JETSOND, FAKE_NVML, JETSONCTL, EXPORTER, ACTIVATION = (os.path.abspath(a) for a in sys.argv[1:6])
NVML_FIXTURE = os.path.join(SOURCE_DIR, "tests", "fixtures", "x86-pc.nvml.json")
READ_ONLY = "org.jetsond.Jetson1.Error.ReadOnly"

if os.geteuid() == 0:
    USER = pwd.getpwnam("nobody")
    UID, GID = USER.pw_uid, USER.pw_gid
else:
    UID, GID = os.getuid(), os.getgid()


def drop():
    """In the child, before exec: the test user, no supplementary groups."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(GID)
        os.setuid(UID)


def hide(path):
    """PATH unreadable for the test user: root's at 0400 (a file) or 0700
    (a directory) when the test runs as root, else mode 0 (its owner has no
    rights left either)."""
    if os.geteuid() == 0:
        os.chown(path, 0, 0)
        os.chmod(path, 0o700 if os.path.isdir(path) else 0o400)
    else:
        os.chmod(path, 0)


def write_methods():
    """(interface, method, in-signature) of every method whose PolkitAction
    names a change (every action but read-serial), from the XML as text:
    comments first, since they quote XML."""
    found = []
    for path in sorted(glob.glob(os.path.join(SOURCE_DIR, "introspection", "*.xml"))):
        text = re.sub(r"<!--.*?-->", "", open(path, encoding="utf-8").read(), flags=re.S)
        for iface, body in re.findall(r'<interface\s+name="([^"]+)">(.*?)</interface>', text, flags=re.S):
            for name, inner in re.findall(r'<method\s+name="(\w+)"\s*(?:/>|>(.*?)</method>)', body, flags=re.S):
                m = re.search(r'name="org\.jetsond\.Jetson1\.PolkitAction"\s+value="([^"]*)"', inner or "")
                if not m or not set(m.group(1).split()) - {"org.jetsond.Jetson1.read-serial"}:
                    continue
                sig = "".join(re.search(r'type="([^"]+)"', a).group(1)
                              for a in re.findall(r"<arg\b[^>]*>", inner)
                              if 'direction="out"' not in a)
                found.append((iface, name, sig))
    assert len(found) >= 10, f"only {len(found)} write methods found in introspection/*.xml"
    return found


# Run as the test user with Python's jetsond package: reads, then every
# write through the package's own bus, each answer's error name, message
# and time.
CLIENT = r'''
import json, sys, time
import jetsond
from jetsond._bus import PATH

writes, paths = json.loads(sys.argv[1]), json.loads(sys.argv[2])
DUMMY = {"s": "", "b": False, "d": 50.0, "y": 0, "n": 0, "q": 0, "i": 0, "u": 0, "x": 0, "t": 0}


def args(sig):
    out = []
    while sig:
        if sig[0] == "a":
            out.append([])
            sig = sig[2:]
        else:
            out.append(DUMMY[sig[0]])
            sig = sig[1:]
    return tuple(out)


with jetsond.Jetson(bus="session") as board:
    result = {"snapshot": dict(board.snapshot()), "identity": board.identity()}
    try:
        result["serial"] = board.serial_number()
    except jetsond.JetsondError as e:
        result["serial"] = e.dbus_name
    board._bus.jcall("Metrics", "Subscribe", "t", (100000,))   # a read that is a method: served
    answers = []
    for iface, method, sig in writes:
        start = time.monotonic()
        try:
            board._bus.jcall(iface.rsplit(".", 1)[1], method, sig, args(sig), path=paths.get(iface, PATH))
            answers.append([iface, method, "no error", "", 0])
        except jetsond.JetsondError as e:
            answers.append([iface, method, e.dbus_name, str(e), time.monotonic() - start,
                            isinstance(e, jetsond.ReadOnly)])
    result["writes"] = answers
    try:
        board.drop_caches()
        result["drop_caches"] = "no error"
    except jetsond.ReadOnly as e:
        result["drop_caches"] = "ReadOnly: " + str(e)
print(json.dumps(result))
'''

BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
# jetsonctl's completion of the line $1, split at blanks (as bash splits
# one without = and :), run as tests/client/test-completion.py runs it.
COMPLETE = r'''
source /usr/share/bash-completion/bash_completion
source "$2"
COMP_LINE=$1
COMP_POINT=${#COMP_LINE}
read -r -a COMP_WORDS <<<"$1"
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_jetsonctl
printf '%s\n' "${COMPREPLY[@]}"
'''

OBJECT_PATHS = {"org.jetsond.Jetson1.Fan": "/org/jetsond/Jetson1/fan/0",
                "org.jetsond.Jetson1.DiscreteGpu": "/org/jetsond/Jetson1/dgpu/0"}


class UserStack:
    """A session bus of the test user's, jetsond --user activated on it
    from a copy of the shipped activation file, on a copy of BOARD."""

    def __init__(self, board, nvml=False):
        self.dir = tempfile.mkdtemp(prefix="jetsond-user-test.")
        os.chmod(self.dir, 0o755)
        self.bus_pid = self.bus_out = self.exporter = None
        self.root = os.path.join(self.dir, "root")
        subprocess.run(["sh", os.path.join(SOURCE_DIR, "tests/fixtures/make-sysroot.sh"), board, self.root],
                       check=True, stdout=subprocess.DEVNULL)
        # Where the system service keeps its state, writable by the test
        # user and without the service's directories (the fake boards
        # bring /var/lib/jetsond): a jetsond --user that made them would.
        for d in ("var/lib", "run"):
            os.makedirs(os.path.join(self.root, d), exist_ok=True)
            shutil.rmtree(os.path.join(self.root, d, "jetsond"), ignore_errors=True)
            os.chown(os.path.join(self.root, d), UID, GID)
        self.bus_dir = os.path.join(self.dir, "bus")
        os.makedirs(os.path.join(self.bus_dir, "services"))
        self.nvml_args = ""
        self.env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": self.dir,
                    "PYTHONPATH": os.path.join(SOURCE_DIR, "python"),
                    # Not the machine's system bus, if it has one: nothing
                    # of the host's systemd or polkit.
                    "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=" + os.path.join(self.dir, "no-system-bus")}
        if nvml:
            shutil.copy(NVML_FIXTURE, os.path.join(self.dir, "nvml.json"))
            self.env["FAKE_NVML_CONFIG"] = os.path.join(self.dir, "nvml.json")
            self.nvml_args = " --nvml-library " + FAKE_NVML

    def once(self):
        """jetsond --once --json as the test's own user: what a reader with
        every right sees of the copy."""
        out = subprocess.run([JETSOND, "--once", "--json", "--interval", "200", "--sysroot", self.root,
                              *(["--nvml-library", FAKE_NVML] if self.nvml_args else [])],
                             env=self.env, check=True, capture_output=True, text=True, timeout=60).stdout
        return json.loads(out)["values"]

    def start_bus(self):
        """The session bus, as the test user, activating jetsond --user with
        the shipped activation file's lines, Exec= pointed at the build."""
        text = open(ACTIVATION).read()
        exec_line = re.search(r"(?m)^Exec=(\S+) --user$", text)
        assert exec_line, f"{ACTIVATION}: no Exec=... --user line"
        text = text.replace(exec_line.group(0), f"Exec={JETSOND} --user --sysroot {self.root} --interval 200"
                            + self.nvml_args)
        with open(os.path.join(self.bus_dir, "services", "org.jetsond.Jetson1.service"), "w") as f:
            f.write(text)
        with open(os.path.join(self.bus_dir, "session.conf"), "w") as f:
            f.write(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir={self.bus_dir}</listen>
  <auth>EXTERNAL</auth>
  <servicedir>{self.bus_dir}/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
""")
        os.chown(self.bus_dir, UID, GID)
        self.log_path = os.path.join(self.dir, "bus.log")
        # --nofork: jetsond, activated by it, inherits its stderr (the log).
        self.bus = subprocess.Popen(["dbus-daemon", "--config-file=" + os.path.join(self.bus_dir, "session.conf"),
                                     "--nofork", "--nopidfile", "--print-address=1"],
                                    env=self.env, preexec_fn=drop, stdout=subprocess.PIPE,
                                    stderr=open(self.log_path, "ab"), text=True)
        self.address = self.bus.stdout.readline().strip()
        assert self.address.startswith("unix:"), f"dbus-daemon printed {self.address!r}"
        self.env["DBUS_SESSION_BUS_ADDRESS"] = self.address

    def run(self, *cmd, env=None, timeout=60):
        return subprocess.run(list(cmd), env=env or self.env, preexec_fn=drop, capture_output=True, text=True,
                              timeout=timeout)

    def jetsond_pid(self):
        r = self.run("gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
                     "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.GetConnectionUnixProcessID",
                     "org.jetsond.Jetson1")
        m = re.search(r"uint32 (\d+)", r.stdout)
        return int(m.group(1)) if m else None

    def python(self, writes):
        r = self.run("/usr/bin/python3", "-c", CLIENT, json.dumps(writes), json.dumps(OBJECT_PATHS))
        assert r.returncode == 0, f"Python client failed: {r.stderr}"
        return json.loads(r.stdout)

    def scrape(self):
        """jetsond-exporter --user on a socket passed as systemd passes it."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        port = listener.getsockname()[1]
        env = dict(self.env)

        def pass_socket():
            drop()
            if listener.fileno() == 3:  # dup2(3, 3) would leave it close-on-exec
                os.set_inheritable(3, True)
            else:
                os.dup2(listener.fileno(), 3)
            os.environ.clear()
            os.environ.update(env, LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))

        self.exporter = subprocess.Popen([EXPORTER, "--user"], preexec_fn=pass_socket, close_fds=False,
                                         stderr=open(os.path.join(self.dir, "exporter.log"), "ab"))
        listener.close()
        try:
            import http.client

            def get():
                try:
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                    c.request("GET", "/metrics")
                    r = c.getresponse()
                    return r.status, r.read().decode()
                except OSError:
                    return None
            # Its first page may come before its first sample of jetsond.
            status, text = harness.wait_for(lambda: (lambda r: r if r and "\njetson_dgpu_" in r[1] else None)(get()),
                                            10, "the exporter's /metrics with jetsond's sample")
            assert status == 200, f"/metrics: HTTP {status}"
            return text
        finally:
            self.exporter.send_signal(signal.SIGTERM)
            self.exporter.wait(timeout=30)
            self.exporter = None

    def log(self):
        return open(self.log_path, errors="replace").read()

    def close(self):
        if self.exporter:
            self.exporter.kill()
            self.exporter.wait()
        pid = self.jetsond_pid() if getattr(self, "bus", None) else None
        if pid:
            # Not our child (the bus started it): wait for it by /proc.
            os.kill(pid, signal.SIGTERM)
            harness.end_processes(lambda: [pid] if running(pid) else [])
        if getattr(self, "bus", None):
            self.bus.terminate()
            self.bus.wait(timeout=30)
            self.bus.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if exc[0] is not None:
            for name in ("bus.log", "exporter.log"):
                if os.path.exists(os.path.join(self.dir, name)):
                    sys.stderr.write(f"---- {name}\n" + open(os.path.join(self.dir, name), errors="replace").read())
        self.close()


def running(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def check_writes(stack, answers, board):
    """Every write answered ReadOnly at once, with the message naming it."""
    assert len(answers) == len(write_methods())
    for iface, method, name, message, took, *is_read_only in answers:
        what = f"{board}: {iface}.{method}"
        assert name == READ_ONLY, f"{what}: {name} {message!r}, expected {READ_ONLY}"
        assert is_read_only == [True], f"{what}: Python raised no jetsond.ReadOnly"
        short = iface.rsplit(".", 1)[1]
        for words in ("per-user jetsond", "cannot change the board", f"{short}.{method}()", "system service"):
            assert words in message, f"{what}: {words!r} not in {message!r}"
        assert took < 5, f"{what}: refused after {took:.1f} s, not at once"
    log = stack.log()
    assert "polkit" not in log.lower(), f"{board}: polkit in the log:\n{log}"


def check_no_state(stack):
    for d in ("var/lib/jetsond", "run/jetsond"):
        assert not os.path.exists(os.path.join(stack.root, d)), f"jetsond --user made /{d}"


def test_pc_board():
    with UserStack("x86-pc", nvml=True) as s:
        reference = s.once()
        hidden = "/sys/class/powercap/intel-rapl:0/energy_uj"
        for key in ("power.RAPL_PACKAGE_0.power", "energy.RAPL_PACKAGE_0", "power.RAPL_PACKAGE_0_CORE.power"):
            assert key in reference, f"jetsond --once as the test's user lacks {key}"
        hide(s.root + hidden)
        s.start_bus()

        # The first client starts jetsond through the activation file.
        assert s.jetsond_pid() is None, "jetsond runs before any client asked"
        r = s.run(JETSONCTL, "--user", "status")
        assert r.returncode == 0, f"jetsonctl --user status: {r.returncode} {r.stderr}"
        assert "dGPU 0" in r.stdout and "RAPL_PACKAGE_0_CORE" in r.stdout, r.stdout
        assert not re.search(r"\bRAPL_PACKAGE_0\s", r.stdout), f"the hidden zone shows:\n{r.stdout}"
        pid = s.jetsond_pid()
        assert pid and open(f"/proc/{pid}/status").read().count(f"\t{UID}\t") >= 1, "jetsond is not the user's"
        r = s.run(JETSONCTL, "--user", "get", "dgpu.0.power")
        assert r.returncode == 0 and r.stdout.strip() == "dgpu.0.power=231000", (r.returncode, r.stdout, r.stderr)
        r = s.run(JETSONCTL, "--user", "get", "power.RAPL_PACKAGE_0.power")
        assert r.returncode == 1 and not r.stdout, f"the hidden zone's power: {r.stdout!r}"

        # Completion asks the jetsond the command line names.
        if os.path.exists(BASH_COMPLETION):
            r = s.run("bash", "-c", COMPLETE, "bash", "jetsonctl --user get dgpu.0.pow",
                      os.path.join(SOURCE_DIR, "completion", "jetsonctl"),
                      env=dict(s.env, PATH=os.path.dirname(JETSONCTL) + ":" + s.env["PATH"]))
            assert {"dgpu.0.power", "dgpu.0.power_limit"} <= set(r.stdout.split()), (r.stdout, r.stderr)

        got = s.python(write_methods())
        snap = got["snapshot"]
        assert snap.get("dgpu.0.power") == 231000, snap.get("dgpu.0.power")
        assert "power.RAPL_PACKAGE_0_CORE.power" in snap and "energy.RAPL_PACKAGE_0_CORE" in snap
        for key in ("power.RAPL_PACKAGE_0.power", "energy.RAPL_PACKAGE_0"):
            assert key not in snap, f"{key} = {snap[key]!r}: the user cannot read {hidden}"
        check_writes(s, got["writes"], "x86-pc")
        assert got["drop_caches"].startswith("ReadOnly: "), got["drop_caches"]

        samples = harness.parse_samples(s.scrape())
        assert harness.value(samples, "jetson_dgpu_power_watts", gpu="0") == 231.0
        rails = {dict(ls).get("rail") for (n, ls) in samples if n == "jetson_rail_power_watts"}
        assert "RAPL_PACKAGE_0_CORE" in rails and "RAPL_PACKAGE_0" not in rails, rails

        lines = [line for line in s.log().splitlines() if hidden in line]
        assert len(lines) == 1 and "not readable by this user" in lines[0], \
            f"expected one log line for {hidden}:\n{s.log()}"
        check_no_state(s)


def test_jetson_board():
    with UserStack("agx-orin-jp62") as s:
        reference = s.once()
        # debugfs: the EMC's activity monitor and nvmap's GPU clients.
        from_debugfs = ["emc.load", "emc.freq"] + [k for k in reference if re.match(r"process\.\d+\.gpu_mem$", k)]
        assert all(k in reference for k in from_debugfs) and len(from_debugfs) > 2, from_debugfs
        hide(os.path.join(s.root, "sys/kernel/debug"))
        s.start_bus()

        r = s.run(JETSONCTL, "--user", "status")
        assert r.returncode == 0 and "AGX Orin" in r.stdout, f"jetsonctl --user status: {r.stdout} {r.stderr}"
        got = s.python(write_methods())
        snap = got["snapshot"]
        for key in from_debugfs:
            assert key not in snap, f"{key} = {snap[key]!r}: the user cannot enter /sys/kernel/debug"
        for key in ("gpu.load", "power.total", "ram.used", "temp.cpu"):
            assert key in snap, f"{key} missing: readable by the user"
        assert got["identity"].get("model"), got["identity"]
        # The user's own read, without polkit: the serial, or that the
        # board shows none (the test's reference says which).
        assert got["serial"] and got["serial"] != "org.freedesktop.DBus.Error.AccessDenied", got["serial"]
        check_writes(s, got["writes"], "agx-orin-jp62")

        # jetsonctl's own path to a write: jetsond's message, exit 1.
        r = s.run(JETSONCTL, "--user", "--no-ask-password", "fan", "speed", "50")
        assert r.returncode == 1 and "per-user jetsond" in r.stderr, (r.returncode, r.stderr)
        r = s.run(JETSONCTL, "--user", "nvpmodel", "set", "0")
        assert r.returncode == 1 and "per-user jetsond" in r.stderr, (r.returncode, r.stderr)

        lines = [line for line in s.log().splitlines() if "/sys/kernel/debug" in line]
        assert len(lines) == 1 and "may not enter" in lines[0], \
            f"expected one log line for /sys/kernel/debug:\n{s.log()}"
        check_no_state(s)


def test_no_session_bus():
    """No DBUS_SESSION_BUS_ADDRESS and no XDG_RUNTIME_DIR (su, a cron job),
    then an XDG_RUNTIME_DIR where no bus listens: jetsonctl --user,
    jetsond --user and jetsond-exporter --user say so in one line and exit
    1, no crash; Python raises NotRunning with the same words."""
    d = tempfile.mkdtemp(prefix="jetsond-user-test.")
    try:
        os.chmod(d, 0o755)
        runtime = os.path.join(d, "runtime")
        os.makedirs(runtime)
        os.chown(runtime, UID, GID)
        base = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONPATH": os.path.join(SOURCE_DIR, "python")}
        python = "import jetsond\ntry:\n    jetsond.Jetson(bus='session')\nexcept jetsond.NotRunning as e:\n" \
                 "    print(e)\n    raise SystemExit(3)\n"
        for env, words in ((base, "neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set"),
                           (dict(base, XDG_RUNTIME_DIR=runtime), "nothing listens")):
            with socket.socket() as free:   # a port for the exporter, which listens first
                free.bind(("127.0.0.1", 0))
                port = free.getsockname()[1]
            for cmd in ([JETSONCTL, "--user", "status"], [JETSOND, "--user", "--sysroot", d],
                        [EXPORTER, "--user", "--listen", f"127.0.0.1:{port}"]):
                r = subprocess.run(cmd, env=env, preexec_fn=drop, capture_output=True, text=True, timeout=30)
                assert r.returncode == 1 and words in r.stderr, f"{cmd}: exit {r.returncode}: {r.stderr!r}"
            r = subprocess.run(["/usr/bin/python3", "-c", python], env=env, preexec_fn=drop, capture_output=True,
                               text=True, timeout=30)
            if "XDG_RUNTIME_DIR" in env:
                assert r.returncode == 3 and "cannot connect" in r.stdout, (r.returncode, r.stdout, r.stderr)
            else:
                assert r.returncode == 3 and words in r.stdout, (r.returncode, r.stdout, r.stderr)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(harness.run_tests([test_pc_board, test_jetson_board, test_no_session_bus]))
