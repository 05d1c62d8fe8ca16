#!/usr/bin/python3
"""The checks of scripts/test-vm.sh, run inside the booted Debian 12 VM by
jetsond-vmtest.service (tests/vm/README.md).

jetsond is the installed package under its own unit, started by D-Bus
activation. Each fake board is laid over the VM's real paths so that the
unit's own mounts apply to it: the board's /sys subtrees are bind-mounted
over the VM's, its /etc and /var/lib files copied into place, its tools
installed where the board has them (swap uses the VM's real util-linux and
kernel). /proc stays the VM's own: ProtectProc= gives the service a procfs
of its own. NVML is the fake NVML installed as libnvidia-ml.so.1, opening
/dev/nvidiactl and /dev/nvidiaN, which are CUSE devices registered as the
NVIDIA driver registers its nodes ("195 nvidia-frontend", "195 nvidia").

Output goes to the second serial port; the last line is
"vm: N passed, N failed" and the VM powers off after it.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

T = "/opt/jetsond-vmtest"
BUS = ["org.jetsond.Jetson1", "/org/jetsond/Jetson1"]
IFACE = "org.jetsond.Jetson1."
passed = failed = 0


def say(*a):
    print(*a, flush=True)


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        say("ok   " + what)
    else:
        failed += 1
        say("FAIL " + what + (": " + detail if detail else ""))
    return ok


def run(cmd, user=None, check_rc=False, timeout=120):
    if user:
        cmd = ["runuser", "-u", user, "--"] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if check_rc and p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(cmd), p.stderr.strip()))
    return p


def busctl(args, user=None, path=None):
    obj = BUS[:1] + [path or BUS[1]]
    return run(["busctl", "--system", "--timeout=60"] + args[:1] + obj + args[1:], user=user)


def snapshot():
    p = run(["busctl", "--system", "--json=short", "--timeout=60", "call"] + BUS + [IFACE + "Metrics", "GetSnapshot"])
    if p.returncode != 0:
        return None, p.stderr.strip()
    data = json.loads(p.stdout)["data"]
    return {k: v["data"] for k, v in data[1].items()}, ""


def unit_prop(unit, prop):
    return run(["systemctl", "show", "-P", prop, unit]).stdout.strip()


# ---- the board ---------------------------------------------------------------
ETC_KEEP = {"passwd", "group", "hostname", "os-release", "fstab", "shadow", "gshadow"}


class Board:
    def __init__(self, name):
        self.name = name
        self.src = os.path.join(T, "boards", name)
        self.mounts = []
        self.copied = []

    def lay(self):
        for sub in sorted(os.listdir(os.path.join(self.src, "sys"))):
            dst = os.path.join("/sys", sub)
            # /sys/block stays the VM's: its disks are those of the VM's
            # /proc/diskstats (disk.read_bytes, disk.write_bytes).
            if os.path.isdir(dst) and sub != "block":
                run(["mount", "--bind", os.path.join(self.src, "sys", sub), dst], check_rc=True)
                self.mounts.append(dst)
        # File by file, so that removing the board later takes away only
        # what it brought (never a directory of the VM's own).
        for top in ("etc", "var/lib", "usr/sbin", "usr/bin", "usr/lib/jetson-fake-tools"):
            base = os.path.join(self.src, top)
            for d, dirs, files in os.walk(base):
                rel = os.path.relpath(d, base)
                first = rel.split("/")[0]
                if top == "etc" and first in ETC_KEEP or top == "var/lib" and first == "dpkg":
                    continue            # the VM's own users, fstab and packages stay
                dd = os.path.normpath(os.path.join("/", top, rel))
                if not os.path.isdir(dd):
                    os.makedirs(dd)
                    self.copied.append(dd)
                for name in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
                    if top == "etc" and rel == "." and name in ETC_KEEP:
                        continue
                    if top == "usr/sbin" and name in ("mkswap", "swapon", "swapoff"):
                        continue        # the real ones: a real swap file
                    dst = os.path.join(dd, name)
                    if os.path.lexists(dst):
                        continue
                    shutil.copy2(os.path.join(d, name), dst, follow_symlinks=False)
                    self.copied.append(dst)
        open("/etc/jetson-fake-board", "w").write(self.name + "\n")
        run(["systemctl", "daemon-reload"], check_rc=True)

    def remove(self):
        run(["systemctl", "stop", "jetsond.service", "nvfancontrol.service"])
        run(["swapoff", "-a"])
        for m in reversed(self.mounts):
            run(["umount", "-l", m])
        for p in reversed(self.copied):
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            elif os.path.lexists(p):
                os.unlink(p)
        for p in ("/etc/jetson-fake-board", "/etc/jetsond-vmtest/nvml.json"):
            if os.path.exists(p):
                os.unlink(p)
        run(["systemctl", "daemon-reload"])

    def state(self):
        """Every regular file of the board as the VM now has it, by content."""
        out = {}
        files = [p for p in self.copied if os.path.isfile(p)] + ["/etc/fstab", "/proc/swaps"]
        for d, _, fs in os.walk(os.path.join(self.src, "sys")):
            files += [os.path.join(d, f) for f in fs]
        for d in ("/var/lib/jetsond", "/var/lib/nvpmodel", "/var/lib/nvfancontrol"):
            for dd, _, fs in os.walk(d):
                files += [os.path.join(dd, f) for f in fs]
        for f in files:
            if os.path.islink(f) or "/.fake" in f:
                continue
            try:
                with open(f, "rb") as fh:
                    out[f] = hashlib.sha1(fh.read(1 << 20)).hexdigest()
            except OSError:
                pass
        return out


def changed(before, after):
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


# ---- the checks ----------------------------------------------------------------
def normalize(key):
    key = re.sub(r"^process\.\d+\.", "process.P.", key)
    key = re.sub(r"^cpu\.\d+\.", "cpu.N.", key)
    return key


def gpu_process(board, pid):
    """Make the board's GPU process list name `pid` (another user's)."""
    nvml = os.path.join(T, "nvml", board + ".json")
    if os.path.exists(nvml):
        cfg = json.load(open(nvml))
        for dev in cfg["devices"]:
            for p in dev.get("processes", [])[:1]:
                p["pid"] = pid
        cfg["device_nodes"] = "/dev"
        os.makedirs("/etc/jetsond-vmtest", exist_ok=True)
        with open("/etc/jetsond-vmtest/nvml.json", "w") as f:
            json.dump(cfg, f)
    # nvmap's tables (jetsond reads maps where there is one, else
    # clients): the first user process of the board becomes bob's.
    clients = "/sys/kernel/debug/nvmap/iovmm/clients"
    if os.path.exists(clients):
        first = [l.split() for l in open(clients) if l.startswith("user")][0]
        old_pid = first[-2]
        for f in (clients, "/sys/kernel/debug/nvmap/iovmm/maps"):
            if os.path.exists(f):
                text = re.sub(r"(?<=\s)%s(?=\s)" % old_pid, str(pid), open(f).read())
                with open(f, "w") as fh:
                    fh.write(text)


def writes_for(snap):
    """Every write method the board offers, as generators of
    (label, busctl args, object path): each step is made from the state
    just before it, away from the current value."""
    fan = "/org/jetsond/Jetson1/fan/0"
    if "fan.0.speed" in snap:
        # Far from the current speed, so the PWM value surely changes.
        speed = "80" if current().get("fan.0.speed", 0) < 50 else "20"
        yield "Fan.SetSpeed " + speed, ["call", IFACE + "Fan", "SetSpeed", "d", speed], fan
        prof = "quiet" if current().get("fan.0.profile") != "quiet" else "cool"
        yield "Fan.SetProfile " + prof, ["call", IFACE + "Fan", "SetProfile", "s", prof], fan
    if "nvpmodel.mode" in snap:
        cur = int(current()["nvpmodel.mode"])
        default = nvpmodel_prop("DefaultMode")
        # Every other mode until one needs no reboot (CPU cores or TPCs
        # differ: jetsond answers that a reboot is needed, as nvpmodel asks).
        for m in [m for m in nvpmodel_prop("Modes") if m != cur]:
            p = busctl(["call", IFACE + "NVPModel", "SetMode", "u", str(m)], user="alice")
            if "reboot" not in p.stderr:
                break
            say("     (mode %d needs a reboot: %s)" % (m, p.stderr.strip()))
        cur2 = int(current()["nvpmodel.mode"])
        check(cur2 != cur, "NVPModel.SetMode away from mode %d as alice: now %d" % (cur, cur2), p.stderr.strip())
        yield "NVPModel.SetMode %d" % cur, ["call", IFACE + "NVPModel", "SetMode", "u", str(cur)], None
        other = [m for m in nvpmodel_prop("Modes") if m != default][0]
        yield "NVPModel.SetDefaultMode %d" % other, ["call", IFACE + "NVPModel", "SetDefaultMode", "u", str(other)], None
        yield "NVPModel.SetDefaultMode %d" % default, ["call", IFACE + "NVPModel", "SetDefaultMode", "u", str(default)], None
    if "jetson_clocks.active" in snap:
        yield "JetsonClocks.SetActive true", ["call", IFACE + "JetsonClocks", "SetActive", "b", "true"], None
        yield "JetsonClocks.SetOnBoot true", ["call", IFACE + "JetsonClocks", "SetOnBoot", "b", "true"], None
    for key, method in (("gpu.3d_scaling", "SetScaling3D"), ("gpu.railgate", "SetRailgate")):
        if key in snap:
            want = "false" if current().get(key) else "true"
            yield "Gpu.%s %s" % (method, want), ["call", IFACE + "Gpu", method, "b", want], None
    yield "Memory.CreateSwap 64 MiB", ["call", IFACE + "Memory", "CreateSwap", "tb", str(64 << 20), "false"], None
    yield "Memory.RemoveSwap", ["call", IFACE + "Memory", "RemoveSwap"], None


def current():
    snap, _ = snapshot()
    return snap or {}


def nvpmodel_prop(name):
    p = run(["busctl", "--system", "--json=short", "get-property"] + BUS + [IFACE + "NVPModel", name])
    data = json.loads(p.stdout)["data"]
    return [m[0] for m in data] if name == "Modes" else data


def check_activation(board):
    check(unit_prop("jetsond.service", "ActiveState") != "active", board + ": jetsond not running before the first call")
    snap, err = snapshot()
    check(snap is not None, board + ": GetSnapshot (D-Bus activation)", err)
    pid = unit_prop("jetsond.service", "MainPID")
    exe = os.readlink("/proc/%s/exe" % pid) if pid not in ("", "0") else ""
    check(unit_prop("jetsond.service", "ActiveState") == "active" and exe == "/usr/libexec/jetsond",
          board + ": started by systemd as jetsond.service (MainPID %s, %s)" % (pid, exe))
    return snap, int(pid or 0)


def check_keys(board, snap):
    want = {normalize(k) for k in open(os.path.join(T, "expected", board + ".keys")).read().split()}
    have = {normalize(k) for k in snap}
    missing = sorted(want - have)
    check(not missing, board + ": every key of the board (%d families)" % len(want), " ".join(missing[:40]))


def check_other_user(board, snap, pid, jpid):
    name, user, rss = (snap.get("process.%d.%s" % (pid, k)) for k in ("name", "user", "rss"))
    if name is None:        # what jetsond's mount namespace shows
        for cmd in (["cat", "/sys/kernel/debug/nvmap/iovmm/clients"], ["ls", "-ld", "/proc/%d" % pid],
                    ["cat", "/proc/%d/status" % pid]):
            p = run(["nsenter", "-t", str(jpid), "-m", "--"] + cmd)
            say("     in jetsond's namespace: %s: %s %s" % (" ".join(cmd), p.stdout.strip()[:600], p.stderr.strip()))
    # The name is nvmap's for a Tegra GPU client ("Xorg" in the board's
    # table), the process's own for NVML's: the user and RSS are /proc's.
    check(name in ("sleep", "Xorg") and user == "bob" and isinstance(rss, (int, float)) and rss > 0,
          board + ": bob's GPU process %d: name %r, user %r, rss %r" % (pid, name, user, rss))


def check_nvml(board, snap, jpid):
    dg = sorted({k.split(".")[1] for k in snap if k.startswith("dgpu.")})
    want = len(json.load(open(os.path.join(T, "nvml", board + ".json")))["devices"])
    if board.startswith("agx-thor"):
        check("gpu.load" in snap and "gpu.temp" in snap,
              board + ": the iGPU's load and temperature through NVML (gpu.load %r)" % snap.get("gpu.load"))
    else:
        check(len(dg) == want, board + ": NVML's GPUs on the bus: %s of %d" % (dg, want))
    # CUSE names the calling thread: any of jetsond's (NVML is read in a
    # thread of each GPU's).
    tids = set(os.listdir("/proc/%d/task" % jpid))
    opens, logs = {}, []
    for node in ("nvidiactl", "nvidia0"):
        log = "/run/vmtest/%s.log" % node
        text = open(log).read() if os.path.exists(log) else ""
        logs.append("%s: %s" % (node, " ".join(text.split()[-6:])))
        opens[node] = any(l.startswith("open pid=") and l.split("=")[1] in tids for l in text.splitlines())
    check(all(opens.values()), board + ": jetsond opened /dev/nvidiactl and /dev/nvidia0 (%s)" % opens,
          "; ".join(logs) + "; jetsond's threads " + " ".join(sorted(tids)))


def check_writes(board, b, snap):
    initial = b.state()
    for label, args, path in writes_for(snap):
        before = b.state()
        p = busctl(args, user="alice", path=path)
        after = b.state()
        ch = changed(before, after)
        check(p.returncode == 0 and ch, board + ": %s as alice (group jetson): %d files changed" % (label, len(ch)),
              (p.stderr.strip() or "nothing changed") + " " + " ".join(ch[:6]))
    p = busctl(["call", IFACE + "Fan", "SetSpeed", "d", "30"], user="bob", path="/org/jetsond/Jetson1/fan/0") \
        if "fan.0.speed" in snap else busctl(["call", IFACE + "Memory", "DropCaches"], user="bob")
    check(p.returncode != 0 and any(w in p.stderr for w in ("Not authorized", "Access denied", "AccessDenied")),
          board + ": bob (not in group jetson) is refused", p.stderr.strip())
    # DropCaches: the one file is write-only; the page cache shows it.
    with open("/var/tmp/vmtest-cache", "wb") as f:
        f.write(os.urandom(64 << 20))
    open("/var/tmp/vmtest-cache", "rb").read()
    cached = meminfo("Cached")
    p = busctl(["call", IFACE + "Memory", "DropCaches"], user="alice")
    now = meminfo("Cached")
    check(p.returncode == 0 and now < cached - (32 << 10),
          board + ": Memory.DropCaches: Cached %d -> %d kB" % (cached, now), p.stderr.strip())
    os.unlink("/var/tmp/vmtest-cache")
    p = busctl(["call", IFACE + "Manager", "RestoreDefaults"], user="alice")
    check(p.returncode == 0, board + ": Manager.RestoreDefaults as alice", p.stderr.strip())
    say("     " + p.stdout.strip()[:400])
    final = b.state()
    # The fan's PWM is nvfancontrol's again (its profile is checked below).
    left = [f for f in changed(initial, final) if "railgate" in f or "3d_scaling" in f
            or f.endswith("/governor") or "power/control" in f]
    check(not left, board + ": RestoreDefaults put the fan, GPU and clock files back", " ".join(left[:10]))
    time.sleep(2.5)                     # a sample taken after the restore
    snap2 = current()
    want = {"jetson_clocks.active": False, "gpu.3d_scaling": True, "gpu.railgate": True}
    if "nvpmodel.mode" in snap:
        default = nvpmodel_prop("DefaultMode")
        # A default mode that needs a reboot applies at the next boot.
        if not re.search(r'"nvpmodel: [^"]*-> %d [^"]*needs a reboot' % default, p.stdout):
            want["nvpmodel.mode"] = default
    for k, v in sorted(want.items()):
        if k in snap:
            check(snap2.get(k) == v, board + ": after RestoreDefaults %s = %r (default %r)" % (k, snap2.get(k), v))
    if "fan.0.profile" in snap:         # the fan is nvfancontrol's again
        check(snap2.get("fan.0.profile") not in (None, "manual"),
              board + ": after RestoreDefaults fan.0.profile = %r, not manual" % snap2.get("fan.0.profile"))


def meminfo(field):
    for line in open("/proc/meminfo"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def sandbox_log(board):
    j = run(["journalctl", "-b", "-u", "jetsond.service", "--no-pager", "-o", "cat"]).stdout
    bad = [l for l in j.splitlines() if "sandbox" in l or "Read-only file system" in l or "Permission denied" in l]
    check(not bad, board + ": jetsond's journal names no path its sandbox refused", " | ".join(bad[:8]))


def send_frames(n):
    """n raw frames out of vt0 to its veth peer: traffic in the VM's own
    (PID 1's) network namespace, none of it leaving the VM."""
    import socket
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind(("vt0", 0))
    frame = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + bytes(100)   # local experimental type
    for _ in range(n):
        s.send(frame)
    s.close()
    return n * len(frame)


def check_net(board, snap):
    """PrivateNetwork=yes: net.tx_bytes still counts the machine's interfaces."""
    before = snap.get("net.tx_bytes", 0)
    sent = send_frames(1000)
    time.sleep(2.5)
    after, _ = snapshot()
    delta = (after or {}).get("net.tx_bytes", 0) - before
    check(delta >= sent, board + ": net.tx_bytes counts %d bytes sent on a veth of the VM: +%d" % (sent, delta))


def one_board(board, bob, last_board):
    say("== " + board)
    b = Board(board)
    b.lay()
    try:
        gpu_process(board, bob)
        snap, jpid = check_activation(board)
        if snap is None:
            return
        time.sleep(2.5)                 # a second sample: GPU processes and rates
        snap, _ = snapshot()
        check_keys(board, snap)
        check_other_user(board, snap, bob, jpid)
        check_net(board, snap)
        if os.path.exists(os.path.join(T, "nvml", board + ".json")):
            check_nvml(board, snap, jpid)
        check_writes(board, b, snap)
        sandbox_log(board)
        if board == last_board:
            exporter()
    finally:
        say(run(["journalctl", "-b", "-u", "jetsond.service", "--no-pager", "-o", "cat", "-n", "15"]).stdout)
        b.remove()


def security(unit, limit):
    p = run(["systemd-analyze", "security", "--no-pager", unit])
    m = re.search(r"Overall exposure level for \S+: ([0-9.]+)", p.stdout)
    score = float(m.group(1)) if m else 99.0
    say("   figure: systemd-analyze security %s (booted, systemd %s): %s" %
        (unit, run(["systemctl", "--version"]).stdout.split()[1], score))
    check(score <= limit, "%s exposure %.1f <= %.1f" % (unit, score, limit))


def exporter():
    say("== jetsond-exporter under its units")
    run(["systemctl", "start", "jetsond-exporter.socket"], check_rc=True)
    port = re.search(r":(\d+)", unit_prop("jetsond-exporter.socket", "Listen")).group(1)
    body = ""
    families = ("jetson_up 1", "jetson_cpu_frequency_hertz{", "jetson_dgpu_power_watts{")
    for _ in range(90):
        body = run(["curl", "-sf", "http://127.0.0.1:%s/metrics" % port]).stdout
        if all(f in body for f in families):
            break
        time.sleep(1)
    else:
        say(run(["journalctl", "-b", "--no-pager", "-n", "60"]).stdout)
        say(body[:3000])
    check(all(f in body for f in families),
          "exporter: a scrape on 127.0.0.1:%s has jetson_up 1, the PC's CPU and its NVML GPUs" % port,
          " ".join(sorted({l.split("{")[0].split()[0] for l in body.splitlines() if l.startswith("jetson_")})))
    pid = unit_prop("jetsond-exporter.service", "MainPID")
    uid = [l.split()[1] for l in open("/proc/%s/status" % pid) if l.startswith("Uid:")][0] if pid not in ("", "0") else "?"
    user = run(["id", "-nu", uid]).stdout.strip() if uid != "?" else "?"
    check(user == "jetsond-exporter", "exporter: runs as its system user (uid %s, %s)" % (uid, user))
    security("jetsond-exporter.service", 1.1)


def main():
    out = open("/dev/ttyS1", "w", buffering=1)
    sys.stdout = sys.stderr = out
    say("vm: systemd %s, kernel %s" % (run(["systemctl", "--version"]).stdout.split()[1], os.uname().release))
    os.makedirs("/run/vmtest", exist_ok=True)
    run(["modprobe", "cuse"], check_rc=True)
    # The driver's nodes: 195:255 and 195:N, under the names the driver gives
    # the region in /proc/devices; the /dev names as the driver's.
    for name, minor, node in (("nvidia-frontend", 255, "nvidiactl"), ("nvidia", 0, "nvidia0"),
                              ("nvidia-gpu1", 1, "nvidia1")):
        run([T + "/cuse-nvidia", name, "195", str(minor), "/run/vmtest/%s.log" % node], check_rc=True)
        for _ in range(50):
            if os.path.exists("/dev/" + name):
                break
            time.sleep(0.1)
        if not os.path.exists("/dev/" + node):
            os.mknod("/dev/" + node, 0o20666, os.makedev(195, minor))
        os.chmod("/dev/" + node, 0o666)
    say("   /proc/devices: " + " ".join(l.strip() for l in open("/proc/devices") if " nvidia" in l))
    run(["ip", "link", "add", "vt0", "type", "veth", "peer", "name", "vt1"], check_rc=True)
    for link in ("vt0", "vt1"):
        run(["ip", "link", "set", link, "up"], check_rc=True)
    bob = subprocess.Popen(["runuser", "-u", "bob", "--", "sleep", "infinity"])
    time.sleep(0.5)
    bob_pid = int(run(["pgrep", "-u", "bob", "-x", "sleep"]).stdout.split()[0])
    try:
        for board in sys.argv[1:]:
            try:
                one_board(board, bob_pid, sys.argv[-1])
            except Exception:           # one board's breakage is its failure, not the run's end
                check(False, board, traceback.format_exc())
        security("jetsond.service", 1.5)
    except Exception:
        check(False, "the run", traceback.format_exc())
    finally:
        bob.kill()
        say("vm: %d passed, %d failed" % (passed, failed))


if __name__ == "__main__":
    main()
