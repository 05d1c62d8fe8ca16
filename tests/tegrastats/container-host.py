#!/usr/bin/python3
"""The host side of scripts/test-container.sh: `jetsonctl tegrastats` from
the Debian package, run in a real container that has nothing of the host
but the system bus socket.

    container-host.py ROOT WORK JETSOND JETSONCTL

ROOT is an unpacked Debian 12 root with jetsonctl installed (no jetsond in
it), WORK a scratch directory. On the host: a private system bus with the
project's policy and JETSOND on a fake AGX Orin (tests/lib/harness.py),
its second /proc/stat in place so that every CPU load is known. Then, in
`podman --runtime /usr/sbin/runc run --network=none --cap-drop=ALL --user
1000:1000` with only the bus socket bind-mounted to
/run/dbus/system_bus_socket (its own PID namespace, no privileges):

- /usr/libexec/jetsonctl/tegrastats --interval 200, the name the package
  installs;
- tegrastats found on PATH=/usr/libexec/jetsonctl:$PATH, as the docs tell
  a container to call it;
- --logfile into a directory of the host mounted at /log (appending);
- --start, then --stop, in the container's own PID namespace.

Each ends by SIGINT from `timeout --preserve-status` (so the exit status is
tegrastats' own: 0) or by --stop. On the host: exit status 0, nothing on
stderr, at least 2 lines, each read by the project's reference parser
(tegrastats_ref.parse) and printed back exactly (tegrastats_ref.format),
with the board's values: those of jetsond's snapshot read on the host with
JETSONCTL --json get '*'. Prints each run's wall time as a `figure:` line.
Exit 0 when every check passes, 1 otherwise."""

import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_DIR = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SOURCE_DIR, "tests", "lib"))
sys.path.insert(0, HERE)
import harness  # noqa: E402  (the bus, board and jetsond stack)
import tegrastats_ref as ref  # noqa: E402

BOARD = "agx-orin-jp62"
UID = 1000
TEGRASTATS = "/usr/libexec/jetsonctl/tegrastats"
# SIGINT after 3 s; --preserve-status: timeout exits with tegrastats' own
# status (0 on SIGINT), not 124. -k: a tegrastats that ignored SIGINT is
# killed 10 s later (status 137), and fails.
TIMEOUT = ["timeout", "--preserve-status", "-k", "10", "-s", "INT", "3"]
HEADER = "Mon Dec  7 00:00:00 UTC 2026\n"
# In the container's shell, first: it is the container asked for (its own
# PID namespace with the shell as PID 1, uid and gid 1000, no capability,
# no network but lo), or exit 3 saying what it is.
CONTAINER_AS_ASKED = (
    '[ "$$" = 1 ] && [ "$(id -u):$(id -g)" = 1000:1000 ] && '
    'grep -q "^CapEff:[[:space:]]*0*$" /proc/self/status && [ "$(ls /sys/class/net)" = lo ] || '
    '{ echo "not the container asked for: PID $$, $(id), $(grep CapEff /proc/self/status),'
    ' network interfaces $(ls /sys/class/net | tr "\\n" " ")" >&2; exit 3; }; ')
# In the container's shell: a tegrastats is still running (not a zombie:
# the shell, its PID 1, need not reap the writer --start left behind).
RUNNING = "grep -qs '^[0-9]* (tegrastats) [^Z]' /proc/[0-9]*/stat"


def podman(root, socket_path, log_dir, command):
    return ["podman", "--runtime", "/usr/sbin/runc", "run", "--rm", "--network=none", "--cap-drop=ALL",
            "--user", f"{UID}:{UID}", "-v", f"{socket_path}:/run/dbus/system_bus_socket",
            "-v", f"{log_dir}:/log", "--rootfs", root, *command]


