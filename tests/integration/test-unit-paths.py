#!/usr/bin/python3
"""Every path jetsond writes and every device it opens, against the rules
of its own unit (issue 34, item 2), without a VM:

    test-unit-paths.py JETSOND FAKE_NVML [BOARD...]

On every fake board (tests/fixtures/) jetsond runs on a copy under
strace -f, with python-dbusmock's polkitd allowing everything and its
systemd running nvfancontrol.service, and every write method of the
contract is called (NVPModel.SetMode/SetDefaultMode, JetsonClocks.SetActive/
SetOnBoot, Fan.SetSpeed/SetProfile, Gpu.SetScaling3D/SetRailgate,
Memory.CreateSwap/RemoveSwap/DropCaches, Manager.RestoreDefaults). On the
boards with NVIDIA GPUs the fake NVML opens the copy's dev/nvidiactl and
dev/nvidiaN as the driver library does ("device_nodes").

Every successful call of jetsond and its children (nvpmodel, jetson_clocks,
mkswap, swapon, ...) that writes a path (open for writing or creating,
rename, unlink, mkdir, truncate, link, symlink, mknod, chmod, utimes) is
mapped back to the board path (the sysroot prefix stripped, symlinks inside
the board resolved as the kernel would), and every device node opened (in
the board's /dev or the host's) is collected. systemd/jetsond.service.in
is read as systemd reads it (tests/integration/unit_sandbox.py) and the
test fails, printing each path with the rule that refuses it, if the unit
would refuse any of them. The checker itself must be able to fail: each
board's paths are also judged against the unit with PrivateDevices=yes and
with its CPU ReadWritePaths= line removed, and those must be refused.

Figures: paths and devices per board, seconds."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import dbus
import dbus.bus

SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import unit_sandbox  # noqa: E402

JETSOND, FAKE_NVML = (os.path.abspath(a) for a in sys.argv[1:3])
BOARDS = sys.argv[3:] or ["agx-orin-jp62", "agx-orin-jp72", "agx-thor-jp71", "orin-nano-jp62",
                          "xavier-nx-jp51", "nano-jp46", "x86-pc"]
UNIT = os.path.join(SOURCE_DIR, "systemd", "jetsond.service.in")
FIXTURES = os.path.join(SOURCE_DIR, "tests", "fixtures")
NAME, ROOT_PATH, PREFIX = "org.jetsond.Jetson1", "/org/jetsond/Jetson1", "org.jetsond.Jetson1."
ACTIONS = [PREFIX + a for a in ("read-serial", "set-fan", "set-nvpmodel", "set-jetson-clocks", "manage-swap",
                                "drop-caches", "set-gpu")]
# Answers that mean "not on this board" or "not now": the call ran its
# checks, and what it would write on a board that has it is covered by
# another board.
EXPECTED_ERRORS = {PREFIX + "Error.NotSupported", PREFIX + "Error.RebootRequired",
                   "org.freedesktop.DBus.Error.UnknownMethod", "org.freedesktop.DBus.Error.UnknownInterface",
                   "org.freedesktop.DBus.Error.UnknownObject"}

WRITE_CALLS = ("open", "openat", "openat2", "creat", "rename", "renameat", "renameat2", "unlink", "unlinkat",
               "rmdir", "mkdir", "mkdirat", "truncate", "link", "linkat", "symlink", "symlinkat", "mknod",
               "mknodat", "chmod", "fchmodat", "utimensat", "utimes", "utime")
# Which arguments of each call are paths it changes: (dirfd index or
# None, path index).
PATH_ARGS = {
    "open": [(None, 0)], "creat": [(None, 0)], "openat": [(0, 1)], "openat2": [(0, 1)],
    "rename": [(None, 0), (None, 1)], "renameat": [(0, 1), (2, 3)], "renameat2": [(0, 1), (2, 3)],
    "unlink": [(None, 0)], "unlinkat": [(0, 1)], "rmdir": [(None, 0)], "mkdir": [(None, 0)],
    "mkdirat": [(0, 1)], "truncate": [(None, 0)], "link": [(None, 1)], "linkat": [(2, 3)],
    "symlink": [(None, 1)], "symlinkat": [(1, 2)], "mknod": [(None, 0)], "mknodat": [(0, 1)],
    "chmod": [(None, 0)], "fchmodat": [(0, 1)], "utimensat": [(0, 1)], "utimes": [(None, 0)], "utime": [(None, 0)],
}
LINE = re.compile(r'^(\w+)\((.*)\)\s+= (-?\d+)(?:<(.*)>)?')
FD = re.compile(r'^(?:AT_FDCWD|\d+)<(.*)>$')


def split_args(text):
    """The top-level arguments of a strace call, as written."""
    out, depth, cur, quoted, i = [], 0, "", False, 0
    while i < len(text):
        c = text[i]
        if quoted:
            cur += c
            if c == "\\":
                cur += text[i + 1]
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted, cur = True, cur + c
        elif c in "[{(":
            depth, cur = depth + 1, cur + c
        elif c in "]})":
            depth, cur = depth - 1, cur + c
        elif c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        out.append(cur.strip())
    return out


def unquote(arg):
    """A strace string argument ("..." with C escapes, maybe cut with ...)."""
    if not arg.startswith('"'):
        return None
    body = arg[1:arg.rindex('"')]
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1").decode(
        "utf-8", "replace")


class Access:
    """One path written or device opened: its host path, the call, who."""

    def __init__(self, host, call, prog, open_access=None, writes=True, follow=True):
        self.host, self.call, self.prog = host, call, prog
        self.open_access = open_access       # "r"/"w"/"rw" for an open (judged as a device's under /dev)
        self.writes = writes                 # changes the file system at that path
        self.follow = follow                 # the last component is followed

    def is_device(self, path):
        return self.open_access is not None and path.startswith("/dev/")


def traced_accesses(trace_dir):
    """Every write and device open in the strace -ff files of TRACE_DIR."""
    out = []
    for name in sorted(os.listdir(trace_dir)):
        pid = name.rsplit(".", 1)[-1]
        prog = "jetsond"   # a thread of jetsond has no execve of its own
        for line in open(os.path.join(trace_dir, name), errors="replace"):
            if line.startswith("execve("):
                args = split_args(line[7:line.rfind(")")])
                prog = os.path.basename(unquote(args[0]) or "?") if args else prog
                continue
            m = LINE.match(line)
            if not m or m.group(1) not in WRITE_CALLS or int(m.group(3)) < 0:
                continue
            call, args, result_path = m.group(1), split_args(m.group(2)), m.group(4)
            who = f"{prog}[{pid}]"
            if call in ("open", "openat", "openat2", "creat"):
                flags = args[1 if call == "open" else 2] if call != "creat" else "O_WRONLY|O_CREAT"
                if call == "openat2":
                    flags = re.search(r"flags=([A-Z_|0-9x]+)", args[2]).group(1)
                acc = "rw" if "O_RDWR" in flags else "w" if "O_WRONLY" in flags else "r"
                writes = acc != "r" or "O_CREAT" in flags or "O_TRUNC" in flags
                # The kernel's own answer: the file the descriptor refers to.
                if result_path is not None:
                    out.append(Access(result_path, call, who, open_access=acc, writes=writes))
                continue
            for dir_i, path_i in PATH_ARGS[call]:
                if path_i >= len(args):
                    continue
                path = unquote(args[path_i])
                if path is None:       # utimensat(fd, NULL, ...): an open file
                    continue
                if not path.startswith("/"):
                    base = FD.match(args[dir_i]).group(1) if dir_i is not None and FD.match(args[dir_i]) else None
                    if base is None:
                        base = "/"   # relative to an unknown cwd: strace -y shows AT_FDCWD's
                    path = os.path.join(base, path)
                # rename, unlink, mkdir, link, symlink, mknod change the
                # entry itself, not what a symlink there points to.
                follow = call in ("truncate", "chmod", "fchmodat", "utimensat", "utimes", "utime")
                out.append(Access(os.path.normpath(path), call, who, follow=follow))
    return out


class Board:
    """Path mapping for one sysroot copy."""

    def __init__(self, root, test_dir):
        self.root, self.test_dir = os.path.realpath(root), os.path.realpath(test_dir)

    def resolve(self, path, follow=True, depth=0):
        """PATH (a board path) with every symlink inside the board followed,
        absolute targets taken from the board's root, as the kernel does on
        the board; the last component only if FOLLOW. A missing component
        ends the walk (the rest is kept as given)."""
        parts = [p for p in path.split("/") if p]
        cur = "/"
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            nxt = "/" if part == ".." and cur == "/" else os.path.dirname(cur) if part == ".." else \
                cur if part == "." else os.path.join(cur, part)
            host = self.root + nxt
            if os.path.islink(host) and (follow or not last) and depth < 40:
                target = os.readlink(host)
                base = "/" if target.startswith("/") else cur
                nxt = self.resolve(os.path.normpath(os.path.join(base, target)), True, depth + 1)
            elif not os.path.lexists(host):
                return os.path.normpath(os.path.join(nxt, *parts[i + 1:]))
            cur = nxt
        return cur

    def exists(self, path):
        return os.path.lexists(self.root + self.resolve(path))

    def board_path(self, host):
        """The board path of the host path HOST; None for the test's own
        files (the bus, the fake NVML's JSON, the fakes' call log)."""
        if host == self.root or host.startswith(self.root + "/"):
            path = host[len(self.root):] or "/"
            return None if path == "/.fake" or path.startswith("/.fake/") else path
        if host.startswith(self.test_dir + "/"):
            return None
        return host   # the host's own (/dev/null, /proc/self/...): the same on the board


# ---- the run -----------------------------------------------------------------
class TracedStack(harness.Stack):
    def start_traced(self, extra):
        self.trace_dir = os.path.join(self.dir, "trace")
        os.mkdir(self.trace_dir)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")   # the fake tools' own caches are not the board's
        # LeakSanitizer cannot run under ptrace (an ASan build); the other
        # suites check for leaks.
        env["ASAN_OPTIONS"] = ":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "detect_leaks=0"]))
        args = ["strace", "-ff", "-qq", "-z", "-y", "-s", "4096", "-o", os.path.join(self.trace_dir, "t"),
                "-e", "trace=" + ",".join(("execve",) + WRITE_CALLS),
                self.jetsond_path, "--sysroot", self.root, "--system", *extra]
        self.daemon_log = open(os.path.join(self.dir, "jetsond.log"), "ab")
        self.daemon = subprocess.Popen(args, stderr=self.daemon_log, env=env)
        harness.wait_for(self.name_owned, 60, "jetsond (under strace) on the bus")
        self.bus = dbus.bus.BusConnection(self.address)

    def stop_traced(self):
        pid = int(self.bus.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                         "GetConnectionUnixProcessID", "s", [NAME]))
        os.kill(pid, signal.SIGTERM)
        assert self.daemon.wait(timeout=60) == 0, "jetsond (under strace) did not end cleanly on SIGTERM"
        self.daemon = None
        self.bus.close()


def call(bus, path, iface, method, sig="", args=()):
    try:
        bus.call_blocking(NAME, path, PREFIX + iface, method, sig, list(args), timeout=120)
        return ""
    except dbus.exceptions.DBusException as e:
        return e.get_dbus_name() + ": " + str(e.get_dbus_message())


def prop(bus, path, iface, name):
    try:
        return bus.call_blocking(NAME, path, "org.freedesktop.DBus.Properties", "Get", "ss",
                                 [PREFIX + iface, name], timeout=60)
    except dbus.exceptions.DBusException:
        return None


def fans(bus):
    try:
        xml = bus.call_blocking(NAME, ROOT_PATH + "/fan", "org.freedesktop.DBus.Introspectable", "Introspect", "", [])
    except dbus.exceptions.DBusException:
        return []   # no fan on this board (the PC)
    return [ROOT_PATH + "/fan/" + n for n in re.findall(r'<node name="(\d+)"', xml)]


def exercise(bus):
    """Every write method of the contract that this board offers, each
    setting changed and put back; [(method, answer)]."""
    done = []

    def do(path, iface, method, sig="", args=()):
        done.append((f"{iface}.{method}{tuple(args)!r}", call(bus, path, iface, method, sig, args)))
        return done[-1][1]

    modes = prop(bus, ROOT_PATH, "NVPModel", "Modes") or []
    current = prop(bus, ROOT_PATH, "NVPModel", "Mode")
    for mode_id, _ in modes:
        if mode_id != current and do(ROOT_PATH, "NVPModel", "SetMode", "u", [mode_id]) == "":
            break
    if modes:
        do(ROOT_PATH, "NVPModel", "SetDefaultMode", "u", [modes[-1][0]])
        do(ROOT_PATH, "NVPModel", "SetDefaultMode", "u", [modes[0][0]])
    else:
        do(ROOT_PATH, "NVPModel", "SetMode", "u", [0])
    for active in (True, False):
        do(ROOT_PATH, "JetsonClocks", "SetActive", "b", [active])
        do(ROOT_PATH, "JetsonClocks", "SetOnBoot", "b", [active])
    for fan in fans(bus):
        do(fan, "Fan", "SetSpeed", "d", [60.0])
        for profile in prop(bus, fan, "Fan", "Profiles") or []:
            do(fan, "Fan", "SetProfile", "s", [profile])
    for setting in ("Scaling3D", "Railgate"):
        was = prop(bus, ROOT_PATH, "Gpu", setting)
        for value in ((not was, bool(was)) if was is not None else (False,)):
            do(ROOT_PATH, "Gpu", "Set" + setting, "b", [value])
    do(ROOT_PATH, "Memory", "CreateSwap", "tb", [64 << 20, True])
    do(ROOT_PATH, "Memory", "RemoveSwap")
    do(ROOT_PATH, "Memory", "DropCaches")
    do(ROOT_PATH, "Manager", "RestoreDefaults")
    return done


def nvml_setup(stack, board):
    """The fake NVML for a board with NVIDIA GPUs, opening the copy's
    dev/nvidiactl and dev/nvidiaN (plain files here); extra arguments."""
    fixture = os.path.join(FIXTURES, board + ".nvml.json")
    os.environ.pop("FAKE_NVML_CONFIG", None)
    if not os.path.exists(fixture):
        return []
    config = json.load(open(fixture))
    dev = os.path.join(stack.root, "dev")
    os.makedirs(dev, exist_ok=True)
    for name in ["nvidiactl"] + [f"nvidia{i}" for i in range(len(config["devices"]))]:
        open(os.path.join(dev, name), "w").close()
    config["device_nodes"] = dev
    path = os.path.join(stack.dir, "nvml.json")
    with open(path, "w") as f:
        json.dump(config, f)
    os.environ["FAKE_NVML_CONFIG"] = path
    return ["--nvml-library", FAKE_NVML]


def on_board(board, accesses):
    """(access, board path) of each access inside the board, its symlinks
    resolved in the board."""
    for a in accesses:
        path = board.board_path(a.host)
        if path is not None:
            yield a, board.resolve(path, a.follow)


def judge(sandbox, board, accesses):
    """[(board path, what, rule)] of what SANDBOX refuses."""
    refused, seen = [], set()
    for a, path in on_board(board, accesses):
        if a.is_device(path):
            key = ("dev", path, a.open_access)
            rule = sandbox.device_rule(path, unit_sandbox.device_names(path), a.open_access)
            what = f"open {a.open_access} by {a.prog}"
        elif not a.writes:
            continue
        else:
            key = ("file", path)
            rule = sandbox.write_rule(path)
            what = f"{a.call} by {a.prog}"
        if key in seen:
            continue
        seen.add(key)
        # A directory the fake board lacks, made on the way to a directory
        # the unit itself creates or mounts (/run for /run/jetsond): under
        # the unit it exists, so jetsond's mkdir -p never makes it.
        if rule and a.call in ("mkdir", "mkdirat") and sandbox.leads_to_writable(path):
            continue
        if rule:
            refused.append((path, what, rule))
    return refused


def collected(board, accesses):
    paths, devices = set(), set()
    for a, path in on_board(board, accesses):
        if a.is_device(path):
            devices.add(path)
        elif a.writes:
            paths.add(path)
    return paths, devices


def run_board(board_name, unit_text):
    start = time.monotonic()
    with TracedStack(JETSOND, None, board=board_name) as stack:
        stack.start_mock("polkitd", "org.freedesktop.PolicyKit1")
        stack.start_systemd_with_nvfancontrol()
        stack.polkit_allow(ACTIONS)
        extra = nvml_setup(stack, board_name)
        stack.start_traced(extra)
        # The NVML poller and the samplers run before anything is asked.
        harness.wait_for(lambda: call(stack.bus, ROOT_PATH, "Metrics", "GetSnapshot") == "", 30, "a snapshot")
        answers = exercise(stack.bus)
        stack.stop_traced()
        accesses = traced_accesses(stack.trace_dir)
        board = Board(stack.root, stack.dir)
        sandbox = unit_sandbox.Sandbox(unit_text, resolve=board.resolve, exists=board.exists)
        refused = judge(sandbox, board, accesses)
        paths, devices = collected(board, accesses)

        unexpected = [(m, a) for m, a in answers if a and a.split(":")[0] not in EXPECTED_ERRORS]
        print(f"---- {board_name}: {len(answers)} calls")
        for m, a in answers:
            print(f"  {m}: {a or 'ok'}")
        print(f"  written: {len(paths)} paths; devices opened: {', '.join(sorted(devices)) or 'none'}")
        for p in sorted(paths):
            print(f"    {p}")
        for err in sandbox.start_errors:
            print(f"  REFUSED (unit start): {err}")
        for path, what, rule in refused:
            print(f"  REFUSED {path} ({what}): {rule}")
        print(f"figure: {board_name}: {len(paths)} paths written, {len(devices)} devices opened, "
              f"{len(answers)} calls in {time.monotonic() - start:.1f} s")

        # The checker can fail: a unit without the CPU subtree refuses
        # what nvpmodel and jetson_clocks write there, and PrivateDevices=yes
        # hides the NVIDIA nodes.
        cpu_line = "ReadWritePaths=-/sys/devices/system/cpu\n"
        assert cpu_line in unit_text
        tighter = unit_sandbox.Sandbox(unit_text.replace(cpu_line, "") + "\n[Service]\nPrivateDevices=yes\n",
                                       resolve=board.resolve, exists=board.exists)
        cpu_written = [p for p in paths if p.startswith("/sys/devices/system/cpu/")]
        nodes = [p for p in devices if "nvidia" in p]
        refused_tighter = {p for p, _, _ in judge(tighter, board, accesses)}
        assert set(cpu_written) <= refused_tighter, "the checker let a read-only /sys/devices/system/cpu be written"
        assert set(nodes) <= refused_tighter, "the checker let PrivateDevices=yes open the NVIDIA nodes"
        return answers, refused, sandbox.start_errors, unexpected, paths, devices


def test_unit_paths():
    unit_text = open(UNIT).read()
    failures, methods_ok, all_calls = [], set(), set()
    for b in BOARDS:
        answers, refused, start_errors, unexpected, paths, devices = run_board(b, unit_text)
        failures += [f"{b}: {p} ({w}) refused by {r}" for p, w, r in refused]
        failures += [f"{b}: {e}" for e in start_errors]
        failures += [f"{b}: {m} answered {a}" for m, a in unexpected]
        if os.path.exists(os.path.join(FIXTURES, b + ".nvml.json")):
            if "/dev/nvidiactl" not in devices:
                failures.append(f"{b}: NVML never opened /dev/nvidiactl")
        for m, a in answers:
            all_calls.add(m.split("(")[0])
            if not a:
                methods_ok.add(m.split("(")[0])
    # Every write method succeeded on some board: each was really covered.
    missing = sorted(all_calls - methods_ok)
    if len(BOARDS) > 1 and missing:
        failures.append("never succeeded on any board: " + ", ".join(missing))
    assert not failures, "the unit would refuse or the run missed:\n  " + "\n  ".join(failures)


if __name__ == "__main__":
    if not shutil.which("strace"):
        print("strace is not installed (scripts/install-deps.sh)")
        sys.exit(77)
    sys.exit(harness.run_tests([test_unit_paths]))