def snapshot(jetsonctl):
    r = subprocess.run([jetsonctl, "--json", "get", "*"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, f"jetsonctl --json get '*': exit {r.returncode}: {r.stderr}"
    return json.loads(r.stdout)


def check_values(fields, snap, what):
    """The line's numbers are the board's: those jetsond gives on the host."""
    ram = ref.find(fields, "ram")[0].values
    assert (ram["used"], ram["total"]) == (snap["ram.used"] // 1024, snap["ram.total"] // 1024), \
        f"{what}: RAM {ram['used']}/{ram['total']} MB, jetsond {snap['ram.used']}/{snap['ram.total']} kB"
    swap = ref.find(fields, "swap")
    if "swap.total" in snap:
        assert swap and (swap[0].values["used"], swap[0].values["total"]) == \
            (snap["swap.used"] // 1024, snap["swap.total"] // 1024), f"{what}: SWAP {swap}"
    cores = ref.find(fields, "cpu")[0].values["cores"]
    assert len(cores) == len([k for k in snap if k.endswith(".online") and k.startswith("cpu.")]), \
        f"{what}: {len(cores)} cores"
    for n, core in enumerate(cores):
        if core is None:
            assert snap[f"cpu.{n}.online"] is False, f"{what}: core {n} off"
            continue
        assert abs(core["load"] - snap[f"cpu.{n}.load"]) <= 0.5 and core["freq"] == snap[f"cpu.{n}.freq"] // 1000, \
            f"{what}: core {n} {core}, jetsond {snap[f'cpu.{n}.load']}%@{snap[f'cpu.{n}.freq']} kHz"
    if "emc.load" in snap:
        emc = ref.find(fields, "emc")[0].values
        assert abs(emc["load"] - snap["emc.load"]) <= 0.5 and emc["freq"] == snap["emc.freq"] // 1000, \
            f"{what}: EMC {emc}"
    gpu = ref.find(fields, "gr3d", "GR3D_FREQ")[0].values
    assert gpu["load"] == round(snap["gpu.load"]) and \
        gpu["freqs"] == [snap["gpu.gpc0.freq"] // 1000, snap["gpu.gpc1.freq"] // 1000], f"{what}: GR3D {gpu}"
    rails = {f.name: f.values["cur"] for f in ref.find(fields, "rail")}
    want = {k[len("power."):-len(".power")]: v for k, v in snap.items()
            if k.startswith("power.") and k.endswith(".power")}
    assert rails == want, f"{what}: rails {rails} (mW), jetsond {want}"
    for f in ref.find(fields, "temp"):
        key = "temp." + f.name.lower()
        assert key in snap and abs(f.values["cur"] - snap[key]) <= 0.0005, \
            f"{what}: {f.name}@{f.values['cur']}C, jetsond {snap.get(key)}"


def check_lines(text, snap, what):
    lines = text.splitlines(keepends=True)
    assert len(lines) >= 2, f"{what}: {len(lines)} lines: {text!r}"
    for line in lines:
        assert line.endswith("\n"), f"{what}: an unfinished line {line!r}"
        fields = ref.parse(line[:-1])
        assert ref.format(fields) == line[:-1], f"{what}: does not print back as read: {line!r}"
        check_values(fields, snap, what)
    return lines


def run(root, socket_path, log_dir, what, command):
    argv = podman(root, socket_path, log_dir, command)
    started = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    took = time.monotonic() - started
    print(f"   figure: container run \"{what}\" {took:.1f} s")
    assert r.returncode == 0, f"{what}: exit {r.returncode}\n$ {' '.join(argv)}\n{r.stdout}{r.stderr}"
    assert r.stderr == "", f"{what}: stderr {r.stderr!r}"
    return r.stdout


def main():
    root, work, jetsond, jetsonctl = sys.argv[1:5]
    log_dir = os.path.join(work, "log")
    os.makedirs(log_dir)
    os.chown(log_dir, UID, UID)
    failures = 0
    with harness.Stack(jetsond, None, board=BOARD) as stack:
        stack.start_daemon()
        shutil.copy(os.path.join(SOURCE_DIR, "tests/fixtures/proc-stat", BOARD + "-b"),
                    os.path.join(stack.root, "proc", "stat"))
        harness.wait_for(lambda: "cpu.0.load" in snapshot(jetsonctl), 20, "CPU loads")
        snap = snapshot(jetsonctl)
        # dbus-daemon makes its socket rw for everyone, as the real system
        # bus's; uid 1000 in the container reaches it through the bind mount.
        socket_path = os.path.join(stack.dir, "system_bus_socket")
        mode = os.stat(socket_path).st_mode & 0o777
        assert mode & 0o006 == 0o006, f"the bus socket is {oct(mode)}: uid {UID} cannot connect"

        def checked(what, command, from_log=None):
            nonlocal failures
            try:
                out = run(root, socket_path, log_dir, what, command)
                if from_log:
                    assert out == "", f"{what}: stdout {out!r} (the lines go to the log file)"
                    text = open(os.path.join(log_dir, from_log)).read()
                    assert text.startswith(HEADER), f"{what}: the log file was not appended to: {text[:200]!r}"
                    out = text[len(HEADER):]
                lines = check_lines(out, snap, what)
                print(f"ok   {what}: {len(lines)} lines, the first:\n     {lines[0].rstrip()}", flush=True)
            except (AssertionError, ValueError, OSError, subprocess.TimeoutExpired) as e:
                text = str(e) if str(e).startswith(what) else f"{what}: {e}"
                print(f"FAIL {text}", flush=True)
                failures += 1

        checked("/usr/libexec/jetsonctl/tegrastats --interval 200",
                [*TIMEOUT, TEGRASTATS, "--interval", "200"])
        checked("tegrastats --interval 200 on PATH=/usr/libexec/jetsonctl:$PATH",
                ["sh", "-c", CONTAINER_AS_ASKED + 'PATH=/usr/libexec/jetsonctl:$PATH; export PATH; '
                 '[ "$(command -v tegrastats)" = %s ] || '
                 '{ echo "tegrastats is $(command -v tegrastats)" >&2; exit 3; }; '
                 'exec %s tegrastats --interval 200' % (TEGRASTATS, " ".join(TIMEOUT))])
        for name in ("tegrastats.log", "background.log"):
            with open(os.path.join(log_dir, name), "w") as f:
                f.write(HEADER)
            os.chown(os.path.join(log_dir, name), UID, UID)
        checked("tegrastats --interval 200 --logfile /log/tegrastats.log",
                [*TIMEOUT, TEGRASTATS, "--interval", "200", "--logfile", "/log/tegrastats.log"],
                from_log="tegrastats.log")
        # --stop finds this program's writers in the container's own /proc;
        # the shell (PID 1) waits until the writer is gone, so no line is cut
        # off by the end of the container.
        checked("tegrastats --start, then --stop",
                ["sh", "-ec", f"{TEGRASTATS} --interval 200 --logfile /log/background.log --start; sleep 2; "
                 f"{TEGRASTATS} --stop; n=0; while {RUNNING}; do n=$((n + 1)); "
                 "[ $n -le 100 ] || { echo 'tegrastats --stop left it running' >&2; exit 3; }; sleep 0.1; done"],
                from_log="background.log")
        after = snapshot(jetsonctl)
        for key in ("ram.used", "cpu.0.load", "power.VDD_GPU_SOC.power"):
            if after.get(key) != snap.get(key):
                print(f"FAIL the board changed during the runs: {key} {snap.get(key)} -> {after.get(key)}")
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
